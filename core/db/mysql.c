/* MySQL/MariaDB driver on MariaDB Connector/C (libmariadb), blocking and
 * non-blocking APIs.
 *
 * Only protocol work lives here; classification, accounting, logging and
 * statement bookkeeping are db.c's.  Each blocking op is one protocol step;
 * the non-blocking twins (async workers) run the same steps through
 * Connector/C's mysql_*_start / mysql_*_cont calls as a small state
 * machine kept in the connection (one operation at a time per
 * connection), with the same state structs.  Connector/C lets blocking
 * calls be mixed in on a non-blocking connection (it switches the socket
 * back), which the rare paths use (leftover multi-statement results of a
 * CALL, closing).
 *
 * Performance choices:
 *  - results are stored client-side (mysql_store_result /
 *    mysql_stmt_store_result) so the connection is free for the next query
 *    immediately and the row count is known without fetching;
 *  - query rows are handed out as the library's own MYSQL_ROW (no copy);
 *  - statement parameters are bound once, pointing straight into the
 *    caller's lb_db_bind array; execute only re-binds when the caller
 *    swapped a buffer or type;
 *  - statement results are bound once to per-column text buffers sized
 *    from the metadata, grown only when a value does not fit.
 */
#include "db.h"

#include <mysql.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* MYSQL_BIND.length is unsigned long *; lb_db_bind.len is uint64_t. */
_Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "LP64 required for in-place length binding");
_Static_assert(sizeof(my_bool) == sizeof(char), "my_bool must alias lb_db_bind.is_null");

#define RESULT_BUF_MIN 64
#define RESULT_BUF_MAX 4096     /* larger columns grow on demand */

typedef struct my_stmt my_stmt;

typedef struct my_conn {
    MYSQL m;
    int fd;             /* cached socket for abort(): never touch MYSQL from another thread */
    /* the non-blocking operation in progress */
    int op;             /* OP_* */
    int step;           /* ST_*: the step to run, or the call waited for */
    int pending;        /* the call of `step` returned a wait status: continue it */
    int ssl_required;
    const char *sql;
    unsigned long len;
    my_stmt *ast;       /* prepare / execute */
    int iret;
    my_bool bret;
    MYSQL *cret;
    MYSQL_RES *res;
} my_conn;

enum { OP_NONE, OP_CONNECT, OP_QUERY, OP_PREPARE, OP_EXECUTE };

struct my_stmt {
    my_conn *mc;        /* only dereferenced while the connection is live */
    MYSQL_STMT *st;
    /* parameters */
    int np;
    MYSQL_BIND *pb;
    lb_db_bind *params;
    int32_t *ptype;     /* type/buf as bound, to detect caller changes */
    char **pbuf;
    /* result columns, as text */
    int nf;
    MYSQL_BIND *rb;
    char **rbuf;
    unsigned long *rcap;
    unsigned long *rlen;
    my_bool *rnull;
    my_bool *rerr;
    const char **rval;
};

static _Thread_local int thread_ready;

/* libmariadb keeps per-thread state; mysql_thread_init must run in every
 * thread that uses the library (mysql_init does it implicitly in some
 * versions, not all), so do it on first use. */
static void thread_init(void)
{
    if (!thread_ready) {
        mysql_thread_init();
        thread_ready = 1;
    }
}

static void my_thread_done(void)
{
    if (thread_ready) {
        mysql_thread_end();
        thread_ready = 0;
    }
}

static int my_global_init(void)
{
    return mysql_library_init(0, NULL, NULL) ? -1 : 0;
}

static void my_global_done(void)
{
    mysql_library_end();
}

static void conn_error(lb_db_error *err, MYSQL *m)
{
    lb__db_error_set(err, (int)mysql_errno(m), mysql_sqlstate(m), mysql_error(m));
}

static void stmt_error(lb_db_error *err, MYSQL_STMT *st)
{
    lb__db_error_set(err, (int)mysql_stmt_errno(st), mysql_stmt_sqlstate(st), mysql_stmt_error(st));
}

