/* sbsql — sysbench's C SQL API on lbench's DB layer (see the header). */
#include "sbsql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../worker.h"

enum { MAX_IGNORED = 64 };

/* The calling thread's defaults, set by its Lua state. */
static _Thread_local struct {
    char name[32];
    const lb_db_driver_ops *ops;
    lb_db_conn_opts o;
    int32_t ignore[MAX_IGNORED];
    int nignore, ignore_all;
} bound;

typedef struct sb_driver {
    sql_driver pub;
    const lb_db_driver_ops *ops;
    char name[32];
} sb_driver;

typedef struct sb_stmt sb_stmt;

typedef struct sb_conn {
    sql_connection pub;
    lb_db_conn *c;
    const lb_db_driver_ops *ops;
    lb_worker *w;              /* the worker tracking c, or NULL */
    sql_result rs;
    int in_result;             /* rs holds a result set */
    sb_stmt *rs_stmt;          /* ... of this statement (result binds), or NULL */
    sql_value *vals;
    uint32_t nvals;
    char state[6];
    char msg[512];
} sb_conn;

struct sb_stmt {
    sql_statement pub;
    lb_db_stmt *s;
    sb_conn *con;
    sql_bind *params;          /* copies of the caller's bind descriptors */
    lb_db_bind *binds;         /* what the DB layer reads */
    size_t nparams;
    sql_bind *results;
    size_t nresults;
};

void lb_sb_sql_bind(const char *name, const lb_db_driver_ops *ops, const lb_db_conn_opts *o,
                    const int32_t *ignore, int nignore, int ignore_all)
{
    snprintf(bound.name, sizeof(bound.name), "%s", name ? name : "");
    bound.ops = ops;
    if (o)
        bound.o = *o;
    else
        lb_db_conn_opts_init(&bound.o);
    bound.nignore = nignore < 0 ? 0 : nignore > MAX_IGNORED ? MAX_IGNORED : nignore;
    if (bound.nignore)
        memcpy(bound.ignore, ignore, (size_t)bound.nignore * sizeof(int32_t));
    bound.ignore_all = ignore_all;
}

static int ignorable(int code)
{
    if (bound.ignore_all)
        return 1;
    for (int i = 0; i < bound.nignore; i++)
        if (bound.ignore[i] == code)
            return 1;
    return 0;
}

static sb_conn *conn_of(sql_connection *con) { return (sb_conn *)con; }

/* Copy the connection's last error into sysbench's fields, count it, and
 * reconnect a lost connection (the error is then ignorable: the event can
 * be retried on the new one). */
static void set_error(sb_conn *k)
{
    const lb_db_error *e = lb_db_conn_error(k->c);
    memcpy(k->state, e->sqlstate, sizeof(k->state));
    k->state[sizeof(k->state) - 1] = 0;
    snprintf(k->msg, sizeof(k->msg), "%s", e->message);
    k->pub.sql_errno = e->code;
    k->pub.sql_state = k->state;
    k->pub.sql_errmsg = k->msg;
    sb_counter_inc(0, SB_CNT_ERROR);
    if (lb_db_error_is_connection_lost(e->code)) {
        k->pub.error = lb_db_reconnect(k->c) == 0 ? DB_ERROR_IGNORABLE : DB_ERROR_FATAL;
        return;
    }
    k->pub.error = ignorable(e->code) ? DB_ERROR_IGNORABLE : DB_ERROR_FATAL;
}

static void clear_error(sb_conn *k)
{
    k->pub.error = DB_ERROR_NONE;
    k->pub.sql_errno = 0;
}

/* An API misuse (closed connection, no result set): a fatal error. */
static void misuse(sb_conn *k, const char *what)
{
    k->pub.error = DB_ERROR_FATAL;
    k->pub.sql_errno = LB_DB_E_INVALID;
    snprintf(k->msg, sizeof(k->msg), "%s", what);
    k->pub.sql_errmsg = k->msg;
    k->pub.sql_state = k->state;
}

/* ---- drivers and connections ------------------------------------------- */

sql_driver *db_create(const char *name)
{
    const lb_db_driver_ops *ops = name ? lb_db_driver_find(name) : bound.ops;
    if (!ops)
        return NULL;
    sb_driver *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    snprintf(d->name, sizeof(d->name), "%s", name ? name : bound.name);
    d->pub.sname = d->pub.lname = d->name;
    d->ops = ops;
    return &d->pub;
}

int db_destroy(sql_driver *drv)
{
    free(drv);
    return 0;
}

sql_connection *db_connection_create(sql_driver *drv)
{
    if (!drv)
        return NULL;
    sb_conn *k = calloc(1, sizeof(*k));
    if (!k)
        return NULL;
    k->ops = ((sb_driver *)drv)->ops;
    k->w = lb_sb_worker();
    lb_db_stats *st = k->w ? (lb_db_stats *)&lb_worker_stats(k->w)->ext : NULL;
    lb_db_error err;
    k->c = lb_db_connect(k->ops, &bound.o, st, &err);
    if (!k->c) {
        free(k);
        return NULL;
    }
    if (k->w && lb_worker_track(k->w, k->c, &lb_db_conn_handle) != 0) {
        lb_db_disconnect(k->c);
        free(k);
        return NULL;
    }
    k->pub.driver = drv;
    k->pub.sql_state = k->state;
    k->pub.sql_errmsg = k->msg;
    return &k->pub;
}

