/* worker — one worker thread of a run (run.h): its own lua_State, the
 * start barrier, pacing, stop conditions and the per-event hot path.
 *
 * The main Lua state creates a run (lb_run_new), starts it, then acts as
 * the reporter: it waits for interval ticks (lb_run_wait) and collects
 * snapshots (lb_run_collect).  Each worker thread loads the scenario into
 * its own state, runs thread_init, meets the barrier, and loops over
 * lb_worker_ev_next / event() from Lua through the FFI.  In async mode
 * (--connections) a worker serves many virtual users, each with its own
 * lane of per-event state (see lb_worker_set_lanes).  Workers never share
 * writable cache lines on the hot path: the only shared state they touch
 * per event is the read-mostly stop flag, plus one atomic ticket counter
 * when --events is set. */
#ifndef LB_WORKER_H
#define LB_WORKER_H

#include <stdint.h>

#include "handle.h"
#include "run.h"
#include "stats.h"

struct lb_loop;

/* FFI BEGIN */
typedef struct lb_worker lb_worker;

/* Worker side (called from the worker's Lua state). */
int  lb_worker_tid(const lb_worker *w);
int  lb_worker_ready(lb_worker *w);
int  lb_worker_should_stop(const lb_worker *w);
lb_stats *lb_worker_stats(lb_worker *w);
struct lb_rand *lb_worker_rand(lb_worker *w);
void lb_worker_fail(lb_worker *w, const char *msg);

/* The event loop: lb_worker_ev_next ends the running event (if any), then starts
 * the next one, or returns 0 when the run must stop.  lb_worker_ev_begin /
 * lb_worker_ev_end are the two halves, for loops that need them apart. */
int  lb_worker_ev_next(lb_worker *w);
int  lb_worker_ev_begin(lb_worker *w);
void lb_worker_ev_end(lb_worker *w);
void lb_worker_ev_set_type(lb_worker *w, int32_t type);
/* sysbench's sb_event_start: the event's clock starts now.  After
 * lb_worker_ev_begin (sysbench's sb_more_events) an unpaced event restarts
 * its clock here; a paced one keeps its intended start.  Without a begin
 * it starts an event of its own. */
void lb_worker_ev_start(lb_worker *w);
/* The current event was bookkeeping only (e.g. a batch of I/Os recorded
 * one by one with lb_worker_record): do not record it. */
void lb_worker_ev_skip(lb_worker *w);
/* The current event is a wait (think time), to be skipped when it ends:
 * from now on it is not busy time either. */
void lb_worker_ev_idle(lb_worker *w);
/* Record one operation measured by C code (an I/O) as an event of `type`
 * (-1: untyped) with latency `lat_ns`.  Worker thread only. */
void lb_worker_record(lb_worker *w, int32_t type, int64_t lat_ns);
/* Connections (handles, handle.h) opened by a worker are tracked so that
 * a worker stuck on a server that does not answer can be cut loose at the
 * deadline or a stop.  lb_worker_close untracks and closes (ops->close)
 * under the lock that lb_run_abort_connections takes.  Track: 0 or
 * -ENOMEM. */
int  lb_worker_track(lb_worker *w, void *h, const lb_handle_ops *ops);
void lb_worker_close(lb_worker *w, void *h);
void lb_worker_ev_restart(lb_worker *w);
/* The worker has left its event loop (every virtual user's, in async
 * mode): what remains is thread_done and closing connections, which the
 * run waits for without calling the worker stuck (lb_run_stuck_worker). */
void lb_worker_events_over(lb_worker *w);
void lb_worker_ev_rollback(lb_worker *w);

/* Async mode (many virtual users per worker).  lb_worker_set_lanes gives
 * the worker `n` lanes of per-event state, one per virtual user, before
 * the barrier; lb_worker_lane(w, i) makes lane i current (the scheduler
 * calls it before resuming user i), and every lb_ev_* call then works on
 * that lane.  Under --rate, lb_worker_ev_begin/lb_worker_ev_next return 2 when the
 * lane's intended start (lb_worker_ev_intended, monotonic ns) lies ahead: the
 * user waits for it in the event loop, then calls lb_worker_ev_go, which starts
 * the event (1) or reports that the run is stopping (0). */
int  lb_worker_set_lanes(lb_worker *w, int n);
/* The worker's event loop (NULL: none, before it is freed): the run
 * wakes it with lb_loop_wakeup when it stops, since the loop may block
 * without a timeout. */
void lb_worker_set_loop(lb_worker *w, struct lb_loop *l);
/* The run's deadline (monotonic ns; INT64_MAX: none or not started). */
int64_t lb_worker_deadline(const lb_worker *w);
void lb_worker_lane(lb_worker *w, int i);
int64_t lb_worker_ev_intended(const lb_worker *w);
int  lb_worker_ev_go(lb_worker *w);
/* FFI END */

#endif