static void set_uint_opt(MYSQL *m, enum mysql_option opt, int32_t v)
{
    if (v > 0) {
        unsigned int u = (unsigned int)v;
        mysql_options(m, opt, &u);
    }
}

/* Allocate and set up a MYSQL handle with the options (no I/O). */
static my_conn *conn_init(const lb_db_conn_opts *o, lb_db_error *err)
{
    thread_init();
    my_conn *mc = calloc(1, sizeof *mc);
    if (!mc) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    mc->fd = -1;
    if (!mysql_init(&mc->m)) {
        free(mc);
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "mysql_init failed");
        return NULL;
    }
    MYSQL *m = &mc->m;
    my_bool on = 1;
    set_uint_opt(m, MYSQL_OPT_CONNECT_TIMEOUT, o->connect_timeout);
    set_uint_opt(m, MYSQL_OPT_READ_TIMEOUT, o->read_timeout);
    set_uint_opt(m, MYSQL_OPT_WRITE_TIMEOUT, o->write_timeout);
    if (o->compression)
        mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
    /* Makes mysql_stmt_fetch report columns that did not fit our buffers. */
    mysql_options(m, MYSQL_REPORT_DATA_TRUNCATION, &on);
    if (o->ssl_mode != LB_DB_SSL_DISABLED) {
        /* Connector/C has no CA-only verification: VERIFY_CA and
         * VERIFY_IDENTITY both verify the chain and the host name. */
        mysql_ssl_set(m, o->ssl_key, o->ssl_cert, o->ssl_ca, NULL, o->ssl_cipher);
        if (o->ssl_mode >= LB_DB_SSL_REQUIRED)
            mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &on);
        if (o->ssl_mode >= LB_DB_SSL_VERIFY_CA)
            mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
    }
    mc->ssl_required = o->ssl_mode >= LB_DB_SSL_REQUIRED;
    return mc;
}

/* After the handshake: Connector/C only refuses a TLS-less server when
 * certificate verification is on; MYSQL_OPT_SSL_ENFORCE alone falls back
 * to plain text.  "required" must not, so check what was negotiated. */
static int connected(my_conn *mc, lb_db_error *err)
{
    if (mc->ssl_required && mysql_get_ssl_cipher(&mc->m) == NULL) {
        lb__db_error_set(err, 2026, "HY000", "TLS/SSL error: SSL is required, but the server does not support it");
        return -1;
    }
    mc->fd = (int)mysql_get_socket(&mc->m);
    return 0;
}

/* Multi statements as in sysbench: scenarios may send "a; b". */
#define CONNECT_FLAGS (CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS)

static void *my_connect(const lb_db_conn_opts *o, lb_db_error *err)
{
    my_conn *mc = conn_init(o, err);
    if (!mc)
        return NULL;
    MYSQL *m = &mc->m;
    if (!mysql_real_connect(m, o->host, o->user, o->password, o->db,
                            o->port > 0 ? (unsigned int)o->port : 0, o->socket, CONNECT_FLAGS)) {
        conn_error(err, m);
        mysql_close(m);
        free(mc);
        return NULL;
    }
    if (connected(mc, err) != 0) {
        mysql_close(m);
        free(mc);
        return NULL;
    }
    return mc;
}

static void my_stmt_close(void *ds);

static void my_disconnect(void *dc)
{
    my_conn *mc = dc;
    my_stmt *orphan = mc->op == OP_PREPARE ? mc->ast : NULL; /* a prepare that never completed */
    if (mc->res)
        mysql_free_result(mc->res);
    /* mysql_close detaches (invalidates) the connection's statements, so
     * their later mysql_stmt_close only frees client memory. */
    mysql_close(&mc->m);
    if (orphan)
        my_stmt_close(orphan);
    free(mc);
}

