/* The event-loop wrapper (core/loop.c): timers in deadline order, socket
 * readiness, immediate readiness, persistent registrations and forgetting
 * a descriptor, cross-thread wakeups, the HTTP server, and the metrics
 * endpoint without a run. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "loop.h"
#include "metrics.h"

enum { MS = 1000000 };

static void test_timers(void)
{
    lb_loop *l = lb_loop_new(4);
    int64_t t0 = lb_clock_ns();
    lb_loop_wait(l, 0, -1, 0, t0 + 30 * MS);
    lb_loop_wait(l, 1, -1, 0, t0 + 10 * MS);
    lb_loop_wait(l, 2, -1, 0, t0 + 20 * MS);
    int32_t s[4], m[4];
    int order[3], got = 0, masks_ok = 1;
    while (got < 3) {
        int n = lb_loop_run(l, s, m, 4, -1);
        if (n < 0)
            break;
        for (int i = 0; i < n && got < 3; i++) {
            order[got++] = s[i];
            masks_ok &= m[i] == LB_LOOP_TIMEOUT;
        }
    }
    int64_t el = lb_clock_ns() - t0;
    check(got == 3 && order[0] == 1 && order[1] == 2 && order[2] == 0, "loop_timer_order", "got %d: %d %d %d", got,
          order[0], order[1], order[2]);
    check(masks_ok, "loop_timer_mask", "reason is not LB_LOOP_TIMEOUT");
    check(el >= 30 * MS, "loop_timer_not_early", "all three fired after %lld ns", (long long)el);
    /* Nothing armed and no limit: returns at once. */
    check(lb_loop_run(l, s, m, 4, -1) == 0, "loop_idle_returns", "expected 0");
    /* A limit in the future without anything armed: returns 0 after it. */
    t0 = lb_clock_ns();
    int n = lb_loop_run(l, s, m, 4, t0 + 5 * MS);
    check(n == 0 && lb_clock_ns() - t0 >= 5 * MS, "loop_run_until", "n=%d after %lld ns", n,
          (long long)(lb_clock_ns() - t0));
    lb_loop_free(l);
}

static void test_heap(void)
{
    enum { N = 1000 };
    lb_loop *l = lb_loop_new(N);
    int64_t t0 = lb_clock_ns() + 2 * MS;
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        lb_loop_wait(l, i, -1, 0, t0 + (int64_t)(seed % 1000000u));
    }
    /* Cancel every 10th by readying it. */
    for (int i = 0; i < N; i += 10)
        lb_loop_ready(l, i, 0);
    static int32_t s[N], m[N];
    int64_t last = 0;
    int got = 0, ordered = 1, cancelled_first = 1;
    int64_t deadline_of[N];
    seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        deadline_of[i] = t0 + (int64_t)(seed % 1000000u);
    }
    while (got < N) {
        int n = lb_loop_run(l, s, m, N, -1);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++, got++) {
            if (got < N / 10) {
                cancelled_first &= s[i] % 10 == 0 && m[i] == 0;
                continue;
            }
            if (deadline_of[s[i]] < last)
                ordered = 0;
            last = deadline_of[s[i]];
        }
    }
    check(got == N, "loop_heap_all", "got %d of %d", got, N);
    check(cancelled_first, "loop_ready_cancels_wait", "readied slots did not come first with mask 0");
    check(ordered, "loop_heap_order", "timers out of deadline order");
    lb_loop_free(l);
}

