/* Null driver: accepts every query and statement, performs no I/O.
 *
 * It exists to measure the engine itself (Lua scenario + this layer) with
 * the database taken out: everything goes through the same core wrappers,
 * so queries, rows and errors are accounted exactly as with a real driver.
 * SELECT-class statements return an empty result set so scenario code that
 * fetches rows runs its normal path.  Every operation completes in its
 * *_start: there is never anything to wait for. */
#include "db.h"

#include <stdlib.h>

typedef struct null_conn {
    int unused;
} null_conn;

typedef struct null_stmt {
    int is_select;
} null_stmt;

/* Shared handle of the empty result; never dereferenced. */
static char null_rs;

static int null_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err)
{
    (void)o;
    null_conn *nc = calloc(1, sizeof *nc);
    *dc = nc;
    if (!nc) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return -1;
    }
    return 0;
}

static int null_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err)
{
    (void)dc;
    (void)ready;
    (void)out;
    lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "the null driver has nothing to continue");
    return -1;
}

static int null_fd(void *dc)
{
    (void)dc;
    return -1;
}

static int null_timeout_ms(void *dc)
{
    (void)dc;
    return 0;
}

static void null_disconnect(void *dc)
{
    free(dc);
}

static void null_abort(void *dc)
{
    (void)dc;
}

static const char *null_server_version(void *dc)
{
    (void)dc;
    return "null";
}

static void empty_result(int is_select, lb__db_rs *out)
{
    out->h = is_select ? &null_rs : NULL;
    out->nrows = 0;
    out->nfields = 0;
}

static int null_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)dc;
    (void)err;
    empty_result(lb_db_classify(sql, len) == LB_DB_Q_SELECT, &out->rs);
    return 0;
}

static int null_next_result_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    (void)dc;
    (void)err;
    out->found = 0;
    return 0;
}

static int null_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    (void)h;
    (void)values;
    (void)lengths;
    (void)err;
    return 0;
}

static void null_free_result(void *h)
{
    (void)h;
}

static int null_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)dc;
    null_stmt *ns = calloc(1, sizeof *ns);
    if (!ns) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return -1;
    }
    ns->is_select = lb_db_classify(sql, len) == LB_DB_Q_SELECT;
    out->ds = ns;
    out->nparams = lb__db_count_placeholders(sql, len);
    return 0;
}

static int null_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err)
{
    (void)ds;
    (void)params;
    (void)n;
    (void)err;
    return 0;
}

static int null_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err)
{
    (void)err;
    empty_result(((null_stmt *)ds)->is_select, &out->rs);
    return 0;
}

static void null_stmt_close(void *ds)
{
    free(ds);
}

const lb_db_driver_ops lb__db_null_ops = {
    .name = "null",
    .connect_start = null_connect_start,
    .cont = null_cont,
    .fd = null_fd,
    .timeout_ms = null_timeout_ms,
    .disconnect = null_disconnect,
    .abort = null_abort,
    .server_version = null_server_version,
    .query_start = null_query_start,
    .next_result_start = null_next_result_start,
    .fetch = null_fetch,
    .free_result = null_free_result,
    .prepare_start = null_prepare_start,
    .stmt_bind = null_stmt_bind,
    .stmt_execute_start = null_stmt_execute_start,
    .stmt_fetch = null_fetch,
    .stmt_free_result = null_free_result,
    .stmt_close = null_stmt_close,
};
