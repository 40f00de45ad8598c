/* metrics — a Prometheus text-format endpoint for a running benchmark.
 *
 * `--metrics-addr=HOST:PORT` starts an HTTP server (libevent's evhttp,
 * through loop.h) on a thread of its own with its own event loop, so a
 * scrape never waits for, or slows down, the workers.  GET /metrics
 * answers with:
 *
 *  - counters read live from the workers' single-writer blocks with
 *    relaxed loads, exactly as the reporter reads them (no lock on the
 *    workers' hot path): events (total and by type), ignored errors,
 *    queries by type, query errors by code, reconnects, rows;
 *  - connections open right now (tracked by the workers);
 *  - latency quantiles of the last report interval, which the reporter
 *    publishes after each collection under a mutex (histograms cannot be
 *    read while the workers write them).
 *
 * Counters are cumulative since the start of the run, warm-up included,
 * as Prometheus counters should be. */
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
/* The run whose counters are served, with its worker thread and virtual
 * user counts (NULL: none).  Detach before the run is freed. */
void lb_metrics_attach(lb_metrics *m, lb_run *r, int threads, int vus);
/* Reporter: latency quantiles of the last interval.  q[i] in 0..1,
 * v_s[i] in seconds (negative: unknown, not served); `count` events in an
 * interval of `interval_s` seconds. */
void lb_metrics_publish(lb_metrics *m, int n, const double *q, const double *v_s,
                        uint64_t count, double interval_s);
/* Stop the server thread, close the socket, free. */
void lb_metrics_stop(lb_metrics *m);
/* FFI END */

#endif
