/* The objects of a run (lb_run) and of its workers (lb_worker), shared by
 * core/run.c (the run, from the main thread) and core/worker.c (a worker
 * thread and the per-event hot path).  Not part of the API: run.h and
 * worker.h are the contract. */
#ifndef LB_WORKER_IMPL_H
#define LB_WORKER_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "loop.h"
#include "pace.h"
#include "rand.h"
#include "worker.h"

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
    int idle;              /* the current event is a wait (lb_worker_ev_idle): not busy time */
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
    char cut_waiting[160]; /* under conn_mu: what a cut connection waited for (handle.h) */
    lb_loop *loop;         /* async mode: woken for swaps and stops (under conn_mu) */

    pthread_t thread;
    int thread_started;
    int met_barrier;            /* lb_worker_ready has run (once per run) */
    _Atomic int finished;
    _Atomic int events_over;    /* it will start no more events (lb_worker_events_over) */
    int64_t t_last_end;    /* end of the last recorded event */
    int inflight;          /* lanes inside an event (busy time: stats.busy_ns) */
    int64_t busy_since;    /* when inflight last rose from 0 */
    int64_t io_busy_until; /* lb_worker_record: the latest end counted as busy */
    uint64_t warm_busy;    /* busy_ns of the warm-up (read after the join) */
    int warm_busy_set;
};

struct lb_run {
    lb_run_host host;      /* the owner: output, stop (lb_run_new) */
    lb_run_config cfg;
    char *boot;
    lb_hist_config hcfg;
    lb_worker **w;

    _Atomic int stop;
    _Atomic int failed;
    _Atomic uint64_t tickets;      /* events claimed, when cfg.events is set */
    int64_t t_start, warmup_end;
    double t_start_wall;           /* lb_clock_wall() when the barrier opened */
    _Atomic int64_t deadline;      /* INT64_MAX until the barrier opens */
    _Atomic int64_t t_stop;        /* first stop request or failure; 0: none */
    int64_t t_finished;            /* when the last worker thread ended (under mu) */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;                     /* workers waiting at the barrier */
    int finished;                  /* workers whose thread has ended */
    int go;                        /* barrier released */
    int joined;
    int64_t last_collect;          /* the cut of the last lb_run_collect */
    lb_cuts cuts;                  /* where periods end (fixed at the barrier) */
    uint64_t rep_period;           /* reporter: periods before it are collected */
    int64_t rep_next_cut;          /* reporter: end of period rep_period */
    char error[8192];
};

/* The run's side of a failure or stop (run.c), also reached from the
 * workers: wake async workers' event loops; under r->mu, raise the stop
 * flag and note when; record the first error and stop. */
void lb__run_wake_loops(lb_run *r);
void lb__run_mark_stop(lb_run *r);
void lb__run_fail(lb_run *r, const char *msg);

/* A worker thread's body (worker.c), started by lb_run_start. */
void *lb__worker_main(void *arg);

#endif
