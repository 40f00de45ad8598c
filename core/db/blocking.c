/* The blocking calls of the database layer: each is an operation of op.c
 * started and then waited for in lb_db_wait, a poll() loop on the
 * driver's socket.  Threads call these; an async worker's virtual users
 * start the same operations and yield to their event loop instead
 * (api/sql.lua).  The poll loop costs no system call over a blocking client
 * library: a client library's own blocking read also tries a non-blocking
 * recv and then polls (Connector/C and libpq both do). */
#include "internal.h"
#include "conn.h"
#include "error.h"
#include "op.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Waiting                                                                  */
/* ------------------------------------------------------------------------ */

/* poll() events for a wait mask, and what poll() saw as the mask cont()
 * takes.  A hang-up or error is reported as readable and writable: the
 * driver's next read or write then fails with the real error. */
static short poll_events(int mask)
{
    return (short)(((mask & LB_DB_WAIT_READ) ? POLLIN : 0) | ((mask & LB_DB_WAIT_WRITE) ? POLLOUT : 0) |
                   ((mask & LB_DB_WAIT_EXCEPT) ? POLLPRI : 0));
}

static int ready_mask(short revents)
{
    int m = 0;
    if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
        m |= LB_DB_WAIT_READ;
    if (revents & (POLLOUT | POLLHUP | POLLERR | POLLNVAL))
        m |= LB_DB_WAIT_WRITE;
    if (revents & POLLPRI)
        m |= LB_DB_WAIT_EXCEPT;
    return m;
}

/* poll() as the system call itself.  In a process with threads the C
 * library's poll() turns asynchronous cancellation on and off around it
 * (two calls: 600 instructions per pgbench tpcb-like transaction, a fifth
 * of lbench's own share); lbench never cancels a thread.  ppoll: the one
 * of the two every Linux architecture has. */
static int poll_fd(struct pollfd *p, nfds_t n, int timeout_ms)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ms >= 0) {
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
        tp = &ts;
    }
    return (int)syscall(SYS_ppoll, p, n, tp, NULL, (size_t)0);
}

/* An operation cut off by lb_db_conn_abort (a watchdog on another thread)
 * notes what it was waiting for, once, for the watchdog's report
 * (lb_db_conn_waiting).  Only on the failure path: a wait costs nothing
 * more than its poll.  `sql` is the operation's text (alive for the call). */
static void note_cut_wait(lb_db_conn *c, int aop, const char *sql, size_t len);

/* The operation in progress on `c` (aop, its statement or query text). */
static void op_text(const lb_db_conn *c, const char **sql, size_t *len)
{
    int aop = c->aop;
    /* A statement whose first prepare fails is freed with it: no text then. */
    const lb_db_stmt *s = aop == LB__DB_AOP_PREPARE ? NULL : c->astmt;
    *sql = aop == LB__DB_AOP_QUERY ? c->asql : s ? s->sql : NULL;
    *len = aop == LB__DB_AOP_QUERY ? c->alen : s ? s->len : 0;
}

void lb__db_note_cut(lb_db_conn *c)
{
    const char *sql;
    size_t len;
    op_text(c, &sql, &len);
    note_cut_wait(c, c->aop, sql, len);
}

static void note_cut_wait(lb_db_conn *c, int aop, const char *sql, size_t len)
{
    static const char *const what[] = { "nothing", "connect", "reconnect", "query", "next result", "prepare",
                                        "re-prepare", "execute", "load", "load", "load", "load" };
    int w = len > 120 ? 120 : (int)len;
    pthread_mutex_lock(&c->lock);
    if (c->aborted && !c->waiting[0])
        snprintf(c->waiting, sizeof c->waiting, "%s%s%.*s%s", what[aop], sql ? ": " : "", sql ? w : 0,
                 sql ? sql : "", sql && len > 120 ? "..." : "");
    pthread_mutex_unlock(&c->lock);
}

int lb_db_wait(lb_db_conn *c, int rc)
{
    if (rc <= 0)
        return rc;
    int aop = c->aop;
    const char *sql;
    size_t len;
    op_text(c, &sql, &len);
    while (rc > 0) {
        struct pollfd p = { lb_db_conn_fd(c), poll_events(rc), 0 };
        int timeout = (rc & LB_DB_WAIT_TIMEOUT) ? lb_db_conn_timeout_ms(c) : -1;
        if (p.fd < 0 && timeout < 0) {
            /* A driver bug; leaving the operation hanging would hang us. */
            lb__db_op_abandon(c);
            c->aop = LB__DB_AOP_NONE;
            return lb__db_fail_code(c, LB_DB_E_INVALID, "the driver waits without a socket or a timeout", NULL, 0, 0);
        }
        int n = poll_fd(&p, p.fd >= 0 ? 1 : 0, timeout);
        int ready;
        if (n > 0) {
            ready = ready_mask(p.revents);
        } else if (n == 0) {
            ready = LB_DB_WAIT_TIMEOUT;
        } else if (errno == EINTR) {
            continue;
        } else {
            /* poll() itself failed (out of memory): end the operation the
             * way a lost connection would, through the driver. */
            lb_db_conn_abort(c);
            ready = LB_DB_WAIT_READ | LB_DB_WAIT_WRITE;
        }
        rc = lb_db_cont(c, ready);
    }
    if (rc < 0)
        note_cut_wait(c, aop, sql, len);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Connections, queries, statements                                         */
/* ------------------------------------------------------------------------ */

lb_db_conn *lb_db_connect(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                          lb_db_stats *st, lb_db_error *err)
{
    lb_db_conn *c = lb_db_conn_new(drv, o, st, err);
    if (!c)
        return NULL;
    if (lb_db_wait(c, lb_db_connect_start(c)) != 0) {
        if (err)
            *err = c->err;
        lb_db_disconnect(c);
        return NULL;
    }
    return c;
}

int lb_db_reconnect(lb_db_conn *c)
{
    return lb_db_wait(c, lb_db_reconnect_start(c));
}

int lb_db_query(lb_db_conn *c, const char *sql, size_t len)
{
    return lb_db_wait(c, lb_db_query_start(c, sql, len));
}

int lb_db_next_result(lb_db_conn *c)
{
    int rc = lb_db_wait(c, lb_db_next_result_start(c));
    return rc < 0 ? rc : lb_db_next_result_found(c);
}

lb_db_stmt *lb_db_prepare(lb_db_conn *c, const char *sql, size_t len)
{
    if (lb_db_wait(c, lb_db_prepare_start(c, sql, len)) != 0)
        return NULL;
    return lb_db_prepared(c);
}

int lb_db_stmt_execute(lb_db_stmt *s)
{
    if (!s)
        return -LB_DB_E_INVALID;
    return lb_db_wait(s->c, lb__db_stmt_execute_begin(s));
}

int lb_db_stmt_run(lb_db_stmt *s)
{
    int rc = lb_db_stmt_execute(s);
    return rc < 0 ? rc : s->c->cur == &s->result;
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
