/* Database operations: one state machine per operation (connect,
 * reconnect, query, next result, prepare, execute, a bulk load's three
 * steps, and a whole load from a row source), for both modes.
 *
 * Each lb_db_*_start records what is in progress in c->aop and starts the
 * driver's non-blocking op; lb_db_cont continues it after a wait, and
 * op_done finishes it once the driver reports completion, with the
 * accounting helpers of conn.h, query.h and stmt.h.  Who waits is the
 * caller's choice:
 *  - an async worker's virtual user yields to its event loop (api/sql.lua);
 *  - everything else calls lb_db_wait: the blocking calls (lb_db_query,
 *    ...), all in blocking.c.
 * The layer reads bottom to top: error, debug, account, sql, emulate →
 * stmt, query, conn → op → blocking; the drivers (mysql*, pgsql*, null)
 * sit under op behind lb_db_driver_ops. */
#include "op.h"
#include "account.h"
#include "conn.h"
#include "debug.h"
#include "emulate.h"
#include "error.h"
#include "query.h"
#include "stmt.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static int op_done(lb_db_conn *c, int rc, lb__db_async *out);

static int busy(lb_db_conn *c)
{
    return lb__db_fail_code(c, LB_DB_E_INVALID, "another operation is in progress on this connection", NULL, 0, 0);
}

/* -code when no operation can start on `c` (NULL, or one in progress). */
static int not_idle(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    return c->aop ? busy(c) : 0;
}

/* The driver's start or cont call returned `rc`: a wait mask goes back to
 * the caller; completion (0 or <0) finishes the operation. */
static int begun(lb_db_conn *c, int rc, lb__db_async *out)
{
    if (rc > 0)
        return rc;
    if (rc < 0 && c->opts.blocking)
        lb__db_note_cut(c);
    return op_done(c, rc, out);
}

/* The end of statement `s`'s execute, which returned `rc`: the failure
 * recorded, or the result published and counted.  The operation is over. */
static int execute_done(lb_db_conn *c, lb_db_stmt *s, int rc, lb__db_async *out)
{
    c->aop = LB__DB_AOP_NONE;
    c->astmt = NULL;
    if (rc < 0)
        return lb__db_fail(c, s->sql, s->len, 1);
    lb__db_exec_done(s, &out->rs);
    return 0;
}

/* Operation `op` (on statement `s`) is in progress from now on. */
static void in_progress(lb_db_conn *c, int op, lb_db_stmt *s)
{
    lb__db_clear_error(c);
    c->aop = op;
    c->astmt = s;
}

static int connect_begin(lb_db_conn *c, int op)
{
    in_progress(c, op, NULL);
    void *d = NULL;
    int rc = c->ops->connect_start(&c->opts, &d, &c->err);
    c->adrv = d;
    return begun(c, rc, NULL);
}

int lb_db_connect_start(lb_db_conn *c)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    if (c->drv)
        return 0;
    lb__db_debug_connect(c);
    return connect_begin(c, LB__DB_AOP_CONNECT);
}

int lb_db_reconnect_start(lb_db_conn *c)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    lb__db_reconnect_begin(c);
    return connect_begin(c, LB__DB_AOP_RECONNECT);
}

int lb__db_query_begin(lb_db_conn *c, const char *sql, size_t len, int type, lb_db_result *target)
{
    int rc = lb__db_query_prologue(c, sql, len);
    if (rc != 0)
        return rc;
    c->aop = LB__DB_AOP_QUERY;
    c->atype = type;
    c->atarget = target;
    c->asql = sql;
    c->alen = len;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->query_start(c->drv, sql, len, &out, &c->err), &out);
}

int lb_db_query_start(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c || !sql)
        return lb__db_query_invalid(c);
    if (c->aop)
        return busy(c);
    return lb__db_query_begin(c, sql, len, lb_db_classify(sql, len), &c->result);
}

int lb_db_next_result_start(lb_db_conn *c)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    if (c->cur)
        lb__db_release(c);
    c->afound = 0;
    if (!c->drv)
        return 0;
    in_progress(c, LB__DB_AOP_NEXT, NULL);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->next_result_start(c->drv, &out, &c->err), &out);
}

int lb_db_next_result_found(lb_db_conn *c)
{
    return c ? c->afound : 0;
}

