/* PostgreSQL driver on libpq: its ops table, connection set-up, results,
 * errors and statement parameters.  The operations (connect, query,
 * prepare, execute) run on libpq's asynchronous calls in pgsql_op.c.
 *
 * Only protocol work lives here; classification, accounting, waiting and
 * statement bookkeeping are the core's (db.h).  Errors carry the server's
 * SQLSTATE, as the code lb_db_sqlstate_code gives it.  Rows come back as
 * text (values point into libpq's PGresult, no copy).  Parameters are
 * prepared untyped, so the server infers each placeholder's type from the
 * statement (sysbench's scripts bind integers to CHAR columns and back);
 * the Describe tells what it inferred, and an integer or double bound to
 * an int2/int4/int8/float8 placeholder then goes in binary, the rest as
 * text. */
#include "pgsql.h"
#include "../../clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* ---- errors -------------------------------------------------------------- */

/* libpq's messages end with a newline (and may hold several lines):
 * keep the first line. */
static void first_line(char *dst, size_t cap, const char *msg)
{
    size_t n = strcspn(msg, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, msg, n);
    dst[n] = '\0';
}

void lb__db_pg_error(lb_db_error *err, PGconn *pg, const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(pg);
    if (!state || strlen(state) != 5)
        state = PQstatus(pg) == CONNECTION_BAD ? "08006" : "XX000";
    char line[sizeof err->message];
    first_line(line, sizeof line, msg && *msg ? msg : "unknown error");
    lb__db_error_set(err, lb_db_sqlstate_code(state), state, line);
    /* libpq's whole text of a server's error (pgbench prints it so),
     * without its last newline */
    const char *report = r ? PQresultErrorMessage(r) : NULL;
    if (report && *report) {
        snprintf(err->report, sizeof err->report, "%s", report);
        size_t n = strlen(err->report);
        while (n > 0 && err->report[n - 1] == '\n')
            err->report[--n] = '\0';
    }
}

/* ---- connection set-up ------------------------------------------------- */

static const char *sslmode_name(int mode)
{
    switch (mode) {
    case LB_DB_SSL_DISABLED: return "disable";
    case LB_DB_SSL_REQUIRED: return "require";
    case LB_DB_SSL_VERIFY_CA: return "verify-ca";
    case LB_DB_SSL_VERIFY_IDENTITY: return "verify-full";
    default: return "prefer";
    }
}

/* libpq keywords for `o`.  With a connection string it is the whole
 * connection spec (libpq expands the first dbname), and only the
 * application name and timeout come first, as defaults it may override. */
static int conn_params(const lb_db_conn_opts *o, const char **k, const char **v, char *port, char *tmo)
{
    int n = 0;
    snprintf(tmo, 16, "%d", o->connect_timeout > 0 ? o->connect_timeout : 10);
    k[n] = "application_name", v[n++] = o->app_name ? o->app_name : "lbench";
    k[n] = "connect_timeout", v[n++] = tmo;
    if (o->conninfo) {
        k[n] = "dbname", v[n++] = o->conninfo;
    } else {
        snprintf(port, 16, "%d", o->port > 0 ? o->port : 5432);
        /* A socket path: libpq takes its directory as the host. */
        k[n] = "host", v[n++] = o->socket ? o->socket : o->host ? o->host : "localhost";
        k[n] = "port", v[n++] = port;
        k[n] = "dbname", v[n++] = o->db ? o->db : "sbtest";
        if (o->user)
            k[n] = "user", v[n++] = o->user;
        if (o->password)
            k[n] = "password", v[n++] = o->password;
        k[n] = "sslmode", v[n++] = sslmode_name(o->ssl_mode);
    }
    k[n] = NULL, v[n] = NULL;
    return n;
}

pg_conn *lb__db_pg_conn_start(const lb_db_conn_opts *o, lb_db_error *err)
{
    pg_conn *pc = calloc(1, sizeof *pc);
    if (!pc) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    pc->fd = -1;
    pc->unnamed = o->ps_mode == LB_DB_PS_EXTENDED;
    const char *k[12], *v[12];
    char port[16], tmo[16];
    conn_params(o, k, v, port, tmo);
    pc->pg = PQconnectStartParams(k, v, o->conninfo != NULL);
    if (!pc->pg) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        free(pc);
        return NULL;
    }
    pc->deadline_ns = lb_clock_ns_inline() + (int64_t)(o->connect_timeout > 0 ? o->connect_timeout : 10) * 1000000000;
    return pc;
}

