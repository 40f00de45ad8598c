#include "metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "stats.h"

enum { MAX_Q = 32 };

struct lb_metrics {
    lb_metrics_host host;
    lb_loop *loop;
    lb_loop_http *http;
    pthread_t thread;
    int started;

    pthread_mutex_t mu;     /* orders attach/detach and publish against scrapes */
    lb_run *run;
    int threads, vus;
    int nq;
    double q[MAX_Q], v[MAX_Q];
    uint64_t icount;
    double isecs;
    int published;
};

static void counter(lb_loop_reply *rep, const char *name, const char *help)
{
    lb_loop_reply_printf(rep, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

static void gauge(lb_loop_reply *rep, const char *name, const char *help)
{
    lb_loop_reply_printf(rep, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* A type name as a label value: backslash, quote and newline escaped. */
static void label_value(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 3 < cap; s++) {
        if (*s == '\\' || *s == '"') {
            dst[o++] = '\\';
            dst[o++] = *s;
        } else if (*s == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else {
            dst[o++] = *s;
        }
    }
    dst[o] = '\0';
}

static void scrape(void *ud, lb_loop_reply *rep)
{
    lb_metrics *m = ud;
    lb_stats sum;
    memset(&sum, 0, sizeof sum);
    pthread_mutex_lock(&m->mu);
    int active = m->run != NULL, threads = m->threads, vus = m->vus, open = 0;
    if (m->run) {
        /* The counters count from the barrier (see lb_worker_ready). */
        if (lb_run_started(m->run))
            for (int i = 0; i < lb_run_threads(m->run); i++)
                lb_stats_add(&sum, lb_run_worker_stats(m->run, i));
        open = lb_run_open_connections(m->run);
    }
    int nq = m->published ? m->nq : 0;
    double q[MAX_Q], v[MAX_Q];
    memcpy(q, m->q, sizeof q);
    memcpy(v, m->v, sizeof v);
    uint64_t icount = m->icount;
    double isecs = m->isecs;
    pthread_mutex_unlock(&m->mu);

    gauge(rep, "lbench_run_active", "1 while a run is in progress");
    lb_loop_reply_printf(rep, "lbench_run_active %d\n", active);
    gauge(rep, "lbench_threads", "worker threads of the run");
    lb_loop_reply_printf(rep, "lbench_threads %d\n", threads);
    gauge(rep, "lbench_virtual_users", "virtual users (connections in async mode; = threads in thread mode)");
    lb_loop_reply_printf(rep, "lbench_virtual_users %d\n", vus);
    gauge(rep, "lbench_connections_open", "database connections open now");
    lb_loop_reply_printf(rep, "lbench_connections_open %d\n", open);

    counter(rep, "lbench_events_total", "completed events (transactions), warm-up included");
    lb_loop_reply_printf(rep, "lbench_events_total %llu\n", (unsigned long long)sum.events);
    counter(rep, "lbench_ignored_errors_total", "events restarted after an ignored error");
    lb_loop_reply_printf(rep, "lbench_ignored_errors_total %llu\n", (unsigned long long)sum.restarts);
    counter(rep, "lbench_type_events_total", "completed events by event type");
    int ntypes = m->host.type_count ? m->host.type_count(m->host.owner) : 0;
    for (int t = 0; t < ntypes; t++) {
        const char *name = m->host.type_name(m->host.owner, t);
        if (!name || (sum.types[t].events == 0 && sum.types[t].restarts == 0))
            continue;
        char lv[256];
        label_value(lv, sizeof lv, name);
        lb_loop_reply_printf(rep, "lbench_type_events_total{type=\"%s\"} %llu\n", lv,
                             (unsigned long long)sum.types[t].events);
    }
    /* The extension block's counters (the SQL layer's), written by its owner. */
    if (m->host.ext_lines)
        m->host.ext_lines(m->host.owner, &sum.ext, rep);

    gauge(rep, "lbench_interval_latency_seconds", "event latency quantiles of the last report interval");
    for (int i = 0; i < nq; i++)
        if (v[i] >= 0)
            lb_loop_reply_printf(rep, "lbench_interval_latency_seconds{quantile=\"%g\"} %.9g\n", q[i], v[i]);
    gauge(rep, "lbench_interval_events", "events in the last report interval");
    lb_loop_reply_printf(rep, "lbench_interval_events %llu\n", (unsigned long long)icount);
    gauge(rep, "lbench_interval_seconds", "length of the last report interval");
    lb_loop_reply_printf(rep, "lbench_interval_seconds %g\n", isecs);
}

static void *serve(void *arg)
{
    lb_metrics *m = arg;
    lb_loop_dispatch(m->loop);
    return NULL;
}

lb_metrics *lb_metrics_start(const lb_metrics_host *host, const char *host_name, int port, char *err, int errlen)
{
    size_t elen = errlen > 0 ? (size_t)errlen : 0;
    lb_metrics *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, elen, "out of memory");
        return NULL;
    }
    if (host)
        m->host = *host;
    pthread_mutex_init(&m->mu, NULL);
    m->loop = lb_loop_new(0);
    if (!m->loop) {
        snprintf(err, elen, "cannot create an event loop");
        goto fail;
    }
    m->http = lb_loop_http_new(m->loop, host_name, port, err, elen);
    if (!m->http)
        goto fail;
    if (lb_loop_http_route(m->http, "/metrics", "text/plain; version=0.0.4; charset=utf-8", scrape, m) != 0) {
        snprintf(err, elen, "cannot register /metrics");
        goto fail;
    }
    int rc = pthread_create(&m->thread, NULL, serve, m);
    if (rc != 0) {
        snprintf(err, elen, "cannot start the metrics thread: %s", strerror(rc));
        goto fail;
    }
    m->started = 1;
    return m;
fail:
    lb_metrics_stop(m);
    return NULL;
}

int lb_metrics_port(const lb_metrics *m)
{
    return m && m->http ? lb_loop_http_port(m->http) : -1;
}

void lb_metrics_attach(lb_metrics *m, lb_run *r, int threads, int vus)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->run = r;
    if (r) {
        m->threads = threads;
        m->vus = vus;
        m->published = 0;
    }
    pthread_mutex_unlock(&m->mu);
}

void lb_metrics_publish(lb_metrics *m, int n, const double *q, const double *v_s,
                        uint64_t count, double interval_s)
{
    if (!m)
        return;
    if (n > MAX_Q)
        n = MAX_Q;
    pthread_mutex_lock(&m->mu);
    m->nq = n;
    for (int i = 0; i < n; i++) {
        m->q[i] = q[i];
        m->v[i] = v_s[i];
    }
    m->icount = count;
    m->isecs = interval_s;
    m->published = 1;
    pthread_mutex_unlock(&m->mu);
}

void lb_metrics_stop(lb_metrics *m)
{
    if (!m)
        return;
    if (m->started) {
        lb_loop_break(m->loop);
        pthread_join(m->thread, NULL);
    }
    lb_loop_http_free(m->http);
    lb_loop_free(m->loop);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
