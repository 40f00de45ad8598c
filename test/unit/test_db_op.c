/* Unit tests of the one state machine per database operation (core/db/
 * op.c), with a test driver that really waits: every operation writes a
 * byte to the far end of a socketpair, returns LB_DB_WAIT_READ, and
 * completes in cont() once it reads that byte back.  The same operations
 * then run blocking (lb_db_query, ..., the poll loop of lb_db_wait) and
 * non-blocking (lb_db_*_start + our own poll + lb_db_cont), and must give
 * the same results and accounting.  Special SQL texts exercise the
 * timeout and abort paths: "TIMEOUT" waits for the driver's timeout only,
 * "HANG" waits for a byte that never comes (ended by lb_db_conn_abort from
 * another thread). */
#include "db/db.h"
#include "check.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { Q_NORMAL, Q_TIMEOUT, Q_HANG };

typedef struct wait_conn {
    int sv[2];          /* sv[0]: the socket the core waits on */
    int kind;           /* Q_* of the query in progress */
    int is_select;
    int conts;          /* cont() calls, all operations */
    void *ds;           /* execute / prepare in progress */
    int op_prepare;
} wait_conn;

typedef struct wait_stmt {
    wait_conn *wc;
    int is_select;
    int nparams;
} wait_stmt;

static char rs_handle;

/* Make sv[0] readable and ask the core to wait for it. */
static int arm(wait_conn *wc)
{
    char b = 'x';
    return write(wc->sv[1], &b, 1) == 1 ? LB_DB_WAIT_READ : -1;
}

static int w_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err)
{
    (void)o;
    wait_conn *wc = calloc(1, sizeof *wc);
    *dc = wc;
    if (!wc || socketpair(AF_UNIX, SOCK_STREAM, 0, wc->sv) != 0) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "socketpair");
        if (wc)
            wc->sv[0] = wc->sv[1] = -1;
        return -1;
    }
    wc->kind = Q_NORMAL;
    return arm(wc);
}

static int w_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err)
{
    wait_conn *wc = dc;
    wc->conts++;
    if (wc->kind == Q_TIMEOUT) {
        if (!(ready & LB_DB_WAIT_TIMEOUT))
            return LB_DB_WAIT_TIMEOUT;
        lb__db_error_set(err, 2013, "HY000", "timed out waiting for the server");
        return -1;
    }
    if (!(ready & LB_DB_WAIT_READ))
        return LB_DB_WAIT_READ;
    char b;
    ssize_t n = read(wc->sv[0], &b, 1);
    if (n <= 0) {
        lb__db_error_set(err, 2013, "HY000", "Lost connection to server during query");
        return -1;
    }
    if (wc->ds) {
        wait_stmt *ws = wc->ds;
        out->ds = wc->op_prepare ? ws : NULL;
        out->nparams = ws->nparams;
        out->rs.h = ws->is_select ? &rs_handle : NULL;
    } else {
        out->rs.h = wc->is_select ? &rs_handle : NULL;
    }
    out->rs.nrows = out->rs.h ? 1 : 0;
    out->found = 0;
    wc->ds = NULL;
    return 0;
}

static int w_fd(void *dc) { return ((wait_conn *)dc)->sv[0]; }
static int w_timeout_ms(void *dc) { (void)dc; return 20; }

static void w_disconnect(void *dc)
{
    wait_conn *wc = dc;
    if (wc->sv[0] >= 0)
        close(wc->sv[0]);
    if (wc->sv[1] >= 0)
        close(wc->sv[1]);
    free(wc);
}

static void w_abort(void *dc) { shutdown(((wait_conn *)dc)->sv[0], SHUT_RDWR); }
static const char *w_version(void *dc) { (void)dc; return "wait"; }

