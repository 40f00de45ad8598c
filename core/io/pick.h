/* pick — where a job's next I/O goes: its block size (bssplit), and its
 * file and offset, either a sequential walk over a region of the set or a
 * random block under one of the distributions of lb_io_params.dist.
 *
 * Apart from the job runner so the arithmetic of the set's geometry (blocks
 * per file per size, the zipf tables, the scatter of hot ranks) stays in
 * one place; internal to core/io.  The caller passes its random stream, so
 * the draws of one job come from one sequence in a fixed order. */
#ifndef LB_IO_PICK_H
#define LB_IO_PICK_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "io.h"
#include "rand.h"

typedef struct lb__io_pick {
    const lb_io_params *p;            /* the job's parameters (outlive the picker) */
    uint64_t fsize;                   /* bytes per file */
    double bs_cum[LB_IO_MAX_BS];      /* cumulative shares of the block sizes, in % */
    uint64_t per_file[LB_IO_MAX_BS], nblk[LB_IO_MAX_BS];   /* blocks per file / in the set */
    lb_zipf zipf[LB_IO_MAX_BS];
    uint64_t scatter[LB_IO_MAX_BS];   /* multiplier coprime with nblk */
    uint64_t pos, rs, re;             /* sequential position and region */
    int passes_done;
    int done;                         /* sequential passes are over */
} lb__io_pick;

/* Set up for `nfiles` files of `fsize` bytes.  0, or -EINVAL with the
 * reason in err (a block larger than a file, a bad zipf theta, an empty
 * region). */
int lb__io_pick_init(lb__io_pick *k, const lb_io_params *p, uint64_t fsize, int nfiles, char *err,
                     size_t errlen);

/* The per-I/O part is inline: the job loop calls it once per I/O, and a
 * call across files costs a measurable share of the null engine's ~40 ns
 * per I/O. */
static inline int lb__io_pick_bs(const lb__io_pick *k, lb_rand *r)
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

static inline uint64_t lb__io_mulmod(uint64_t a, uint64_t b, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)a * b) % n);   /* a * b overflows 64 bits on large sets */
}

/* Random block number in [0, nblk) for block-size index `b`. */
static inline uint64_t lb__io_pick_block(lb__io_pick *k, lb_rand *r, int b)
{
    uint64_t n = k->nblk[b];
    double arg = k->p->dist_arg;
    uint64_t x;
    switch (k->p->dist) {
    case LB_IO_DIST_ZIPF:
        x = (uint64_t)lb_rand_zipf(r, &k->zipf[b]) - 1;
        return lb__io_mulmod(x, k->scatter[b], n);
    case LB_IO_DIST_PARETO:
        x = (uint64_t)lb_rand_pareto(r, 0, (double)(n - 1), arg > 0 ? arg : 0.2);
        return lb__io_mulmod(x, k->scatter[b], n);
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
static inline int lb__io_pick_seq(lb__io_pick *k, uint32_t bs, int *file, uint64_t *off)
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

/* The next I/O: its size (*len), file and offset.  0 when the sequential
 * passes are done (then k->done is set), else 1. */
static inline int lb__io_pick_next(lb__io_pick *k, lb_rand *r, uint32_t *len, int *file, uint64_t *off)
{
    int b = lb__io_pick_bs(k, r);
    uint32_t bs = k->p->bs[b];
    *len = bs;
    if (k->p->pattern == LB_IO_SEQ)
        return lb__io_pick_seq(k, bs, file, off);
    uint64_t blk = lb__io_pick_block(k, r, b);
    uint64_t pf = k->per_file[b];
    *file = (int)(blk / pf);
    *off = (blk % pf) * bs;
    return 1;
}

#endif
