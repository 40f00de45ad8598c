/* io — I/O engines and the job runner behind the fileio scenario.
 *
 * Two halves live behind this header, as in the DB layer:
 *
 *  - the engine-independent core (io.c): the engine registry, files, I/O
 *    units and buffers, offset and size generation, payload stamping, the
 *    submit/reap loop with every timestamp and all accounting, fsync
 *    scheduling, the per-N-I/O data points, verification and the
 *    steady-state rule;
 *  - engines (sync.c, libaio.c, null.c, uring.c), each one const
 *    lb_io_engine_ops table that moves bytes and never touches statistics.
 *
 * Engine contract (fio's model): queue() answers LB_IO_DONE (the I/O
 * completed inside the call, res set), LB_IO_QUEUED (accepted, will be
 * submitted by the next commit()) or LB_IO_BUSY (no room: reap first);
 * completions are pulled with reap(min, max).  The core calls queue() for
 * up to iodepth units, stamps their start time once, calls commit(), then
 * reap(); C never calls back into Lua per I/O.
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

#include "rand.h"
#include "worker.h"

/* FFI BEGIN */
enum { LB_IO_READ = 0, LB_IO_WRITE = 1, LB_IO_FSYNC = 2, LB_IO_FDATASYNC = 3 };
enum { LB_IO_DONE = 0, LB_IO_QUEUED = 1, LB_IO_BUSY = 2 };
enum { LB_IO_SEQ = 0, LB_IO_RAND = 1 };
enum { LB_IO_DIST_UNIFORM = 0, LB_IO_DIST_ZIPF = 1, LB_IO_DIST_PARETO = 2, LB_IO_DIST_NORMAL = 3 };
enum { LB_IO_MAX_BS = 16, LB_IO_HDR_SIZE = 64, LB_IO_ERRLEN = 512 };
/* File open flags for lb_io_job_add_file. */
enum { LB_IO_F_DIRECT = 1, LB_IO_F_SYNC = 2, LB_IO_F_DSYNC = 4, LB_IO_F_CREATE = 8 };
/* Engine capability flags. */
enum { LB_IO_ENG_ASYNC = 1,   /* more than one I/O in flight */
       LB_IO_ENG_NODATA = 2,  /* moves no data (null): nothing to stamp or verify */
       LB_IO_ENG_MMAP = 4 };  /* needs the files mapped (file size fixed) */
/* Kinds of mismatched blocks found by verify. */
enum { LB_IO_BAD_LOST = 1,       /* acknowledged write not on disk: old generation or no header */
       LB_IO_BAD_TORN = 2,       /* checksum mismatch, or a multi-chunk write only partly present */
       LB_IO_BAD_MISPLACED = 3,  /* a valid block of another file or offset */
       LB_IO_BAD_NEWER = 4 };    /* generation newer than the map says (map not persisted) */

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
} lb_io_params;

/* Per-job counters (also kept when no worker records them). */
typedef struct lb_io_counters {
    uint64_t reads, writes, fsyncs;
    uint64_t bytes_read, bytes_written;
    uint64_t lat_read_ns, lat_write_ns;   /* sums of latencies */
} lb_io_counters;

typedef struct lb_io_job lb_io_job;
typedef struct lb_io_shared lb_io_shared;
typedef struct lb_io_genmap lb_io_genmap;

/* Engines: names in registry order ("sync", "libaio", ...). */
int lb_io_engine_count(void);
const char *lb_io_engine_name(int i);
/* Can the engine run here?  0, or -errno with the reason in err (e.g.
 * io_uring not compiled in or refused by the kernel). */
int lb_io_engine_probe(const char *name, char *err, size_t errlen);

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
 * error.  `w` (may be NULL) receives every completion; marks the worker's
 * current Lua event as bookkeeping (lb_ev_skip). */
int lb_io_job_step(lb_io_job *j, lb_worker *w);
/* Wait for the I/Os in flight (recorded like the others), then fsync the
 * written files if fsync_end is set.  0 / -errno. */
int lb_io_job_finish(lb_io_job *j, lb_worker *w);
const lb_io_counters *lb_io_job_counters(const lb_io_job *j);
/* Bytes of the logical set (files x file size) and where sequential I/O is. */
uint64_t lb_io_job_set_size(const lb_io_job *j);
uint64_t lb_io_job_position(const lb_io_job *j);
const char *lb_io_job_error(const lb_io_job *j);
void lb_io_job_free(lb_io_job *j);

