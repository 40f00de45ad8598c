/* bare_point_select: the "floor" for lbench's point-select benchmark.
 *
 * The least client work that can run sysbench's point select: libmariadb
 * prepared statement "SELECT c FROM sbtest1 WHERE id=?", execute, store,
 * fetch, free, in a tight loop on T threads for N seconds.  No scripting,
 * no accounting, no latency histogram.  Whatever lbench (or sysbench)
 * spends above this, per query, is engine overhead.
 *
 * Prints queries, QPS and client CPU microseconds per query (getrusage of
 * the whole process over the measured interval, connection setup excluded).
 * The loop, threads, timing and report are bare_harness.c's; this file is
 * the Connector/C part.
 *
 * Build: make build/bare_point_select, or
 *        gcc -std=c11 -O2 -D_GNU_SOURCE $(mariadb_config --cflags) contrib/bare_point_select.c \
 *          contrib/bare_harness.c -o bare_point_select $(mariadb_config --libs) -lpthread
 * Usage: bare_point_select -h 127.0.0.1 -P 3306 -u sbtest -p sbtest -d sbtest
 *                          -t threads -T seconds -n table_size [-S socket]
 */
#include "bare_harness.h"

#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One connection: the statement and the buffers its binds point into
 * (they must stay where they are for as long as the statement lives). */
typedef struct my_conn {
    MYSQL *m;
    MYSQL_STMT *st;
    long long id;
    MYSQL_BIND pb, rb;
    char cbuf[256];
    unsigned long clen;
    my_bool cnull, cerr;
} my_conn;

static void my_close(void *p)
{
    my_conn *c = p;
    if (!c)
        return;
    if (c->st)
        mysql_stmt_close(c->st);
    if (c->m)
        mysql_close(c->m);
    free(c);
}

static int bind_params(my_conn *c)
{
    c->pb.buffer_type = MYSQL_TYPE_LONGLONG;
    c->pb.buffer = &c->id;
    c->rb.buffer_type = MYSQL_TYPE_STRING;
    c->rb.buffer = c->cbuf;
    c->rb.buffer_length = sizeof c->cbuf;
    c->rb.length = &c->clen;
    c->rb.is_null = &c->cnull;
    c->rb.error = &c->cerr;
    return mysql_stmt_bind_param(c->st, &c->pb) || mysql_stmt_bind_result(c->st, &c->rb);
}

static void *my_open(int idx, const bare_opts *o)
{
    my_conn *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "thread %d: connect: %s\n", idx, "out of memory");
        return NULL;
    }
    c->m = mysql_init(NULL);
    if (!c->m || !mysql_real_connect(c->m, o->host, o->user, o->pass, o->dbname,
                                     (unsigned int)atoi(o->port), o->sock, 0)) {
        fprintf(stderr, "thread %d: connect: %s\n", idx, c->m ? mysql_error(c->m) : "mysql_init failed");
        my_close(c);
        return NULL;
    }
    static const char sql[] = "SELECT c FROM sbtest1 WHERE id=?";
    c->st = mysql_stmt_init(c->m);
    if (!c->st || mysql_stmt_prepare(c->st, sql, sizeof sql - 1)) {
        fprintf(stderr, "thread %d: prepare: %s\n", idx, c->st ? mysql_stmt_error(c->st) : mysql_error(c->m));
        my_close(c);
        return NULL;
    }
    if (bind_params(c)) {
        fprintf(stderr, "thread %d: bind: %s\n", idx, mysql_stmt_error(c->st));
        my_close(c);
        return NULL;
    }
    return c;
}

static int my_query(void *p, int idx, long long id, uint64_t *rows)
{
    my_conn *c = p;
    c->id = id;
    if (mysql_stmt_execute(c->st) || mysql_stmt_store_result(c->st)) {
        fprintf(stderr, "thread %d: execute: %s\n", idx, mysql_stmt_error(c->st));
        return 1;
    }
    while (mysql_stmt_fetch(c->st) == 0)
        (*rows)++;
    mysql_stmt_free_result(c->st);
    return 0;
}

static int my_library_init(void)
{
    if (mysql_library_init(0, NULL, NULL)) {
        fprintf(stderr, "mysql_library_init failed\n");
        return 1;
    }
    return 0;
}

static void my_library_end(void)
{
    mysql_library_end();
}

/* Connector/C keeps per-thread state that each thread must set up and
 * release itself. */
static void my_thread_begin(void)
{
    mysql_thread_init();
}

static void my_thread_end(void)
{
    mysql_thread_end();
}

int main(int argc, char **argv)
{
    static const bare_client client = {
        .optstring = "h:P:S:u:p:d:t:T:n:",
        .usage_target = "[-h host] [-P port] [-S socket]",
        .default_port = "3306",
        .reject_operands = 0,
        .library_init = my_library_init,
        .library_end = my_library_end,
        .thread_begin = my_thread_begin,
        .thread_end = my_thread_end,
        .open = my_open,
        .query = my_query,
        .close = my_close,
    };
    return bare_main(argc, argv, &client);
}