int db_connection_close(sql_connection *con)
{
    sb_conn *k = conn_of(con);
    if (!k || !k->c)
        return 1;
    if (k->w)
        lb_worker_close(k->w, k->c);
    else
        lb_db_disconnect(k->c);
    k->c = NULL;
    k->in_result = 0;
    return 0;
}

int db_connection_reconnect(sql_connection *con)
{
    sb_conn *k = conn_of(con);
    if (!k || !k->c)
        return DB_ERROR_FATAL;
    k->in_result = 0;
    if (lb_db_reconnect(k->c) != 0) {
        set_error(k);
        return DB_ERROR_FATAL;
    }
    clear_error(k);
    return DB_ERROR_NONE;
}

void db_connection_free(sql_connection *con)
{
    sb_conn *k = conn_of(con);
    if (!k)
        return;
    db_connection_close(con);
    free(k->vals);
    free(k);
}

/* ---- bulk inserts ------------------------------------------------------ */

static int bulk_rc(sb_conn *k, int rc)
{
    if (rc < 0) {
        set_error(k);
        return 1;
    }
    clear_error(k);
    return 0;
}

int db_bulk_insert_init(sql_connection *con, const char *query, size_t len)
{
    sb_conn *k = conn_of(con);
    if (!k->c) return misuse(k, "the connection is closed"), 1;
    return bulk_rc(k, lb_db_bulk_insert_init(k->c, query, len));
}

int db_bulk_insert_next(sql_connection *con, const char *query, size_t len)
{
    sb_conn *k = conn_of(con);
    if (!k->c) return misuse(k, "the connection is closed"), 1;
    return bulk_rc(k, lb_db_bulk_insert_next(k->c, query, len));
}

int db_bulk_insert_done(sql_connection *con)
{
    sb_conn *k = conn_of(con);
    if (!k->c) return misuse(k, "the connection is closed"), 1;
    return bulk_rc(k, lb_db_bulk_insert_done(k->c));
}

/* ---- queries and results ----------------------------------------------- */

/* The result of a successful query or execute: sysbench hands back only a
 * result set. */
static sql_result *result_of(sb_conn *k, lb_db_result *r, sb_stmt *s)
{
    clear_error(k);
    if (!r)
        return NULL;
    sql_result *rs = &k->rs;
    rs->counter = SB_CNT_READ;
    rs->nrows = (uint32_t)lb_db_result_nrows(r);
    rs->nfields = (uint32_t)lb_db_result_nfields(r);
    rs->statement = s ? &s->pub : NULL;
    rs->ptr = r;
    rs->row.ptr = NULL;
    rs->row.values = NULL;
    k->in_result = 1;
    k->rs_stmt = s;
    return rs;
}

sql_result *db_query(sql_connection *con, const char *query, size_t len)
{
    sb_conn *k = conn_of(con);
    if (!k->c) return misuse(k, "the connection is closed"), NULL;
    k->in_result = 0;
    if (lb_db_query(k->c, query, len) < 0) {
        set_error(k);
        return NULL;
    }
    return result_of(k, lb_db_conn_result(k->c), NULL);
}

/* Write a row's text value into a result bind, converted to its type. */
static void fill_result_bind(sql_bind *b, const char *v, unsigned long len)
{
    if (b->is_null)
        *b->is_null = v == NULL;
    if (!v || !b->buffer)
        return;
    switch (b->type) {
    case SQL_TYPE_TINYINT: *(int8_t *)b->buffer = (int8_t)strtoll(v, NULL, 10); break;
    case SQL_TYPE_SMALLINT: *(int16_t *)b->buffer = (int16_t)strtoll(v, NULL, 10); break;
    case SQL_TYPE_INT: *(int32_t *)b->buffer = (int32_t)strtoll(v, NULL, 10); break;
    case SQL_TYPE_BIGINT: *(int64_t *)b->buffer = strtoll(v, NULL, 10); break;
    case SQL_TYPE_FLOAT: *(float *)b->buffer = strtof(v, NULL); break;
    case SQL_TYPE_DOUBLE: *(double *)b->buffer = strtod(v, NULL); break;
    default: {
        unsigned long n = len < b->max_len ? len : b->max_len;
        memcpy(b->buffer, v, n);
        if (b->data_len)
            *b->data_len = n;
    }
    }
}