/* Server-side prepare of `s` (a new statement, or one a reconnect left
 * unprepared), as operation `op`. */
static int prepare_begin(lb_db_stmt *s, int op)
{
    lb_db_conn *c = s->c;
    in_progress(c, op, s);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->prepare_start(c->drv, s->sql, s->len, &out, &c->err), &out);
}

int lb_db_prepare_start(lb_db_conn *c, const char *sql, size_t len)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    c->aprepared = NULL;
    int emulate = c->opts.ps_mode == LB_DB_PS_DISABLE || !c->ops->prepare_start;
    lb_db_stmt *s = lb__db_stmt_new(c, sql, len, emulate);
    if (!s)
        return lb__db_err_rc(c);
    if (emulate) {
        /* Nothing to wait for: an emulated statement only parses its SQL. */
        if ((rc = lb__db_stmt_adopt(s, lb__db_stmt_emulate(s))) == 0)
            c->aprepared = s;
        return rc;
    }
    return prepare_begin(s, LB__DB_AOP_PREPARE);
}

lb_db_stmt *lb_db_prepared(lb_db_conn *c)
{
    return c ? c->aprepared : NULL;
}

/* Parameters come from the caller before every execute (blocking or not):
 * check that they are bound and that text lengths fit their buffers,
 * rather than trusting them blindly. */
static int check_params(lb_db_stmt *s)
{
    lb_db_conn *c = s->c;
    if (s->nparams == 0)
        return 0;
    if (!s->nbound)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "parameters not bound", s->sql, s->len, 1);
    const lb_db_bind *p = s->params;
    for (int i = 0; i < s->nparams; i++)
        if (!p[i].is_null && (!lb__db_bind_type_valid(p[i].type) ||
                              (lb__db_bind_is_text(p[i].type) && (p[i].len > p[i].cap || (!p[i].buf && p[i].len)))))
            return lb__db_fail_code(c, LB_DB_E_INVALID, "invalid parameter (type, or len > cap)", s->sql, s->len, 1);
    return 0;
}

/* What an execute does first: release the live result, check the
 * parameters and the connection, and for an emulated statement build its
 * SQL text (in s->ebuf, *emu_len bytes).  0: go on with the server-side
 * statement; 1: run the text; -code: failed (recorded).  Here rather than
 * in stmt.c so that it inlines into the execute: it runs once per
 * statement. */
static int exec_prologue(lb_db_stmt *s, size_t *emu_len)
{
    lb_db_conn *c = s->c;
    if (c->cur)
        lb__db_release(c);
    int rc = check_params(s);
    if (rc != 0)
        return rc;
    if (!c->drv)
        return lb__db_fail_code(c, LB_DB_E_NOTCONN, "not connected", s->sql, s->len, 1);
    if (!s->emulated)
        return 0;
    rc = lb__db_emu_build(s, emu_len);
    return rc != 0 ? rc : 1;
}

/* Just before the driver's execute: log, clear the error. */
static void exec_log(lb_db_stmt *s)
{
    lb_db_conn *c = s->c;
    if (c->opts.debug)
        lb__db_debugf(c, "execute: %.*s", lb__db_dlen(s->len), s->sql);
    lb__db_clear_error(c);
}

/* `may_block`: the caller waits in lb_db_wait anyway (a thread), so the
 * driver's blocking form runs when it has one. */
static int exec_begin(lb_db_stmt *s, int may_block)
{
    lb_db_conn *c = s->c;
    exec_log(s);
    c->aop = LB__DB_AOP_EXECUTE;
    c->astmt = s;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    if (may_block && c->ops->stmt_execute_blocking) {
        /* Completed in the call unless cut: op_done's execute case directly. */
        int rc = c->ops->stmt_execute_blocking(s->drv, &out, &c->err);
        if (rc < 0)
            lb__db_note_cut(c);
        return rc > 0 ? rc : execute_done(c, s, rc, &out);
    }
    return begun(c, c->ops->stmt_execute_start(s->drv, &out, &c->err), &out);
}

static int execute_begin(lb_db_stmt *s, int may_block)
{
    if (!s)
        return -LB_DB_E_INVALID;
    lb_db_conn *c = s->c;
    if (c->aop)
        return busy(c);
    size_t n;
    int rc = exec_prologue(s, &n);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return lb__db_query_begin(c, s->ebuf, n, s->type, &s->result);
    if (!s->drv) {
        /* Unprepared since a reconnect: prepare it again first. */
        if (c->opts.debug)
            lb__db_debug_prepare(c, s, 0);
        return prepare_begin(s, LB__DB_AOP_REPREPARE);
    }
    return exec_begin(s, may_block);
}

