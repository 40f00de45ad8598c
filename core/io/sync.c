/* sync engine: pread/pwrite, fsync/fdatasync, every I/O completed inside
 * queue() (LB_IO_DONE) — sysbench's --file-io-mode=sync and fio's psync.
 *
 * Also home of the helpers other engines share (engine.h): the blocking
 * way to perform one unit, and the commit/reap of an engine that never
 * leaves an I/O pending. */
#include "engine.h"

#include <errno.h>
#include <unistd.h>

void lb__io_do_sync(lb__io_unit *u)
{
    ssize_t n;
    switch (u->op) {
    case LB_IO_READ:
        do n = pread(u->fd, u->buf, u->len, (off_t)u->off); while (n < 0 && errno == EINTR);
        u->res = n < 0 ? -errno : n;
        break;
    case LB_IO_WRITE:
        do n = pwrite(u->fd, u->buf, u->len, (off_t)u->off); while (n < 0 && errno == EINTR);
        u->res = n < 0 ? -errno : n;
        break;
    case LB_IO_FSYNC:
        u->res = fsync(u->fd) < 0 ? -errno : 0;
        break;
    case LB_IO_FDATASYNC:
        u->res = fdatasync(u->fd) < 0 ? -errno : 0;
        break;
    default:
        u->res = -EINVAL;
    }
}

int lb__io_inline_commit(void *eng) { (void)eng; return 0; }

int lb__io_inline_reap(void *eng, int min, int max, lb__io_unit **done)
{
    (void)eng; (void)min; (void)max; (void)done;
    return 0;
}

static void *sync_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    (void)files; (void)nfiles; (void)depth; (void)err; (void)errlen;
    static int token;
    return &token;   /* stateless; the core takes NULL for a failed init */
}

static void sync_cleanup(void *eng) { (void)eng; }

static int sync_queue(void *eng, lb__io_unit *u)
{
    (void)eng;
    lb__io_do_sync(u);
    return LB_IO_DONE;
}

const lb__io_engine_ops lb__io_sync_ops = {
    .name = "sync",
    .flags = 0,
    .init = sync_init,
    .cleanup = sync_cleanup,
    .queue = sync_queue,
    .commit = lb__io_inline_commit,
    .reap = lb__io_inline_reap,
};
