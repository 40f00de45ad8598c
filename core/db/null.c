/* Null driver: accepts every query and statement, performs no I/O.
 *
 * It exists to measure the engine itself (Lua scenario + this layer) with
 * the database taken out: everything goes through the same core wrappers,
 * so queries, rows and errors are accounted exactly as with a real driver.
 * SELECT-class statements return an empty result set so scenario code that
 * fetches rows runs its normal path. */
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

static void *null_connect(const lb_db_conn_opts *o, lb_db_error *err)
{
    (void)o;
    null_conn *nc = calloc(1, sizeof *nc);
    if (!nc)
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
    return nc;
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

static int null_query(void *dc, const char *sql, size_t len, lb__db_rs *out, lb_db_error *err)
{
    (void)dc;
    (void)err;
    empty_result(lb_db_classify(sql, len) == LB_DB_Q_SELECT, out);
    return 0;
}

static int null_next_result(void *dc, lb__db_rs *out, lb_db_error *err)
{
    (void)dc;
    (void)out;
    (void)err;
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

static void *null_prepare(void *dc, const char *sql, size_t len, int *nparams, lb_db_error *err)
{
    (void)dc;
    null_stmt *ns = calloc(1, sizeof *ns);
    if (!ns) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    ns->is_select = lb_db_classify(sql, len) == LB_DB_Q_SELECT;
    *nparams = lb__db_count_placeholders(sql, len);
    return ns;
}

static int null_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err)
{
    (void)ds;
    (void)params;
    (void)n;
    (void)err;
    return 0;
}

static int null_stmt_execute(void *ds, lb__db_rs *out, lb_db_error *err)
{
    (void)err;
    empty_result(((null_stmt *)ds)->is_select, out);
    return 0;
}

static void null_stmt_close(void *ds)
{
    free(ds);
}

const lb_db_driver_ops lb__db_null_ops = {
    .name = "null",
    .connect = null_connect,
    .disconnect = null_disconnect,
    .abort = null_abort,
    .server_version = null_server_version,
    .query = null_query,
    .next_result = null_next_result,
    .fetch = null_fetch,
    .free_result = null_free_result,
    .prepare = null_prepare,
    .stmt_bind = null_stmt_bind,
    .stmt_execute = null_stmt_execute,
    .stmt_fetch = null_fetch,
    .stmt_free_result = null_free_result,
    .stmt_close = null_stmt_close,
};
