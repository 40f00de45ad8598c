/* lbench — public embedding API.
 *
 * A runtime is one benchmark engine: it owns a main Lua state, the options,
 * the loaded scenario and the last result.  Typical use:
 *
 *     lb_runtime *rt = lb_runtime_new();
 *     lb_runtime_set_option(rt, "threads", "4");
 *     lb_runtime_set_option(rt, "time", "10");
 *     if (lb_runtime_load(rt, "oltp_read_only") != 0 ||
 *         lb_runtime_command(rt, "run") != 0)
 *         fprintf(stderr, "%s\n", lb_runtime_error(rt));
 *     else
 *         puts(lb_runtime_result_json(rt));
 *     lb_runtime_free(rt);
 *
 * Nothing in the library prints or exits: report text goes to the output
 * callback (none set: discarded), errors are returned and described by
 * lb_runtime_error().  One runtime is used from one thread at a time;
 * lb_runtime_request_stop() may be called from any thread or a signal
 * handler. */
#ifndef LBENCH_H
#define LBENCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FFI BEGIN */
/* The version string, e.g. "0.1.0". */
typedef struct lb_runtime lb_runtime;
const char *lb_version(void);
/* FFI END */

/* Create a runtime; NULL when out of memory. */
lb_runtime *lb_runtime_new(void);

/* Free a runtime and everything it owns (NULL is a no-op). */
void lb_runtime_free(lb_runtime *rt);

/* Receives every piece of report text (interval lines, final report,
 * scenario print()s).  May be called from worker threads: it must be
 * thread-safe.  `text` is not NUL-terminated. */
typedef void (*lb_output_fn)(void *ud, const char *text, size_t len);
void lb_runtime_set_output(lb_runtime *rt, lb_output_fn fn, void *ud);

/* FFI BEGIN */
/* One interval report.  Pointers are valid during the callback only. */
typedef struct lb_interval {
    double time_s;           /* seconds since the run started (incl. warm-up) */
    int threads;             /* threads still running */
    int warmup;              /* 1: inside the warm-up, excluded from totals */
    double events_per_s;     /* events (transactions) per second */
    double reads_per_s, writes_per_s, other_per_s; /* queries per second by kind */
    double errors_per_s, reconnects_per_s;
    double lat_avg_ms, lat_max_ms;
    int n_percentiles;
    const double *percentiles;   /* e.g. 95, 99 */
    const double *lat_ms;        /* latency at each percentile, ms */
    const char *json;            /* the same interval as one JSON object */
} lb_interval;
/* FFI END */
typedef void (*lb_interval_fn)(void *ud, const lb_interval *iv);
void lb_runtime_set_interval_callback(lb_runtime *rt, lb_interval_fn fn, void *ud);

/* Set an option by its command-line name without dashes ("threads",
 * "table-size").  A general option (lbench --help) is checked at once, as
 * the command line checks it: a bad value returns -1 with a one-line
 * lb_runtime_error() naming the option and what it expects
 * ("--threads=abc: expected an integer") and leaves the option as it was.
 * A scenario's own options are declared by its script, so they are
 * checked when a command runs it.  Returns 0, or -1 with lb_runtime_error()
 * set. */
int lb_runtime_set_option(lb_runtime *rt, const char *name, const char *value);

/* Load a scenario: a path to a Lua file or a stock scenario name.
 * Returns 0, or -1 with lb_runtime_error() set (file:line for script
 * errors). */
int lb_runtime_load(lb_runtime *rt, const char *scenario);

/* Run a command of the loaded scenario ("run", "prepare", "cleanup",
 * "help", or one the scenario declares).  Returns 0, or -1 with
 * lb_runtime_error() set; after "run" the result is available even when
 * the run stopped on an error. */
int lb_runtime_command(lb_runtime *rt, const char *command);

/* The whole command line: `[options] <scenario> [command] [options]`.
 * Returns the process exit status the caller should use (0 success). */
int lb_runtime_main(lb_runtime *rt, int argc, char **argv);

/* The result document of the last run as JSON, or NULL when none. */
const char *lb_runtime_result_json(const lb_runtime *rt);

/* The last error message (one line, optionally followed by a traceback),
 * or "" when none. */
const char *lb_runtime_error(const lb_runtime *rt);

/* Ask a running command to stop: in-flight events finish, the final report
 * and result are still produced.  Async-signal-safe. */
void lb_runtime_request_stop(lb_runtime *rt);

#ifdef __cplusplus
}
#endif

#endif
