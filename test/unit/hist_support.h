/* Helpers the histogram unit tests share: a deterministic PRNG
 * (splitmix64), a comparison for qsort, and the exact rank oracle. */
#ifndef LB_TEST_HIST_SUPPORT_H
#define LB_TEST_HIST_SUPPORT_H

#include "hist.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- deterministic PRNG (splitmix64) ----------------------------------- */

static uint64_t rng_state;

static inline void rng_seed(uint64_t s) { rng_state = s; }

static inline uint64_t rng_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_unit(void) { return (double)(rng_u64() >> 11) * 0x1.0p-53; }

static inline double rng_normal(void)
{
    double u1 = 1.0 - rng_unit(); /* (0, 1] keeps log finite */
    double u2 = rng_unit();
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Percentiles as hundredths of a percent so the oracle rank is exact
 * integer arithmetic, independent of the library's floating point. */
static const int64_t PP[] = {0, 100, 2500, 5000, 9000, 9500, 9900, 9990, 9999, 10000};

static inline int64_t oracle_rank(int64_t pp, int64_t n)
{
    if (pp == 0)
        return 1;
    return (pp * n + 9999) / 10000;
}

static inline int same_state(const lb_hist *a, const lb_hist *b)
{
    return lb_hist_config_same(&a->cfg, &b->cfg) && a->total == b->total &&
           a->underflow == b->underflow && a->overflow == b->overflow && a->min == b->min &&
           a->max == b->max && a->sum == b->sum &&
           memcmp(a->counts, b->counts, (size_t)a->cfg.counts_len * sizeof(int64_t)) == 0;
}

#endif
