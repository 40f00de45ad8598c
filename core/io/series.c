/* series — data points every N I/Os.  See series.h.
 *
 * Counters are atomics so that a flush that crosses no multiple of
 * every_ios costs a few relaxed adds and one compare; the mutex guards the
 * point array, the window histograms and the "previous point" snapshot,
 * so the counts, averages and percentiles of a point describe the same
 * I/Os. */
#include "series.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Slots of cur[] / last[]: the counters a point is the difference of. */
enum { S_IOS, S_READS, S_WRITES, S_FSYNCS, S_BR, S_BW, S_LAT_R, S_LAT_W, S_N };

struct lb_io_shared {
    char *key;
    int refs;
    lb_io_shared *next;
    uint64_t every;
    uint64_t flush_hint;            /* jobs flush at least this often (I/Os) */
    _Atomic uint64_t ios, reads, writes, fsyncs, br, bw, lat_r, lat_w;
    _Atomic uint64_t next_at;
    _Atomic int64_t t0;
    pthread_mutex_t mu;
    lb_io_point *pts;
    int n, cap;
    int printed;
    uint64_t last[S_N];             /* counters at the previous point */
    int64_t last_t;
    lb_hist *win_r, *win_w;         /* latencies of the reads / writes since the previous point (under mu) */
    char dev[64];                   /* the watched block device ("": none; under mu) */
    lb_diskstats dev_last;          /* its counters at the previous point */
};

_Static_assert(LB_IO_NPCT == 5, "lb_io_point's read_lat_ms/write_lat_ms hold LB_IO_NPCT values");
static const double point_pcts[LB_IO_NPCT] = { 50, 95, 99, 99.9, 100 };

static void shared_free(lb_io_shared *s)
{
    lb_hist_free(s->win_r);
    lb_hist_free(s->win_w);
    free(s->pts);
    free(s->key);
    free(s);
}

/* The registry of open series, by key. */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static lb_io_shared *reg_head;

/* Under reg_mu. */
static lb_io_shared *reg_find(const char *key)
{
    lb_io_shared *s;
    for (s = reg_head; s; s = s->next)
        if (!strcmp(s->key, key))
            break;
    return s;
}

lb_io_shared *lb_io_shared_open(const char *key, uint64_t every_ios)
{
    if (!key || every_ios == 0)
        return NULL;
    pthread_mutex_lock(&reg_mu);
    lb_hist_config hc;
    lb_io_shared *s = reg_find(key);
    if (s) {
        s->refs++;
    } else if ((s = calloc(1, sizeof(*s))) && (s->key = strdup(key)) && lb_hist_config_default(&hc) == 0 &&
               (s->win_r = lb_hist_new(&hc)) && (s->win_w = lb_hist_new(&hc))) {
        s->refs = 1;
        s->every = every_ios;
        s->flush_hint = every_ios / 16 ? every_ios / 16 : 1;
        atomic_store(&s->next_at, every_ios);
        pthread_mutex_init(&s->mu, NULL);
        s->next = reg_head;
        reg_head = s;
    } else {
        if (s)
            shared_free(s);
        s = NULL;
    }
    pthread_mutex_unlock(&reg_mu);
    return s;
}

lb_io_shared *lb_io_shared_lookup(const char *key)
{
    pthread_mutex_lock(&reg_mu);
    lb_io_shared *s = reg_find(key);
    pthread_mutex_unlock(&reg_mu);
    return s;
}

void lb_io_shared_close(lb_io_shared *sh)
{
    if (!sh)
        return;
    pthread_mutex_lock(&reg_mu);
    if (--sh->refs > 0) {
        pthread_mutex_unlock(&reg_mu);
        return;
    }
    for (lb_io_shared **pp = &reg_head; *pp; pp = &(*pp)->next)
        if (*pp == sh) {
            *pp = sh->next;
            break;
        }
    pthread_mutex_unlock(&reg_mu);
    pthread_mutex_destroy(&sh->mu);
    shared_free(sh);
}

int lb_io_shared_npoints(lb_io_shared *sh)
{
    if (!sh)
        return 0;
    pthread_mutex_lock(&sh->mu);
    int n = sh->n;
    pthread_mutex_unlock(&sh->mu);
    return n;
}

