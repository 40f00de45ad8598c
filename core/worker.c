#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "loop.h"
#include "luart.h"
#include "pace.h"
#include "rand.h"

/* A paced worker sleeps in slices no longer than this, so that it notices
 * stop requests and histogram swaps while it waits for its next start. */
#define PACE_SLICE_NS 2000000LL

/* Per-event state of one sequence of events: the worker's own in thread
 * mode, one per virtual user in async mode.  lb_ev_* work on the worker's
 * current lane, which the async scheduler switches (lb_worker_lane) before
 * it resumes a virtual user, so the event API is the same in both modes. */
typedef struct lb_lane {
    int64_t t_start;       /* start of the current event (intended start when paced) */
    int64_t t_real;        /* actual start (differs from t_start when paced) */
    int32_t cur_type;      /* -1: untyped */
    int rolled_back;
    int in_event;          /* between lb_worker_ev_next/lb_worker_ev_begin and the end of that event */
    int waiting;           /* async + paced: took an intended start, waits for it */
    uint64_t events;       /* events recorded on this lane (fairness); read after the join */
} lb_lane;

struct lb_worker {
    /* Hot fields first: touched on every event by this thread only. */
    _Alignas(64) lb_stats stats;
    lb_run *run;
    lb_lane *lane;         /* current lane: &lane0, or one of lanes[] */
    int32_t tid;
    int paced;
    int async;             /* lanes[] in use: paced waits return to the scheduler */
    lb_lane lane0;
    lb_lane *lanes;
    int nlanes;
    lb_pace pace;          /* intended starts under --rate */
    lb_rand rand;          /* the script's lbench.rand stream */
    lb_stats_hists hists;

    /* Open connections of this worker, so the main thread can cut them
     * when the worker hangs past the deadline.  The mutex serialises that
     * abort with the worker's own disconnects. */
    pthread_mutex_t conn_mu;
    struct tracked { void *h; const lb_handle_ops *ops; } *conns;
    int nconns, capconns;
    lb_loop *loop;         /* async mode: woken for swaps and stops (under conn_mu) */

    pthread_t thread;
    int thread_started;
    _Atomic int finished;
    int64_t t_last_end;    /* end of the last recorded event */
};

struct lb_run {
    lb_runtime *rt;
    lb_run_config cfg;
    char *boot;
    lb_hist_config hcfg;
    lb_worker **w;

    _Atomic int stop;
    _Atomic int failed;
    _Atomic uint64_t tickets;      /* events claimed, when cfg.events is set */
    int64_t t_start, warmup_end;
    _Atomic int64_t deadline;      /* INT64_MAX until the barrier opens */
    _Atomic int64_t t_stop;        /* first stop request or failure; 0: none */
    int64_t t_finished;            /* when the last worker thread ended (under mu) */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;                     /* workers waiting at the barrier */
    int finished;                  /* workers whose thread has ended */
    int go;                        /* barrier released */
    int joined;
    int64_t last_collect;          /* when lb_run_collect last ran */
    char error[8192];
};

/* ---- errors ---------------------------------------------------------- */

/* Async workers block in their event loop with no timeout when nothing
 * is timed: wake them when the reporter wants something (a histogram
 * swap, a stop). */
static void wake_loops(lb_run *r)
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
static void mark_stop(lb_run *r)
{
    atomic_store(&r->stop, 1);
    if (r->go && r->finished < r->cfg.threads && atomic_load(&r->t_stop) == 0)
        atomic_store(&r->t_stop, lb_clock_ns_inline());
}

static void run_fail(lb_run *r, const char *msg)
{
    pthread_mutex_lock(&r->mu);
    /* The first error is the cause; later ones are usually consequences. */
    if (!atomic_load(&r->failed)) {
        snprintf(r->error, sizeof(r->error), "%s", msg);
        atomic_store(&r->failed, 1);
    }
    mark_stop(r);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    wake_loops(r);
}