static void pg_disconnect(void *dc)
{
    pg_conn *pc = dc;
    lb__db_pg_drop_results(pc);
    if (pc->op == PG_OP_PREPARE && pc->ast)
        lb__db_pg_stmt_free(pc->ast);   /* a prepare that never completed */
    /* Statements outlive us only as memory: their stmt_close must not
     * talk to the server. */
    for (pg_stmt *ps = pc->stmts; ps; ps = ps->next)
        ps->pc = NULL;
    if (pc->res.r)
        PQclear(pc->res.r);
    if (pc->pfail)
        PQclear(pc->pfail);
    PQfinish(pc->pg);
    free(pc->more);
    free(pc->res.vals);
    free(pc->res.lens);
    free(pc->sql);
    free(pc->rowbuf);
    free(pc);
}

static void pg_abort(void *dc)
{
    pg_conn *pc = dc;
    /* shutdown() rather than close(): the fd stays this connection's, and
     * the owner's wait wakes up with the connection gone. */
    if (pc->fd >= 0)
        shutdown(pc->fd, SHUT_RDWR);
}

static const char *pg_server_version(void *dc)
{
    const char *v = PQparameterStatus(((pg_conn *)dc)->pg, "server_version");
    return v ? v : "";
}

static int pg_in_transaction(void *dc)
{
    switch (PQtransactionStatus(((pg_conn *)dc)->pg)) {
    case PQTRANS_IDLE:
        return 0;
    case PQTRANS_INTRANS:
    case PQTRANS_INERROR:
        return 1;
    default:   /* a command in flight, or the connection gone */
        return -1;
    }
}

static long pg_escape(void *dc, char *to, const char *from, size_t len)
{
    int error = 0;
    size_t n = PQescapeStringConn(((pg_conn *)dc)->pg, to, from, len, &error);
    return error ? -1 : (long)n;
}

static uint64_t pg_affected_rows(void *dc, void *ds)
{
    return ds ? ((pg_stmt *)ds)->affected : ((pg_conn *)dc)->affected;
}

/* ---- results ------------------------------------------------------------- */

void lb__db_pg_drop_results(pg_conn *pc)
{
    if (pc->first)
        PQclear(pc->first);
    pc->first = NULL;
    for (int i = pc->nextmore; i < pc->nmore; i++)
        PQclear(pc->more[i]);
    pc->nmore = pc->nextmore = 0;
}

static int grow_row(pg_result *pr, int nf)
{
    if (nf <= pr->cap)
        return 0;
    const char **v = realloc(pr->vals, sizeof *v * (size_t)nf);
    if (!v)
        return -1;
    pr->vals = v;
    unsigned long *l = realloc(pr->lens, sizeof *l * (size_t)nf);
    if (!l)
        return -1;
    pr->lens = l;
    pr->cap = nf;
    return 0;
}

/* The row count of a command tag: the number after its last space
 * ("UPDATE 3", "INSERT 0 3"), 0 for a tag without one ("BEGIN").  The tags
 * that carry a count (INSERT, UPDATE, DELETE, SELECT, MERGE, FETCH, MOVE,
 * COPY) are the only ones that end in digits, so this is PQcmdTuples'
 * answer without its comparisons of the tag with each of those names
 * (a seventh of the client's own instructions per pgbench statement).
 * Digits only: no strtoull() with its locale and sign handling. */
static uint64_t tag_count(const char *tag)
{
    const char *s = strrchr(tag, ' ');
    if (!s || !*++s)
        return 0;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (uint64_t)(*s - '0');
    return *s ? 0 : v;
}

