/* bare_pg_point_select: the "floor" for lbench's point-select benchmark on
 * PostgreSQL, the libpq twin of bare_point_select.c.
 *
 * The least client work that can run sysbench's point select on libpq:
 * "SELECT c FROM sbtest1 WHERE id=$1" prepared once per connection
 * (PQprepare), then PQexecPrepared with one text parameter, a check of the
 * result status, PQntuples, PQclear, in a tight loop on T threads (one
 * connection each) for N seconds.  No scripting, no accounting, no latency
 * histogram.  Whatever lbench (or sysbench) spends above this, per query,
 * is engine overhead.
 *
 * Prints queries, QPS and client CPU microseconds per query with the
 * user/sys split (getrusage of the whole process over the measured
 * interval, connection setup excluded) and the mean latency.  The loop,
 * threads, timing and report are bare_harness.c's; this file is the libpq
 * part.
 *
 * Build: make build/bare_pg_point_select, or
 *        gcc -std=c11 -O2 -D_GNU_SOURCE $(pkg-config --cflags libpq) contrib/bare_pg_point_select.c \
 *          contrib/bare_harness.c -o bare_pg_point_select $(pkg-config --libs libpq) -lpthread
 * Usage: bare_pg_point_select -h 127.0.0.1 -P 5432 -u sbtest -p sbtest -d sbtest
 *                             -t threads -T seconds -n table_size
 *        (-h may name the directory of the server's unix socket, as in libpq)
 */
#include "bare_harness.h"

#include <libpq-fe.h>
#include <stdio.h>

/* pg_open: one connection with the statement "ps" prepared, or NULL
 * (reported on stderr). */
static void *pg_open(int idx, const bare_opts *o)
{
    const char *keys[] = { "host", "port", "user", "password", "dbname", "application_name", NULL };
    const char *vals[] = { o->host, o->port, o->user, o->pass, o->dbname, "bare_pg_point_select", NULL };
    PGconn *c = PQconnectdbParams(keys, vals, 0);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "thread %d: connect: %s", idx, c ? PQerrorMessage(c) : "out of memory\n");
        PQfinish(c);
        return NULL;
    }
    PGresult *r = PQprepare(c, "ps", "SELECT c FROM sbtest1 WHERE id=$1", 1, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "thread %d: prepare: %s", idx, PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        return NULL;
    }
    PQclear(r);
    return c;
}

static int pg_query(void *conn, int idx, long long id, uint64_t *rows)
{
    PGconn *c = conn;
    char buf[24];
    const char *params[1] = { buf };
    snprintf(buf, sizeof buf, "%lld", id);
    PGresult *r = PQexecPrepared(c, "ps", 1, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        fprintf(stderr, "thread %d: execute: %s", idx, PQerrorMessage(c));
        PQclear(r);
        return 1;
    }
    *rows += (uint64_t)PQntuples(r);
    PQclear(r);
    return 0;
}

static void pg_close(void *conn)
{
    PQfinish(conn);
}

/* One connection per thread is safe only with a thread-safe libpq. */
static int pg_library_init(void)
{
    if (!PQisthreadsafe()) {
        fprintf(stderr, "libpq is not thread-safe\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const bare_client client = {
        .optstring = "h:P:u:p:d:t:T:n:",
        .usage_target = "[-h host|socket_dir] [-P port]",
        .default_port = "5432",
        .reject_operands = 1,
        .library_init = pg_library_init,
        .open = pg_open,
        .query = pg_query,
        .close = pg_close,
    };
    return bare_main(argc, argv, &client);
}
