/* Queries, result sets and bulk inserts.  A connection has one live
 * result at a time; each query releases the previous one, which keeps the
 * client library in sync without the caller freeing results.  lb_db_query
 * and the fetch calls are the hot path: no lock, no allocation. */
#include "query.h"
#include "account.h"
#include "debug.h"
#include "error.h"

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

lb_db_result *lb_db_conn_result(lb_db_conn *c)
{
    return c && c->cur == &c->result ? &c->result : NULL;
}

int64_t lb_db_result_nrows(lb_db_result *r)
{
    return r && r->h ? r->nrows : 0;
}

int lb_db_result_nfields(lb_db_result *r)
{
    return r && r->h ? r->nfields : 0;
}

const char *lb_db_result_field_name(lb_db_result *r, int i)
{
    if (!r || !r->h || i < 0 || i >= r->nfields)
        return NULL;
    /* The fetch function tells whose handle this is: a query's or an
     * executed statement's (the same function for drivers that share one). */
    const lb_db_driver_ops *ops = r->c->ops;
    const char *(*name)(void *, int) = r->fetch == ops->fetch ? ops->field_name : ops->stmt_field_name;
    return name ? name(r->h, i) : NULL;
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


