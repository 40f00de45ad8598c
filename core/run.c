/* run — a run seen from the main thread: creating the workers, the start
 * barrier and deadline, waiting for ticks, collecting the workers'
 * buffers and counters, stops and failures, the join, and the figures
 * read after it (measured period, lanes, per-worker counters). */
#include "worker_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cluster/cluster.h"

/* ---- errors ---------------------------------------------------------- */

/* Async workers block in their event loop with no timeout when nothing
 * is timed: wake them when the run stops. */
void lb__run_wake_loops(lb_run *r)
{
    for (int i = 0; i < r->cfg.threads; i++) {
        lb_worker *w = r->w[i];
        if (!w)
            continue;
        pthread_mutex_lock(&w->conn_mu);
        if (w->loop)
            lb_loop_wakeup(w->loop);
        pthread_mutex_unlock(&w->conn_mu);
    }
}

/* Under r->mu: raise the stop flag and remember when the run was first
 * told to stop, the end of its measured period (lb_run_end_ns) when that
 * comes before the deadline.  A stop after every worker has ended (the
 * reporter's own, at the end) changes nothing that was measured. */
void lb__run_mark_stop(lb_run *r)
{
    atomic_store(&r->stop, 1);
    if (r->go && r->finished < r->cfg.threads && atomic_load(&r->t_stop) == 0)
        atomic_store(&r->t_stop, lb_clock_ns_inline());
}

void lb__run_fail(lb_run *r, const char *msg)
{
    pthread_mutex_lock(&r->mu);
    /* The first error is the cause; later ones are usually consequences. */
    if (!atomic_load(&r->failed)) {
        snprintf(r->error, sizeof(r->error), "%s", msg);
        atomic_store(&r->failed, 1);
    }
    lb__run_mark_stop(r);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    lb__run_wake_loops(r);
}

int lb_run_abort_connections(lb_run *r)
{
    int n = 0;
    for (int i = 0; i < r->cfg.threads; i++) {
        lb_worker *w = r->w[i];
        if (atomic_load_explicit(&w->finished, memory_order_acquire))
            continue;
        pthread_mutex_lock(&w->conn_mu);
        for (int j = 0; j < w->nconns; j++, n++)
            w->conns[j].ops->abort(w->conns[j].h);
        pthread_mutex_unlock(&w->conn_mu);
    }
    return n;
}

/* ---- the run, from the main thread ----------------------------------- */

lb_run *lb_run_new(const lb_run_host *host, const lb_run_config *cfg)
{
    if (!host || !host->out || !host->stop_requested || !cfg || cfg->threads < 1 || cfg->ncpus < 0 ||
        cfg->ncpus > LB_MAX_CPUS)
        return NULL;
    lb_run *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->host = *host;
    r->cfg = *cfg;
    r->boot = strdup(cfg->boot ? cfg->boot : "return {}");
    r->cfg.boot = r->boot;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    atomic_store(&r->deadline, INT64_MAX);
    r->cuts.t0 = INT64_MAX;
    r->rep_next_cut = INT64_MAX;
    lb_hist_config_default(&r->hcfg);
    r->w = calloc((size_t)cfg->threads, sizeof(*r->w));
    if (!r->boot || !r->w)
        goto fail;
    uint64_t seed = cfg->rand_seed_set ? cfg->rand_seed : (uint64_t)lb_clock_ns_inline();
    for (int i = 0; i < cfg->threads; i++) {
        lb_worker *w = aligned_alloc(64, (sizeof(lb_worker) + 63) / 64 * 64);
        if (!w)
            goto fail;
        memset(w, 0, sizeof(*w));
        pthread_mutex_init(&w->conn_mu, NULL);
        r->w[i] = w;
        w->run = r;
        w->tid = i;
        w->lane0.cur_type = -1;
        w->lane = &w->lane0;
        if (lb_stats_hists_init(&w->hists, &r->hcfg, &w->stats, cfg->rate > 0, &r->cuts) != 0)
            goto fail;
        /* Streams by the job's thread number: every thread of a cluster
         * job draws its own sequence from one --rand-seed. */
        uint64_t gtid = (uint64_t)cfg->tid_base + (uint64_t)i;
        lb_rand_seed(&w->rand, seed, gtid);
        if (cfg->rate > 0) {
            w->paced = 1;
            lb_pace_init(&w->pace, cfg->rate / cfg->threads, cfg->rate_poisson, 0,
                         seed ^ 0x9e3779b97f4a7c15ULL, gtid + 1000003);
            if (cfg->nrate_segs > 0)
                lb_pace_schedule(&w->pace, cfg->rate_segs, cfg->nrate_segs, 1.0 / cfg->threads);
        }
    }
    return r;
fail:
    lb_run_free(r);
    return NULL;
}

