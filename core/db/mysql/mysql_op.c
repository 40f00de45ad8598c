/* MySQL driver, operations.  On a virtual user's connection each
 * operation runs its protocol steps through Connector/C's non-blocking
 * *_start / *_cont calls (the library runs them on a coroutine of its own
 * and returns what it waits for); on a thread's (lb_db_conn_opts.blocking)
 * the same steps run with the blocking calls and complete in the start
 * call.  Query, prepare and execute first drain result sets left over
 * from an earlier multi-statement query.  Connector/C lets blocking calls
 * be mixed in on a non-blocking connection (it switches the socket back),
 * which the rare paths use (leftover results of a CALL, closing) and a
 * thread's execute on a non-blocking connection. */
#include "mysql_driver.h"

#include <limits.h>

/* Steps of the state machine.  A step that starts a call moves `step` to
 * the step that handles its completion; if the call must wait, `pending`
 * is set and the status goes back to the caller, and the next cont()
 * continues that call with what happened. */
enum {
    ST_IDLE, ST_CONNECT_DONE,
    ST_DRAIN, ST_DRAIN_NEXT_DONE, ST_DRAIN_STORE_DONE,
    ST_QUERY, ST_QUERY_DONE, ST_STORE_DONE,
    ST_NEXT, ST_NEXT_DONE,
    ST_PREPARE, ST_PREPARE_DONE,
    ST_EXECUTE, ST_EXECUTE_DONE, ST_SSTORE_DONE,
    ST_LOAD, ST_LOAD_DONE
};

/* What a step returns to run the next step at once (never a wait mask,
 * 0 or -1, the values that go back to the caller). */
#define AGAIN INT_MIN

static int op_end(my_conn *mc, int rc)
{
    mc->op = OP_NONE;
    mc->step = ST_IDLE;
    mc->pending = 0;
    mc->ast = NULL;
    return rc;
}

/* Start a call: `expr` returns a wait status or 0. */
#define START(next, expr)                       \
    do {                                        \
        mc->step = (next);                      \
        int st_ = (expr);                       \
        if (st_) {                              \
            mc->pending = 1;                    \
            return st_;                         \
        }                                       \
    } while (0)

/* Continue the call this step waits for, if it had to wait. */
#define CONT(expr)                              \
    do {                                        \
        if (mc->pending) {                      \
            mc->pending = 0;                    \
            int st_ = (expr);                   \
            if (st_) {                          \
                mc->pending = 1;                \
                return st_;                     \
            }                                   \
        }                                       \
    } while (0)

/* The operation's own first step, once nothing is left to drain. */
static int first_step(const my_conn *mc)
{
    return mc->op == OP_QUERY ? ST_QUERY : mc->op == OP_PREPARE ? ST_PREPARE : mc->op == OP_LOAD ? ST_LOAD : ST_EXECUTE;
}

static int step_connect(my_conn *mc, int ready, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    CONT(mysql_real_connect_cont(&mc->cret, m, ready));
    if (!mc->cret) {
        lb__db_my_conn_error(err, m);
        return op_end(mc, -1);
    }
    return op_end(mc, lb__db_my_connected(mc, err));
}

/* Throw away result sets still pending from a multi-statement query, so
 * the next command is not "out of sync"; a failed leftover statement ends
 * the chain. */
static int step_drain(my_conn *mc, int ready)
{
    MYSQL *m = &mc->m;
    switch (mc->step) {
    case ST_DRAIN:
        if (!mysql_more_results(m)) {
            mc->step = first_step(mc);
            return AGAIN;
        }
        START(ST_DRAIN_NEXT_DONE, mysql_next_result_start(&mc->iret, m));
        return AGAIN;
    case ST_DRAIN_NEXT_DONE:
        CONT(mysql_next_result_cont(&mc->iret, m, ready));
        if (mc->iret != 0) {
            mc->step = first_step(mc);
            return AGAIN;
        }
        START(ST_DRAIN_STORE_DONE, mysql_store_result_start(&mc->res, m));
        return AGAIN;
    default: /* ST_DRAIN_STORE_DONE */
        CONT(mysql_store_result_cont(&mc->res, m, ready));
        if (mc->res)
            mysql_free_result(mc->res);
        mc->res = NULL;
        mc->step = ST_DRAIN;
        return AGAIN;
    }
}

