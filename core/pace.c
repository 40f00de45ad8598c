#include "pace.h"

#include <math.h>

void lb_pace_init(lb_pace *p, double rate, int poisson, int64_t first, uint64_t seed, uint64_t stream)
{
    p->gap_ns = 1e9 / rate;
    p->poisson = poisson;
    p->next = first;
    p->nseg = 0;
    lb_rand_seed(&p->rand, seed, stream);
}

void lb_pace_schedule(lb_pace *p, const lb_rate_seg *segs, int n, double share)
{
    if (n > LB_PACE_MAX_SEGS)
        n = LB_PACE_MAX_SEGS;
    double t = 0, lam = 0;
    for (int i = 0; i < n; i++) {
        lb_pace_seg *s = &p->segs[i];
        s->t0 = t;
        s->dur = segs[i].dur_s * 1e9;
        s->r0 = segs[i].rate0 * share / 1e9;
        s->r1 = segs[i].rate1 * share / 1e9;
        s->lam0 = lam;
        t += s->dur;
        lam += (s->r0 + s->r1) / 2 * s->dur;
    }
    p->nseg = n;
    p->seg = 0;
}

/* Time from the origin (ns) at which Λ reaches `lam` (>= 0); INFINITY when
 * the rate stays 0 from there on. */
static double schedule_inverse(lb_pace *p, double lam)
{
    for (; p->seg < p->nseg; p->seg++) {
        const lb_pace_seg *s = &p->segs[p->seg];
        double area = (s->r0 + s->r1) / 2 * s->dur;
        double c = lam - s->lam0;
        if (area > 0 && c <= 0)
            return s->t0;
        if (c < area) {
            /* Solve r0·τ + (r1 - r0)/(2·dur)·τ² = c in the form that stays
             * exact when the ramp is flat. */
            double a = (s->r1 - s->r0) / (2 * s->dur);
            double tau = 2 * c / (s->r0 + sqrt(s->r0 * s->r0 + 4 * a * c));
            return s->t0 + (tau < s->dur ? tau : s->dur);
        }
    }
    const lb_pace_seg *last = &p->segs[p->nseg - 1];
    double end = last->t0 + last->dur, lam_end = last->lam0 + (last->r0 + last->r1) / 2 * last->dur;
    return last->r1 > 0 ? end + (lam - lam_end) / last->r1 : INFINITY;
}

/* The monotonic time where Λ reaches p->lam. */
static int64_t schedule_time(lb_pace *p)
{
    double r_warm = p->segs[0].r0;
    if (p->lam < 0)   /* inside the warm-up, at the first rate (> 0 here) */
        return p->origin + (int64_t)llround(p->lam / r_warm);
    double t = schedule_inverse(p, p->lam);
    if (!(t < 9e18 - (double)p->origin))
        return INT64_MAX;
    return p->origin + (int64_t)llround(t);
}

void lb_pace_start(lb_pace *p, int64_t origin, int64_t t_start, double offset)
{
    p->origin = origin;
    p->seg = 0;
    /* Λ is negative in the warm-up, whose rate is the first segment's. */
    p->lam = (p->segs[0].r0 > 0 ? -(double)(origin - t_start) * p->segs[0].r0 : 0) + offset;
    p->next = schedule_time(p);
}

/* Λ at the monotonic time `t` (the schedule's expected count from its origin). */
static double schedule_lam_at(const lb_pace *p, int64_t t)
{
    double x = (double)(t - p->origin);
    if (x < 0)
        return x * p->segs[0].r0;
    for (int i = 0; i < p->nseg; i++) {
        const lb_pace_seg *s = &p->segs[i];
        if (x < s->t0 + s->dur || i == p->nseg - 1) {
            double tau = x - s->t0 < s->dur ? x - s->t0 : s->dur;
            double lam = s->lam0 + s->r0 * tau + (s->r1 - s->r0) / (2 * s->dur) * tau * tau;
            return lam + (x - s->t0 > s->dur ? (x - s->t0 - s->dur) * s->r1 : 0);
        }
    }
    return p->lam;
}

uint64_t lb_pace_skip_until(lb_pace *p, int64_t t)
{
    uint64_t n = 0;
    while (p->next < t && n < LB_PACE_SKIP_EXACT) {
        lb_pace_next(p);
        n++;
    }
    if (p->next >= t)
        return n;
    if (p->nseg) {
        double lam_t = schedule_lam_at(p, t);
        if (lam_t > p->lam) {
            n += (uint64_t)ceil(lam_t - p->lam);
            p->lam = lam_t;
        }
        p->next = schedule_time(p);
    } else {
        double more = ceil((double)(t - p->next) / p->gap_ns);
        n += (uint64_t)more;
        p->next += (int64_t)llround(more * p->gap_ns);
    }
    if (p->next < t)
        p->next = t;
    return n;
}

int64_t lb_pace_next(lb_pace *p)
{
    int64_t t = p->next;
    /* -ln(1-u) with u in [0,1) is an exponential variate with mean 1. */
    double e = p->poisson ? -log(1.0 - lb_rand_double(&p->rand)) : 1.0;
    if (p->nseg) {
        p->lam += e;
        p->next = schedule_time(p);
    } else {
        p->next = t + (int64_t)llround(e * p->gap_ns);
    }
    return t;
}