static int w_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    (void)err;
    wait_conn *wc = dc;
    wc->ds = NULL;
    wc->is_select = lb_db_classify(sql, len) == LB_DB_Q_SELECT;
    wc->kind = len == 7 && memcmp(sql, "TIMEOUT", 7) == 0 ? Q_TIMEOUT : len == 4 && memcmp(sql, "HANG", 4) == 0 ? Q_HANG : Q_NORMAL;
    if (wc->kind == Q_TIMEOUT)
        return LB_DB_WAIT_TIMEOUT;
    return wc->kind == Q_HANG ? LB_DB_WAIT_READ : arm(wc);
}

static int w_next_result_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    (void)dc;
    (void)err;
    out->found = 0;
    return 0;
}

static int w_fetch(void *h, const char *const **v, const unsigned long **l, lb_db_error *err)
{
    (void)h; (void)v; (void)l; (void)err;
    return 0;
}

static void w_free_result(void *h) { (void)h; }

static int w_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    wait_conn *wc = dc;
    wait_stmt *ws = calloc(1, sizeof *ws);
    if (!ws) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return -1;
    }
    ws->wc = wc;
    ws->is_select = lb_db_classify(sql, len) == LB_DB_Q_SELECT;
    ws->nparams = lb__db_count_placeholders(sql, len);
    wc->ds = ws;
    wc->op_prepare = 1;
    wc->kind = Q_NORMAL;
    return arm(wc);
}

static int w_stmt_bind(void *ds, lb_db_bind *p, int n, lb_db_error *err)
{
    (void)ds; (void)p; (void)n; (void)err;
    return 0;
}

static int w_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    (void)err;
    wait_stmt *ws = ds;
    ws->wc->ds = ws;
    ws->wc->op_prepare = 0;
    ws->wc->kind = Q_NORMAL;
    return arm(ws->wc);
}

static void w_stmt_close(void *ds) { free(ds); }

static const lb_db_driver_ops wait_ops = {
    .name = "wait",
    .connect_start = w_connect_start,
    .cont = w_cont,
    .fd = w_fd,
    .timeout_ms = w_timeout_ms,
    .disconnect = w_disconnect,
    .abort = w_abort,
    .server_version = w_version,
    .query_start = w_query_start,
    .next_result_start = w_next_result_start,
    .fetch = w_fetch,
    .free_result = w_free_result,
    .prepare_start = w_prepare_start,
    .stmt_bind = w_stmt_bind,
    .stmt_execute_start = w_stmt_execute_start,
    .stmt_fetch = w_fetch,
    .stmt_free_result = w_free_result,
    .stmt_close = w_stmt_close,
};

/* An event loop of our own: wait as the mask says, then continue. */
static int drive_by_hand(lb_db_conn *c, int rc, int *waits)
{
    while (rc > 0) {
        (*waits)++;
        struct pollfd p = { lb_db_conn_fd(c), (rc & LB_DB_WAIT_READ) ? POLLIN : 0, 0 };
        int n = poll(&p, 1, (rc & LB_DB_WAIT_TIMEOUT) ? lb_db_conn_timeout_ms(c) : -1);
        rc = lb_db_cont(c, n > 0 ? LB_DB_WAIT_READ : LB_DB_WAIT_TIMEOUT);
    }
    return rc;
}

static lb_db_conn *open_wait(lb_db_stats *st)
{
    lb_db_conn_opts o;
    lb_db_conn_opts_init(&o);
    lb_db_error err;
    memset(&err, 0, sizeof err);
    return lb_db_connect(&wait_ops, &o, st, &err);
}