/* A query's result set is in mc->res (NULL: it had none, or storing it
 * failed): handed out, 0, or the error, -1. */
static int stored(my_conn *mc, lb__db_async *out, lb_db_error *err)
{
    if (!mc->res && mysql_field_count(&mc->m) != 0) {
        lb__db_my_conn_error(err, &mc->m);
        return -1;
    }
    lb__db_my_result_out(mc->res, &out->rs);
    mc->res = NULL;
    return 0;
}

static int step_query(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    switch (mc->step) {
    case ST_QUERY:
        START(ST_QUERY_DONE, mysql_real_query_start(&mc->iret, m, mc->sql, mc->len));
        return AGAIN;
    case ST_QUERY_DONE:
        CONT(mysql_real_query_cont(&mc->iret, m, ready));
        if (mc->iret != 0) {
            lb__db_my_conn_error(err, m);
            return op_end(mc, -1);
        }
        START(ST_STORE_DONE, mysql_store_result_start(&mc->res, m));
        return AGAIN;
    default: /* ST_STORE_DONE */
        CONT(mysql_store_result_cont(&mc->res, m, ready));
        return op_end(mc, stored(mc, out, err));
    }
}

/* The next result of a multi-statement query (stored by ST_STORE_DONE). */
static int step_next(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    if (mc->step == ST_NEXT) {
        if (!mysql_more_results(m))
            return op_end(mc, 0);
        START(ST_NEXT_DONE, mysql_next_result_start(&mc->iret, m));
    }
    CONT(mysql_next_result_cont(&mc->iret, m, ready));
    if (mc->iret < 0)
        return op_end(mc, 0);
    if (mc->iret > 0) {
        lb__db_my_conn_error(err, m);
        return op_end(mc, -1);
    }
    out->found = 1;
    START(ST_STORE_DONE, mysql_store_result_start(&mc->res, m));
    return AGAIN;
}

/* The prepare of mc->ast returned mc->iret: 0, or -1 with the statement
 * closed. */
static int prepared(my_conn *mc, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = mc->ast;
    if (mc->iret != 0)
        lb__db_my_prepare_error(err, ms->st);
    if (mc->iret != 0 || lb__db_my_stmt_prepared_ok(ms, out, err) != 0) {
        lb__db_my_stmt_close(ms);
        return -1;
    }
    return 0;
}

static int step_prepare(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = mc->ast;
    if (mc->step == ST_PREPARE) {
        START(ST_PREPARE_DONE, mysql_stmt_prepare_start(&mc->iret, ms->st, mc->sql, mc->len));
        return AGAIN;
    }
    CONT(mysql_stmt_prepare_cont(&mc->iret, ms->st, ready));
    return op_end(mc, prepared(mc, out, err));
}

static int step_execute(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = mc->ast;
    switch (mc->step) {
    case ST_EXECUTE:
        START(ST_EXECUTE_DONE, mysql_stmt_execute_start(&mc->iret, ms->st));
        return AGAIN;
    case ST_EXECUTE_DONE: {
        CONT(mysql_stmt_execute_cont(&mc->iret, ms->st, ready));
        if (mc->iret != 0) {
            lb__db_my_stmt_error(err, ms->st);
            return op_end(mc, -1);
        }
        int rc = lb__db_my_exec_shape(ms, &out->rs, err);
        if (rc <= 0)
            return op_end(mc, rc);
        START(ST_SSTORE_DONE, mysql_stmt_store_result_start(&mc->iret, ms->st));
        return AGAIN;
    }
    default: /* ST_SSTORE_DONE */
        CONT(mysql_stmt_store_result_cont(&mc->iret, ms->st, ready));
        return op_end(mc, lb__db_my_stmt_executed(ms, &out->rs, err));
    }
}

/* The load's statement returned mc->iret. */
static int load_ran(my_conn *mc, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    if (mc->iret != 0)
        lb__db_my_conn_error(err, m);
    my_ulonglong n = mc->iret == 0 ? mysql_affected_rows(m) : 0;
    return lb__db_my_load_ran(mc, mc->iret != 0 ? -1 : 0, n == (my_ulonglong)-1 ? 0 : (uint64_t)n);
}

/* A bulk load's LOAD DATA LOCAL INFILE: Connector/C reads the rows from
 * the infile callbacks (mysql_load.c) while the statement runs. */