static void my_abort(void *dc)
{
    my_conn *mc = dc;
    /* shutdown() rather than close(): the fd stays allocated to this
     * connection (no reuse race), and the owner's blocked read/write fails
     * at once with a lost-connection error. */
    if (mc->fd >= 0)
        shutdown(mc->fd, SHUT_RDWR);
}

static const char *my_server_version(void *dc)
{
    return mysql_get_server_info(&((my_conn *)dc)->m);
}

/* Throw away result sets still pending from a multi-statement query, so
 * the next command is not "out of sync". */
static void drain(MYSQL *m)
{
    while (mysql_more_results(m)) {
        if (mysql_next_result(m) != 0)
            break;
        MYSQL_RES *r = mysql_store_result(m);
        if (r)
            mysql_free_result(r);
    }
}

static void result_out(MYSQL_RES *r, lb__db_rs *out)
{
    out->h = r;
    out->nrows = r ? (int64_t)mysql_num_rows(r) : 0;
    out->nfields = r ? (int)mysql_num_fields(r) : 0;
}

static int store(MYSQL *m, lb__db_rs *out, lb_db_error *err)
{
    MYSQL_RES *r = mysql_store_result(m);
    if (!r && mysql_field_count(m) != 0) {
        conn_error(err, m);
        return -1;
    }
    result_out(r, out);
    return 0;
}

static int my_query(void *dc, const char *sql, size_t len, lb__db_rs *out, lb_db_error *err)
{
    MYSQL *m = &((my_conn *)dc)->m;
    if (mysql_more_results(m))
        drain(m);
    if (mysql_real_query(m, sql, (unsigned long)len) != 0) {
        conn_error(err, m);
        return -1;
    }
    return store(m, out, err);
}

static int my_next_result(void *dc, lb__db_rs *out, lb_db_error *err)
{
    MYSQL *m = &((my_conn *)dc)->m;
    if (!mysql_more_results(m))
        return 0;
    int rc = mysql_next_result(m);
    if (rc < 0)
        return 0;
    if (rc > 0) {
        conn_error(err, m);
        return -1;
    }
    return store(m, out, err) == 0 ? 1 : -1;
}

static int my_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    (void)err;
    MYSQL_ROW row = mysql_fetch_row((MYSQL_RES *)h);
    if (!row)
        return 0;
    *values = (const char *const *)row;
    *lengths = mysql_fetch_lengths((MYSQL_RES *)h);
    return 1;
}

static void my_free_result(void *h)
{
    mysql_free_result((MYSQL_RES *)h);
}

static uint64_t my_affected_rows(void *dc, void *ds)
{
    my_ulonglong n = ds ? mysql_stmt_affected_rows(((my_stmt *)ds)->st)
                        : mysql_affected_rows(&((my_conn *)dc)->m);
    return n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
}

static uint64_t my_insert_id(void *dc, void *ds)
{
    return ds ? (uint64_t)mysql_stmt_insert_id(((my_stmt *)ds)->st)
              : (uint64_t)mysql_insert_id(&((my_conn *)dc)->m);
}

static long my_escape(void *dc, char *to, const char *from, size_t len)
{
    /* Honours the connection charset and NO_BACKSLASH_ESCAPES. */
    unsigned long n = mysql_real_escape_string(&((my_conn *)dc)->m, to, from, (unsigned long)len);
    return n == (unsigned long)-1 ? -1 : (long)n;
}

/* ---- prepared statements ---- */

static void free_result_binds(my_stmt *ms)
{
    for (int i = 0; i < ms->nf; i++)
        free(ms->rbuf[i]);
    free(ms->rb);
    free(ms->rbuf);
    free(ms->rcap);
    free(ms->rlen);
    free(ms->rnull);
    free(ms->rerr);
    free(ms->rval);
    ms->rb = NULL;
    ms->rbuf = NULL;
    ms->rcap = ms->rlen = NULL;
    ms->rnull = ms->rerr = NULL;
    ms->rval = NULL;
    ms->nf = 0;
}

