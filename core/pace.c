#include "pace.h"

#include <math.h>

void lb_pace_init(lb_pace *p, double rate, int poisson, int64_t first, uint64_t seed, uint64_t stream)
{
    p->gap_ns = 1e9 / rate;
    p->poisson = poisson;
    p->next = first;
    lb_rand_seed(&p->rand, seed, stream);
}

int64_t lb_pace_next(lb_pace *p)
{
    int64_t t = p->next;
    /* -ln(1-u) with u in [0,1) is an exponential variate with mean 1. */
    double gap = p->poisson ? -log(1.0 - lb_rand_double(&p->rand)) * p->gap_ns : p->gap_ns;
    p->next = t + (int64_t)llround(gap);
    return t;
}
