/* worker — one worker thread of a run: its Lua state, the start barrier,
 * pacing, stop conditions, the per-event hot path (lanes, recording) and
 * the connections it holds open.  The run that owns the workers, seen
 * from the main thread, is core/run.c. */
#include "worker_impl.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "luart.h"

/* A paced worker sleeps in slices no longer than this, so that it notices
 * stop requests while it waits for its next start. */
#define PACE_SLICE_NS 2000000LL

void lb_worker_fail(lb_worker *w, const char *msg)
{
    lb_stats *st = &w->stats;
    __atomic_store_n(&st->failures, st->failures + 1, __ATOMIC_RELAXED);
    lb__run_fail(w->run, msg);
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
/* Under conn_mu: close tracked handle i.  What a handle cut off by the
 * watchdog was waiting for is kept first (lb_run_worker_waiting): the
 * report is written after the worker, and its connections, are gone.  The
 * lock also keeps the watchdog from aborting a handle being freed. */
static void close_tracked(lb_worker *w, int i)
{
    struct tracked t = w->conns[i];
    if (!w->cut_waiting[0] && t.ops->waiting)
        t.ops->waiting(t.h, w->cut_waiting, sizeof w->cut_waiting);
    w->conns[i] = w->conns[--w->nconns];
    t.ops->close(t.h);
}


void *lb__worker_main(void *arg)
{
    lb_worker *w = arg;
    lb_run *r = w->run;
    char err[8192];
    pin(w);
    lua_State *L = atomic_load(&r->failed) ? NULL : lb__luart_new(r->host.owner, r->host.out, err, sizeof(err));
    if (!L && !atomic_load(&r->failed))
        lb__run_fail(r, err);
    if (L) {
        /* lbench.worker.main(worker, boot): loads the scenario, meets the
         * barrier through lb_worker_ready, runs the loop or the command. */
        const lb__luart_arg args[] = { { w, NULL }, { NULL, r->boot }, { r->host.owner, NULL } };
        if (lb__luart_call(L, "lbench.run.worker", "main", args, 3, NULL, err, sizeof(err)) != 0)
            lb__run_fail(r, err);
        lb__luart_close(L);
    }
    /* Connections the script never closed (sysbench's scripts may leave
     * that to the end of their Lua state, whose collector closes them in
     * sysbench) end with the worker, not with the process. */
    pthread_mutex_lock(&w->conn_mu);
    while (w->nconns > 0)
        close_tracked(w, w->nconns - 1);
    pthread_mutex_unlock(&w->conn_mu);
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
    /* A worker that failed after the barrier calls this again on its way
     * out (for the one that failed before it, so that the main thread is
     * not left waiting): it must not zero what it measured. */
    if (w->met_barrier)
        return r->go && !atomic_load(&r->failed);
    w->met_barrier = 1;
    /* What thread_init did (connects, prepares, reads of its own) is not
     * part of the run: the totals and the first interval count from the
     * barrier.  The reporter reads these counters only after it. */
    memset(&w->stats, 0, sizeof w->stats);
    lb_stats_ext_init(&w->stats.ext);
    pthread_mutex_lock(&r->mu);
    r->ready++;
    pthread_cond_broadcast(&r->cv);
    while (!r->go && !atomic_load(&r->stop))
        pthread_cond_wait(&r->cv, &r->mu);
    int go = r->go && !atomic_load(&r->failed);
    pthread_mutex_unlock(&r->mu);
    if (go)
        lb_stats_hists_start(&w->hists);
    /* Offsets by the job's thread number, so that the threads of every
     * rank interleave too (a lone process: tid_base 0, job = threads). */
    int job = r->cfg.job_threads > 0 ? r->cfg.job_threads : r->cfg.threads;
    int gtid = r->cfg.tid_base + w->tid;
    if (go && w->paced && w->pace.nseg) {
        lb_pace_start(&w->pace, r->warmup_end, r->t_start, (double)gtid / job);
    } else if (go && w->paced) {
        /* Stagger the first intended starts so N constant-rate workers
         * interleave instead of firing together: the job's rate is this
         * process's times job / threads. */
        double gap = 1e9 / (r->cfg.rate * job / r->cfg.threads);
        w->pace.next = r->t_start + (int64_t)(gap * gtid);
    }
    return go;
}

/* The job's thread number (cluster.h): rank * threads + the local one. */
int lb_worker_tid(const lb_worker *w) { return w->run->cfg.tid_base + w->tid; }
lb_stats *lb_worker_stats(lb_worker *w) { return &w->stats; }
struct lb_rand *lb_worker_rand(lb_worker *w) { return &w->rand; }

int lb_worker_should_stop(const lb_worker *w)
{
    return atomic_load_explicit(&w->run->stop, memory_order_relaxed) ||
           lb_clock_ns_inline() >= atomic_load_explicit(&w->run->deadline, memory_order_relaxed);
}

/* ---- the hot path ---------------------------------------------------- */

/* Busy time (stats.busy_ns, the fairness table's): wall time with at least
 * one event of this worker in flight.  In thread mode that is the sum of
 * the events' run times from their actual starts; virtual users and the
 * I/Os of a batch overlap, and count once. */
static inline void lane_begins(lb_worker *w, lb_lane *ln, int64_t t)
{
    ln->in_event = 1;
    if (w->inflight++ == 0)
        w->busy_since = t;
}

static inline void lane_ends(lb_worker *w, lb_lane *ln, int64_t t)
{
    ln->in_event = 0;
    if (ln->idle) {
        ln->idle = 0;
        return;
    }
    if (--w->inflight == 0 && t > w->busy_since)
        lb_stats_bump(&w->stats.busy_ns, (uint64_t)(t - w->busy_since));
}

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
        lb_clock_sleep_until(deadline - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : deadline);
    }
}

