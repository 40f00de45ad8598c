/* runtime — internals of lb_runtime shared with the rest of the core and
 * with the Lua half of the runtime (through the FFI).  The public API is
 * in lbench.h. */
#ifndef LB_RUNTIME_H
#define LB_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "lbench.h"

#include "db/db.h"

#include "metrics.h"
#include "run.h"

/* FFI BEGIN */
/* Write report text through the output callback, after clearing a
 * progress line (thread-safe if the callback is). */
void lb_runtime_write(lb_runtime *rt, const char *s, size_t len);
/* A progress line ("\r", no newline): the next lb_runtime_write clears it first. */
void lb_runtime_write_progress(lb_runtime *rt, const char *s, size_t len);
void lb_runtime_emit_interval(lb_runtime *rt, const lb_interval *iv);
void lb_runtime_set_result(lb_runtime *rt, const char *json, size_t len);
int  lb_runtime_stop_requested(const lb_runtime *rt);
/* The stop flag itself, for C loops below the runtime that poll it
 * (lb_io_verify_file, the row generators): set from signal handlers. */
const volatile int *lb_runtime_stop_flag(const lb_runtime *rt);
/* The runtime as the owner of a run (lb_run_new): its output and its stop. */
const lb_run_host *lb_runtime_run_host(lb_runtime *rt);
/* The runtime as the owner of a metrics endpoint (lb_metrics_start): the
 * event types' names, the error codes' labels. */
const lb_metrics_host *lb_runtime_metrics_host(lb_runtime *rt);
void lb_runtime_clear_stop(lb_runtime *rt);
void lb_runtime_set_error(lb_runtime *rt, const char *msg);
int  lb_runtime_type_id(lb_runtime *rt, const char *name);
const char *lb_runtime_type_name(lb_runtime *rt, int id);
int  lb_runtime_type_count(lb_runtime *rt);
/* Progress of a long command (prepare), shared by all workers: a total,
 * and units done added by each worker (one atomic add per batch). */
void lb_runtime_progress_reset(lb_runtime *rt, uint64_t total);
void lb_runtime_progress_add(lb_runtime *rt, uint64_t n);
/* The same as a progress target's callback (lb_progress, rowgen.h). */
void lb_runtime_progress_cb(void *rt, uint64_t n);
uint64_t lb_runtime_progress_done(lb_runtime *rt);
uint64_t lb_runtime_progress_total(lb_runtime *rt);
/* Connection attempts that failed transiently (a full listen backlog, a
 * handshake cut short) and were retried, counted by every worker; the
 * run's workers clear their own counters at the start barrier, so these
 * live here. */
void lb_runtime_count_connect_retry(lb_runtime *rt);
uint64_t lb_runtime_connect_retries(lb_runtime *rt);
/* A scenario's own counts over every state of the run (clients that
 * aborted, say): workers add, the main state sets and reads.  Slots
 * 0 .. LB_RUNTIME_COUNTERS-1; another index is ignored (reads 0). */
enum { LB_RUNTIME_COUNTERS = 4096 };
void lb_runtime_counter_set(lb_runtime *rt, int32_t i, uint64_t v);
void lb_runtime_counter_add(lb_runtime *rt, int32_t i, uint64_t n);
uint64_t lb_runtime_counter_get(lb_runtime *rt, int32_t i);
/* A scenario's own histograms over every state of the run (pgbench's
 * per-statement latencies): a worker merges its own into slot i (0 ..
 * LB_RUNTIME_HISTS-1) when it is done, the main state reads them after
 * the run and clears them before the next.  Merge: 0, or -1 (bad slot,
 * another configuration, no memory).  Get: NULL when none was merged. */
enum { LB_RUNTIME_HISTS = 1024 };
int lb_runtime_hist_merge(lb_runtime *rt, int32_t i, const lb_hist *h);
const lb_hist *lb_runtime_hist(lb_runtime *rt, int32_t i);
void lb_runtime_hists_clear(lb_runtime *rt);
/* Some Lua state of this runtime (the main one, a worker's, a virtual
 * user's) loaded the SQL API: the reports then keep the SQL layout (tps,
 * qps, SQL statistics) in every interval, also one without a query. */
void lb_runtime_mark_sql(lb_runtime *rt);
int lb_runtime_sql_used(lb_runtime *rt);
/* One idle connection of the main state, parked by api/sql.lua for the
 * run's server probe to take over (one login fewer per run) instead of
 * being closed.  Park: 1, or 0 when one is parked already (the caller
 * closes its own).  Take: the connection, now the caller's, or NULL.
 * Drop (any thread: a worker that found the server full of connections
 * frees the slot the parked one holds): 1 if it was closed, by this call
 * or by another thread's since it was parked (two workers refused at once
 * both wait for the slot), else 0. */
int lb_runtime_park_conn(lb_runtime *rt, lb_db_conn *c);
lb_db_conn *lb_runtime_take_parked(lb_runtime *rt);
int lb_runtime_drop_parked(lb_runtime *rt);
/* Raise this process's open-files limit to `need` as far as the hard limit
 * allows: 0 when the limit is now at least `need`, else -1; the limits
 * are in *soft and *hard either way. */
int lb_runtime_files_limit(uint64_t need, uint64_t *soft, uint64_t *hard);
/* Is standard output a terminal (progress bars only there)? */
int lb_runtime_isatty(void);
/* This process's id (temporary file names). */
int lb_runtime_pid(void);
/* Where stock scenarios may be: the share directory fixed at build time,
 * the running program's directory, and the directory of the file holding
 * the library itself (liblbench.so, or the program that linked it in):
 * a program linked against an installed library finds <libdir>/../share
 * wherever the prefix was, and whatever PREFIX the objects were built with.
 * "" when unknown. */
const char *lb_runtime_share_dir(void);
const char *lb_runtime_exe_dir(void);
const char *lb_runtime_lib_dir(void);
/* An lb_db_debug_fn writing "debug: <msg>" to the output (ud = runtime). */
void lb_runtime_debug_sink(void *ud, const char *msg);
/* FFI END */

#endif
