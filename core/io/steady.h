/* steady — the SNIA PTS steady-state test over a series of rounds.
 *
 * precondition repeats rounds of the workload until the measured figure
 * (IOPS or MiB/s per round) stops moving; this is the arithmetic of that
 * decision, apart from the rounds loop (Lua) so it can be tested alone.
 * Pure function: no I/O, no allocation. */
#ifndef LB_IO_STEADY_H
#define LB_IO_STEADY_H

#include <stdint.h>

/* FFI BEGIN */
/* ---- SNIA PTS steady state over the last `window` rounds ---- */
typedef struct lb_io_steady {
    int32_t steady;        /* 1: both criteria hold */
    int32_t window;        /* rounds considered */
    double avg, min, max;
    double range_pct;      /* (max - min) / avg * 100 */
    double slope;          /* least-squares slope per round */
    double excursion_pct;  /* |slope| * (window - 1) / avg * 100 */
} lb_io_steady;
/* Steady when max - min <= range_limit_pct of the average and the
 * least-squares line's excursion over the window <= slope_limit_pct of
 * the average (SNIA PTS: 20 % and 10 %, window 5).  Returns 1 steady,
 * 0 not (or fewer than `window` values). */
int lb_io_steady_state(const double *y, int32_t n, int32_t window, double range_limit_pct,
                       double slope_limit_pct, lb_io_steady *out);
/* FFI END */

#endif
