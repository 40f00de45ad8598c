/* pick — block sizes and offsets of a job's I/Os.  See pick.h. */
#include "pick.h"

#include <errno.h>
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