static void test_sockets(void)
{
    lb_loop *l = lb_loop_new(2);
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int32_t s[2], m[2];
    lb_loop_wait(l, 0, sv[0], LB_LOOP_READ, -1);
    int n = lb_loop_run(l, s, m, 2, lb_clock_ns() + 5 * MS);
    check(n == 0, "loop_socket_not_ready", "n=%d", n);
    if (write(sv[1], "x", 1) != 1)
        abort();
    n = lb_loop_run(l, s, m, 2, lb_clock_ns() + 1000 * MS);
    check(n == 1 && s[0] == 0 && m[0] == LB_LOOP_READ, "loop_socket_read", "n=%d mask=%d", n, n > 0 ? m[0] : -1);
    /* Still readable while nobody waits: no delivery, registration dropped. */
    n = lb_loop_run(l, s, m, 2, lb_clock_ns() + 5 * MS);
    check(n == 0, "loop_socket_unwaited_not_delivered", "n=%d", n);
    /* Waiting again sees the pending data at once. */
    lb_loop_wait(l, 0, sv[0], LB_LOOP_READ, lb_clock_ns() + 1000 * MS);
    n = lb_loop_run(l, s, m, 2, -1);
    check(n == 1 && m[0] == LB_LOOP_READ, "loop_socket_rewait", "n=%d mask=%d", n, n > 0 ? m[0] : -1);
    char c;
    if (read(sv[0], &c, 1) != 1)
        abort();
    /* Read wait with a timeout that expires. */
    lb_loop_wait(l, 0, sv[0], LB_LOOP_READ, lb_clock_ns() + 3 * MS);
    n = lb_loop_run(l, s, m, 2, -1);
    check(n == 1 && m[0] == LB_LOOP_TIMEOUT, "loop_socket_timeout", "n=%d mask=%d", n, n > 0 ? m[0] : -1);
    /* Write readiness. */
    lb_loop_wait(l, 1, sv[1], LB_LOOP_WRITE, -1);
    n = lb_loop_run(l, s, m, 2, lb_clock_ns() + 1000 * MS);
    check(n == 1 && s[0] == 1 && m[0] == LB_LOOP_WRITE, "loop_socket_write", "n=%d", n);
    /* Forget, close, reuse the number: the new socket is watched. */
    lb_loop_forget(l, 0);
    close(sv[0]);
    close(sv[1]);
    int nv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, nv);
    lb_loop_wait(l, 0, nv[0], LB_LOOP_READ, -1);
    if (write(nv[1], "y", 1) != 1)
        abort();
    n = lb_loop_run(l, s, m, 2, lb_clock_ns() + 1000 * MS);
    check(n == 1 && m[0] == LB_LOOP_READ, "loop_forget_reuse", "n=%d (fds %d/%d)", n, nv[0], nv[1]);
    close(nv[0]);
    close(nv[1]);
    check(lb_loop_wait(l, 0, -1, 0, -1) != 0, "loop_wait_on_nothing", "accepted a wait on nothing");
    check(lb_loop_wait(l, 5, -1, 0, 0) != 0, "loop_bad_slot", "accepted slot 5 of 2");
    lb_loop_free(l);
}

static void *waker(void *arg)
{
    usleep(20000);
    lb_loop_wakeup(arg);
    return NULL;
}

static void test_wakeup(void)
{
    lb_loop *l = lb_loop_new(1);
    lb_loop_wait(l, 0, -1, 0, lb_clock_ns() + 10000LL * MS);
    pthread_t t;
    pthread_create(&t, NULL, waker, l);
    int64_t t0 = lb_clock_ns();
    int32_t s[1], m[1];
    int n = lb_loop_run(l, s, m, 1, -1);
    int64_t el = lb_clock_ns() - t0;
    pthread_join(t, NULL);
    check(n == 0 && el < 5000LL * MS, "loop_wakeup", "n=%d after %lld ms", n, (long long)(el / MS));
    lb_loop_free(l);
}

