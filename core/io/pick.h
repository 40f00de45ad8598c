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
/* The next I/O: its size (*len), file and offset.  0 when the sequential
 * passes are done (then k->done is set), else 1. */
int lb__io_pick_next(lb__io_pick *k, lb_rand *r, uint32_t *len, int *file, uint64_t *off);

#endif
