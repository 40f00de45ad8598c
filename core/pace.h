/* pace — intended start times for a target event rate.
 *
 * Under --rate each worker follows its own schedule of intended starts:
 * constant spacing, or a Poisson process (exponential gaps).  N workers
 * with Poisson schedules of rate R/N add up to one Poisson process of rate
 * R.  The worker measures latency from the intended start, so time spent
 * queued behind a slow event counts (no coordinated omission). */
#ifndef LB_PACE_H
#define LB_PACE_H

#include <stdint.h>

#include "rand.h"

typedef struct lb_pace {
    double gap_ns;     /* mean gap between intended starts */
    int poisson;       /* 1: exponential gaps; 0: constant */
    int64_t next;      /* the next intended start (monotonic ns) */
    lb_rand rand;      /* own stream: pacing must not shift the script's numbers */
} lb_pace;

/* Schedule `rate` events/s (> 0) starting at `first`. */
void lb_pace_init(lb_pace *p, double rate, int poisson, int64_t first, uint64_t seed, uint64_t stream);

/* The intended start of the next event; advances the schedule. */
int64_t lb_pace_next(lb_pace *p);

#endif
