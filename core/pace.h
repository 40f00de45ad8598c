/* pace — intended start times for a target event rate.
 *
 * Under --rate each worker follows its own schedule of intended starts:
 * constant spacing, or a Poisson process (exponential gaps).  N workers
 * with Poisson schedules of rate R/N add up to one Poisson process of rate
 * R.  The worker measures latency from the intended start, so time spent
 * queued behind a slow event counts (no coordinated omission).
 *
 * A rate schedule (--rate=1000@60,ramp:1000-5000@120) makes the rate a
 * function of time: steps and linear ramps, from the end of the warm-up
 * (the warm-up runs at the first segment's starting rate; after the last
 * segment its final rate goes on).  The schedule is followed by a change
 * of time: with Λ(t) the expected number of events up to t, the k-th
 * intended start is Λ⁻¹(the k-th point of a unit-rate process), so the
 * gaps are exponential (or constant) in Λ and a rate change takes effect
 * at once, without disturbing the intended starts already given out. */
#ifndef LB_PACE_H
#define LB_PACE_H

#include <stdint.h>

#include "rand.h"

/* FFI BEGIN */
enum { LB_PACE_MAX_SEGS = 64 };
/* One segment of a rate schedule: the rate goes linearly from rate0 to
 * rate1 (events/s over all workers) in dur_s seconds. */
typedef struct lb_rate_seg {
    double dur_s, rate0, rate1;
} lb_rate_seg;
/* FFI END */

typedef struct lb_pace_seg {
    double t0, dur;     /* ns from the schedule's origin */
    double r0, r1;      /* this worker's rate, events per ns */
    double lam0;        /* Λ at the segment's start */
} lb_pace_seg;

typedef struct lb_pace {
    double gap_ns;     /* mean gap between intended starts (constant rate) */
    int poisson;       /* 1: exponential gaps; 0: constant */
    int64_t next;      /* the next intended start (monotonic ns) */
    lb_rand rand;      /* own stream: pacing must not shift the script's numbers */
    /* rate schedule: nseg = 0 for a constant rate */
    int nseg, seg;     /* segments; the one the last intended start fell in */
    int64_t origin;    /* monotonic ns where the schedule starts (the warm-up end) */
    double lam;        /* Λ at the next intended start */
    lb_pace_seg segs[LB_PACE_MAX_SEGS];
} lb_pace;

/* Schedule `rate` events/s (> 0) starting at `first`. */
void lb_pace_init(lb_pace *p, double rate, int poisson, int64_t first, uint64_t seed, uint64_t stream);

/* Follow the `n` segments (n <= LB_PACE_MAX_SEGS) instead, this worker
 * taking `share` of every rate; lb_pace_start places the first start. */
void lb_pace_schedule(lb_pace *p, const lb_rate_seg *segs, int n, double share);

/* A schedule's first intended start: the schedule begins at `origin`,
 * the run at `t_start` (<= origin: the warm-up), and this worker's first
 * event lies `offset` (in [0, 1), a share of one event) into it, so that
 * constant-rate workers interleave. */
void lb_pace_start(lb_pace *p, int64_t origin, int64_t t_start, double offset);

/* The intended start of the next event; advances the schedule. */
int64_t lb_pace_next(lb_pace *p);

/* Skip every intended start before `t` and return how many there were:
 * one by one up to LB_PACE_SKIP_EXACT of them, the rest (a rate far
 * beyond what the run reached) counted by its expectation, in time
 * independent of their number. */
enum { LB_PACE_SKIP_EXACT = 1 << 20 };
uint64_t lb_pace_skip_until(lb_pace *p, int64_t t);

#endif
