/* MySQL driver, prepared statements: statement handles, parameter binds
 * and result binds, blocking prepare and execute, row fetch.  Parameters
 * are bound once, pointing straight into the caller's lb_db_bind array
 * (execute re-binds only when the caller swapped a buffer or type); result
 * columns are bound once to text buffers sized from the metadata, grown
 * only when a value does not fit. */
#include "mysql_driver.h"

#include <stdlib.h>
#include <string.h>

#define RESULT_BUF_MIN 64
#define RESULT_BUF_MAX 4096     /* larger columns grow on demand */

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
        lb__db_my_stmt_error(err, ms->st);
        free_result_binds(ms);
        return -1;
    }
    return 0;
}

my_stmt *lb__db_my_stmt_new(my_conn *mc, lb_db_error *err)
{
    lb__db_my_thread_init();
    my_stmt *ms = calloc(1, sizeof *ms);
    if (!ms) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    ms->mc = mc;
    ms->st = mysql_stmt_init(&mc->m);
    if (!ms->st) {
        lb__db_my_conn_error(err, &mc->m);
        free(ms);
        return NULL;
    }
    return ms;
}

void lb__db_my_stmt_error(lb_db_error *err, MYSQL_STMT *st)
{
    lb__db_error_set(err, (int)mysql_stmt_errno(st), mysql_stmt_sqlstate(st), mysql_stmt_error(st));
}

void lb__db_my_prepare_error(lb_db_error *err, MYSQL_STMT *st)
{
    /* ER_UNSUPPORTED_PS: the server cannot prepare this statement type;
     * tell the core to emulate it instead of failing. */
    if (mysql_stmt_errno(st) == 1295)
        lb__db_error_set(err, LB_DB_E_UNSUPPORTED, mysql_stmt_sqlstate(st), mysql_stmt_error(st));
    else
        lb__db_my_stmt_error(err, st);
}

/* After a successful mysql_stmt_prepare: parameter count, result binds. */
int lb__db_my_stmt_prepared_ok(my_stmt *ms, lb__db_async *out, lb_db_error *err)
{
    ms->np = (int)mysql_stmt_param_count(ms->st);
    if (setup_result_binds(ms, err) != 0)
        return -1;
    out->ds = ms;
    out->nparams = ms->np;
    return 0;
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
        lb__db_my_stmt_error(err, ms->st);
        return -1;
    }
    return 0;
}

int lb__db_my_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err)
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
int lb__db_my_rebind_if_changed(my_stmt *ms, lb_db_error *err)
{
    const lb_db_bind *p = ms->params;
    for (int i = 0; i < ms->np; i++)
        if (p[i].type != ms->ptype[i] || p[i].buf != ms->pbuf[i])
            return bind_params(ms, err);
    return 0;
}

/* After mysql_stmt_store_result returned `mc->iret`/the blocking rc. */
int lb__db_my_stmt_executed(my_stmt *ms, lb__db_rs *out, lb_db_error *err)
{
    if (ms->mc->iret != 0) {
        lb__db_my_stmt_error(err, ms->st);
        return -1;
    }
    out->h = ms;
    out->nrows = (int64_t)mysql_stmt_num_rows(ms->st);
    out->nfields = ms->nf;
    return 0;
}

int lb__db_my_exec_shape(my_stmt *ms, lb__db_rs *out, lb_db_error *err)
{
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
    return 1;
}

const char *lb__db_my_stmt_field_name(void *h, int i)
{
    MYSQL_STMT *st = ((my_stmt *)h)->st;
    return st->fields && (unsigned int)i < st->field_count ? st->fields[i].name : NULL;
}

int lb__db_my_stmt_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    my_stmt *ms = h;
    int rc = mysql_stmt_fetch(ms->st);
    if (rc == MYSQL_NO_DATA)
        return 0;
    if (rc == 1) {
        lb__db_my_stmt_error(err, ms->st);
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
                lb__db_my_stmt_error(err, ms->st);
                return -1;
            }
        }
        ms->rbuf[i][ms->rlen[i]] = '\0';
        ms->rval[i] = ms->rbuf[i];
    }
    if (rebind && mysql_stmt_bind_result(ms->st, ms->rb)) {
        lb__db_my_stmt_error(err, ms->st);
        return -1;
    }
    *values = ms->rval;
    *lengths = ms->rlen;
    return 1;
}

void lb__db_my_stmt_free_result(void *h)
{
    my_stmt *ms = h;
    mysql_stmt_free_result(ms->st);
    stmt_drain(ms->st);
}

void lb__db_my_stmt_close(void *ds)
{
    my_stmt *ms = ds;
    mysql_stmt_close(ms->st);
    free_result_binds(ms);
    free(ms->pb);
    free(ms->ptype);
    free(ms->pbuf);
    free(ms);
}