/* Behind schedule at the deadline: the run ends there (a backlog never
 * prolongs it).  The intended starts it did not begin, this one and the
 * rest of the schedule before the deadline, are counted (the report's
 * backlog). */
static int pace_backlog(lb_worker *w, int64_t deadline)
{
    lb_stats_bump(&w->stats.not_started, 1 + lb_pace_skip_until(&w->pace, deadline));
    return 0;
}

static int pace_wait(lb_worker *w)
{
    lb_run *r = w->run;
    lb_lane *ln = w->lane;
    int64_t intended = lb_pace_next(&w->pace);
    int64_t deadline = atomic_load_explicit(&r->deadline, memory_order_relaxed);
    if (intended >= deadline)
        return pace_until_deadline(w, deadline);
    if (lb_clock_ns_inline() >= deadline)
        return pace_backlog(w, deadline);
    ln->t_start = intended;
    if (w->async) {
        /* One schedule per worker, shared by its virtual users: an idle
         * user takes the next intended start and, if it lies ahead, waits
         * for it in the event loop (lb_worker_ev_go) instead of sleeping the
         * thread that serves every other user. */
        int64_t now = lb_clock_ns_inline();
        if (now >= intended) {
            ln->t_real = now;
            lane_begins(w, ln, now);
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
            lane_begins(w, ln, now);
            return 1;
        }
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            return 0;
        int64_t wake = intended - now > PACE_SLICE_NS ? now + PACE_SLICE_NS : intended;
        lb_clock_sleep_until(wake);
    }
}

int lb_worker_ev_begin(lb_worker *w)
{
    lb_run *r = w->run;
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
    lane_begins(w, ln, now);
    return 1;
}

int64_t lb_worker_ev_intended(const lb_worker *w) { return w->lane->t_start; }