/* Bind every result column to a text buffer, once per statement shape. */
static int setup_result_binds(my_stmt *ms, lb_db_error *err)
{
    free_result_binds(ms);
    int nf = (int)mysql_stmt_field_count(ms->st);
    if (nf == 0)
        return 0;
    MYSQL_RES *meta = mysql_stmt_result_metadata(ms->st);
    MYSQL_FIELD *fields = meta ? mysql_fetch_fields(meta) : NULL;
    size_t n = (size_t)nf;
    ms->rb = calloc(n, sizeof *ms->rb);
    ms->rbuf = calloc(n, sizeof *ms->rbuf);
    ms->rcap = calloc(n, sizeof *ms->rcap);
    ms->rlen = calloc(n, sizeof *ms->rlen);
    ms->rnull = calloc(n, sizeof *ms->rnull);
    ms->rerr = calloc(n, sizeof *ms->rerr);
    ms->rval = calloc(n, sizeof *ms->rval);
    ms->nf = nf;
    int ok = ms->rb && ms->rbuf && ms->rcap && ms->rlen && ms->rnull && ms->rerr && ms->rval;
    for (int i = 0; ok && i < nf; i++) {
        unsigned long cap = fields ? fields[i].length + 1 : RESULT_BUF_MIN;
        if (cap < RESULT_BUF_MIN)
            cap = RESULT_BUF_MIN;     /* numbers rendered as text can exceed the display width */
        if (cap > RESULT_BUF_MAX)
            cap = RESULT_BUF_MAX;
        ms->rbuf[i] = malloc(cap);
        if (!ms->rbuf[i]) {
            ok = 0;
            break;
        }
        ms->rcap[i] = cap;
        MYSQL_BIND *b = &ms->rb[i];
        b->buffer_type = MYSQL_TYPE_STRING;
        b->buffer = ms->rbuf[i];
        b->buffer_length = cap;
        b->length = &ms->rlen[i];
        b->is_null = &ms->rnull[i];
        b->error = &ms->rerr[i];
    }
    if (meta)
        mysql_free_result(meta);
    if (!ok) {
        free_result_binds(ms);
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return -1;
    }
    if (mysql_stmt_bind_result(ms->st, ms->rb)) {
        stmt_error(err, ms->st);
        free_result_binds(ms);
        return -1;
    }
    return 0;
}

static my_stmt *stmt_new(my_conn *mc, lb_db_error *err)
{
    thread_init();
    my_stmt *ms = calloc(1, sizeof *ms);
    if (!ms) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    ms->mc = mc;
    ms->st = mysql_stmt_init(&mc->m);
    if (!ms->st) {
        conn_error(err, &mc->m);
        free(ms);
        return NULL;
    }
    return ms;
}

/* After a successful mysql_stmt_prepare: parameter count, result binds. */
static int stmt_prepared_ok(my_stmt *ms, lb__db_async *out, lb_db_error *err)
{
    ms->np = (int)mysql_stmt_param_count(ms->st);
    if (setup_result_binds(ms, err) != 0)
        return -1;
    out->ds = ms;
    out->nparams = ms->np;
    return 0;
}

static void *my_prepare(void *dc, const char *sql, size_t len, int *nparams, lb_db_error *err)
{
    my_conn *mc = dc;
    if (mysql_more_results(&mc->m))
        drain(&mc->m);
    my_stmt *ms = stmt_new(mc, err);
    if (!ms)
        return NULL;
    if (mysql_stmt_prepare(ms->st, sql, (unsigned long)len) != 0) {
        /* ER_UNSUPPORTED_PS: the server cannot prepare this statement
         * type; tell db.c to emulate it instead of failing. */
        if (mysql_stmt_errno(ms->st) == 1295)
            lb__db_error_set(err, LB_DB_E_UNSUPPORTED, mysql_stmt_sqlstate(ms->st), mysql_stmt_error(ms->st));
        else
            stmt_error(err, ms->st);
        mysql_stmt_close(ms->st);
        free(ms);
        return NULL;
    }
    lb__db_async out;
    if (stmt_prepared_ok(ms, &out, err) != 0) {
        mysql_stmt_close(ms->st);
        free(ms);
        return NULL;
    }
    *nparams = ms->np;
    return ms;
}

