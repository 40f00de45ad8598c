#include "metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "loop.h"
#include "stats.h"

enum { MAX_Q = 32, NB = LB_METRICS_BOUNDS };

/* The nominal bounds in ns: 10 us to 60 s in 1-2-5 steps (lb_metrics_bound_ns
 * moves each to the end of its slot). */
static const int64_t NOMINAL_NS[NB] = {
    10000, 20000, 50000, 100000, 200000, 500000,
    1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000, 200000000, 500000000,
    1000000000, 2000000000, 5000000000, 10000000000, 20000000000, 60000000000,
};

struct lb_metrics {
    lb_metrics_host host;
    lb_loop *loop;
    lb_loop_http *http;
    pthread_t thread;
    int started;

    pthread_mutex_t mu;     /* orders attach/detach and publish against scrapes */
    lb_run *run;
    int threads, vus, nranks;
    lb_hist_config cfg;     /* lb_hist_config_default: the histograms lb_metrics_update takes */
    int64_t bound[NB];
    /* What the reporter handed over last (lb_metrics_update). */
    lb_stats sum;
    uint64_t bucket[NB + 1]; /* per bucket, not cumulative; [NB]: above the last bound */
    uint64_t lat_count;
    double lat_sum_ns;
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

/* ns as seconds, exactly (a bucket bound: "0.000010007"). */
static void seconds_exact(char *dst, size_t cap, int64_t ns)
{
    int n = snprintf(dst, cap, "%lld.%09lld", (long long)(ns / 1000000000), (long long)(ns % 1000000000));
    while (n > 2 && dst[n - 1] == '0' && dst[n - 2] != '.')
        dst[--n] = '\0';
}

/* What a scrape serves, copied under the lock. */
typedef struct served {
    int active, threads, vus, nranks, open, nq;
    lb_stats sum;
    uint64_t bucket[NB + 1], lat_count, icount;
    double lat_sum_ns, isecs;
    double q[MAX_Q], v[MAX_Q];
} served;

static void latency_lines(lb_loop_reply *rep, const lb_metrics *m, const served *s)
{
    lb_loop_reply_printf(rep, "# HELP lbench_latency_seconds event latency since the start of the run (warm-up "
                              "included); bounds at the exact histogram's slot ends\n"
                              "# TYPE lbench_latency_seconds histogram\n");
    uint64_t cum = 0;
    for (int i = 0; i < NB; i++) {
        char le[40];
        seconds_exact(le, sizeof le, m->bound[i]);
        cum += s->bucket[i];
        lb_loop_reply_printf(rep, "lbench_latency_seconds_bucket{le=\"%s\"} %llu\n", le, (unsigned long long)cum);
    }
    lb_loop_reply_printf(rep, "lbench_latency_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)s->lat_count);
    lb_loop_reply_printf(rep, "lbench_latency_seconds_sum %.9f\n", s->lat_sum_ns / 1e9);
    lb_loop_reply_printf(rep, "lbench_latency_seconds_count %llu\n", (unsigned long long)s->lat_count);

    lb_loop_reply_printf(rep, "# HELP lbench_interval_latency_seconds event latency quantiles of the last report "
                              "interval; sum and count since the start of the run\n"
                              "# TYPE lbench_interval_latency_seconds summary\n");
    for (int i = 0; i < s->nq; i++)
        if (s->v[i] >= 0)
            lb_loop_reply_printf(rep, "lbench_interval_latency_seconds{quantile=\"%g\"} %.9g\n", s->q[i], s->v[i]);
    lb_loop_reply_printf(rep, "lbench_interval_latency_seconds_sum %.9f\n", s->lat_sum_ns / 1e9);
    lb_loop_reply_printf(rep, "lbench_interval_latency_seconds_count %llu\n", (unsigned long long)s->lat_count);
    gauge(rep, "lbench_interval_events", "events in the last report interval");
    lb_loop_reply_printf(rep, "lbench_interval_events %llu\n", (unsigned long long)s->icount);
    gauge(rep, "lbench_interval_seconds", "length of the last report interval");
    lb_loop_reply_printf(rep, "lbench_interval_seconds %g\n", s->isecs);
}

static void counter_lines(lb_loop_reply *rep, const lb_metrics *m, const served *s)
{
    const lb_stats *sum = &s->sum;
    counter(rep, "lbench_events_total", "completed events (transactions), warm-up included");
    lb_loop_reply_printf(rep, "lbench_events_total %llu\n", (unsigned long long)sum->events);
    counter(rep, "lbench_ignored_errors_total", "events restarted after an ignored error");
    lb_loop_reply_printf(rep, "lbench_ignored_errors_total %llu\n", (unsigned long long)sum->restarts);
    counter(rep, "lbench_type_events_total", "completed events by event type");
    int ntypes = m->host.type_count ? m->host.type_count(m->host.owner) : 0;
    for (int t = 0; t < ntypes && t < LB_MAX_TYPES; t++) {
        const char *name = m->host.type_name(m->host.owner, t);
        if (!name || (sum->types[t].events == 0 && sum->types[t].restarts == 0))
            continue;
        char lv[256];
        label_value(lv, sizeof lv, name);
        lb_loop_reply_printf(rep, "lbench_type_events_total{type=\"%s\"} %llu\n", lv,
                             (unsigned long long)sum->types[t].events);
    }
    /* The extension block's counters (the SQL layer's), written by its owner. */
    if (m->host.ext_lines)
        m->host.ext_lines(m->host.owner, &sum->ext, rep);
}

static void scrape(void *ud, lb_loop_reply *rep)
{
    lb_metrics *m = ud;
    served *s = calloc(1, sizeof *s);
    if (!s)
        return;
    pthread_mutex_lock(&m->mu);
    s->active = m->run != NULL;
    s->threads = m->threads;
    s->vus = m->vus;
    s->nranks = m->nranks;
    if (m->run)
        s->open = lb_run_open_connections(m->run);
    s->nq = m->published ? m->nq : 0;
    memcpy(s->q, m->q, sizeof s->q);
    memcpy(s->v, m->v, sizeof s->v);
    s->icount = m->icount;
    s->isecs = m->isecs;
    s->sum = m->sum;
    memcpy(s->bucket, m->bucket, sizeof s->bucket);
    s->lat_count = m->lat_count;
    s->lat_sum_ns = m->lat_sum_ns;
    pthread_mutex_unlock(&m->mu);

    gauge(rep, "lbench_run_active", "1 while a run is in progress");
    lb_loop_reply_printf(rep, "lbench_run_active %d\n", s->active);
    gauge(rep, "lbench_ranks", "processes of the run (lbench-mpi ranks; 1 for lbench)");
    lb_loop_reply_printf(rep, "lbench_ranks %d\n", s->nranks > 1 ? s->nranks : 1);
    gauge(rep, "lbench_threads", "worker threads of the run");
    lb_loop_reply_printf(rep, "lbench_threads %d\n", s->threads);
    gauge(rep, "lbench_virtual_users", "virtual users (connections in async mode; = threads in thread mode)");
    lb_loop_reply_printf(rep, "lbench_virtual_users %d\n", s->vus);
    if (s->nranks > 1) {
        gauge(rep, "lbench_connections_open", "database connections open now, of this rank alone");
        lb_loop_reply_printf(rep, "lbench_connections_open{rank=\"0\"} %d\n", s->open);
    } else {
        gauge(rep, "lbench_connections_open", "database connections open now");
        lb_loop_reply_printf(rep, "lbench_connections_open %d\n", s->open);
    }
    counter_lines(rep, m, s);
    latency_lines(rep, m, s);
    free(s);
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
    lb_hist_config_default(&m->cfg);
    for (int i = 0; i < NB; i++)
        m->bound[i] = lb_metrics_bound_ns(i);
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

void lb_metrics_attach(lb_metrics *m, lb_run *r, int threads, int vus, int nranks)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->run = r;
    if (r) {
        m->threads = threads;
        m->vus = vus;
        m->nranks = nranks;
        m->published = 0;
        memset(&m->sum, 0, sizeof m->sum);
        memset(m->bucket, 0, sizeof m->bucket);
        m->lat_count = 0;
        m->lat_sum_ns = 0;
        m->icount = 0;
        m->isecs = 0;
    }
    pthread_mutex_unlock(&m->mu);
}

int64_t lb_metrics_bound_ns(int i)
{
    if (i < 0 || i >= NB)
        return -1;
    lb_hist_config cfg;
    lb_hist_config_default(&cfg);
    return lb_hist_slot_upper(&cfg, NOMINAL_NS[i]);
}

/* Add histogram h (of m's configuration) to the buckets; with the lock held.
 * A slot lies wholly at or below a bound, or wholly above it: the bounds
 * are slot ends. */
static void add_hist(lb_metrics *m, const lb_hist *h)
{
    uint64_t add[NB + 1] = { 0 };
    add[0] = (uint64_t)lb_hist_underflow(h); /* below 0: below every bound */
    add[NB] = (uint64_t)lb_hist_overflow(h);
    int32_t idx = -1;
    int64_t hi, n;
    int b = 0;
    if (lb_hist_total(h) > 0)
        idx = lb_hist_index_of(&m->cfg, lb_hist_min(h)) - 1;
    while (lb_hist_total(h) > 0 && lb_hist_next_bucket(h, &idx, NULL, &hi, &n)) {
        while (b < NB && hi > m->bound[b])
            b++;
        add[b] += (uint64_t)n;
    }
    for (int i = 0; i <= NB; i++)
        m->bucket[i] += add[i];
    m->lat_count += (uint64_t)lb_hist_count_all(h);
    m->lat_sum_ns += lb_hist_sum(h);
}

int lb_metrics_update(lb_metrics *m, const lb_stats *sum, const lb_hist *lat)
{
    if (!m)
        return 0;
    if (lat && !lb_hist_config_same(lb_hist_cfg(lat), &m->cfg))
        return -1;
    pthread_mutex_lock(&m->mu);
    if (sum)
        m->sum = *sum;
    if (lat)
        add_hist(m, lat);
    pthread_mutex_unlock(&m->mu);
    return 0;
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