int lb_db_stmt_execute_start(lb_db_stmt *s)
{
    return execute_begin(s, 0);
}

int lb__db_stmt_execute_begin(lb_db_stmt *s)
{
    return execute_begin(s, 1);
}

/* ---- bulk load -------------------------------------------------------- */

int lb_db_load_supported(lb_db_conn *c)
{
    return c && c->ops->load_start != NULL;
}

/* What both kinds of load do before the driver starts the statement:
 * 0, or what the start call returns. */
static int load_prologue(lb_db_conn *c, const char *sql, size_t len, int supported, int aop)
{
    if (c->aop)
        return busy(c);
    if (!supported)
        return lb__db_fail_code(c, LB_DB_E_UNSUPPORTED, "the driver has no bulk load", sql, len, 0);
    int rc = lb__db_query_prologue(c, sql, len);
    if (rc != 0)
        return rc;
    c->aop = aop;
    c->asql = sql;
    c->alen = len;
    return 0;
}

int lb_db_load_start(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c || !sql)
        return lb__db_query_invalid(c);
    int rc = load_prologue(c, sql, len, c->ops->load_start != NULL, LB__DB_AOP_LOAD_START);
    if (rc != 0)
        return rc;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->load_start(c->drv, sql, len, &out, &c->err), &out);
}

/* A chunk or the end of a load started by lb_db_load_start. */
static int load_step(lb_db_conn *c, int op, const char *buf, size_t len)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    if (!c->drv)
        return lb__db_fail_code(c, LB_DB_E_NOTCONN, "not connected", NULL, 0, 1);
    in_progress(c, op, NULL);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    if (op == LB__DB_AOP_LOAD_DATA)
        return begun(c, c->ops->load_data_start(c->drv, buf, len, &out, &c->err), &out);
    return begun(c, c->ops->load_end_start(c->drv, &out, &c->err), &out);
}

int lb_db_load_data_start(lb_db_conn *c, const char *buf, size_t len)
{
    if (c && !c->ops->load_start)
        return lb__db_fail_code(c, LB_DB_E_UNSUPPORTED, "the driver has no bulk load", NULL, 0, 0);
    return buf ? load_step(c, LB__DB_AOP_LOAD_DATA, buf, len) : lb__db_query_invalid(c);
}

int lb_db_load_end_start(lb_db_conn *c)
{
    if (c && !c->ops->load_start)
        return lb__db_fail_code(c, LB_DB_E_UNSUPPORTED, "the driver has no bulk load", NULL, 0, 0);
    return load_step(c, LB__DB_AOP_LOAD_END, NULL, 0);
}

int lb_db_load_rows_start(lb_db_conn *c, const char *sql, size_t len, const lb_rowsrc *src)
{
    if (!c || !sql || !src || !src->fill)
        return lb__db_query_invalid(c);
    int rc = load_prologue(c, sql, len, c->ops->load_rows_start != NULL, LB__DB_AOP_LOAD_ROWS);
    if (rc != 0)
        return rc;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->load_rows_start(c->drv, sql, len, src, &out, &c->err), &out);
}

/* ---- pipelines ---------------------------------------------------------- */

int lb_db_pipeline_supported(lb_db_conn *c)
{
    return c && c->ops->pipeline_start != NULL;
}

int lb_db_pipeline_start(lb_db_conn *c, int what)
{
    int rc = not_idle(c);
    if (rc != 0)
        return rc;
    if (!c->ops->pipeline_start)
        return lb__db_fail_code(c, LB_DB_E_UNSUPPORTED, "the driver has no pipeline mode", NULL, 0, 0);
    if (what < LB_DB_PIPE_ENTER || what > LB_DB_PIPE_END)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "no such pipeline step", NULL, 0, 0);
    if (!c->drv)
        return lb__db_fail_code(c, LB_DB_E_NOTCONN, "not connected", NULL, 0, 1);
    in_progress(c, LB__DB_AOP_PIPELINE, NULL);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    return begun(c, c->ops->pipeline_start(c->drv, what, &out, &c->err), &out);
}