/* One query, one statement execute and one prepare each way. */
static void test_both_modes(void)
{
    lb_db_stats sb, sa;
    lb_db_stats_init(&sb);
    lb_db_stats_init(&sa);
    lb_db_conn *b = open_wait(&sb);
    check(b != NULL, "op.blocking_connect_waits", "lb_db_connect failed on a driver that waits");
    if (!b)
        return;
    int rq = lb_db_query(b, "SELECT 1", 8);
    lb_db_stmt *s = lb_db_prepare(b, "UPDATE t SET a=1", 16);
    int re = s ? lb_db_stmt_execute(s) : -1;
    check(rq == 0 && lb_db_conn_result(b) == NULL && s && re == 0 && sb.queries[LB_DB_Q_SELECT] == 1 &&
          sb.queries[LB_DB_Q_UPDATE] == 1 && sb.errors == 0, "op.blocking_query_prepare_execute",
          "query %d execute %d selects %lu updates %lu", rq, re, (unsigned long)sb.queries[LB_DB_Q_SELECT],
          (unsigned long)sb.queries[LB_DB_Q_UPDATE]);

    lb_db_error err;
    lb_db_conn_opts o;
    lb_db_conn_opts_init(&o);
    lb_db_conn *a = lb_db_conn_new(&wait_ops, &o, &sa, &err);
    int waits = 0;
    int rc = a ? drive_by_hand(a, lb_db_connect_start(a), &waits) : -1;
    int q = rc == 0 ? drive_by_hand(a, lb_db_query_start(a, "SELECT 1", 8), &waits) : -1;
    int p = q == 0 ? drive_by_hand(a, lb_db_prepare_start(a, "UPDATE t SET a=1", 16), &waits) : -1;
    lb_db_stmt *as = p == 0 ? lb_db_prepared(a) : NULL;
    int e = as ? drive_by_hand(a, lb_db_stmt_execute_start(as), &waits) : -1;
    check(rc == 0 && q == 0 && as && e == 0 && waits == 4, "op.nonblocking_waits_once_each",
          "connect %d query %d prepare %d execute %d waits %d", rc, q, p, e, waits);
    check(a && memcmp(sa.queries, sb.queries, sizeof sa.queries) == 0 && sa.errors == sb.errors &&
          sa.rows == sb.rows, "op.same_accounting_both_modes", "accounting differs");
    lb_db_disconnect(a);
    lb_db_disconnect(b);
}

/* A wait with LB_DB_WAIT_TIMEOUT ends when the driver's timeout passes,
 * and the failure is the driver's. */
static void test_timeout(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_wait(&st);
    if (!c)
        return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = lb_db_query(c, "TIMEOUT", 7);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    check(rc == -2013 && ms >= 19.0 && st.errors == 1, "op.timeout_wait", "rc %d after %.1f ms, errors %lu", rc, ms,
          (unsigned long)st.errors);
    check(lb_db_query(c, "SELECT 2", 8) == 0, "op.usable_after_timeout", "%s", lb_db_conn_error(c)->message);
    lb_db_disconnect(c);
}

static void *abort_later(void *p)
{
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    lb_db_conn_abort(p);
    return NULL;
}

/* lb_db_conn_abort from another thread ends a blocking wait. */
static void test_abort(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_wait(&st);
    if (!c)
        return;
    pthread_t t;
    pthread_create(&t, NULL, abort_later, c);
    int rc = lb_db_query(c, "HANG", 4);
    pthread_join(t, NULL);
    check(rc == -2013 && lb_db_error_is_connection_lost(-rc), "op.abort_ends_wait", "rc %d", rc);
    lb_db_disconnect(c);
}

/* One operation at a time; continuing nothing is an error, not a crash. */
static void test_misuse(void)
{
    lb_db_conn *c = open_wait(NULL);
    if (!c)
        return;
    int r1 = lb_db_query_start(c, "SELECT 1", 8);
    int r2 = lb_db_query_start(c, "SELECT 2", 8);
    int waits = 0;
    int r3 = drive_by_hand(c, r1, &waits);
    int r4 = lb_db_cont(c, LB_DB_WAIT_READ);
    check(r1 == LB_DB_WAIT_READ && r2 == -LB_DB_E_INVALID && r3 == 0 && r4 == -LB_DB_E_INVALID, "op.one_at_a_time",
          "start %d second %d end %d cont %d", r1, r2, r3, r4);
    lb_db_disconnect(c);
}

int main(void)
{
    test_both_modes();
    test_timeout();
    test_abort();
    test_misuse();
    return check_exit();
}
