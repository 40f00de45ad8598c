/* Prepared statements: the object (own copy of the SQL, classified once),
 * the caller's bind array (kept by pointer: updated in place, no re-bind
 * per execute), the halves of a server-side prepare with its fallback to
 * emulation, and close (the prepare and execute operations are op.c's).
 * Every statement is linked into its connection so that a reconnect can
 * mark it for preparing again. */
#include "stmt.h"
#include "account.h"
#include "debug.h"
#include "emulate.h"
#include "error.h"

#include <stdlib.h>
#include <string.h>

/* NULL on ENOMEM, with the error recorded on the connection. */
static lb_db_stmt *stmt_alloc(lb_db_conn *c, const char *sql, size_t len)
{
    lb_db_stmt *s = calloc(1, sizeof *s);
    char *copy = malloc(len + 1);
    if (!s || !copy) {
        free(s);
        free(copy);
        lb__db_fail_code(c, LB_DB_E_NOMEM, "out of memory", sql, len, 1);
        return NULL;
    }
    memcpy(copy, sql, len);
    copy[len] = '\0';
    s->c = c;
    s->sql = copy;
    s->len = len;
    s->type = lb_db_classify(sql, len);
    s->result.c = c;
    return s;
}

void lb__db_stmt_free(lb_db_stmt *s)
{
    free(s->sql);
    free(s->ph);
    free(s->ebuf);
    free(s);
}

static void stmt_link(lb_db_conn *c, lb_db_stmt *s)
{
    s->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = s;
    c->stmts = s;
}

static void stmt_unlink(lb_db_conn *c, lb_db_stmt *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
}

lb_db_stmt *lb__db_stmt_new(lb_db_conn *c, const char *sql, size_t len, int emulate)
{
    if (!sql) {
        lb__db_fail_code(c, LB_DB_E_INVALID, "NULL statement", NULL, 0, 1);
        return NULL;
    }
    if (!c->drv) {
        lb__db_fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
        return NULL;
    }
    lb_db_stmt *s = stmt_alloc(c, sql, len);
    if (s && c->opts.debug)
        lb__db_debug_prepare(c, s, emulate);
    return s;
}

int lb__db_stmt_adopt(lb_db_stmt *s, int rc)
{
    lb_db_conn *c = s->c;
    if (rc != 0) {
        rc = lb__db_fail(c, s->sql, s->len, 1);
        lb__db_stmt_free(s);
        return rc;
    }
    stmt_link(c, s);
    return 0;
}

/* Close the driver statement of a (re-)prepare that cannot be used. */
static int drop_driver_stmt(lb_db_stmt *s)
{
    s->c->ops->stmt_close(s->drv);
    s->drv = NULL;
    return lb__db_err_rc(s->c);
}

int lb__db_stmt_after_prepare(lb_db_stmt *s, void *ds, int np)
{
    lb_db_conn *c = s->c;
    s->drv = ds;
    if (!s->drv) {
        if (c->err.code != LB_DB_E_UNSUPPORTED)
            return lb__db_err_rc(c);
        if (c->opts.debug)
            lb__db_debugf(c, "server cannot prepare it (%s), statement emulated client-side: %.*s",
                          c->err.message, lb__db_dlen(s->len), s->sql);
        return lb__db_stmt_emulate(s);
    }
    if (s->nbound && np != s->nbound) {
        lb__db_error_set(&c->err, LB_DB_E_INVALID, "HY000", "placeholder count changed on re-prepare");
        return drop_driver_stmt(s);
    }
    s->nparams = np;
    if (s->nbound && c->ops->stmt_bind(s->drv, s->params, s->nbound, &c->err) != 0)
        return drop_driver_stmt(s);
    return 0;
}

int lb_db_stmt_param_count(lb_db_stmt *s)
{
    return s ? s->nparams : 0;
}

int lb_db_stmt_bind_param(lb_db_stmt *s, lb_db_bind *params, int n)
{
    if (!s)
        return -LB_DB_E_INVALID;
    lb_db_conn *c = s->c;
    if (n != s->nparams || (n > 0 && !params))
        return lb__db_fail_code(c, LB_DB_E_INVALID, "parameter count does not match the placeholders", s->sql, s->len, 0);
    for (int i = 0; i < n; i++)
        if (!lb__db_bind_type_valid(params[i].type))
            return lb__db_fail_code(c, LB_DB_E_INVALID, "invalid parameter type", s->sql, s->len, 0);
    s->params = params;
    s->nbound = n;
    if (!s->emulated && s->drv && n > 0) {
        lb__db_clear_error(c);
        if (c->ops->stmt_bind(s->drv, params, n, &c->err) != 0)
            return lb__db_fail(c, s->sql, s->len, 0);
    }
    return 0;
}

lb_db_result *lb_db_stmt_result(lb_db_stmt *s)
{
    return s && s->c->cur == &s->result ? &s->result : NULL;
}

void lb_db_stmt_close(lb_db_stmt *s)
{
    if (!s)
        return;
    lb_db_conn *c = s->c;
    if (c->cur == &s->result)
        lb__db_release(c);
    if (s->drv) {
        if (c->last_ds == s->drv)
            c->last_ds = NULL;
        c->ops->stmt_close(s->drv);
    }
    stmt_unlink(c, s);
    lb__db_stmt_free(s);
}