int lb__db_pg_result_out(PGconn *pg, PGresult *r, pg_result *pr, lb__db_rs *out, uint64_t *affected,
                         lb_db_error *err)
{
    out->h = NULL;
    out->nrows = out->nfields = 0;
    if (!r)
        return 0;   /* an empty query string */
    switch (PQresultStatus(r)) {
    case PGRES_TUPLES_OK:
    case PGRES_SINGLE_TUPLE:
        if (grow_row(pr, PQnfields(r)) != 0) {
            PQclear(r);
            lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
        pr->r = r;
        pr->row = 0;
        pr->nrows = PQntuples(r);
        pr->nf = PQnfields(r);
        *affected = (uint64_t)pr->nrows;
        out->h = pr;
        out->nrows = pr->nrows;
        out->nfields = pr->nf;
        return 0;
    case PGRES_COMMAND_OK:
    case PGRES_EMPTY_QUERY:
        *affected = tag_count(PQcmdStatus(r));
        PQclear(r);
        return 0;
    default:
        lb__db_pg_error(err, pg, r);
        PQclear(r);
        return -1;
    }
}

static int pg_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    (void)err;
    pg_result *pr = h;
    if (pr->row >= pr->nrows)
        return 0;
    for (int c = 0; c < pr->nf; c++) {
        int null = PQgetisnull(pr->r, pr->row, c);
        pr->vals[c] = null ? NULL : PQgetvalue(pr->r, pr->row, c);
        pr->lens[c] = null ? 0 : (unsigned long)PQgetlength(pr->r, pr->row, c);
    }
    pr->row++;
    *values = pr->vals;
    *lengths = pr->lens;
    return 1;
}

static const char *pg_field_name(void *h, int i)
{
    return PQfname(((pg_result *)h)->r, i);
}

static void pg_free_result(void *h)
{
    pg_result *pr = h;
    if (pr->r)
        PQclear(pr->r);
    pr->r = NULL;
    pr->nrows = pr->row = 0;
}

/* ---- statement parameters ------------------------------------------------ */

static int pg_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err)
{
    pg_stmt *ps = ds;
    if (n != ps->np) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "parameter count does not match the statement");
        return -1;
    }
    ps->params = params;
    return 0;
}

/* Room for `need` bytes of parameter i's text. */
static int text_room(pg_stmt *ps, int i, size_t need)
{
    if (need <= ps->textcap[i])
        return 0;
    size_t cap = need < 64 ? 64 : need * 2;
    char *t = realloc(ps->text[i], cap);
    if (!t)
        return -1;
    ps->text[i] = t;
    ps->textcap[i] = cap;
    return 0;
}

/* The server's binary form of an integer or a double parameter whose type
 * the Describe gave as int2/int4/int8/float8, in `out` (8 bytes of room,
 * network byte order); its length, or 0 for the text form (another type,
 * or a value the type cannot hold: the server then says so in text). */
enum { PG_INT2 = 21, PG_INT4 = 23, PG_INT8 = 20, PG_FLOAT8 = 701 };

static int binary_param(const lb_db_bind *b, Oid type, char *out)
{
    int is_int = b->type >= LB_DB_T_TINYINT && b->type <= LB_DB_T_BIGINT;
    uint64_t u;
    int n;
    if (is_int && type == PG_INT8) {
        u = (uint64_t)b->i;
        n = 8;
    } else if (is_int && type == PG_INT4 && b->i >= INT32_MIN && b->i <= INT32_MAX) {
        u = (uint64_t)(uint32_t)(int32_t)b->i;
        n = 4;
    } else if (is_int && type == PG_INT2 && b->i >= INT16_MIN && b->i <= INT16_MAX) {
        u = (uint64_t)(uint16_t)(int16_t)b->i;
        n = 2;
    } else if ((b->type == LB_DB_T_DOUBLE || b->type == LB_DB_T_FLOAT) && type == PG_FLOAT8) {
        memcpy(&u, &b->d, 8);
        n = 8;
    } else {
        return 0;
    }
    for (int k = n - 1; k >= 0; k--) {
        out[k] = (char)(u & 0xff);
        u >>= 8;
    }
    return n;
}

/* Every parameter's value for an execute: numbers whose column type the
 * server told us go in binary (no formatting here, no parsing there),
 * everything else as text. */
