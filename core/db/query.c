/* Queries, result sets and bulk inserts.  A connection has one live
 * result at a time; each query releases the previous one, which keeps the
 * client library in sync without the caller freeing results.  lb_db_query
 * and the fetch calls are the hot path: no lock, no allocation. */
#include "query.h"
#include "account.h"
#include "debug.h"
#include "error.h"
#include "op.h"

#include <stdlib.h>
#include <string.h>

int lb__db_query_prologue(lb_db_conn *c, const char *sql, size_t len)
{
    if (c->cur)
        lb__db_release(c);
    if (!c->drv)
        return lb__db_fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
    if (c->opts.debug)
        lb__db_debugf(c, "query: %.*s", lb__db_dlen(len), sql);
    lb__db_clear_error(c);
    return 0;
}

int lb__db_query_invalid(lb_db_conn *c)
{
    return c ? lb__db_fail_code(c, LB_DB_E_INVALID, "NULL query", NULL, 0, 1) : -LB_DB_E_INVALID;
}

int lb_db_query(lb_db_conn *c, const char *sql, size_t len)
{
    return lb_db_wait(c, lb_db_query_start(c, sql, len));
}

lb_db_result *lb_db_conn_result(lb_db_conn *c)
{
    return c && c->cur == &c->result ? &c->result : NULL;
}

int lb_db_next_result(lb_db_conn *c)
{
    int rc = lb_db_wait(c, lb_db_next_result_start(c));
    return rc < 0 ? rc : lb_db_next_result_found(c);
}

int64_t lb_db_result_nrows(lb_db_result *r)
{
    return r && r->h ? r->nrows : 0;
}

int lb_db_result_nfields(lb_db_result *r)
{
    return r && r->h ? r->nfields : 0;
}

int lb_db_result_fetch(lb_db_result *r, const char *const **values, const unsigned long **lengths)
{
    if (!r || !r->h)
        return 0;
    lb_db_conn *c = r->c;
    lb__db_clear_error(c);
    int rc = r->fetch(r->h, values, lengths, &c->err);
    if (rc < 0)
        return lb__db_fail(c, NULL, 0, 0);
    return rc;
}

void lb_db_result_free(lb_db_result *r)
{
    if (!r)
        return;
    if (r->c->cur == r)
        lb__db_release(r->c);
}

/* ------------------------------------------------------------------------ */
/* Bulk insert                                                              */
/* ------------------------------------------------------------------------ */

static int bulk_reserve(lb_db_conn *c, size_t need)
{
    if (need <= c->bcap)
        return 0;
    size_t cap = c->bcap ? c->bcap : 4096;
    while (cap < need)
        cap *= 2;
    char *nb = realloc(c->bulk, cap);
    if (!nb)
        return -1;
    c->bulk = nb;
    c->bcap = cap;
    return 0;
}

/* Send the accumulated rows as one statement and restart after the prefix
 * (also on failure: those rows are reported lost, not retried). */
static int bulk_flush(lb_db_conn *c)
{
    if (c->brows == 0)
        return 0;
    size_t len = c->blen;
    c->blen = c->bprefix;
    c->brows = 0;
    if (c->aop)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "another operation is in progress on this connection", NULL, 0, 0);
    return lb_db_wait(c, lb__db_query_begin(c, c->bulk, len, c->btype, &c->result));
}

int lb_db_bulk_insert_init(lb_db_conn *c, const char *prefix, size_t len)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!prefix || !len)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "empty bulk insert prefix", NULL, 0, 0);
    if (bulk_reserve(c, len + 1) != 0)
        return lb__db_fail_code(c, LB_DB_E_NOMEM, "out of memory", prefix, len, 0);
    memcpy(c->bulk, prefix, len);
    c->bprefix = c->blen = len;
    c->brows = 0;
    c->btype = lb_db_classify(prefix, len);
    c->bactive = 1;
    return 0;
}

int lb_db_bulk_insert_next(lb_db_conn *c, const char *values, size_t len)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->bactive || !values)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "bulk insert not started", NULL, 0, 0);
    int rc = 0;
    if (c->brows > 0 && c->blen + 1 + len > c->bmax)
        rc = bulk_flush(c);
    if (bulk_reserve(c, c->blen + 1 + len) != 0)
        return lb__db_fail_code(c, LB_DB_E_NOMEM, "out of memory", NULL, 0, 0);
    if (c->brows > 0)
        c->bulk[c->blen++] = ',';
    memcpy(c->bulk + c->blen, values, len);
    c->blen += len;
    c->brows++;
    return rc;
}

int lb_db_bulk_insert_done(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->bactive)
        return 0;
    int rc = bulk_flush(c);
    c->bactive = 0;
    c->blen = c->bprefix = 0;
    return rc;
}