/* ---- the generation map: one 16-bit generation per chunk of the set ---- */
/* Open (create: make it, zero-filled) a map of `nchunks` entries. */
lb_io_genmap *lb_io_genmap_open(const char *path, uint64_t nchunks, int create, char *err, size_t errlen);
uint16_t *lb_io_genmap_data(lb_io_genmap *g);
uint64_t lb_io_genmap_count(const lb_io_genmap *g);
void lb_io_genmap_close(lb_io_genmap *g);

/* ---- data points every N I/Os, shared by the workers of a run ---- */
/* Latency percentiles of a point, in this order in read_lat_ms/write_lat_ms. */
enum { LB_IO_PCT_P50 = 0, LB_IO_PCT_P95 = 1, LB_IO_PCT_P99 = 2, LB_IO_PCT_P99_9 = 3, LB_IO_PCT_MAX = 4,
       LB_IO_NPCT = 5 };
typedef struct lb_io_point {
    uint64_t ios;                 /* cumulative reads + writes at this point */
    double time_s;                /* since the first I/O of the series */
    double secs;                  /* length of the window since the previous point */
    uint64_t reads, writes, fsyncs;           /* in the window */
    uint64_t bytes_read, bytes_written;       /* in the window */
    double read_lat_avg_ms, write_lat_avg_ms; /* in the window (0: none) */
    /* p50, p95, p99, p99.9 and max (LB_IO_PCT_*) of the latencies of the
     * window's reads / writes, in ms, from a histogram (within its 0.05 %
     * error; max exact); all 0 when the window has none.  Points emitted
     * together by one flush share the window, its averages and these. */
    double read_lat_ms[5], write_lat_ms[5];
} lb_io_point;

/* Registry by key (the target path): the main state opens a series, the
 * workers look it up.  Open with the same key returns the same series
 * (refcounted); every_ios must be > 0. */
lb_io_shared *lb_io_shared_open(const char *key, uint64_t every_ios);
lb_io_shared *lb_io_shared_lookup(const char *key);   /* no reference taken */
void lb_io_shared_close(lb_io_shared *sh);
int lb_io_shared_npoints(lb_io_shared *sh);
int lb_io_shared_point(lb_io_shared *sh, int i, lb_io_point *out);
/* Points not yet handed out for printing: sets *first to the first one's
 * index and returns how many (0: none); each point is handed out once. */
int lb_io_shared_take_unprinted(lb_io_shared *sh, int32_t *first);

/* ---- verification ---- */
typedef struct lb_io_verify_result {
    uint64_t chunks;       /* chunks read */
    uint64_t ok;
    uint64_t lost, torn, misplaced, newer;
    uint64_t unverifiable; /* last written without stamps (--stamp=off) */
    uint64_t unwritten;    /* never written according to the map */
    int32_t nbad;          /* entries filled in the caller's array */
    int32_t pad;
} lb_io_verify_result;

typedef struct lb_io_bad_block {
    int32_t kind;          /* LB_IO_BAD_* */
    int32_t file;          /* where it was found */
    uint64_t offset;
    uint32_t expected_gen; /* from the map (low 16 bits) */
    uint32_t found_gen;    /* from the header (0: no header) */
    int32_t found_file;    /* header's file and offset (misplaced), -1: none */
    int32_t pad;
    uint64_t found_offset;
} lb_io_bad_block;

/* Read `path` (file number `file` of a set whose chunks are `vbs` bytes)
 * and check every chunk against its header and the map (NULL: check only
 * headers and checksums).  Counts go into *res (added); up to `maxbad`
 * mismatches into bad[] (res->nbad counts the filled entries).  0 or
 * -errno with the reason in err. */
int lb_io_verify_file(const char *path, int32_t file, uint64_t size, uint32_t vbs,
                      lb_io_genmap *map, int32_t direct, lb_io_verify_result *res,
                      lb_io_bad_block *bad, int32_t maxbad, char *err, size_t errlen);