static int step_load(my_conn *mc, int ready, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    if (mc->step == ST_LOAD) {
        START(ST_LOAD_DONE, mysql_real_query_start(&mc->iret, m, mc->lsql, (unsigned long)mc->lsql_len));
    }
    CONT(mysql_real_query_cont(&mc->iret, m, ready));
    return op_end(mc, load_ran(mc, err));
}

/* Run steps until one waits (its mask) or the operation ends (0 / -1). */
static int advance(my_conn *mc, int ready, lb__db_async *out, lb_db_error *err)
{
    for (;;) {
        int rc;
        switch (mc->step) {
        case ST_CONNECT_DONE:
            rc = step_connect(mc, ready, err);
            break;
        case ST_DRAIN: case ST_DRAIN_NEXT_DONE: case ST_DRAIN_STORE_DONE:
            rc = step_drain(mc, ready);
            break;
        case ST_QUERY: case ST_QUERY_DONE: case ST_STORE_DONE:
            rc = step_query(mc, ready, out, err);
            break;
        case ST_NEXT: case ST_NEXT_DONE:
            rc = step_next(mc, ready, out, err);
            break;
        case ST_PREPARE: case ST_PREPARE_DONE:
            rc = step_prepare(mc, ready, out, err);
            break;
        case ST_EXECUTE: case ST_EXECUTE_DONE: case ST_SSTORE_DONE:
            rc = step_execute(mc, ready, out, err);
            break;
        case ST_LOAD: case ST_LOAD_DONE:
            rc = step_load(mc, ready, err);
            break;
        default:
            lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no operation in progress");
            return op_end(mc, -1);
        }
        if (rc != AGAIN)
            return rc;
    }
}

/* Leftover result sets of a multi-statement query, discarded with the
 * blocking calls (step_drain's work, for a blocking connection). */
static void drain_blocking(MYSQL *m)
{
    while (mysql_more_results(m) && mysql_next_result(m) == 0) {
        MYSQL_RES *r = mysql_store_result(m);
        if (r)
            mysql_free_result(r);
    }
}

/* step_execute's steps with the blocking calls (the binds are current).
 * A cut from another thread (lb__db_my_abort's shutdown) ends the
 * library's blocking read at once. */
static int execute_now(my_stmt *ms, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &ms->mc->m;
    ms->mc->load_affected = -1;
    drain_blocking(m);
    if (mysql_stmt_execute(ms->st) != 0) {
        lb__db_my_stmt_error(err, ms->st);
        return -1;
    }
    int rc = lb__db_my_exec_shape(ms, &out->rs, err);
    if (rc <= 0)
        return rc;
    ms->mc->iret = mysql_stmt_store_result(ms->st);
    return lb__db_my_stmt_executed(ms, &out->rs, err);
}

/* The next result of a multi-statement query, blocking (step_next). */
static int next_now(my_conn *mc, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    if (!mysql_more_results(m))
        return 0;
    int r = mysql_next_result(m);
    if (r < 0)
        return 0;
    if (r > 0) {
        lb__db_my_conn_error(err, m);
        return -1;
    }
    out->found = 1;
    mc->res = mysql_store_result(m);
    return stored(mc, out, err);
}

/* A blocking connection's operation (mc->op, as op_begin set it up): the
 * steps above with the library's blocking calls, over when this returns. */
static int run_blocking(my_conn *mc, lb__db_async *out, lb_db_error *err)
{
    MYSQL *m = &mc->m;
    int rc;
    if (mc->op == OP_EXECUTE)
        return op_end(mc, execute_now(mc->ast, out, err));
    if (mc->op == OP_NEXT)
        return op_end(mc, next_now(mc, out, err));
    drain_blocking(m);
    if (mc->op == OP_QUERY) {
        rc = mysql_real_query(m, mc->sql, mc->len);
        if (rc != 0)
            lb__db_my_conn_error(err, m);
        else
            mc->res = mysql_store_result(m);
        return op_end(mc, rc != 0 ? -1 : stored(mc, out, err));
    }
    if (mc->op == OP_PREPARE) {
        mc->iret = mysql_stmt_prepare(mc->ast->st, mc->sql, mc->len);
        return op_end(mc, prepared(mc, out, err));
    }
    mc->iret = mysql_real_query(m, mc->lsql, (unsigned long)mc->lsql_len); /* OP_LOAD */
    return op_end(mc, load_ran(mc, err));
}