/* A blocking HTTP GET on 127.0.0.1:port; returns the response (malloc'd). */
static char *http_get(int port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return NULL;
    }
    char req[256];
    int len = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
    if (write(fd, req, (size_t)len) != len) {
        close(fd);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ssize_t r;
    while ((r = read(fd, buf + n, cap - n - 1)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fd);
    return buf;
}

static void hello(void *ud, lb_loop_reply *rep)
{
    lb_loop_reply_printf(rep, "hello %s\n", (const char *)ud);
}

static void *serve(void *arg)
{
    lb_loop_dispatch(arg);
    return NULL;
}

static void test_http(void)
{
    lb_loop *l = lb_loop_new(0);
    char err[256];
    lb_loop_http *h = lb_loop_http_new(l, "127.0.0.1", 0, err, sizeof err);
    check(h != NULL, "http_listen", "%s", err);
    if (!h)
        return;
    lb_loop_http_route(h, "/hi", "text/plain", hello, "world");
    int port = lb_loop_http_port(h);
    pthread_t t;
    pthread_create(&t, NULL, serve, l);
    char *r = http_get(port, "/hi");
    check(r && strstr(r, " 200 ") && strstr(r, "hello world"), "http_route", "%s", r ? r : "(no answer)");
    free(r);
    r = http_get(port, "/nope");
    check(r && strstr(r, " 404 "), "http_not_found", "%s", r ? r : "(no answer)");
    free(r);
    /* The same port again: refused with a reason. */
    lb_loop *l2 = lb_loop_new(0);
    lb_loop_http *h2 = lb_loop_http_new(l2, "127.0.0.1", port, err, sizeof err);
    check(!h2 && strstr(err, "cannot listen"), "http_port_in_use", "%s", h2 ? "bound twice" : err);
    lb_loop_free(l2);
    lb_loop_break(l);
    pthread_join(t, NULL);
    lb_loop_http_free(h);
    lb_loop_free(l);
}

static void test_metrics_idle(void)
{
    char err[256];
    lb_metrics *m = lb_metrics_start(NULL, "127.0.0.1", 0, err, sizeof err);
    check(m != NULL, "metrics_start", "%s", err);
    if (!m)
        return;
    char *r = http_get(lb_metrics_port(m), "/metrics");
    check(r && strstr(r, "lbench_run_active 0") && strstr(r, "# TYPE lbench_events_total counter"),
          "metrics_idle_scrape", "%s", r ? r : "(no answer)");
    free(r);
    double q[1] = { 0.99 }, v[1] = { 0.0125 };
    lb_metrics_publish(m, 1, q, v, 42, 1.0);
    r = http_get(lb_metrics_port(m), "/metrics");
    check(r && strstr(r, "lbench_interval_latency_seconds{quantile=\"0.99\"} 0.0125") &&
              strstr(r, "lbench_interval_events 42"),
          "metrics_published_quantiles", "%s", r ? r : "(no answer)");
    free(r);
    lb_metrics_stop(m);
}

/* The latency histogram: bounds at slot ends, exact counts, cumulative
 * buckets, _count and the events counter from one update. */
static void test_metrics_histogram(void)
{
    char err[256];
    check(lb_metrics_bound_ns(0) == 10007 && lb_metrics_bound_ns(-1) == -1 &&
              lb_metrics_bound_ns(LB_METRICS_BOUNDS) == -1,
          "metrics_bound_slot_end", "%lld", (long long)lb_metrics_bound_ns(0));
    int64_t prev = 0, worst = 0;
    lb_hist_config cfg;
    lb_hist_config_default(&cfg);
    for (int i = 0; i < LB_METRICS_BOUNDS; i++) {
        int64_t b = lb_metrics_bound_ns(i);
        /* a slot end: the next value starts another slot */
        check(b > prev && lb_hist_index_of(&cfg, b + 1) == lb_hist_index_of(&cfg, b) + 1, "metrics_bound_order",
              "%d", i);
        prev = b;
    }
    worst = lb_metrics_bound_ns(LB_METRICS_BOUNDS - 1);
    check(worst >= 60000000000LL && worst <= 60000000000LL + 60000000, "metrics_bound_near_nominal", "%lld",
          (long long)worst);
    lb_metrics *m = lb_metrics_start(NULL, "127.0.0.1", 0, err, sizeof err);
    check(m != NULL, "metrics_start2", "%s", err);
    if (!m)
        return;
    lb_hist *h = lb_hist_new(&cfg);
    lb_hist_record(h, 5000);          /* below the first bound */
    lb_hist_record(h, 10007);         /* on it */
    lb_hist_record(h, 10008);         /* just above: the next bucket */
    lb_hist_record(h, 30000000000LL); /* 30 s */
    lb_hist_record(h, INT64_MAX);     /* overflow: +Inf only */
    lb_stats st;
    memset(&st, 0, sizeof st);
    st.events = 5;
    check(lb_metrics_update(m, &st, h) == 0, "metrics_update", "%s", "refused");
    check(lb_metrics_update(m, &st, h) == 0, "metrics_update2", "%s", "refused");
    char *r = http_get(lb_metrics_port(m), "/metrics");
    check(r && strstr(r, "# TYPE lbench_latency_seconds histogram\n") &&
              strstr(r, "lbench_latency_seconds_bucket{le=\"0.000010007\"} 4\n") &&
              strstr(r, "lbench_latency_seconds_bucket{le=\"20.") && strstr(r, "} 6\n") &&
              strstr(r, "lbench_latency_seconds_bucket{le=\"+Inf\"} 10\n") &&
              strstr(r, "lbench_latency_seconds_count 10\n") && strstr(r, "lbench_events_total 5\n") &&
              strstr(r, "# TYPE lbench_interval_latency_seconds summary\n"),
          "metrics_histogram_scrape", "%s", r ? r : "(no answer)");
    free(r);
    lb_hist_config other;
    lb_hist_config_init(&other, 1000, 1000000, 2);
    lb_hist *h2 = lb_hist_new(&other);
    check(lb_metrics_update(m, NULL, h2) == -1, "metrics_update_other_config", "%s", "accepted");
    lb_hist_free(h2);
    lb_hist_free(h);
    lb_metrics_stop(m);
}

int main(void)
{
    test_timers();
    test_heap();
    test_sockets();
    test_wakeup();
    test_http();
    test_metrics_idle();
    test_metrics_histogram();
    return check_exit();
}