static void add_cut(lb_cuts *c, int64_t t)
{
    int i = c->n;
    if (i == LB_MAX_CUTS)
        return;
    while (i > 0 && c->at[i - 1] > t)
        i--;
    if (i > 0 && c->at[i - 1] == t)
        return;
    memmove(&c->at[i + 1], &c->at[i], sizeof(c->at[0]) * (size_t)(c->n - i));
    c->at[i] = t;
    c->n++;
}

/* The periods of the run, once its start is known (before the workers go). */
static void set_cuts(lb_run *r)
{
    lb_cuts *c = &r->cuts;
    c->t0 = r->t_start;
    c->grid_ns = r->cfg.cut_grid_s > 0 ? (int64_t)(r->cfg.cut_grid_s * 1e9) : 0;
    c->n = 0;
    if (r->warmup_end > r->t_start)
        add_cut(c, r->warmup_end);
    for (int i = 0; i < r->cfg.ncuts && i < LB_MAX_CUTS; i++)
        if (r->cfg.cuts_after_warmup_s[i] > 0)
            add_cut(c, r->warmup_end + (int64_t)(r->cfg.cuts_after_warmup_s[i] * 1e9));
    r->rep_period = 0;
    r->rep_next_cut = lb_cuts_next(c, c->t0);
    r->last_collect = r->t_start;
}

int64_t lb_run_next_cut(const lb_run *r, int64_t after_ns) { return lb_cuts_next(&r->cuts, after_ns); }

int lb_run_launch(lb_run *r)
{
    int n = r->cfg.threads;
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&r->w[i]->thread, NULL, lb__worker_main, r->w[i]);
        if (rc != 0) {
            char msg[128];
            snprintf(msg, sizeof(msg), "cannot start worker thread %d of %d: %s", i, n, strerror(rc));
            lb__run_fail(r, msg);
            pthread_mutex_lock(&r->mu);
            r->finished += n - i; /* never started: count them as done */
            pthread_mutex_unlock(&r->mu);
            return -1;
        }
        r->w[i]->thread_started = 1;
    }
    /* Barrier: every worker has loaded the scenario and run thread_init
     * (or something failed) before the clock starts. */
    pthread_mutex_lock(&r->mu);
    while (r->ready + r->finished < n && !atomic_load(&r->failed))
        pthread_cond_wait(&r->cv, &r->mu);
    int ok = !atomic_load(&r->failed);
    if (r->cfg.cluster_start) {
        /* Every rank's workers are ready, or every rank gives up: the
         * collective is the job's start barrier.  Outside the lock, so a
         * worker failing meanwhile is not held up. */
        pthread_mutex_unlock(&r->mu);
        int64_t all_ok = ok;
        if (lb_cluster_min(&all_ok) != 0)
            all_ok = 0;
        pthread_mutex_lock(&r->mu);
        if (ok && (!all_ok || atomic_load(&r->failed))) {
            pthread_mutex_unlock(&r->mu);
            lb__run_fail(r, "another rank of the job failed to start");
            pthread_mutex_lock(&r->mu);
        }
        ok = !atomic_load(&r->failed);
    }
    if (!ok)
        pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