/* A thread's connection (o->blocking) uses the library's blocking calls
 * for everything: a connection opened for the non-blocking API costs
 * Connector/C a switch back to blocking mode around every read and write
 * of a blocking call (about 80 instructions per point select), and the
 * non-blocking calls cost their coroutine switches.  Virtual users'
 * connections are non-blocking. */
int lb__db_my_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err)
{
    my_conn *mc = lb__db_my_conn_init(o, err);
    *dc = mc;
    if (!mc)
        return -1;
    MYSQL *m = &mc->m;
    unsigned int port = o->port > 0 ? (unsigned int)o->port : 0;
    if (o->blocking) {
        mc->blocking = 1;
        if (!mysql_real_connect(m, o->host, o->user, o->password, o->db, port, o->socket, LB__DB_MY_CONNECT_FLAGS)) {
            lb__db_my_conn_error(err, m);
            return -1;
        }
        return lb__db_my_connected(mc, err);
    }
    /* 0: Connector/C's default stack for its internal coroutine. */
    if (mysql_options(m, MYSQL_OPT_NONBLOCK, 0) != 0) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "cannot enable the non-blocking API");
        return -1;
    }
    mc->op = OP_CONNECT;
    mc->pending = 0;
    mc->step = ST_CONNECT_DONE;
    int st = mysql_real_connect_start(&mc->cret, m, o->host, o->user, o->password, o->db, port, o->socket,
                                      LB__DB_MY_CONNECT_FLAGS);
    if (st) {
        mc->pending = 1;
        return st;
    }
    lb__db_async out;
    return advance(mc, 0, &out, err);
}

/* Begin operation `op` (SQL text for query/prepare, statement for
 * prepare/execute): the drain step first. */
static int op_begin(my_conn *mc, int op, const char *sql, size_t len, my_stmt *ms,
                    lb__db_async *out, lb_db_error *err)
{
    mc->op = op;
    mc->step = ST_DRAIN;
    mc->pending = 0;
    if (op != OP_LOAD)
        mc->load_affected = -1;
    mc->sql = sql;
    mc->len = (unsigned long)len;
    mc->ast = ms;
    return mc->blocking ? run_blocking(mc, out, err) : advance(mc, 0, out, err);
}

int lb__db_my_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    return op_begin(dc, OP_QUERY, sql, len, NULL, out, err);
}

int lb__db_my_next_result_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    mc->op = OP_NEXT;
    mc->step = ST_NEXT;
    mc->pending = 0;
    mc->ast = NULL;
    return mc->blocking ? run_blocking(mc, out, err) : advance(mc, 0, out, err);
}

int lb__db_my_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    my_stmt *ms = lb__db_my_stmt_new(mc, err);
    if (!ms)
        return -1;
    return op_begin(mc, OP_PREPARE, sql, len, ms, out, err);
}

int lb__db_my_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = ds;
    if (lb__db_my_rebind_if_changed(ms, err) != 0)
        return -1;
    return op_begin(ms->mc, OP_EXECUTE, NULL, 0, ms, out, err);
}

/* A thread's execute (lb_db_stmt_execute), on a blocking connection or
 * not: step_execute's steps with the blocking calls.  The same system
 * calls as the non-blocking machine, but none of its coroutine switches,
 * steps and poll loop: about 500 fewer instructions per point select
 * (callgrind). */
int lb__db_my_stmt_execute_blocking(void *ds, lb__db_async *out, lb_db_error *err)
{
    my_stmt *ms = ds;
    if (lb__db_my_rebind_if_changed(ms, err) != 0)
        return -1;
    return execute_now(ms, out, err);
}

int lb__db_my_load_run(my_conn *mc, lb__db_async *out, lb_db_error *err)
{
    return op_begin(mc, OP_LOAD, NULL, 0, NULL, out, err);
}

int lb__db_my_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err)
{
    return advance(dc, ready, out, err);
}

int lb__db_my_fd(void *dc)
{
    return (int)mysql_get_socket(&((my_conn *)dc)->m);
}

int lb__db_my_timeout_ms(void *dc)
{
    return (int)mysql_get_timeout_value_ms(&((my_conn *)dc)->m);
}
