/* engine — the contract between the I/O core and its engines.
 *
 * An engine (sync.c, mmap.c, libaio.c, uring.c, null.c) is one const
 * lb__io_engine_ops table that moves bytes and never touches statistics:
 * the job runner (io.c) owns every timestamp and all accounting, as in
 * fio's model, so a new engine cannot get the measurement wrong.
 *
 * queue() answers LB_IO_DONE (the I/O completed inside the call, res set),
 * LB_IO_QUEUED (accepted, submitted by the next commit()) or LB_IO_BUSY
 * (no room: reap first); completions are pulled with reap(min, max).  The
 * core calls queue() for up to iodepth units, stamps their start time once,
 * calls commit(), then reap(); C never calls back into Lua per I/O.
 *
 * Only the FFI section (codes the job parameters and the Lua layer share)
 * is visible to Lua; the structs below it are internal to core/io. */
#ifndef LB_IO_ENGINE_H
#define LB_IO_ENGINE_H

#include <stddef.h>
#include <stdint.h>

/* FFI BEGIN */
enum { LB_IO_READ = 0, LB_IO_WRITE = 1, LB_IO_FSYNC = 2, LB_IO_FDATASYNC = 3 };
enum { LB_IO_DONE = 0, LB_IO_QUEUED = 1, LB_IO_BUSY = 2 };
/* Engine capability flags. */
enum { LB_IO_ENG_ASYNC = 1,   /* more than one I/O in flight */
       LB_IO_ENG_NODATA = 2,  /* moves no data (null): nothing to stamp or verify */
       LB_IO_ENG_MMAP = 4 };  /* needs the files mapped (file size fixed) */
/* FFI END */

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

/* Helpers engines share (sync.c). */
/* Perform u in the calling thread: the sync engine's whole job, and the
 * way the async engines run fsync/fdatasync (the core drains the queue
 * first, so a sync covers every completed write). */
void lb__io_do_sync(lb__io_unit *u);
/* commit() and reap() of an engine that completes every I/O inside
 * queue(): nothing is ever pending, so both report 0. */
int lb__io_inline_commit(void *eng);
int lb__io_inline_reap(void *eng, int min, int max, lb__io_unit **done);

#endif