/* Point MYSQL_BIND at the caller's struct: integers are always sent as
 * 64-bit (server converts to the column type, portable across endianness),
 * text and temporal values as strings from buf/len. */
static void fill_param(MYSQL_BIND *b, lb_db_bind *p)
{
    memset(b, 0, sizeof *b);
    b->is_null = (my_bool *)&p->is_null;
    switch (p->type) {
    case LB_DB_T_TINYINT: case LB_DB_T_SMALLINT: case LB_DB_T_INT: case LB_DB_T_BIGINT:
        b->buffer_type = MYSQL_TYPE_LONGLONG;
        b->buffer = &p->i;
        break;
    case LB_DB_T_FLOAT: case LB_DB_T_DOUBLE:
        b->buffer_type = MYSQL_TYPE_DOUBLE;
        b->buffer = &p->d;
        break;
    default:
        b->buffer_type = MYSQL_TYPE_STRING;
        b->buffer = p->buf;
        b->buffer_length = (unsigned long)p->cap;
        b->length = (unsigned long *)&p->len;
        break;
    }
}

static int bind_params(my_stmt *ms, lb_db_error *err)
{
    for (int i = 0; i < ms->np; i++) {
        fill_param(&ms->pb[i], &ms->params[i]);
        ms->ptype[i] = ms->params[i].type;
        ms->pbuf[i] = ms->params[i].buf;
    }
    if (mysql_stmt_bind_param(ms->st, ms->pb)) {
        stmt_error(err, ms->st);
        return -1;
    }
    return 0;
}

static int my_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err)
{
    my_stmt *ms = ds;
    if (n != ms->np) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "parameter count mismatch");
        return -1;
    }
    if (!ms->pb) {
        size_t k = (size_t)n;
        ms->pb = calloc(k, sizeof *ms->pb);
        ms->ptype = calloc(k, sizeof *ms->ptype);
        ms->pbuf = calloc(k, sizeof *ms->pbuf);
        if (!ms->pb || !ms->ptype || !ms->pbuf) {
            lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
    }
    ms->params = params;
    return bind_params(ms, err);
}

/* Skip extra result sets (e.g. the status result of CALL) so the
 * connection is in sync for the next command. */
static void stmt_drain(MYSQL_STMT *st)
{
    while (mysql_stmt_more_results(st)) {
        if (mysql_stmt_next_result(st) != 0)
            break;
        mysql_stmt_free_result(st);
    }
}

/* The caller swapped a parameter's buffer or type: bind again. */
static int rebind_if_changed(my_stmt *ms, lb_db_error *err)
{
    const lb_db_bind *p = ms->params;
    for (int i = 0; i < ms->np; i++)
        if (p[i].type != ms->ptype[i] || p[i].buf != ms->pbuf[i])
            return bind_params(ms, err);
    return 0;
}

/* After mysql_stmt_store_result returned `mc->iret`/the blocking rc. */
static int stmt_executed(my_stmt *ms, lb__db_rs *out, lb_db_error *err)
{
    if (ms->mc->iret != 0) {
        stmt_error(err, ms->st);
        return -1;
    }
    out->h = ms;
    out->nrows = (int64_t)mysql_stmt_num_rows(ms->st);
    out->nfields = ms->nf;
    return 0;
}

static int my_stmt_execute(void *ds, lb__db_rs *out, lb_db_error *err)
{
    my_stmt *ms = ds;
    if (mysql_more_results(&ms->mc->m))
        drain(&ms->mc->m);
    if (rebind_if_changed(ms, err) != 0)
        return -1;
    if (mysql_stmt_execute(ms->st) != 0) {
        stmt_error(err, ms->st);
        return -1;
    }
    int fc = (int)mysql_stmt_field_count(ms->st);
    if (fc == 0) {
        stmt_drain(ms->st);
        out->h = NULL;
        out->nrows = 0;
        out->nfields = 0;
        return 0;
    }
    if (fc != ms->nf && setup_result_binds(ms, err) != 0)
        return -1;
    ms->mc->iret = mysql_stmt_store_result(ms->st);
    return stmt_executed(ms, out, err);
}

