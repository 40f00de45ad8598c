/* Connections: options (parsing, deep copy), allocation, connect,
 * reconnect (statements are prepared again by their next execute),
 * disconnect, abort from another thread, the connection as a worker's
 * handle, and the per-connection accessors.  The mutex only orders
 * installing/dropping the driver connection against lb_db_conn_abort. */
#include "conn.h"
#include "account.h"
#include "../clock.h"
#include "debug.h"
#include "driver.h"
#include "error.h"
#include "stmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BULK_DEFAULT_MAX (512u * 1024u)

void lb_db_conn_opts_init(lb_db_conn_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->ssl_mode = LB_DB_SSL_DISABLED;
    o->ps_mode = LB_DB_PS_AUTO;
}

int lb_db_ssl_mode_parse(const char *s)
{
    static const struct { const char *n; int v; } t[] = {
        {"disabled", LB_DB_SSL_DISABLED}, {"off", LB_DB_SSL_DISABLED},
        {"preferred", LB_DB_SSL_PREFERRED}, {"required", LB_DB_SSL_REQUIRED},
        {"on", LB_DB_SSL_REQUIRED}, {"verify_ca", LB_DB_SSL_VERIFY_CA},
        {"verify_identity", LB_DB_SSL_VERIFY_IDENTITY},
    };
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcasecmp(s, t[i].n) == 0)
            return t[i].v;
    return -1;
}

int lb_db_ps_mode_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcasecmp(s, "auto") == 0)
        return LB_DB_PS_AUTO;
    if (strcasecmp(s, "disable") == 0)
        return LB_DB_PS_DISABLE;
    if (strcasecmp(s, "extended") == 0)
        return LB_DB_PS_EXTENDED;
    return -1;
}

/* Deep-copy the option strings into one block so reconnect can reuse them
 * after the caller's (Lua) strings are gone. */
static int copy_opts(lb_db_conn *c, const lb_db_conn_opts *o)
{
    c->opts = *o;
    const char **f[] = { &c->opts.host, &c->opts.socket, &c->opts.user, &c->opts.password,
                         &c->opts.db, &c->opts.ssl_key, &c->opts.ssl_cert, &c->opts.ssl_ca,
                         &c->opts.ssl_cipher, &c->opts.conninfo, &c->opts.app_name };
    size_t total = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (*f[i])
            total += strlen(*f[i]) + 1;
    if (total == 0)
        return 0;
    c->strs = malloc(total);
    if (!c->strs)
        return -1;
    char *p = c->strs;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (*f[i]) {
            size_t l = strlen(*f[i]) + 1;
            memcpy(p, *f[i], l);
            *f[i] = p;
            p += l;
        }
    return 0;
}

