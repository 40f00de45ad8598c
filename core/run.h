/* run — a run of N worker threads, seen from the main thread (core/run.c):
 * create it from a configuration, start it (the workers load the scenario
 * and meet at a barrier), wait for ticks and collect the workers'
 * histogram buffers and counters while it runs, stop it, join it, and
 * read the measured period and per-worker figures afterwards.  The worker
 * side is worker.h. */
#ifndef LB_RUN_H
#define LB_RUN_H

#include <stdint.h>

#include "pace.h"
#include "stats.h"


/* FFI BEGIN */
typedef struct lb_run lb_run;

enum { LB_RUN_EVENTS = 0, LB_RUN_COMMAND = 1 };
enum { LB_MAX_CPUS = 1024 };

/* What a run does; filled by the main Lua state. */
typedef struct lb_run_config {
    int32_t threads;        /* worker threads, >= 1 */
    int32_t mode;           /* LB_RUN_EVENTS: event loop; LB_RUN_COMMAND: call `command` once per worker */
    double time_s;          /* stop this long after the warm-up; 0 = no limit */
    uint64_t events;        /* stop after this many events in total; 0 = no limit */
    double rate;            /* target events/s over all workers; 0 = unpaced (with a schedule: its peak) */
    int32_t nrate_segs;     /* > 0: the rate follows rate_segs from the warm-up end (pace.h) */
    lb_rate_seg rate_segs[LB_PACE_MAX_SEGS];
    int32_t rate_poisson;   /* 1: exponential inter-arrival times; 0: constant spacing */
    int32_t ncpus;          /* length of cpus[]; 0 = no pinning */
    double warmup_s;        /* events run but are excluded from statistics */
    uint64_t rand_seed;     /* per-worker streams derive from it */
    int32_t rand_seed_set;  /* 0: seed from the clock */
    int32_t cpus[LB_MAX_CPUS];   /* worker i runs on cpus[i % ncpus] */
    const char *boot;       /* Lua source returning the worker's setup table */
    /* Several processes as one job (cluster.h): this process's workers are
     * the job's threads tid_base .. tid_base + threads - 1 of job_threads
     * (seeds, pacing offsets and lb_worker_tid follow the job's numbering;
     * rate and events are this process's share).  job_threads 0: alone. */
    int32_t tid_base;
    int32_t job_threads;
    /* 1: lb_run_start agrees with every rank (lb_cluster_min) once its own
     * workers are ready, so that all ranks start together or none does. */
    int32_t cluster_start;
    /* Where the run's time is cut into periods (stats.h): every
     * cut_grid_s from the start (0: no grid; the report interval), at the
     * warm-up end, and at each of cuts_after_warmup_s (phase boundaries,
     * s after the warm-up end).  Every event counts in the period in
     * which it completed; the reporter collects at these instants. */
    double cut_grid_s;
    int32_t ncuts;
    double cuts_after_warmup_s[LB_MAX_CUTS];
    /* Printed through the host's out once every worker is ready and before
     * any starts its events (NULL: nothing): sysbench's "Threads started!"
     * comes between what the scripts print as they load and as they run. */
    const char *start_note;
    /* How long the supervising thread sleeps at a time (0: 10 ms, see
     * lb_run_wait); a stop request is seen within it.  At most 1 s. */
    int64_t tick_ns;
} lb_run_config;

/* What a run needs of its owner (the runtime: lb_runtime_run_host): where
 * a worker state's print() goes and whether a stop was asked for (a
 * signal).  Handed down, so that the engine never calls up into the
 * runtime. */
typedef struct lb_run_host {
    void *owner;    /* handed to the workers' Lua states as their runtime */
    void (*out)(void *owner, const char *s, size_t len);
    int (*stop_requested)(const void *owner);
} lb_run_host;

lb_run *lb_run_new(const lb_run_host *host, const lb_run_config *cfg);
/* lb_run_launch + lb_run_go.  Launch: start the threads and wait until
 * every worker has run thread_init (and, in a job, every rank's have); -1
 * when one failed.  Go: start the clock and open the barrier.  Between
 * the two the caller may take what must precede the run's first instant
 * (the server's counters, run/observe.lua). */
int  lb_run_start(lb_run *r);
int  lb_run_launch(lb_run *r);
int  lb_run_go(lb_run *r);
/* Any thread: has the barrier opened?  Until then the workers' counters
 * are theirs alone (each clears them at the barrier). */
int  lb_run_started(lb_run *r);
int  lb_run_wait(lb_run *r, int64_t until_ns);
/* Merge into `dst` what every worker recorded in the periods that end at
 * or before `cut_ns`, which is a cut (lb_run_next_cut) the clock has
 * passed, or INT64_MAX once the workers have ended (everything).  dst->sum
 * holds the counters as of that cut.  Never waits for an event to end. */
int  lb_run_collect(lb_run *r, lb_snapshot *dst, int64_t cut_ns);
/* The first cut after `after_ns` (INT64_MAX: none). */
int64_t lb_run_next_cut(const lb_run *r, int64_t after_ns);
void lb_run_stop(lb_run *r);
int  lb_run_join(lb_run *r);
const char *lb_run_error(const lb_run *r);
int  lb_run_failed(const lb_run *r);
int64_t lb_run_started_ns(const lb_run *r);
/* The wall-clock time (s since the epoch) at which the barrier opened. */
double lb_run_started_wall(const lb_run *r);
int64_t lb_run_warmup_end_ns(const lb_run *r);
int64_t lb_run_last_end_ns(const lb_run *r);
/* After the join: the end of the measured period.  A run that reached its
 * deadline ends there (later if events in flight completed after it, as
 * their work is counted); one stopped earlier ends at the stop request or
 * failure, one that ran out of events when its last worker ended. */
int64_t lb_run_end_ns(const lb_run *r);
const lb_stats *lb_run_worker_stats(const lb_run *r, int tid);
/* During the run (main thread): worker `tid`'s counters as of the cut of
 * the last lb_run_collect, consistent with what that collection merged
 * (the live block is being written).  0, or -EINVAL for a bad tid. */
int lb_run_worker_collected(const lb_run *r, int tid, lb_stats *out);
int lb_run_threads(const lb_run *r);
/* After the join: events recorded per lane of worker `tid` (one lane in
 * thread mode, one per virtual user in async mode), for fairness. */
int lb_run_lane_count(const lb_run *r, int tid);
uint64_t lb_run_lane_events(const lb_run *r, int tid, int lane);
/* Connections currently open (tracked) over all workers; any thread. */
int lb_run_open_connections(lb_run *r);
/* A worker still inside its events (not past lb_worker_events_over, not
 * ended): its job thread number, or -1.  After the deadline and its grace,
 * such a worker is stuck in one event. */
int lb_run_stuck_worker(lb_run *r);
/* What worker `tid` (as lb_run_stuck_worker gives it) was waiting for when
 * lb_run_abort_connections cut it off, in words, into buf: the operation
 * of the first cut connection (read it after lb_run_join); for virtual
 * users, that they wait in the event loop; "" when none (the event was in
 * a call of the script's own).  Returns the length. */
int lb_run_worker_waiting(lb_run *r, int tid, char *buf, int n);
/* After the join: worker `tid`'s busy time (stats.busy_ns) in the warm-up. */
uint64_t lb_run_worker_warm_busy(const lb_run *r, int tid);
void lb_run_free(lb_run *r);
/* Abort every open connection (worker.h's tracked handles) of the still
 * running workers; returns how many. */
int  lb_run_abort_connections(lb_run *r);
/* FFI END */

#endif
