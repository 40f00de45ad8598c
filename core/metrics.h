/* metrics — a Prometheus text-format endpoint for a running benchmark.
 *
 * `--metrics-addr=HOST:PORT` starts an HTTP server (libevent's evhttp,
 * through loop.h) on a thread of its own with its own event loop, so a
 * scrape never waits for, or slows down, the workers.  GET /metrics
 * answers with the figures the reporter last handed over
 * (lb_metrics_update), all of one instant, so that they agree with each
 * other within a scrape:
 *
 *  - counters, cumulative since the start of the run (warm-up included):
 *    events (total and by type), ignored errors, queries by type, query
 *    errors by code, reconnects, rows;
 *  - the latency of those same events as a Prometheus histogram
 *    (`lbench_latency_seconds`: cumulative `_bucket{le=}`, `_sum`,
 *    `_count`), built from the reporter's exact histograms: its bounds are
 *    fixed nominal values (10 us to 60 s, 1-2-5 steps) each moved up to the
 *    end of the exact histogram's slot that holds it (at most 0.1% above),
 *    so that no slot straddles a bound and every bucket's count is exact;
 *    `_count` equals `lbench_events_total` of the same scrape;
 *  - the latency quantiles of the last report interval as a summary
 *    (`lbench_interval_latency_seconds`; its `_sum` and `_count` are the
 *    histogram's, cumulative);
 *  - connections open right now (live, tracked by the workers).
 *
 * The owner decides whose figures they are: one process's (every
 * collection), or under lbench-mpi the job's, merged by rank 0 each
 * interval (lb_metrics_attach's `nranks`). */
#ifndef LB_METRICS_H
#define LB_METRICS_H

#include <stdint.h>

#include "worker.h"

/* FFI BEGIN */
typedef struct lb_metrics lb_metrics;

/* What the writer needs of its owner (the runtime: lb_runtime_metrics_host),
 * handed down: the event types' names, and the lines of the counters in
 * the workers' extension block (the SQL layer's: lb_db_metrics_lines). */
struct lb_loop_reply;
typedef struct lb_metrics_host {
    void *owner;
    int (*type_count)(void *owner);
    const char *(*type_name)(void *owner, int t);
    void (*ext_lines)(void *owner, const void *ext, struct lb_loop_reply *rep);
} lb_metrics_host;

/* Serve http://host:port/metrics from a new thread.  NULL with a one-line
 * reason in `err` when the address cannot be bound. */
lb_metrics *lb_metrics_start(const lb_metrics_host *host, const char *host_name, int port, char *err, int errlen);
/* The port bound (useful with port 0). */
int lb_metrics_port(const lb_metrics *m);
/* The run whose connections are counted, with the worker thread and
 * virtual user counts served (NULL: none; the served figures are cleared).
 * `nranks` > 1: the figures are a job's of that many ranks (lbench-mpi's
 * rank 0), and the connections open are this rank's own, served with a
 * `rank` label.  Detach before the run is freed. */
void lb_metrics_attach(lb_metrics *m, lb_run *r, int threads, int vus, int nranks);
/* Bucket bounds of the latency histogram: LB_METRICS_BOUNDS of them, in
 * ns, each the end of a slot of lb_hist_config_default's histograms. */
enum { LB_METRICS_BOUNDS = 21 };
/* Bound i in ns (0 <= i < LB_METRICS_BOUNDS), -1 otherwise. */
int64_t lb_metrics_bound_ns(int i);
/* Reporter: the figures to serve from now on: the cumulative counters
 * `sum` (of the process at a collection, or of the job at an interval
 * merge), and `lat`, the latency of the events counted since the last
 * update (added to the served histogram; NULL: none).  Both in one step
 * under the lock: a scrape sees the counters and the histogram of the
 * same instant.  0, or -1 (nothing changed) when lat's configuration is
 * not lb_hist_config_default's. */
int lb_metrics_update(lb_metrics *m, const lb_stats *sum, const lb_hist *lat);
/* Reporter: latency quantiles of the last interval.  q[i] in 0..1,
 * v_s[i] in seconds (negative: unknown, not served); `count` events in an
 * interval of `interval_s` seconds. */
void lb_metrics_publish(lb_metrics *m, int n, const double *q, const double *v_s,
                        uint64_t count, double interval_s);
/* Stop the server thread, close the socket, free. */
void lb_metrics_stop(lb_metrics *m);
/* FFI END */

#endif