/* A connection object with its options, not connected. */
static lb_db_conn *conn_alloc(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                              lb_db_stats *st, lb_db_error *err)
{
    if (!lb__db_driver_valid(drv) || !o) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", !o ? "no connection options" : "invalid or incomplete driver");
        return NULL;
    }
    if (o->ssl_mode < LB_DB_SSL_DISABLED || o->ssl_mode > LB_DB_SSL_VERIFY_IDENTITY ||
        (o->ps_mode < LB_DB_PS_AUTO || o->ps_mode > LB_DB_PS_EXTENDED) || o->port < 0) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "invalid ssl_mode, ps_mode or port");
        return NULL;
    }
    (void)lb__db_driver_init(drv);   /* a failure shows as the connect's own error */
    lb_db_conn *c = calloc(1, sizeof *c);
    if (!c || copy_opts(c, o) != 0) {
        free(c);
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    c->ops = drv;
    c->st = st;
    c->bmax = o->bulk_max ? (size_t)o->bulk_max : BULK_DEFAULT_MAX;
    c->result.c = c;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void conn_free(lb_db_conn *c)
{
    pthread_mutex_destroy(&c->lock);
    free(c->bulk);
    free(c->strs);
    free(c->dbg);
    free(c);
}

lb_db_conn *lb_db_conn_new(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                           lb_db_stats *st, lb_db_error *err)
{
    return conn_alloc(drv, o, st, err);
}

void lb__db_close_server(lb_db_conn *c)
{
    if (c->cur)
        lb__db_release(c);
    pthread_mutex_lock(&c->lock);
    void *d = c->drv;
    c->drv = NULL;
    pthread_mutex_unlock(&c->lock);
    if (d)
        c->ops->disconnect(d);
    for (lb_db_stmt *s = c->stmts; s; s = s->next)
        if (s->drv) {
            c->ops->stmt_close(s->drv);
            s->drv = NULL;
        }
    c->last_ds = NULL;
}

void lb__db_outage_begin(lb_db_conn *c)
{
    if (c->lost_ns)
        return;
    int64_t now = lb_clock_ns_inline();
    c->lost_ns = now > 0 ? now : 1;
    if (c->st)
        lb__db_st_add(&c->st->lost, 1);
}

/* The outage under way (if any) ends now: by a reconnect, or because the
 * owner gives up (`gave_up`).  Its length in ns, 0 when there was none. */
static int64_t outage_end(lb_db_conn *c, int gave_up)
{
    if (!c->lost_ns)
        return 0;
    int64_t d = lb_clock_ns_inline() - c->lost_ns;
    c->lost_ns = 0;
    if (d < 0)
        d = 0;
    if (c->st) {
        lb__db_st_add(&c->st->outage_ns, (uint64_t)d);
        if (gave_up)
            lb__db_st_add(&c->st->gave_up, 1);
    }
    return d;
}

void lb__db_reconnect_begin(lb_db_conn *c)
{
    lb__db_close_server(c);
    pthread_mutex_lock(&c->lock);
    c->aborted = 0;
    pthread_mutex_unlock(&c->lock);
    if (c->opts.debug)
        lb__db_debugf(c, "reconnect");
}

void lb__db_conn_attach(lb_db_conn *c, void *d, int reconnect)
{
    pthread_mutex_lock(&c->lock);
    c->drv = d;
    if (c->aborted)         /* aborted while we were connecting */
        c->ops->abort(d);
    pthread_mutex_unlock(&c->lock);
    if (reconnect && c->st)
        lb__db_st_add(&c->st->reconnects, 1);
    outage_end(c, 0);
}

int lb__db_connect_failed(lb_db_conn *c, int reconnect)
{
    if (c->err.code <= 0)
        lb__db_error_set(&c->err, LB_DB_E_UNKNOWN, "HY000", "connect failed");
    if (reconnect) {
        if (c->st)
            lb__db_st_add(&c->st->reconnect_failed, 1);
        lb__db_outage_begin(c);
    }
    return lb__db_fail(c, NULL, 0, 0);
}

int64_t lb_db_conn_outage_end(lb_db_conn *c)
{
    return c ? outage_end(c, 1) : 0;
}

void lb__db_op_abandon(lb_db_conn *c)
{
    if (c->adrv) {
        /* A connect that never completed. */
        c->ops->disconnect(c->adrv);
        c->adrv = NULL;
    }
    if (c->aop == LB__DB_AOP_PREPARE && c->astmt) {
        /* A new statement whose prepare never completed (not yet listed). */
        lb__db_stmt_free(c->astmt);
        c->astmt = NULL;
    }
}

void lb_db_disconnect(lb_db_conn *c)
{
    if (!c)
        return;
    if (c->opts.debug)
        lb__db_debugf(c, "disconnect");
    outage_end(c, 1);
    lb__db_close_server(c);
    lb__db_op_abandon(c);
    lb_db_stmt *s = c->stmts;
    while (s) {
        lb_db_stmt *n = s->next;
        lb__db_stmt_free(s);
        s = n;
    }
    conn_free(c);
}

void lb_db_conn_abort(lb_db_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->aborted = 1;
    if (c->drv)
        c->ops->abort(c->drv);
    pthread_mutex_unlock(&c->lock);
}

void lb_db_conn_waiting(lb_db_conn *c, char *buf, size_t n)
{
    if (!c || n == 0)
        return;
    pthread_mutex_lock(&c->lock);
    snprintf(buf, n, "%s", c->waiting);
    pthread_mutex_unlock(&c->lock);
}

static void handle_abort(void *h) { lb_db_conn_abort(h); }
static void handle_close(void *h) { lb_db_disconnect(h); }
static void handle_waiting(void *h, char *buf, size_t n) { lb_db_conn_waiting(h, buf, n); }
const lb_handle_ops lb_db_conn_handle = { handle_abort, handle_close, handle_waiting };

const lb_db_error *lb_db_conn_error(lb_db_conn *c)
{
    static const lb_db_error none = { LB_DB_E_INVALID, "HY000", "no connection", "", "" };
    return c ? &c->err : &none;
}

const char *lb_db_driver_name(lb_db_conn *c)
{
    return c ? c->ops->name : "";
}

const char *lb_db_server_version(lb_db_conn *c)
{
    if (!c || !c->drv)
        return "";
    const char *v = c->ops->server_version(c->drv);
    return v ? v : "";
}

int lb_db_in_transaction(lb_db_conn *c)
{
    if (!c || !c->drv)
        return -1;
    return c->ops->in_transaction ? c->ops->in_transaction(c->drv) : -1;
}

uint64_t lb_db_affected_rows(lb_db_conn *c)
{
    if (!c || !c->drv || !c->ops->affected_rows)
        return 0;
    return c->ops->affected_rows(c->drv, c->last_ds);
}

uint64_t lb_db_insert_id(lb_db_conn *c)
{
    if (!c || !c->drv || !c->ops->insert_id)
        return 0;
    return c->ops->insert_id(c->drv, c->last_ds);
}

