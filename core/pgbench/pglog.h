/* pgbench's per-transaction log file (-l), written from C.
 *
 * A line per logged transaction, in pgbench 15's format (doLog):
 *
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
 *
 * (times in microseconds).  Formatting it in Lua took some 13,000
 * instructions a line (string.format and a file write, a Lua string
 * interned for each), more than twice what pgbench's fprintf takes; here a
 * line is a few integers written into a buffer that goes to the file when
 * it fills (64 KiB), when a line ends a second or more after the last one
 * that sent it out (by the lines' own end times: no clock read), and at
 * the end.  The other lines (a failed transaction's, the aggregate
 * intervals) are formatted by the caller and appended in order through
 * lb_pg_txlog_write.
 *
 * One writer per file: the clients of one worker thread share it, as the
 * clients of a pgbench thread share theirs; not for use by two threads.
 * Nothing here prints or exits: a failed write is kept (errno) and
 * returned by lb_pg_txlog_close.
 */
#ifndef LB_PGBENCH_PGLOG_H
#define LB_PGBENCH_PGLOG_H

#include <stddef.h>
#include <stdint.h>

#include "pgbench/pgrand.h"

/* FFI BEGIN */
typedef struct lb_pg_txlog lb_pg_txlog;

/* Create or truncate `path`.  Times in the lines are the monotonic clock's
 * (ns, lb_clock_ns) turned into microseconds of the Unix epoch by adding
 * `shift_us`; `with_lag` adds the schedule_lag field (under --rate) and
 * `with_retries` the retries field (--max-tries not 1).  NULL, errno set,
 * when the file cannot be created. */
lb_pg_txlog *lb_pg_txlog_open(const char *path, int64_t shift_us, int32_t with_lag, int32_t with_retries);

/* --sampling-rate: from now on lb_pg_txlog_txn logs a transaction only
 * when a draw from `state` is not above `rate` (pgbench's test, on its
 * thread's sampling state); the caller keeps `state` alive and draws from
 * it for the lines it writes itself, so that the draws stay in order. */
void lb_pg_txlog_sample(lb_pg_txlog *l, lb_pg_prng *state, double rate);

/* The line of client `client`'s transaction number `cnt` of script
 * `script` (0-based), scheduled at `sched_ns`, begun at `begin_ns` and
 * ended at `end_ns` after `tries` tries, when the sample takes it.  0, or
 * -1 once a write failed. */
int32_t lb_pg_txlog_txn(lb_pg_txlog *l, int32_t client, int64_t cnt, int32_t script, int64_t sched_ns,
                        int64_t begin_ns, int64_t end_ns, int32_t tries);

/* `n` bytes of text as they are, after the lines before.  0, or -1. */
int32_t lb_pg_txlog_write(lb_pg_txlog *l, const char *text, size_t n);

/* What is buffered, to the file now (an aggregate interval's line, which
 * comes once per interval).  0, or -1. */
int32_t lb_pg_txlog_flush(lb_pg_txlog *l);

/* Write what is buffered, close the file and free `l` (NULL: nothing).
 * 0, or an errno value of the first write or close that failed. */
int32_t lb_pg_txlog_close(lb_pg_txlog *l);
/* FFI END */

#endif