/* ---- filesystem and device facts ---- */
typedef struct lb_io_space {
    uint64_t total;        /* filesystem capacity (statvfs f_blocks) or device size */
    uint64_t avail;        /* free for unprivileged users (f_bavail) */
    int32_t is_blockdev;
    int32_t pad;
} lb_io_space;
/* statvfs of a path, or the size of a block device.  0 / -errno. */
int lb_io_space_of(const char *path, lb_io_space *out);
int lb_io_isatty(int fd);
/* Drop the page-cache pages of a file or block device, as fio's invalidate
 * does before a job: a test that reads through the cache after prepare (or
 * after another test) would measure memory, not the device.  Dirty pages
 * are written back first so that they can go too.  0 / -errno. */
int lb_io_invalidate(const char *path);
enum { LB_IO_PATH_NONE = 0, LB_IO_PATH_FILE = 1, LB_IO_PATH_DIR = 2, LB_IO_PATH_BLOCKDEV = 3,
       LB_IO_PATH_OTHER = 4 };
/* What `path` is (LB_IO_PATH_*), or -errno other than ENOENT. */
int lb_io_path_kind(const char *path);
/* Size of a file, or of a block device; -errno. */
int64_t lb_io_path_size(const char *path);
/* mkdir -p (mode 0755).  0 / -errno. */
int lb_io_mkdir_p(const char *path);
/* Number of entries of a directory other than "." and ".."; -errno. */
int lb_io_dir_entries(const char *path);

/* ---- SNIA PTS steady state over the last `window` rounds ---- */
typedef struct lb_io_steady {
    int32_t steady;        /* 1: both criteria hold */
    int32_t window;        /* rounds considered */
    double avg, min, max;
    double range_pct;      /* (max - min) / avg * 100 */
    double slope;          /* least-squares slope per round */
    double excursion_pct;  /* |slope| * (window - 1) / avg * 100 */
} lb_io_steady;
/* Steady when max - min <= range_limit_pct of the average and the
 * least-squares line's excursion over the window <= slope_limit_pct of
 * the average (SNIA PTS: 20 % and 10 %, window 5).  Returns 1 steady,
 * 0 not (or fewer than `window` values). */
int lb_io_steady_state(const double *y, int32_t n, int32_t window, double range_limit_pct,
                       double slope_limit_pct, lb_io_steady *out);
/* FFI END */

/* ------------------------------------------------------------------------ */
/* Engine interface (internal: io.c and the engines, not the Lua layer)     */
/* ------------------------------------------------------------------------ */

/* One open file of a job. */
typedef struct lb__io_file {
    int fd;
    uint64_t size;
    void *map;             /* mmap engine: the mapping */
    char *path;
} lb__io_file;

/* One I/O.  The core fills op/fd/off/len/buf and t_start; the engine sets
 * res (bytes moved or -errno) before the unit comes back as DONE or out of
 * reap(). */
typedef struct lb__io_unit {
    void *buf;
    uint64_t off;
    uint32_t len;
    int32_t op;            /* LB_IO_READ, LB_IO_WRITE, LB_IO_FSYNC, LB_IO_FDATASYNC */
    int32_t fd;
    int32_t file;          /* index into the job's files */
    int64_t t_start;
    int64_t res;
    uint32_t idx;          /* position in the job's unit array */
    uint32_t pad;
    void *eng;             /* engine scratch */
} lb__io_unit;

typedef struct lb__io_engine_ops {
    const char *name;
    uint32_t flags;                    /* LB_IO_ENG_* */
    /* Optional: can this engine work here at all? */
    int  (*probe)(char *err, size_t errlen);
    /* Engine state for `depth` units over `files`; NULL + err on failure. */
    void *(*init)(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen);
    void (*cleanup)(void *eng);
    /* DONE (u->res set), QUEUED or BUSY. */
    int  (*queue)(void *eng, lb__io_unit *u);
    /* Submit what queue() accepted: >= 0 submitted, -errno on failure
     * (-EAGAIN: reap first; units not taken stay queued). */
    int  (*commit)(void *eng);
    /* Wait for at least `min` completions (0: poll), return up to `max`
     * in done[]: the count, or -errno. */
    int  (*reap)(void *eng, int min, int max, lb__io_unit **done);
} lb__io_engine_ops;

extern const lb__io_engine_ops lb__io_sync_ops;
extern const lb__io_engine_ops lb__io_libaio_ops;
extern const lb__io_engine_ops lb__io_null_ops;
extern const lb__io_engine_ops lb__io_mmap_ops;
extern const lb__io_engine_ops lb__io_uring_ops;

/* Synchronous helpers engines share: perform u in the calling thread. */
void lb__io_do_sync(lb__io_unit *u);

#endif