sql_row *db_fetch_row(sql_result *rs)
{
    sb_conn *k = (sb_conn *)((char *)rs - offsetof(sb_conn, rs));
    if (!k->in_result || rs->nrows == 0 || rs->nfields == 0)
        return NULL;
    const char *const *vals;
    const unsigned long *lens;
    if (lb_db_result_fetch(rs->ptr, &vals, &lens) != 1)
        return NULL;
    if (k->nvals < rs->nfields) {
        sql_value *nv = realloc(k->vals, rs->nfields * sizeof(sql_value));
        if (!nv)
            return NULL;
        k->vals = nv;
        k->nvals = rs->nfields;
    }
    for (uint32_t i = 0; i < rs->nfields; i++) {
        k->vals[i].ptr = vals[i];
        k->vals[i].len = (uint32_t)lens[i];
    }
    sb_stmt *s = k->rs_stmt;
    if (s)
        for (size_t i = 0; i < s->nresults && i < rs->nfields; i++)
            fill_result_bind(&s->results[i], vals[i], lens[i]);
    rs->row.values = k->vals;
    return &rs->row;
}

int db_free_results(sql_result *rs)
{
    sb_conn *k = (sb_conn *)((char *)rs - offsetof(sb_conn, rs));
    if (!k->in_result)
        return 1;
    lb_db_result_free(rs->ptr);
    k->in_result = 0;
    rs->nrows = rs->nfields = 0;
    rs->statement = NULL;
    rs->ptr = NULL;
    return 0;
}

/* ---- prepared statements ----------------------------------------------- */

sql_statement *db_prepare(sql_connection *con, const char *query, size_t len)
{
    sb_conn *k = conn_of(con);
    if (!k->c) return misuse(k, "the connection is closed"), NULL;
    sb_stmt *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->s = lb_db_prepare(k->c, query, len);
    if (!s->s) {
        set_error(k);
        free(s);
        return NULL;
    }
    clear_error(k);
    s->con = k;
    s->pub.connection = con;
    return &s->pub;
}

static int copy_binds(sql_bind **dst, size_t *n, const sql_bind *src, size_t len)
{
    sql_bind *b = len ? calloc(len, sizeof(sql_bind)) : NULL;
    if (len && !b)
        return 1;
    if (len)
        memcpy(b, src, len * sizeof(sql_bind));
    free(*dst);
    *dst = b;
    *n = len;
    return 0;
}

int db_bind_param(sql_statement *stmt, sql_bind *params, size_t len)
{
    sb_stmt *s = (sb_stmt *)stmt;
    lb_db_bind *binds = len ? calloc(len, sizeof(lb_db_bind)) : NULL;
    if ((len && !binds) || copy_binds(&s->params, &s->nparams, params, len)) {
        free(binds);
        return 1;
    }
    free(s->binds);
    s->binds = binds;
    for (size_t i = 0; i < len; i++) {
        s->binds[i].type = (int32_t)params[i].type;
        if (params[i].type >= SQL_TYPE_TIME) {
            s->binds[i].buf = params[i].buffer;
            s->binds[i].cap = params[i].max_len;
        }
    }
    if (lb_db_stmt_bind_param(s->s, s->binds, (int)len) < 0) {
        set_error(s->con);
        return 1;
    }
    return 0;
}

int db_bind_result(sql_statement *stmt, sql_bind *results, size_t len)
{
    sb_stmt *s = (sb_stmt *)stmt;
    return copy_binds(&s->results, &s->nresults, results, len);
}

/* The parameters' current values, from the caller's buffers. */
static void load_params(sb_stmt *s)
{
    for (size_t i = 0; i < s->nparams; i++) {
        const sql_bind *p = &s->params[i];
        lb_db_bind *b = &s->binds[i];
        b->is_null = (p->is_null && *p->is_null) || !p->buffer;
        if (b->is_null)
            continue;
        switch (p->type) {
        case SQL_TYPE_TINYINT: b->i = *(const int8_t *)p->buffer; break;
        case SQL_TYPE_SMALLINT: b->i = *(const int16_t *)p->buffer; break;
        case SQL_TYPE_INT: b->i = *(const int32_t *)p->buffer; break;
        case SQL_TYPE_BIGINT: b->i = *(const int64_t *)p->buffer; break;
        case SQL_TYPE_FLOAT: b->d = *(const float *)p->buffer; break;
        case SQL_TYPE_DOUBLE: b->d = *(const double *)p->buffer; break;
        default: {
            unsigned long n = p->data_len ? *p->data_len : 0;
            b->len = n < p->max_len ? n : p->max_len;
        }
        }
    }
}

sql_result *db_execute(sql_statement *stmt)
{
    sb_stmt *s = (sb_stmt *)stmt;
    sb_conn *k = s->con;
    if (!k->c) return misuse(k, "the connection is closed"), NULL;
    k->in_result = 0;
    load_params(s);
    if (lb_db_stmt_execute(s->s) < 0) {
        set_error(k);
        return NULL;
    }
    return result_of(k, lb_db_stmt_result(s->s), s);
}

int db_close(sql_statement *stmt)
{
    sb_stmt *s = (sb_stmt *)stmt;
    if (!s)
        return 0;
    if (s->con->rs_stmt == s) {
        s->con->in_result = 0;
        s->con->rs_stmt = NULL;
    }
    if (s->con->c)
        lb_db_stmt_close(s->s);
    free(s->params);
    free(s->binds);
    free(s->results);
    free(s);
    return 0;
}
