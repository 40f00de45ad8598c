/* pick — block sizes and offsets of a job's I/Os.  See pick.h. */
#include "pick.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Cumulative shares, normalised to 100 whatever bs_pct sums to (the job
 * checked that the sum is positive). */
static void init_shares(lb__io_pick *k, const lb_io_params *p)
{
    double sum = 0, c = 0;
    for (int i = 0; i < p->nbs; i++)
        sum += p->bs_pct[i];
    for (int i = 0; i < p->nbs; i++) {
        c += p->bs_pct[i] / sum * 100.0;
        k->bs_cum[i] = c;
    }
    k->bs_cum[p->nbs - 1] = 100.0;   /* no gap from rounding above the last share */
}

int lb__io_pick_init(lb__io_pick *k, const lb_io_params *p, uint64_t fsize, int nfiles, char *err,
                     size_t errlen)
{
    k->p = p;
    k->fsize = fsize;
    init_shares(k, p);
    for (int i = 0; i < p->nbs; i++) {
        uint32_t bs = p->bs[i];
        k->per_file[i] = fsize / bs;
        k->nblk[i] = k->per_file[i] * (uint64_t)nfiles;
        if (k->nblk[i] == 0) {
            snprintf(err, errlen, "block size %u is larger than a file (%llu bytes)", bs, (unsigned long long)fsize);
            return -EINVAL;
        }
        if (p->dist == LB_IO_DIST_ZIPF &&
            lb_zipf_init(&k->zipf[i], (double)k->nblk[i], p->dist_arg > 0 ? p->dist_arg : 1.2) != 0) {
            snprintf(err, errlen, "bad zipf parameter %g", p->dist_arg);
            return -EINVAL;
        }
        /* Hot ranks of zipf/pareto are scattered over the set by
         * k -> k * m mod n, a bijection when m is coprime with n. */
        uint64_t m = 2654435761ULL % k->nblk[i];
        if (m == 0)
            m = 1;
        while (gcd64(m, k->nblk[i]) != 1)
            m++;
        k->scatter[i] = m;
    }
    uint64_t set_size = fsize * (uint64_t)nfiles;
    k->rs = p->region_start;
    k->re = p->region_end ? p->region_end : set_size;
    if (k->re > set_size)
        k->re = set_size;
    if (k->rs >= k->re) {
        snprintf(err, errlen, "empty region [%llu, %llu)", (unsigned long long)k->rs, (unsigned long long)k->re);
        return -EINVAL;
    }
    k->pos = k->rs;
    return 0;
}

static inline int pick_bs(const lb__io_pick *k, lb_rand *r)
{
    int nbs = k->p->nbs;
    if (nbs == 1)
        return 0;
    double u = lb_rand_double(r) * 100.0;
    for (int i = 0; i < nbs - 1; i++)
        if (u < k->bs_cum[i])
            return i;
    return nbs - 1;
}

static inline uint64_t mulmod(uint64_t a, uint64_t b, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)a * b) % n);   /* a * b overflows 64 bits on large sets */
}

/* Random block number in [0, nblk) for block-size index `b`. */
static inline uint64_t pick_block(lb__io_pick *k, lb_rand *r, int b)
{
    uint64_t n = k->nblk[b];
    double arg = k->p->dist_arg;
    uint64_t x;
    switch (k->p->dist) {
    case LB_IO_DIST_ZIPF:
        x = (uint64_t)lb_rand_zipf(r, &k->zipf[b]) - 1;
        return mulmod(x, k->scatter[b], n);
    case LB_IO_DIST_PARETO:
        x = (uint64_t)lb_rand_pareto(r, 0, (double)(n - 1), arg > 0 ? arg : 0.2);
        return mulmod(x, k->scatter[b], n);
    case LB_IO_DIST_NORMAL: {
        double sigma = (arg > 0 ? arg : 10) / 100.0 * (double)n;
        for (;;) {   /* Box-Muller, redrawn outside the set rather than clamped onto its ends */
            double u1 = lb_rand_double(r), u2 = lb_rand_double(r);
            double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
            double v = (double)n / 2.0 + z * sigma;
            if (v >= 0 && v < (double)n)
                return (uint64_t)v;
        }
    }
    default:
        return (uint64_t)lb_rand_uniform(r, 0, (double)(n - 1));
    }
}

/* Sequential: the next block of `bs` bytes; 0 when the passes are done. */
static int next_seq(lb__io_pick *k, uint32_t bs, int *file, uint64_t *off)
{
    for (int guard = 0; guard < 3; guard++) {
        if (k->pos + bs > k->re) {
            k->passes_done++;
            if (k->p->passes > 0 && k->passes_done >= k->p->passes) {
                k->done = 1;
                return 0;
            }
            k->pos = k->rs;
        }
        uint64_t f = k->pos / k->fsize, o = k->pos % k->fsize;
        if (o + bs > k->fsize) {
            k->pos = (f + 1) * k->fsize;   /* the rest of this file is too short */
            continue;
        }
        *file = (int)f;
        *off = o;
        k->pos += bs;
        return 1;
    }
    k->done = 1;   /* the region holds no whole block of this size */
    return 0;
}

int lb__io_pick_next(lb__io_pick *k, lb_rand *r, uint32_t *len, int *file, uint64_t *off)
{
    int b = pick_bs(k, r);
    uint32_t bs = k->p->bs[b];
    *len = bs;
    if (k->p->pattern == LB_IO_SEQ)
        return next_seq(k, bs, file, off);
    uint64_t blk = pick_block(k, r, b);
    uint64_t pf = k->per_file[b];
    *file = (int)(blk / pf);
    *off = (blk % pf) * bs;
    return 1;
}