int lb_run_go(lb_run *r)
{
    pthread_mutex_lock(&r->mu);
    int ok = !atomic_load(&r->failed);
    if (ok) {
        r->t_start = lb_clock_ns_inline();
        r->t_start_wall = lb_clock_wall();
        r->warmup_end = r->t_start + (int64_t)(r->cfg.warmup_s * 1e9);
        atomic_store_explicit(&r->deadline,
                              r->cfg.time_s > 0 ? r->warmup_end + (int64_t)(r->cfg.time_s * 1e9)
                                                : INT64_MAX,
                              memory_order_relaxed);
        set_cuts(r);
        /* The workers wait for go under r->mu, so the note precedes every
         * line an event prints. */
        if (r->cfg.start_note)
            r->host.out(r->host.owner, r->cfg.start_note, strlen(r->cfg.start_note));
        r->go = 1;
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

int lb_run_start(lb_run *r)
{
    if (lb_run_launch(r) != 0)
        return -1;
    return lb_run_go(r);
}

/* How long the supervising thread sleeps at a time unless the run says
 * otherwise (cfg.tick_ns): a stop request is seen within this, and it is
 * how often the process wakes when it is otherwise waiting for I/O.  10 ms,
 * the period of fio's main loop, so that a side-by-side run wakes the CPU as
 * often as fio does: on a virtual machine a vCPU that wakes more often
 * completes queue-depth-1 I/O measurably faster (docs/benchmarks.md), and
 * at 50 ms lbench's QD1 writes ran 1-8 % behind fio's.  The cost is 100
 * wake-ups a second, which sysbench's CPU tests do not pay (their scenarios
 * ask for 250 ms). */
#define SUPERVISOR_SLICE_NS 10000000LL
#define SUPERVISOR_SLICE_MAX_NS 1000000000LL

static int64_t supervisor_slice(const lb_run *r)
{
    int64_t t = r->cfg.tick_ns;
    if (t <= 0)
        return SUPERVISOR_SLICE_NS;
    return t < SUPERVISOR_SLICE_MAX_NS ? t : SUPERVISOR_SLICE_MAX_NS;
}

int lb_run_wait(lb_run *r, int64_t until_ns)
{
    struct timespec ts = {.tv_sec = until_ns / 1000000000LL, .tv_nsec = until_ns % 1000000000LL};
    int64_t slice = supervisor_slice(r);
    pthread_mutex_lock(&r->mu);
    while (r->finished < r->cfg.threads && lb_clock_ns_inline() < until_ns) {
        /* The condvar uses CLOCK_REALTIME by default; wait in short slices
         * against the monotonic deadline instead of converting clocks. */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t left = until_ns - lb_clock_ns_inline();
        if (left > slice)
            left = slice;
        int64_t abs_ns = now.tv_sec * 1000000000LL + now.tv_nsec + left;
        ts.tv_sec = abs_ns / 1000000000LL;
        ts.tv_nsec = abs_ns % 1000000000LL;
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
        if (r->host.stop_requested(r->host.owner))
            break;
    }
    int all = r->finished >= r->cfg.threads;
    pthread_mutex_unlock(&r->mu);
    return all;
}

int lb_run_collect(lb_run *r, lb_snapshot *dst, int64_t cut_ns)
{
    int n = r->cfg.threads;
    int rc = 0, running = 0, barrier_done = 0;
    lb_stats_snapshot_reset_hists(dst);
    memset(&dst->sum, 0, sizeof(dst->sum));
    uint64_t upto = UINT64_MAX;
    if (cut_ns != INT64_MAX) {
        while (r->rep_next_cut <= cut_ns) {
            r->rep_period++;
            r->rep_next_cut = lb_cuts_next(&r->cuts, r->rep_next_cut);
        }
        upto = r->rep_period;
    }
    for (int i = 0; i < n; i++) {
        lb_worker *w = r->w[i];
        int done = atomic_load_explicit(&w->finished, memory_order_acquire);
        int wrc = lb_stats_collect(&w->hists, dst, upto, done, &barrier_done);
        rc = rc ? rc : wrc;
        /* A thread that has ended still counts as running if it ran
         * during this interval. */
        if (!done || w->t_last_end > r->last_collect)
            running++;
        lb_stats_add(&dst->sum, &w->hists.collected);
    }
    dst->threads_running = running;
    dst->t_ns = cut_ns == INT64_MAX ? lb_clock_ns_inline() : cut_ns;
    r->last_collect = dst->t_ns;
    return rc;
}

void lb_run_stop(lb_run *r)
{
    pthread_mutex_lock(&r->mu);
    lb__run_mark_stop(r);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    lb__run_wake_loops(r);
}

int lb_run_join(lb_run *r)
{
    if (r->joined)
        return atomic_load(&r->failed) ? -1 : 0;
    for (int i = 0; i < r->cfg.threads; i++)
        if (r->w[i] && r->w[i]->thread_started)
            pthread_join(r->w[i]->thread, NULL);
    r->joined = 1;
    return atomic_load(&r->failed) ? -1 : 0;
}

int lb_run_started(lb_run *r)
{
    pthread_mutex_lock(&r->mu);
    int go = r->go;
    pthread_mutex_unlock(&r->mu);
    return go;
}

const char *lb_run_error(const lb_run *r) { return r->error; }
int lb_run_failed(const lb_run *r) { return atomic_load(&((lb_run *)r)->failed); }
int64_t lb_run_started_ns(const lb_run *r) { return r->t_start; }
double lb_run_started_wall(const lb_run *r) { return r->t_start_wall; }
int lb_run_threads(const lb_run *r) { return r->cfg.threads; }
int64_t lb_run_warmup_end_ns(const lb_run *r) { return r->warmup_end; }

int64_t lb_run_end_ns(const lb_run *r)
{
    int64_t last = lb_run_last_end_ns(r);
    int64_t bound = atomic_load(&((lb_run *)r)->deadline);
    int64_t stop = atomic_load(&((lb_run *)r)->t_stop);
    if (stop > 0 && stop < bound)
        bound = stop;
    if (r->t_finished > 0 && r->t_finished < bound)
        bound = r->t_finished;
    if (bound == INT64_MAX)
        bound = last;
    return last > bound ? last : bound;
}

int64_t lb_run_last_end_ns(const lb_run *r)
{
    int64_t last = r->t_start;
    for (int i = 0; i < r->cfg.threads; i++)
        if (r->w[i] && r->w[i]->t_last_end > last)
            last = r->w[i]->t_last_end;
    return last;
}

int lb_run_lane_count(const lb_run *r, int tid)
{
    if (tid < 0 || tid >= r->cfg.threads)
        return 0;
    return r->w[tid]->lanes ? r->w[tid]->nlanes : 1;
}

uint64_t lb_run_lane_events(const lb_run *r, int tid, int lane)
{
    if (tid < 0 || tid >= r->cfg.threads)
        return 0;
    const lb_worker *w = r->w[tid];
    if (!w->lanes)
        return lane == 0 ? w->lane0.events : 0;
    return lane >= 0 && lane < w->nlanes ? w->lanes[lane].events : 0;
}

int lb_run_open_connections(lb_run *r)
{
    int n = 0;
    for (int i = 0; i < r->cfg.threads; i++) {
        lb_worker *w = r->w[i];
        pthread_mutex_lock(&w->conn_mu);
        n += w->nconns;
        pthread_mutex_unlock(&w->conn_mu);
    }
    return n;
}

uint64_t lb_run_worker_warm_busy(const lb_run *r, int tid)
{
    return tid >= 0 && tid < r->cfg.threads ? r->w[tid]->warm_busy : 0;
}

int lb_run_stuck_worker(lb_run *r)
{
    for (int i = 0; i < r->cfg.threads; i++) {
        lb_worker *w = r->w[i];
        if (!atomic_load_explicit(&w->finished, memory_order_acquire) &&
            !atomic_load_explicit(&w->events_over, memory_order_acquire))
            return r->cfg.tid_base + i;
    }
    return -1;
}

int lb_run_worker_waiting(lb_run *r, int tid, char *buf, int n)
{
    tid -= r->cfg.tid_base;
    if (!buf || n <= 0)
        return 0;
    buf[0] = '\0';
    if (tid < 0 || tid >= r->cfg.threads)
        return 0;
    lb_worker *w = r->w[tid];
    pthread_mutex_lock(&w->conn_mu);
    snprintf(buf, (size_t)n, "%s", w->cut_waiting);
    for (int j = 0; j < w->nconns && !buf[0]; j++)
        if (w->conns[j].ops->waiting)
            w->conns[j].ops->waiting(w->conns[j].h, buf, (size_t)n);
    pthread_mutex_unlock(&w->conn_mu);
    /* Virtual users wait in the worker's event loop, not in a blocking call. */
    if (!buf[0] && w->async)
        snprintf(buf, (size_t)n, "virtual users' operations in the event loop");
    return (int)strlen(buf);
}

int lb_run_worker_collected(const lb_run *r, int tid, lb_stats *out)
{
    if (tid < 0 || tid >= r->cfg.threads)
        return -EINVAL;
    *out = r->w[tid]->hists.collected;
    return 0;
}

const lb_stats *lb_run_worker_stats(const lb_run *r, int tid)
{
    return tid >= 0 && tid < r->cfg.threads ? &r->w[tid]->stats : NULL;
}

void lb_run_free(lb_run *r)
{
    if (!r)
        return;
    lb_run_stop(r);
    lb_run_join(r);
    if (r->w) {
        for (int i = 0; i < r->cfg.threads; i++) {
            if (!r->w[i])
                continue;
            lb_stats_hists_free(&r->w[i]->hists);
            free(r->w[i]->conns);
            free(r->w[i]->lanes);
            pthread_mutex_destroy(&r->w[i]->conn_mu);
            free(r->w[i]);
        }
        free(r->w);
    }
    free(r->boot);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}