int lb__db_pg_fill_params(pg_stmt *ps, lb_db_error *err)
{
    for (int i = 0; i < ps->np; i++) {
        const lb_db_bind *b = &ps->params[i];
        if (b->is_null) {
            ps->values[i] = NULL;
            ps->formats[i] = 0;
            continue;
        }
        size_t need = b->type >= LB_DB_T_TIME ? (size_t)b->len + 1 : 32;
        if (text_room(ps, i, need) != 0) {
            lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
        char *t = ps->text[i];
        int bin = b->type < LB_DB_T_TIME ? binary_param(b, ps->ptypes[i], t) : 0;
        ps->formats[i] = bin > 0;
        ps->lengths[i] = bin;
        if (bin) {
            ps->values[i] = t;
            continue;
        }
        if (b->type >= LB_DB_T_TIME) {
            memcpy(t, b->buf, (size_t)b->len);
            t[b->len] = '\0';
        } else if (b->type == LB_DB_T_FLOAT || b->type == LB_DB_T_DOUBLE) {
            snprintf(t, 32, "%.17g", b->d);
        } else {
            snprintf(t, 32, "%lld", (long long)b->i);
        }
        ps->values[i] = t;
    }
    return 0;
}

static void pg_stmt_close(void *ds)
{
    pg_stmt *ps = ds;
    pg_conn *pc = ps->pc;
    if (pc) {
        for (pg_stmt **p = &pc->stmts; *p; p = &(*p)->next)
            if (*p == ps) {
                *p = ps->next;
                break;
            }
        /* The server keeps a prepared statement for the session: drop it
         * (blocking; statements are closed rarely, never per event). */
        PGTransactionStatusType ts = PQtransactionStatus(pc->pg);
        if (ps->name[0] && pc->op == PG_OP_NONE && PQstatus(pc->pg) == CONNECTION_OK &&
            (ts == PQTRANS_IDLE || ts == PQTRANS_INTRANS)) {
            char sql[64];
            snprintf(sql, sizeof sql, "DEALLOCATE %s", ps->name);
            PGresult *r = PQexec(pc->pg, sql);
            if (r)
                PQclear(r);
        }
    }
    lb__db_pg_stmt_free(ps);
}

void lb__db_pg_stmt_free(pg_stmt *ps)
{
    if (ps->res.r)
        PQclear(ps->res.r);
    if (ps->text)
        for (int i = 0; i < ps->np; i++)
            free(ps->text[i]);
    free(ps->text);
    free(ps->sql);
    free(ps->textcap);
    free(ps->values);
    free(ps->ptypes);
    free(ps->lengths);
    free(ps->formats);
    free(ps->res.vals);
    free(ps->res.lens);
    free(ps);
}

const lb_db_driver_ops lb__db_pgsql_ops = {
    .name = "pgsql",
    .connect_start = lb__db_pg_connect_start,
    .cont = lb__db_pg_cont,
    .fd = lb__db_pg_fd,
    .timeout_ms = lb__db_pg_timeout_ms,
    .disconnect = pg_disconnect,
    .abort = pg_abort,
    .server_version = pg_server_version,
    .in_transaction = pg_in_transaction,
    .query_start = lb__db_pg_query_start,
    .next_result_start = lb__db_pg_next_result_start,
    .fetch = pg_fetch,
    .free_result = pg_free_result,
    .affected_rows = pg_affected_rows,
    .escape = pg_escape,
    .prepare_start = lb__db_pg_prepare_start,
    .stmt_bind = pg_stmt_bind,
    .stmt_execute_start = lb__db_pg_stmt_execute_start,
    .stmt_fetch = pg_fetch,
    .stmt_free_result = pg_free_result,
    .field_name = pg_field_name,
    .stmt_field_name = pg_field_name,
    .stmt_close = pg_stmt_close,
    .load_start = lb__db_pg_load_start,
    .load_data_start = lb__db_pg_load_data_start,
    .load_end_start = lb__db_pg_load_end_start,
    .load_rows_start = lb__db_pg_load_rows_start,
    .pipeline_start = lb__db_pg_pipeline_start,
};