static int my_stmt_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    my_stmt *ms = h;
    int rc = mysql_stmt_fetch(ms->st);
    if (rc == MYSQL_NO_DATA)
        return 0;
    if (rc == 1) {
        stmt_error(err, ms->st);
        return -1;
    }
    int rebind = 0;
    for (int i = 0; i < ms->nf; i++) {
        if (ms->rnull[i]) {
            ms->rval[i] = NULL;
            continue;
        }
        if (ms->rlen[i] >= ms->rcap[i]) {
            /* Truncated: grow to the full length and fetch this column again. */
            unsigned long cap = ms->rlen[i] + 1;
            char *nb = realloc(ms->rbuf[i], cap);
            if (!nb) {
                lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
                return -1;
            }
            ms->rbuf[i] = nb;
            ms->rcap[i] = cap;
            ms->rb[i].buffer = nb;
            ms->rb[i].buffer_length = cap;
            rebind = 1;
            if (mysql_stmt_fetch_column(ms->st, &ms->rb[i], (unsigned int)i, 0) != 0) {
                stmt_error(err, ms->st);
                return -1;
            }
        }
        ms->rbuf[i][ms->rlen[i]] = '\0';
        ms->rval[i] = ms->rbuf[i];
    }
    if (rebind && mysql_stmt_bind_result(ms->st, ms->rb)) {
        stmt_error(err, ms->st);
        return -1;
    }
    *values = ms->rval;
    *lengths = ms->rlen;
    return 1;
}

static void my_stmt_free_result(void *h)
{
    my_stmt *ms = h;
    mysql_stmt_free_result(ms->st);
    stmt_drain(ms->st);
}

static void my_stmt_close(void *ds)
{
    my_stmt *ms = ds;
    mysql_stmt_close(ms->st);
    free_result_binds(ms);
    free(ms->pb);
    free(ms->ptype);
    free(ms->pbuf);
    free(ms);
}

/* ---- non-blocking operations ---- */

/* Steps of the state machine.  A step that starts a call moves `step` to
 * the step that handles its completion; if the call must wait, `pending`
 * is set and the status goes back to the caller, and the next cont()
 * continues that call with what happened.  Every operation first drains
 * result sets left over from an earlier multi-statement query. */
enum {
    ST_IDLE, ST_CONNECT_DONE,
    ST_DRAIN, ST_DRAIN_NEXT_DONE, ST_DRAIN_STORE_DONE,
    ST_QUERY, ST_QUERY_DONE, ST_STORE_DONE,
    ST_PREPARE, ST_PREPARE_DONE,
    ST_EXECUTE, ST_EXECUTE_DONE, ST_SSTORE_DONE
};

static int op_end(my_conn *mc, int rc)
{
    mc->op = OP_NONE;
    mc->step = ST_IDLE;
    mc->pending = 0;
    mc->ast = NULL;
    return rc;
}

/* Start a call: `expr` returns a wait status or 0. */
#define START(next, expr)                       \
    do {                                        \
        mc->step = (next);                      \
        int st_ = (expr);                       \
        if (st_) {                              \
            mc->pending = 1;                    \
            return st_;                         \
        }                                       \
    } while (0)

/* Continue the call this step waits for, if it had to wait. */
#define CONT(expr)                              \
    do {                                        \
        if (mc->pending) {                      \
            mc->pending = 0;                    \
            int st_ = (expr);                   \
            if (st_) {                          \
                mc->pending = 1;                \
                return st_;                     \
            }                                   \
        }                                       \
    } while (0)

