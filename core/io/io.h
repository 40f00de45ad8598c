/* io — the job API behind the fileio scenario: one job runs reads, writes
 * and fsyncs on a set of files through one engine.
 *
 * The rest of core/io, by concept (each .c with its .h):
 *
 *  - engine.h: the contract engines implement (sync.c, mmap.c, libaio.c,
 *    uring.c, null.c), each one const ops table that moves bytes and never
 *    touches statistics; registry: the list of engines, lookup by name;
 *  - io (this file): jobs — files, I/O units and buffers, offset and size
 *    generation, the submit/reap loop with every timestamp and all
 *    accounting, fsync scheduling;
 *  - verify: block stamps, hashes and verification; genmap: the generation
 *    map; series: data points every N I/Os shared by a run's jobs;
 *  - fs: filesystem and device facts; steady: the SNIA steady-state rule.
 *
 * This header includes the others' public halves at its end, so that one
 * include gives a user of the layer (the unit tests, an embedder) all of it.
 *
 * A job belongs to one thread (a worker, or the main state for prepare).
 * Its step function runs a batch of I/Os (about 1 ms of work) per call, so
 * the scenario's Lua event() makes one FFI call per batch.  Each completed
 * I/O is recorded with lb_worker_record() as an event of type read, write
 * or fsync (latency = completion - submission, in ns), and the worker's I/O
 * counters are bumped once per batch.  A job with a shared series (data
 * points every N I/Os) also records read and write latencies into two
 * window histograms of its own, merged into the series at each flush.
 *
 * Return convention: 0 or a documented non-negative value on success,
 * -errno on failure with the reason in the job's error text. */
#ifndef LB_IO_H
#define LB_IO_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rand.h"
#include "series.h"
#include "worker.h"

/* FFI BEGIN */
enum { LB_IO_SEQ = 0, LB_IO_RAND = 1 };
enum { LB_IO_DIST_UNIFORM = 0, LB_IO_DIST_ZIPF = 1, LB_IO_DIST_PARETO = 2, LB_IO_DIST_NORMAL = 3 };
enum { LB_IO_MAX_BS = 16, LB_IO_ERRLEN = 512 };
/* File open flags for lb_io_job_add_file. */
enum { LB_IO_F_DIRECT = 1, LB_IO_F_SYNC = 2, LB_IO_F_DSYNC = 4, LB_IO_F_CREATE = 8 };

/* What a job does.  Filled by the scenario; lb_io_params_init sets the
 * defaults (one 4 KiB random read at a time, uniform offsets). */
typedef struct lb_io_params {
    int32_t iodepth;          /* I/Os in flight; engines without LB_IO_ENG_ASYNC use 1 */
    int32_t batch;            /* at most this many I/Os per commit (0: iodepth) */
    int32_t reap_max;         /* at most this many completions per reap (0: all there are) */
    int32_t reap_min;         /* wait for this many completions when none is there (0: 1) */
    int32_t pattern;          /* LB_IO_SEQ or LB_IO_RAND */
    int32_t dist;             /* offset distribution of random I/O (LB_IO_DIST_*) */
    double dist_arg;          /* zipf theta, pareto h, normal sigma in % of the set */
    double read_pct;          /* share of reads among reads + writes, 0..100 */
    int32_t nbs;              /* block sizes in bs[] (bssplit), at least 1 */
    uint32_t bs[LB_IO_MAX_BS];      /* multiples of vbs when stamping */
    double bs_pct[LB_IO_MAX_BS];    /* share of each size in %, summing to 100 */
    uint64_t fsync_freq;      /* fsync the written files after this many requests (0: never) */
    int32_t fsync_all;        /* fsync after every write */
    int32_t fsync_op;         /* LB_IO_FSYNC or LB_IO_FDATASYNC */
    int32_t fsync_end;        /* lb_io_job_finish fsyncs the written files */
    int32_t compress_pct;     /* 0..100: share of each payload chunk that is zeros */
    int32_t stamp;            /* write a verifiable header into every vbs chunk */
    uint32_t vbs;             /* verify chunk size (multiple of 64, divides every bs) */
    uint32_t generation;      /* stamped into written chunks and the generation map */
    int32_t tid;              /* writer id stamped into headers; random stream */
    uint64_t seed;            /* payload and offsets derive from (seed, tid) */
    uint64_t region_start;    /* sequential I/O walks [region_start, region_end) of */
    uint64_t region_end;      /*   the concatenated files (0, 0: the whole set) */
    uint64_t max_ios;         /* stop after this many reads + writes (0: no limit) */
    int32_t passes;           /* sequential: stop after this many passes (0: wrap forever) */
    int32_t type_read, type_write, type_fsync;  /* event types for lb_worker_record (-1: none) */
    int64_t step_ns;          /* time budget of one lb_io_job_step (0: 1 ms) */
    int32_t sysbench_counts;  /* count as sysbench fileio: a periodic fsync is one of max_ios,
                                 the closing fsyncs count in the fsync counter (not as events) */
} lb_io_params;

typedef struct lb_io_job lb_io_job;

void lb_io_params_init(lb_io_params *p);

/* A job on engine `name`.  NULL with the reason in err on bad params or an
 * unknown engine. */
lb_io_job *lb_io_job_new(const char *engine, const lb_io_params *p, char *err, size_t errlen);
/* Open (with LB_IO_F_CREATE: create) a file of `size` bytes; every file of
 * a job has the same size.  A block device is used as it is.  0 / -errno. */
int lb_io_job_add_file(lb_io_job *j, const char *path, uint64_t size, int32_t flags);
/* Track written chunks in the generation map (see lb_io_genmap_open). */
int lb_io_job_set_genmap(lb_io_job *j, const char *path);
/* Add this job's completions to a shared series of data points. */
void lb_io_job_set_shared(lb_io_job *j, lb_io_shared *sh);
/* Allocate buffers and start the engine.  0 / -errno. */
int lb_io_job_start(lb_io_job *j);
/* Run one batch: returns the number of I/Os completed (> 0), 0 when the
 * job has nothing left to do (max_ios or passes reached), -errno on an I/O
 * error.  `w` (may be NULL) receives every completion (the caller marks
 * its Lua event, a step, as bookkeeping: lb_worker_ev_skip). */
int lb_io_job_step(lb_io_job *j, lb_worker *w);
/* Wait for the I/Os in flight (recorded like the others), then fsync the
 * written files if fsync_end is set.  0 / -errno. */
int lb_io_job_finish(lb_io_job *j, lb_worker *w);
/* Totals of the job's completed I/Os (also kept when no worker records them). */
const lb_io_counters *lb_io_job_counters(const lb_io_job *j);
const char *lb_io_job_error(const lb_io_job *j);
void lb_io_job_free(lb_io_job *j);
/* FFI END */

#include "fs.h"
#include "genmap.h"
#include "registry.h"
#include "steady.h"
#include "verify.h"

#endif
