/* clock — monotonic and wall time for measurements.
 *
 * All latency arithmetic in lbench is done in integer nanoseconds of
 * CLOCK_MONOTONIC, which the kernel serves from the vDSO (tens of ns, no
 * syscall) and which never jumps with NTP or settimeofday. */
#ifndef LB_CLOCK_H
#define LB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in ns.  Inline for C callers on the hot path. */
static inline int64_t lb_clock_ns_inline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* FFI BEGIN */
/* Same as lb_clock_ns_inline, exported for the FFI. */
int64_t lb_clock_ns(void);

/* Monotonic time in seconds (double), for scripts: lbench.clock.now(). */
double lb_clock_now(void);

/* Wall-clock time in seconds since the epoch (for "started_at"). */
double lb_clock_wall(void);

/* Sleep until the monotonic time `t_ns` (returns at once if it has
 * passed).  Interrupted sleeps are resumed. */
void lb_clock_sleep_until(int64_t t_ns);

/* Sleep for `ns` nanoseconds (no-op when ns <= 0). */
void lb_clock_sleep_ns(int64_t ns);
/* FFI END */

#endif