static int stmt_prepared_ok(my_stmt *ms, lb__db_async *out, lb_db_error *err);
static int stmt_executed(my_stmt *ms, lb__db_rs *out, lb_db_error *err);
static void result_out(MYSQL_RES *r, lb__db_rs *out);

static int advance(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    my_stmt *ms = mc->ast;
    for (;;) {
        switch (mc->step) {
        case ST_CONNECT_DONE:
            CONT(mysql_real_connect_cont(&mc->cret, m, ready));
            if (!mc->cret) {
                conn_error(err, m);
                return op_end(mc, -1);
            }
            return op_end(mc, connected(mc, err));

        case ST_DRAIN:
            if (!mysql_more_results(m)) {
                mc->step = mc->op == OP_QUERY ? ST_QUERY : mc->op == OP_PREPARE ? ST_PREPARE : ST_EXECUTE;
                break;
            }
            START(ST_DRAIN_NEXT_DONE, mysql_next_result_start(&mc->iret, m));
            break;
        case ST_DRAIN_NEXT_DONE:
            CONT(mysql_next_result_cont(&mc->iret, m, ready));
            if (mc->iret != 0) {
                /* A failed leftover statement ends the chain (as drain()). */
                mc->step = mc->op == OP_QUERY ? ST_QUERY : mc->op == OP_PREPARE ? ST_PREPARE : ST_EXECUTE;
                break;
            }
            START(ST_DRAIN_STORE_DONE, mysql_store_result_start(&mc->res, m));
            break;
        case ST_DRAIN_STORE_DONE:
            CONT(mysql_store_result_cont(&mc->res, m, ready));
            if (mc->res)
                mysql_free_result(mc->res);
            mc->res = NULL;
            mc->step = ST_DRAIN;
            break;

        case ST_QUERY:
            START(ST_QUERY_DONE, mysql_real_query_start(&mc->iret, m, mc->sql, mc->len));
            break;
        case ST_QUERY_DONE:
            CONT(mysql_real_query_cont(&mc->iret, m, ready));
            if (mc->iret != 0) {
                conn_error(err, m);
                return op_end(mc, -1);
            }
            START(ST_STORE_DONE, mysql_store_result_start(&mc->res, m));
            break;
        case ST_STORE_DONE:
            CONT(mysql_store_result_cont(&mc->res, m, ready));
            if (!mc->res && mysql_field_count(m) != 0) {
                conn_error(err, m);
                return op_end(mc, -1);
            }
            result_out(mc->res, &out->rs);
            mc->res = NULL;
            return op_end(mc, 0);

        case ST_PREPARE:
            START(ST_PREPARE_DONE, mysql_stmt_prepare_start(&mc->iret, ms->st, mc->sql, mc->len));
            break;
        case ST_PREPARE_DONE:
            CONT(mysql_stmt_prepare_cont(&mc->iret, ms->st, ready));
            if (mc->iret != 0) {
                if (mysql_stmt_errno(ms->st) == 1295)
                    lb__db_error_set(err, LB_DB_E_UNSUPPORTED, mysql_stmt_sqlstate(ms->st), mysql_stmt_error(ms->st));
                else
                    stmt_error(err, ms->st);
                my_stmt_close(ms);
                return op_end(mc, -1);
            }
            if (stmt_prepared_ok(ms, out, err) != 0) {
                my_stmt_close(ms);
                return op_end(mc, -1);
            }
            return op_end(mc, 0);

        case ST_EXECUTE:
            START(ST_EXECUTE_DONE, mysql_stmt_execute_start(&mc->iret, ms->st));
            break;
        case ST_EXECUTE_DONE: {
            CONT(mysql_stmt_execute_cont(&mc->iret, ms->st, ready));
            if (mc->iret != 0) {
                stmt_error(err, ms->st);
                return op_end(mc, -1);
            }
            int fc = (int)mysql_stmt_field_count(ms->st);
            if (fc == 0) {
                stmt_drain(ms->st);
                out->rs.h = NULL;
                out->rs.nrows = 0;
                out->rs.nfields = 0;
                return op_end(mc, 0);
            }
            if (fc != ms->nf && setup_result_binds(ms, err) != 0)
                return op_end(mc, -1);
            START(ST_SSTORE_DONE, mysql_stmt_store_result_start(&mc->iret, ms->st));
            break;
        }
        case ST_SSTORE_DONE:
            CONT(mysql_stmt_store_result_cont(&mc->iret, ms->st, ready));
            return op_end(mc, stmt_executed(ms, &out->rs, err));

        default:
            lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no operation in progress");
            return op_end(mc, -1);
        }
    }
}