int lb_io_shared_point(lb_io_shared *sh, int i, lb_io_point *out)
{
    int rc = -EINVAL;
    pthread_mutex_lock(&sh->mu);
    if (i >= 0 && i < sh->n) {
        *out = sh->pts[i];
        rc = 0;
    }
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

int lb_io_shared_take_unprinted(lb_io_shared *sh, int32_t *first)
{
    if (!sh)
        return 0;
    pthread_mutex_lock(&sh->mu);
    *first = sh->printed;
    int n = sh->n - sh->printed;
    sh->printed = sh->n;
    pthread_mutex_unlock(&sh->mu);
    return n;
}

int lb_io_shared_watch_device(lb_io_shared *sh, const char *name)
{
    if (!sh || !name || strlen(name) >= sizeof(sh->dev))
        return -1;
    lb_diskstats d;
    if (lb_diskstats_read(name, &d) != 0)
        return -1;
    pthread_mutex_lock(&sh->mu);
    strcpy(sh->dev, name);
    sh->dev_last = d;
    pthread_mutex_unlock(&sh->mu);
    return 0;
}

int lb_io_shared_device_watched(lb_io_shared *sh)
{
    pthread_mutex_lock(&sh->mu);
    int w = sh->dev[0] != 0;
    pthread_mutex_unlock(&sh->mu);
    return w;
}

void lb__io_series_start(lb_io_shared *sh, int64_t now)
{
    int64_t zero = 0;
    if (!atomic_compare_exchange_strong(&sh->t0, &zero, now))
        return;
    /* The device's window starts with the first I/O, as lbench's does. */
    pthread_mutex_lock(&sh->mu);
    lb_diskstats d;
    if (sh->dev[0] && lb_diskstats_read(sh->dev, &d) == 0)
        sh->dev_last = d;
    pthread_mutex_unlock(&sh->mu);
}

uint64_t lb__io_series_flush_hint(const lb_io_shared *sh) { return sh->flush_hint; }

/* Window histogram -> the point's percentiles in ms (all 0 when empty).
 * Out-of-range samples (a latency < 0 or > ~73 min) read as 0 / highest. */
static void window_pcts(const lb_hist *h, double *out_ms)
{
    int64_t v[LB_IO_NPCT];
    lb_hist_percentiles(h, point_pcts, LB_IO_NPCT, v);
    for (int i = 0; i < LB_IO_NPCT; i++) {
        if (v[i] == INT64_MIN)
            v[i] = 0;
        else if (v[i] == INT64_MAX)
            v[i] = lb_hist_cfg(h)->highest;
        out_ms[i] = (double)v[i] / 1e6;
    }
}

/* Part i of k of a window's count d: the parts add up to d exactly (the
 * points of one flush then sum to the series' totals). */
static uint64_t share(uint64_t d, int i, int k)
{
    return d * (uint64_t)(i + 1) / (uint64_t)k - d * (uint64_t)i / (uint64_t)k;
}

/* Room for k more points (under mu); 0 when out of memory. */
static int reserve_points(lb_io_shared *sh, int k)
{
    if (sh->n + k <= sh->cap)
        return 1;
    int cap = sh->cap ? sh->cap * 2 : 64;
    while (cap < sh->n + k)
        cap *= 2;
    lb_io_point *p = realloc(sh->pts, sizeof(*p) * (size_t)cap);
    if (!p)
        return 0;
    sh->pts = p;
    sh->cap = cap;
    return 1;
}

/* Append k points for the window from the previous point to `now` (under
 * mu).  The k points of one flush share the window evenly (counts) or as
 * a whole (time span, averages, percentiles): a flush does not know where
 * inside it each multiple of every_ios fell. */
static void emit_points(lb_io_shared *sh, const uint64_t *cur, int k, int64_t now)
{
    const uint64_t *last = sh->last;
    uint64_t ios_at = last[S_IOS];
    int64_t t0 = atomic_load(&sh->t0);
    int64_t last_t = sh->last_t ? sh->last_t : t0;
    double win = (double)(now - last_t) / 1e9 / k;
    double rp[LB_IO_NPCT], wp[LB_IO_NPCT];
    window_pcts(sh->win_r, rp);
    window_pcts(sh->win_w, wp);
    uint64_t dr = cur[S_READS] - last[S_READS], dw = cur[S_WRITES] - last[S_WRITES];
    lb_diskstats dev = sh->dev_last, d0 = sh->dev_last;
    if (sh->dev[0] && lb_diskstats_read(sh->dev, &dev) != 0)
        dev = d0;   /* gone (hot-unplugged): no counts rather than wrong ones */
    for (int i = 0; i < k; i++) {
        lb_io_point *p = &sh->pts[sh->n++];
        memset(p, 0, sizeof(*p));
        p->secs = win;
        p->time_s = (double)(last_t - t0) / 1e9 + win * (i + 1);
        p->reads = share(dr, i, k);
        p->writes = share(dw, i, k);
        p->fsyncs = share(cur[S_FSYNCS] - last[S_FSYNCS], i, k);
        p->bytes_read = share(cur[S_BR] - last[S_BR], i, k);
        p->bytes_written = share(cur[S_BW] - last[S_BW], i, k);
        /* The I/Os actually done up to this point (a flush overshoots
         * the multiple of `every` it crossed), so that a point's iops
         * is exactly its ios minus the previous point's over its span. */
        ios_at += p->reads + p->writes;
        p->ios = ios_at;
        p->read_lat_avg_ms = dr ? (double)(cur[S_LAT_R] - last[S_LAT_R]) / (double)dr / 1e6 : 0;
        p->write_lat_avg_ms = dw ? (double)(cur[S_LAT_W] - last[S_LAT_W]) / (double)dw / 1e6 : 0;
        memcpy(p->read_lat_ms, rp, sizeof(rp));
        memcpy(p->write_lat_ms, wp, sizeof(wp));
        p->dev_reads = share(dev.reads - d0.reads, i, k);
        p->dev_writes = share(dev.writes - d0.writes, i, k);
        p->dev_bytes_read = share(dev.sectors_read - d0.sectors_read, i, k) * 512;
        p->dev_bytes_written = share(dev.sectors_written - d0.sectors_written, i, k) * 512;
        p->dev_wait_ms = share(dev.read_ms + dev.write_ms - d0.read_ms - d0.write_ms, i, k);
        p->dev_busy_ms = share(dev.busy_ms - d0.busy_ms, i, k);
    }
    sh->dev_last = dev;
    memcpy(sh->last, cur, sizeof(sh->last));
    sh->last_t = now;
    lb_hist_reset(sh->win_r);
    lb_hist_reset(sh->win_w);
}

/* Everything happens under mu, so the counts, averages and percentiles of
 * a point describe the same I/Os; a job flushes every flush_hint I/Os, and
 * the merge walks only the slots between its window's min and max. */
void lb__io_series_flush(lb_io_shared *sh, const lb_io_counters *d, const lb_hist *hr, const lb_hist *hw,
                         int64_t now)
{
    uint64_t n = d->reads + d->writes;
    pthread_mutex_lock(&sh->mu);
    if (hr && d->reads)
        lb_hist_merge(sh->win_r, hr);
    if (hw && d->writes)
        lb_hist_merge(sh->win_w, hw);
    atomic_fetch_add_explicit(&sh->reads, d->reads, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->writes, d->writes, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->fsyncs, d->fsyncs, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->br, d->bytes_read, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->bw, d->bytes_written, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->lat_r, d->lat_read_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->lat_w, d->lat_write_ns, memory_order_relaxed);
    uint64_t total = atomic_fetch_add_explicit(&sh->ios, n, memory_order_acq_rel) + n;
    if (total < atomic_load_explicit(&sh->next_at, memory_order_acquire)) {
        pthread_mutex_unlock(&sh->mu);
        return;
    }
    uint64_t cur[S_N] = {
        [S_IOS] = atomic_load(&sh->ios), [S_READS] = atomic_load(&sh->reads),
        [S_WRITES] = atomic_load(&sh->writes), [S_FSYNCS] = atomic_load(&sh->fsyncs),
        [S_BR] = atomic_load(&sh->br), [S_BW] = atomic_load(&sh->bw),
        [S_LAT_R] = atomic_load(&sh->lat_r), [S_LAT_W] = atomic_load(&sh->lat_w),
    };
    uint64_t next = atomic_load(&sh->next_at);
    int k = 0;
    while (cur[S_IOS] >= next + (uint64_t)k * sh->every)
        k++;
    if (k > 0 && !reserve_points(sh, k)) {
        k = 0;   /* out of memory: drop these points, keep counting */
        atomic_store(&sh->next_at, next + sh->every);
    }
    if (k > 0) {
        emit_points(sh, cur, k, now);
        atomic_store(&sh->next_at, next + (uint64_t)k * sh->every);
    }
    pthread_mutex_unlock(&sh->mu);
}