int lb_worker_ev_go(lb_worker *w)
{
    lb_lane *ln = w->lane;
    if (!ln->waiting)
        return ln->in_event;
    ln->waiting = 0;
    /* Woken early because the run stops (or late, past the deadline: its
     * intended start is part of the backlog not begun). */
    if (lb_worker_should_stop(w)) {
        if (w->paced && ln->t_start < atomic_load_explicit(&w->run->deadline, memory_order_relaxed) &&
            !atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            lb_stats_bump(&w->stats.not_started, 1);
        return 0;
    }
    ln->t_real = lb_clock_ns_inline();
    lane_begins(w, ln, ln->t_real);
    return 1;
}

/* The first record past the warm-up end (no other record came between):
 * the busy time up to that end, with the part of a span open across it,
 * is the warm-up's (the fairness table's base). */
static void busy_at_warmup(lb_worker *w, int64_t now)
{
    int64_t we = w->run->warmup_end;
    if (w->warm_busy_set || we <= w->run->t_start || now < we)
        return;
    uint64_t b = w->stats.busy_ns;
    if (w->inflight > 0 && we > w->busy_since)
        b += (uint64_t)(we - w->busy_since);
    w->warm_busy = b;
    w->warm_busy_set = 1;
}

/* Record the event that started at lane->t_start and ended at `now`, in
 * the period in which it ended.  Inside lb_stats_rec_enter/exit, entered
 * before `now` was read. */
static inline void record_event(lb_worker *w, int64_t now)
{
    lb_lane *ln = w->lane;
    int64_t lat = now - ln->t_start;
    lb_stats_hists *sh = &w->hists;
    if (__builtin_expect(now >= sh->next_cut, 0))
        busy_at_warmup(w, now);
    lb_stats_at(sh, now);
    w->t_last_end = now;
    lane_ends(w, ln, now);
    ln->events++;
    lb_hist_record(sh->lat[sh->buf], lat);
    if (w->paced)
        lb_hist_record(sh->queue[sh->buf], ln->t_real - ln->t_start);
    lb_stats_bump(&w->stats.events, 1);
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

void lb_worker_ev_start(lb_worker *w)
{
    lb_lane *ln = w->lane;
    int64_t now = lb_clock_ns_inline();
    if (!ln->in_event) {
        ln->t_start = ln->t_real = now;
        lane_begins(w, ln, now);
    } else if (!w->paced) {
        ln->t_start = ln->t_real = now;
    }
}

void lb_worker_ev_end(lb_worker *w)
{
    if (!w->lane->in_event)
        return;
    lb_stats_rec_enter(&w->hists);
    record_event(w, lb_clock_ns_inline());
    lb_stats_rec_exit(&w->hists);
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
    lb_stats_rec_enter(&w->hists);
    int64_t now = lb_clock_ns_inline();
    if (ln->in_event)
        record_event(w, now);
    lb_stats_rec_exit(&w->hists);
    if (atomic_load_explicit(&r->stop, memory_order_relaxed))
        return 0;
    if (r->cfg.events &&
        atomic_fetch_add_explicit(&r->tickets, 1, memory_order_relaxed) >= r->cfg.events)
        return 0;
    if (now >= atomic_load_explicit(&r->deadline, memory_order_relaxed))
        return 0;
    ln->t_start = ln->t_real = now;
    lane_begins(w, ln, now);
    return 1;
}

/* The batch still ends the run's measured time (I/O batches record their
 * operations through lb_worker_record and are skipped themselves). */
void lb_worker_ev_skip(lb_worker *w)
{
    int64_t now = lb_clock_ns_inline();
    if (w->lane->in_event)
        lane_ends(w, w->lane, now);
    w->t_last_end = now;
}

void lb_worker_ev_idle(lb_worker *w)
{
    lb_lane *ln = w->lane;
    if (!ln->in_event || ln->idle)
        return;
    lane_ends(w, ln, lb_clock_ns_inline());
    ln->in_event = ln->idle = 1;
}

void lb_worker_record(lb_worker *w, int32_t type, int64_t lat_ns)
{
    lb_stats_hists *sh = &w->hists;
    /* Its own clock read, after the record is marked: the caller's
     * completion time may be older than a cut the reporter has passed. */
    lb_stats_rec_enter(sh);
    int64_t now = lb_clock_ns_inline();
    if (__builtin_expect(now >= sh->next_cut, 0))
        busy_at_warmup(w, now);
    lb_stats_at(sh, now);
    lb_hist_record(sh->lat[sh->buf], lat_ns);
    /* Busy time of overlapping operations: the part of [now - lat, now]
     * past the latest end recorded so far (their union when they end in
     * order of start, as I/Os at one depth nearly do). */
    int64_t from = now - lat_ns > w->io_busy_until ? now - lat_ns : w->io_busy_until;
    if (now > from)
        lb_stats_bump(&w->stats.busy_ns, (uint64_t)(now - from));
    if (now > w->io_busy_until)
        w->io_busy_until = now;
    lb_stats_bump(&w->stats.events, 1);
    if (type >= 0 && type < LB_MAX_TYPES) {
        lb_hist *th = lb_stats_type_hist(sh, type);
        if (th)
            lb_hist_record(th, lat_ns);
        lb_stats_bump(&w->stats.types[type].events, 1);
    }
    lb_stats_rec_exit(sh);
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
            close_tracked(w, i);
            break;
        }
    pthread_mutex_unlock(&w->conn_mu);
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

void lb_worker_events_over(lb_worker *w)
{
    /* Events abandoned at the stop (a sleep cut short, a query cut at the
     * deadline) never ended: the busy span ends with the last one that did. */
    if (w->inflight > 0 && w->t_last_end > w->busy_since)
        lb_stats_bump(&w->stats.busy_ns, (uint64_t)(w->t_last_end - w->busy_since));
    w->inflight = 0;
    if (!w->warm_busy_set && w->run->warmup_end > w->run->t_start) {
        /* Nothing ended after the warm-up: all of it was the warm-up's. */
        w->warm_busy = w->stats.busy_ns;
        w->warm_busy_set = 1;
    }
    atomic_store_explicit(&w->events_over, 1, memory_order_release);
}