void lb_worker_fail(lb_worker *w, const char *msg)
{
    lb_stats *st = &w->stats;
    __atomic_store_n(&st->failures, st->failures + 1, __ATOMIC_RELAXED);
    run_fail(w->run, msg);
}

/* ---- worker thread --------------------------------------------------- */

static void pin(lb_worker *w)
{
    const lb_run_config *c = &w->run->cfg;
    if (c->ncpus <= 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c->cpus[w->tid % c->ncpus], &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (rc != 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "--cpu-affinity: cannot pin thread %d to CPU %d: %s", w->tid,
                 c->cpus[w->tid % c->ncpus], strerror(rc));
        lb_worker_fail(w, msg);
    }
}

static void *worker_main(void *arg)
{
    lb_worker *w = arg;
    lb_run *r = w->run;
    char err[8192];
    pin(w);
    lua_State *L = atomic_load(&r->failed) ? NULL : lb__luart_new(r->rt, err, sizeof(err));
    if (!L && !atomic_load(&r->failed))
        run_fail(r, err);
    if (L) {
        /* lbench.worker.main(worker, boot): loads the scenario, meets the
         * barrier through lb_worker_ready, runs the loop or the command. */
        if (lb__luart_call_module(L, "lbench.worker", "main", w, r->boot, err, sizeof(err)) != 0)
            run_fail(r, err);
        lb__luart_close(L);
    }
    pthread_mutex_lock(&r->mu);
    r->finished++;
    if (r->finished == r->cfg.threads)
        r->t_finished = lb_clock_ns_inline();
    atomic_store_explicit(&w->finished, 1, memory_order_release);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int lb_worker_ready(lb_worker *w)
{
    lb_run *r = w->run;
    pthread_mutex_lock(&r->mu);
    r->ready++;
    pthread_cond_broadcast(&r->cv);
    while (!r->go && !atomic_load(&r->stop))
        pthread_cond_wait(&r->cv, &r->mu);
    int go = r->go && !atomic_load(&r->failed);
    pthread_mutex_unlock(&r->mu);
    if (go && w->paced) {
        /* Stagger the first intended starts so N constant-rate workers
         * interleave instead of firing together. */
        double gap = 1e9 / r->cfg.rate;
        w->pace.next = r->t_start + (int64_t)(gap * w->tid);
    }
    return go;
}

int lb_worker_tid(const lb_worker *w) { return w->tid; }
lb_stats *lb_worker_stats(lb_worker *w) { return &w->stats; }
struct lb_rand *lb_worker_rand(lb_worker *w) { return &w->rand; }

int lb_worker_should_stop(const lb_worker *w)
{
    return atomic_load_explicit(&w->run->stop, memory_order_relaxed) ||
           lb_clock_ns_inline() >= atomic_load_explicit(&w->run->deadline, memory_order_relaxed);
}

/* ---- the hot path ---------------------------------------------------- */

/* A paced worker whose next intended start lies past the deadline is
 * still part of the run until the deadline: it waits for it (or a stop),
 * so the run ends when its measured period does and the last interval is
 * reported whole.  Async: the user waits in the event loop (lb_worker_ev_go). */
static int pace_until_deadline(lb_worker *w, int64_t deadline)
{
    lb_lane *ln = w->lane;
    if (w->async) {
        ln->t_start = deadline;
        ln->waiting = 1;
        return 2;
    }
    for (;;) {
        int64_t now = lb_clock_ns_inline();
        if (now >= deadline || atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            return 0;
        lb_stats_hists_poll(&w->hists);
        lb_clock_sleep_until(deadline - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : deadline);
    }
}

static int pace_wait(lb_worker *w)
{
    lb_run *r = w->run;
    lb_lane *ln = w->lane;
    int64_t intended = lb_pace_next(&w->pace);
    int64_t deadline = atomic_load_explicit(&r->deadline, memory_order_relaxed);
    if (intended >= deadline)
        return pace_until_deadline(w, deadline);
    ln->t_start = intended;
    if (w->async) {
        /* One schedule per worker, shared by its virtual users: an idle
         * user takes the next intended start and, if it lies ahead, waits
         * for it in the event loop (lb_worker_ev_go) instead of sleeping the
         * thread that serves every other user. */
        int64_t now = lb_clock_ns_inline();
        if (now >= intended) {
            ln->t_real = now;
            ln->in_event = 1;
            return 1;
        }
        ln->waiting = 1;
        return 2;
    }
    for (;;) {
        int64_t now = lb_clock_ns_inline();
        if (now >= intended) {
            /* Behind schedule: start at once.  The event's latency still
             * counts from `intended`, so a backlog shows up as latency and
             * queue time instead of disappearing (coordinated omission). */
            ln->t_real = now;
            ln->in_event = 1;
            return 1;
        }
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            return 0;
        lb_stats_hists_poll(&w->hists);
        int64_t wake = intended - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : intended;
        lb_clock_sleep_until(wake);
    }
}

int lb_worker_ev_begin(lb_worker *w)
{
    lb_run *r = w->run;
    lb_stats_hists_poll(&w->hists);
    if (atomic_load_explicit(&r->stop, memory_order_relaxed))
        return 0;
    if (r->cfg.events &&
        atomic_fetch_add_explicit(&r->tickets, 1, memory_order_relaxed) >= r->cfg.events)
        return 0;
    if (w->paced)
        return pace_wait(w);
    int64_t now = lb_clock_ns_inline();
    if (now >= atomic_load_explicit(&r->deadline, memory_order_relaxed))
        return 0;
    lb_lane *ln = w->lane;
    ln->t_start = ln->t_real = now;
    ln->in_event = 1;
    return 1;
}

int64_t lb_worker_ev_intended(const lb_worker *w) { return w->lane->t_start; }

int lb_worker_ev_go(lb_worker *w)
{
    lb_lane *ln = w->lane;
    if (!ln->waiting)
        return ln->in_event;
    ln->waiting = 0;
    /* Woken early because the run stops (or late, past the deadline). */
    if (lb_worker_should_stop(w))
        return 0;
    ln->t_real = lb_clock_ns_inline();
    ln->in_event = 1;
    return 1;
}

/* Record the event that started at lane->t_start and ended at `now`. */
static inline void record_event(lb_worker *w, int64_t now)
{
    lb_lane *ln = w->lane;
    int64_t lat = now - ln->t_start;
    lb_stats_hists *sh = &w->hists;
    w->t_last_end = now;
    ln->in_event = 0;
    ln->events++;
    lb_hist_record(sh->lat[sh->cur], lat);
    if (w->paced)
        lb_hist_record(sh->queue[sh->cur], ln->t_real - ln->t_start);
    lb_stats_bump(&w->stats.events, 1);
    lb_stats_bump(&w->stats.busy_ns, (uint64_t)(lat > 0 ? lat : 0));
    int t = ln->cur_type;
    if (t >= 0) {
        lb_hist *th = lb_stats_type_hist(sh, t);
        if (th)
            lb_hist_record(th, lat);
        lb_stats_bump(&w->stats.types[t].events, 1);
        if (ln->rolled_back)
            lb_stats_bump(&w->stats.types[t].rollbacks, 1);
        ln->cur_type = -1;
    }
    ln->rolled_back = 0;
}

void lb_worker_ev_end(lb_worker *w)
{
    if (w->lane->in_event)
        record_event(w, lb_clock_ns_inline());
}

int lb_worker_ev_next(lb_worker *w)
{
    /* Unpaced, one clock read both ends the previous event and starts the
     * next: the measured latency then includes the engine's own few ns
     * per event (never less than the event took), and the loop makes one
     * FFI call per event instead of two. */
    if (w->paced) {
        lb_worker_ev_end(w);
        return lb_worker_ev_begin(w);
    }
    lb_run *r = w->run;
    lb_lane *ln = w->lane;
    int64_t now = lb_clock_ns_inline();
    if (ln->in_event)
        record_event(w, now);
    lb_stats_hists_poll(&w->hists);
    if (atomic_load_explicit(&r->stop, memory_order_relaxed))
        return 0;
    if (r->cfg.events &&
        atomic_fetch_add_explicit(&r->tickets, 1, memory_order_relaxed) >= r->cfg.events)
        return 0;
    if (now >= atomic_load_explicit(&r->deadline, memory_order_relaxed))
        return 0;
    ln->t_start = ln->t_real = now;
    ln->in_event = 1;
    return 1;
}

/* The batch still ends the run's measured time (I/O batches record their
 * operations through lb_worker_record and are skipped themselves). */
void lb_worker_ev_skip(lb_worker *w)
{
    w->lane->in_event = 0;
    w->t_last_end = lb_clock_ns_inline();
}

void lb_worker_record(lb_worker *w, int32_t type, int64_t lat_ns)
{
    lb_stats_hists *sh = &w->hists;
    lb_hist_record(sh->lat[sh->cur], lat_ns);
    lb_stats_bump(&w->stats.events, 1);
    lb_stats_bump(&w->stats.busy_ns, (uint64_t)(lat_ns > 0 ? lat_ns : 0));
    if (type >= 0 && type < LB_MAX_TYPES) {
        lb_hist *th = lb_stats_type_hist(sh, type);
        if (th)
            lb_hist_record(th, lat_ns);
        lb_stats_bump(&w->stats.types[type].events, 1);
    }
}

int lb_worker_set_lanes(lb_worker *w, int n)
{
    if (n < 1 || w->lanes)
        return -EINVAL;
    lb_lane *l = calloc((size_t)n, sizeof *l);
    if (!l)
        return -ENOMEM;
    for (int i = 0; i < n; i++)
        l[i].cur_type = -1;
    w->lanes = l;
    w->nlanes = n;
    w->async = 1;
    w->lane = &l[0];
    return 0;
}

void lb_worker_set_loop(lb_worker *w, lb_loop *l)
{
    pthread_mutex_lock(&w->conn_mu);
    w->loop = l;
    pthread_mutex_unlock(&w->conn_mu);
}

int64_t lb_worker_deadline(const lb_worker *w)
{
    return atomic_load_explicit(&w->run->deadline, memory_order_relaxed);
}

void lb_worker_lane(lb_worker *w, int i)
{
    if (i >= 0 && i < w->nlanes)
        w->lane = &w->lanes[i];
}

void lb_worker_poll(lb_worker *w) { lb_stats_hists_poll(&w->hists); }

int lb_worker_track(lb_worker *w, void *h, const lb_handle_ops *ops)
{
    pthread_mutex_lock(&w->conn_mu);
    if (w->nconns == w->capconns) {
        int cap = w->capconns ? w->capconns * 2 : 8;
        struct tracked *n = realloc(w->conns, sizeof(*n) * (size_t)cap);
        if (!n) {
            pthread_mutex_unlock(&w->conn_mu);
            return -ENOMEM;
        }
        w->conns = n;
        w->capconns = cap;
    }
    w->conns[w->nconns].h = h;
    w->conns[w->nconns].ops = ops;
    w->nconns++;
    pthread_mutex_unlock(&w->conn_mu);
    return 0;
}

void lb_worker_close(lb_worker *w, void *h)
{
    pthread_mutex_lock(&w->conn_mu);
    for (int i = 0; i < w->nconns; i++)
        if (w->conns[i].h == h) {
            /* Under the lock: the watchdog never aborts a handle being freed. */
            w->conns[i].ops->close(h);
            w->conns[i] = w->conns[--w->nconns];
            break;
        }
    pthread_mutex_unlock(&w->conn_mu);
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

void lb_worker_ev_set_type(lb_worker *w, int32_t type)
{
    if (type >= 0 && type < LB_MAX_TYPES)
        w->lane->cur_type = type;
}

void lb_worker_ev_restart(lb_worker *w)
{
    lb_stats_bump(&w->stats.restarts, 1);
    if (w->lane->cur_type >= 0)
        lb_stats_bump(&w->stats.types[w->lane->cur_type].restarts, 1);
}

void lb_worker_ev_rollback(lb_worker *w) { w->lane->rolled_back = 1; }

/* ---- the run, from the main thread ----------------------------------- */

lb_run *lb_run_new(lb_runtime *rt, const lb_run_config *cfg)
{
    if (!cfg || cfg->threads < 1 || cfg->ncpus < 0 || cfg->ncpus > LB_MAX_CPUS)
        return NULL;
    lb_run *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->rt = rt;
    r->cfg = *cfg;
    r->boot = strdup(cfg->boot ? cfg->boot : "return {}");
    r->cfg.boot = r->boot;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    atomic_store(&r->deadline, INT64_MAX);
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
        if (lb_stats_hists_init(&w->hists, &r->hcfg, &w->stats) != 0)
            goto fail;
        lb_rand_seed(&w->rand, seed, (uint64_t)i);
        if (cfg->rate > 0) {
            w->paced = 1;
            lb_pace_init(&w->pace, cfg->rate / cfg->threads, cfg->rate_poisson, 0,
                         seed ^ 0x9e3779b97f4a7c15ULL, (uint64_t)i + 1000003);
        }
    }
    return r;
fail:
    lb_run_free(r);
    return NULL;
}

int lb_run_start(lb_run *r)
{
    int n = r->cfg.threads;
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&r->w[i]->thread, NULL, worker_main, r->w[i]);
        if (rc != 0) {
            char msg[128];
            snprintf(msg, sizeof(msg), "cannot start worker thread %d of %d: %s", i, n, strerror(rc));
            run_fail(r, msg);
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
    if (ok) {
        r->t_start = lb_clock_ns_inline();
        r->warmup_end = r->t_start + (int64_t)(r->cfg.warmup_s * 1e9);
        atomic_store_explicit(&r->deadline,
                              r->cfg.time_s > 0 ? r->warmup_end + (int64_t)(r->cfg.time_s * 1e9)
                                                : INT64_MAX,
                              memory_order_relaxed);
        r->go = 1;
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

/* How long the supervising thread sleeps at a time: a stop request is seen
 * within this, and it is how often the process wakes when it is otherwise
 * waiting for I/O.  10 ms, the period of fio's main loop, so that a side-by-
 * side run wakes the CPU as often as fio does: on a virtual machine a vCPU
 * that wakes more often completes queue-depth-1 I/O measurably faster
 * (README, "Benchmarks"), and at 50 ms lbench's QD1 writes ran 1-8 % behind
 * fio's.  The cost is 100 wake-ups a second. */
#define SUPERVISOR_SLICE_NS 10000000LL

int lb_run_wait(lb_run *r, int64_t until_ns)
{
    struct timespec ts = {.tv_sec = until_ns / 1000000000LL, .tv_nsec = until_ns % 1000000000LL};
    pthread_mutex_lock(&r->mu);
    while (r->finished < r->cfg.threads && lb_clock_ns_inline() < until_ns) {
        /* The condvar uses CLOCK_REALTIME by default; wait in short slices
         * against the monotonic deadline instead of converting clocks. */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t left = until_ns - lb_clock_ns_inline();
        if (left > SUPERVISOR_SLICE_NS)
            left = SUPERVISOR_SLICE_NS;
        int64_t abs_ns = now.tv_sec * 1000000000LL + now.tv_nsec + left;
        ts.tv_sec = abs_ns / 1000000000LL;
        ts.tv_nsec = abs_ns % 1000000000LL;
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
        if (lb__runtime_stop_requested(r->rt))
            break;
    }
    int all = r->finished >= r->cfg.threads;
    pthread_mutex_unlock(&r->mu);
    return all;
}

/* Merge the buffer a worker released with its latest acknowledgement, if
 * not merged yet.  Done before a new request: the worker flips back into
 * that buffer when it answers the next one. */
static int take_released(lb_snapshot *dst, lb_stats_hists *sh, uint64_t ack)
{
    if (ack == sh->taken)
        return 0;
    sh->taken = ack;
    return lb_stats_snapshot_take(dst, sh, (int)((ack - 1) & 1));
}

int lb_run_collect(lb_run *r, lb_snapshot *dst, int wait_ms)
{
    int n = r->cfg.threads;
    int rc = 0, running = 0;
    lb_stats_snapshot_reset_hists(dst);
    memset(&dst->sum, 0, sizeof(dst->sum));
    /* Ask every live worker to flip its histogram buffers, unless an
     * earlier request is still unanswered (a worker stuck in a long event:
     * its buffer is then collected by a later tick). */
    for (int i = 0; i < n; i++) {
        lb_stats_hists *sh = &r->w[i]->hists;
        uint64_t ack = atomic_load_explicit(&sh->swap_ack, memory_order_acquire);
        if (atomic_load_explicit(&sh->swap_req, memory_order_relaxed) != ack)
            continue;
        if (rc == 0)
            rc = take_released(dst, sh, ack);
        /* Release: our reset of the buffer the worker will flip to must be
         * visible before it records into it. */
        atomic_store_explicit(&sh->swap_req, ack + 1, memory_order_release);
    }
    wake_loops(r);
    int64_t give_up = lb_clock_ns_inline() + (int64_t)wait_ms * 1000000LL;
    for (int i = 0; i < n; i++) {
        lb_worker *w = r->w[i];
        lb_stats_hists *sh = &w->hists;
        for (;;) {
            if (atomic_load_explicit(&w->finished, memory_order_acquire)) {
                /* The thread is gone: both buffers are quiescent.  It still
                 * counts as running if it ran during this interval. */
                for (int b = 0; b < 2 && rc == 0; b++)
                    rc = lb_stats_snapshot_take(dst, sh, b);
                if (w->t_last_end > r->last_collect)
                    running++;
                lb_stats_add(&dst->sum, &w->stats);
                break;
            }
            uint64_t req = atomic_load_explicit(&sh->swap_req, memory_order_relaxed);
            uint64_t ack = atomic_load_explicit(&sh->swap_ack, memory_order_acquire);
            if (ack == req || lb_clock_ns_inline() >= give_up) {
                /* Answered: its buffer and counters as of the flip.  Not
                 * answered in time: its counters as of its last flip, which
                 * match the buffers merged so far; the rest comes with a
                 * later collection. */
                if (ack == req && rc == 0)
                    rc = take_released(dst, sh, ack);
                running++;
                lb_stats_add(&dst->sum, &sh->at_swap[sh->taken & 1]);
                break;
            }
            lb_clock_sleep_ns(20000);
        }
    }
    dst->threads_running = running;
    dst->t_ns = lb_clock_ns_inline();
    r->last_collect = dst->t_ns;
    return rc;
}

void lb_run_stop(lb_run *r)
{
    pthread_mutex_lock(&r->mu);
    mark_stop(r);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    wake_loops(r);
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

const char *lb_run_error(const lb_run *r) { return r->error; }
int lb_run_failed(const lb_run *r) { return atomic_load(&((lb_run *)r)->failed); }
int64_t lb_run_started_ns(const lb_run *r) { return r->t_start; }
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

int lb_run_worker_collected(const lb_run *r, int tid, lb_stats *out)
{
    if (tid < 0 || tid >= r->cfg.threads)
        return -EINVAL;
    lb_worker *w = r->w[tid];
    if (atomic_load_explicit(&w->finished, memory_order_acquire)) {
        memset(out, 0, sizeof(*out));
        lb_stats_add(out, &w->stats);
    } else {
        *out = w->hists.at_swap[w->hists.taken & 1];
    }
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
