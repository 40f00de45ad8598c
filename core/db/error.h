/* Errors of the database layer: how a failed call records its error on
 * the connection (query text, counting, debug line) and what it returns. */
#ifndef LB_DB_ERROR_H
#define LB_DB_ERROR_H

#include "internal.h"

/* Record a failure of the current operation, whose reason the driver (or
 * the caller) already put in c->err: fill in the query, count it if
 * `counted`, log it.  Returns the value the API call returns (-code). */
int lb__db_fail(lb_db_conn *c, const char *sql, size_t len, int counted);

/* lb__db_fail with this layer's own `code` and message. */
int lb__db_fail_code(lb_db_conn *c, int code, const char *msg, const char *sql, size_t len, int counted);

/* -code of the error a helper left in c->err (not recorded by lb__db_fail). */
static inline int lb__db_err_rc(const lb_db_conn *c)
{
    return -(c->err.code > 0 ? c->err.code : LB_DB_E_UNKNOWN);
}

#endif