static int my_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err)
{
    my_conn *mc = conn_init(o, err);
    *dc = mc;
    if (!mc)
        return -1;
    MYSQL *m = &mc->m;
    /* 0: Connector/C's default stack for its internal coroutine. */
    if (mysql_options(m, MYSQL_OPT_NONBLOCK, 0) != 0) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "cannot enable the non-blocking API");
        return -1;
    }
    mc->op = OP_CONNECT;
    mc->pending = 0;
    mc->step = ST_CONNECT_DONE;
    int st = mysql_real_connect_start(&mc->cret, m, o->host, o->user, o->password, o->db,
                                      o->port > 0 ? (unsigned int)o->port : 0, o->socket, CONNECT_FLAGS);
    if (st) {
        mc->pending = 1;
        return st;
    }
    lb__db_async out;
    return advance(mc, 0, &out, err);
}

static int my_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    mc->op = OP_QUERY;
    mc->step = ST_DRAIN;
    mc->pending = 0;
    mc->sql = sql;
    mc->len = (unsigned long)len;
    return advance(mc, 0, out, err);
}

static my_stmt *stmt_new(my_conn *mc, lb_db_error *err);

static int my_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    my_stmt *ms = stmt_new(mc, err);
    if (!ms)
        return -1;
    mc->op = OP_PREPARE;
    mc->step = ST_DRAIN;
    mc->pending = 0;
    mc->sql = sql;
    mc->len = (unsigned long)len;
    mc->ast = ms;
    return advance(mc, 0, out, err);
}

static int rebind_if_changed(my_stmt *ms, lb_db_error *err);

static int my_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = ds;
    my_conn *mc = ms->mc;
    if (rebind_if_changed(ms, err) != 0)
        return -1;
    mc->op = OP_EXECUTE;
    mc->step = ST_DRAIN;
    mc->pending = 0;
    mc->ast = ms;
    return advance(mc, 0, out, err);
}

static int my_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err)
{
    return advance(dc, ready, out, err);
}

static int my_fd(void *dc)
{
    return (int)mysql_get_socket(&((my_conn *)dc)->m);
}

static int my_timeout_ms(void *dc)
{
    return (int)mysql_get_timeout_value_ms(&((my_conn *)dc)->m);
}

const lb_db_driver_ops lb__db_mysql_ops = {
    .name = "mysql",
    .global_init = my_global_init,
    .global_done = my_global_done,
    .thread_done = my_thread_done,
    .connect = my_connect,
    .disconnect = my_disconnect,
    .abort = my_abort,
    .server_version = my_server_version,
    .query = my_query,
    .next_result = my_next_result,
    .fetch = my_fetch,
    .free_result = my_free_result,
    .affected_rows = my_affected_rows,
    .insert_id = my_insert_id,
    .escape = my_escape,
    .prepare = my_prepare,
    .stmt_bind = my_stmt_bind,
    .stmt_execute = my_stmt_execute,
    .stmt_fetch = my_stmt_fetch,
    .stmt_free_result = my_stmt_free_result,
    .stmt_close = my_stmt_close,
    .connect_start = my_connect_start,
    .query_start = my_query_start,
    .prepare_start = my_prepare_start,
    .stmt_execute_start = my_stmt_execute_start,
    .cont = my_cont,
    .fd = my_fd,
    .timeout_ms = my_timeout_ms,
};