static int connect_done(lb_db_conn *c, int op, int rc)
{
    void *d = c->adrv;
    c->adrv = NULL;
    if (rc < 0 || !d) {
        if (d)
            c->ops->disconnect(d);
        return lb__db_connect_failed(c, op == LB__DB_AOP_RECONNECT);
    }
    lb__db_conn_attach(c, d, op == LB__DB_AOP_RECONNECT);
    return 0;
}

/* A prepare completed: hand its result to the statement. */
static int prepared(lb_db_stmt *s, int rc, const lb__db_async *out)
{
    return lb__db_stmt_after_prepare(s, rc == 0 ? out->ds : NULL, rc == 0 ? out->nparams : 0);
}

static int next_done(lb_db_conn *c, int rc, const lb__db_async *out)
{
    if (rc < 0)
        return lb__db_fail(c, NULL, 0, 1);
    if (!out->found)
        return 0;
    c->afound = 1;
    lb__db_succeed(c, LB_DB_Q_OTHER, &out->rs, &c->result, c->ops->fetch, c->ops->free_result, 0);
    return 0;
}

static int op_done(lb_db_conn *c, int rc, lb__db_async *out)
{
    int op = c->aop;
    lb_db_stmt *s = c->astmt;
    c->aop = LB__DB_AOP_NONE;
    c->astmt = NULL;
    switch (op) {
    case LB__DB_AOP_CONNECT:
    case LB__DB_AOP_RECONNECT:
        return connect_done(c, op, rc);
    case LB__DB_AOP_QUERY:
        if (rc < 0)
            return lb__db_fail(c, c->asql, c->alen, 1);
        lb__db_query_done(c, c->atype, &out->rs, c->atarget);
        return 0;
    case LB__DB_AOP_NEXT:
        return next_done(c, rc, out);
    case LB__DB_AOP_PREPARE:
        if ((rc = lb__db_stmt_adopt(s, prepared(s, rc, out))) == 0)
            c->aprepared = s;
        return rc;
    case LB__DB_AOP_REPREPARE:
        if (prepared(s, rc, out) != 0)
            return lb__db_fail(c, s->sql, s->len, 1);
        if (s->emulated)
            return lb_db_stmt_execute_start(s);
        return exec_begin(s, 0);
    case LB__DB_AOP_EXECUTE:
        return execute_done(c, s, rc, out);
    case LB__DB_AOP_LOAD_START:
        return rc < 0 ? lb__db_fail(c, c->asql, c->alen, 1) : 0;
    case LB__DB_AOP_LOAD_DATA:
    case LB__DB_AOP_PIPELINE:
        /* A pipeline's end fails with a statement's error: counted. */
        return rc < 0 ? lb__db_fail(c, NULL, 0, 1) : 0;
    case LB__DB_AOP_LOAD_END:
    case LB__DB_AOP_LOAD_ROWS:
        if (rc < 0)
            return op == LB__DB_AOP_LOAD_ROWS ? lb__db_fail(c, c->asql, c->alen, 1) : lb__db_fail(c, NULL, 0, 1);
        /* One statement that inserted rows. */
        lb__db_query_done(c, LB_DB_Q_INSERT, &out->rs, &c->result);
        return 0;
    default:
        return lb__db_fail_code(c, LB_DB_E_INVALID, "no operation in progress", NULL, 0, 0);
    }
}

int lb_db_cont(lb_db_conn *c, int ready)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->aop)
        return lb__db_fail_code(c, LB_DB_E_INVALID, "no operation in progress", NULL, 0, 0);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    int connecting = c->aop == LB__DB_AOP_CONNECT || c->aop == LB__DB_AOP_RECONNECT;
    return begun(c, c->ops->cont(connecting ? c->adrv : c->drv, ready, &out, &c->err), &out);
}

/* The driver connection an operation waits on: the one being connected,
 * else the live one. */
static void *wait_dc(lb_db_conn *c)
{
    return c ? (c->adrv ? c->adrv : c->drv) : NULL;
}

int lb_db_conn_fd(lb_db_conn *c)
{
    void *dc = wait_dc(c);
    return dc ? c->ops->fd(dc) : -1;
}

int lb_db_conn_timeout_ms(lb_db_conn *c)
{
    void *dc = wait_dc(c);
    return dc ? c->ops->timeout_ms(dc) : 0;
}
