/* io_uring engine through liburing (built when pkg-config finds liburing;
 * otherwise the engine is listed but its probe explains what is missing).
 *
 * queue() fills a submission entry (files are registered once, so the
 * kernel skips the per-I/O file lookup); commit() submits them all with
 * one io_uring_enter; reap() takes every completion already posted and
 * waits only when fewer than `min` are there.  fsync/fdatasync run
 * synchronously inside queue(), after the core drained the queue. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LB_HAVE_URING
#include <liburing.h>

typedef struct uring_eng {
    struct io_uring ring;
    int depth;
    int nq;                /* queued, not yet submitted */
    int inflight;
    int fixed;             /* files registered */
    lb__io_file *files;
} uring_eng;

static int uring_probe(char *err, size_t errlen)
{
    struct io_uring ring;
    int rc = io_uring_queue_init(2, &ring, 0);
    if (rc < 0) {
        snprintf(err, errlen, "io_uring is not available here: the kernel refused io_uring_setup (%s)%s",
                 strerror(-rc), rc == -EPERM ? "; see /proc/sys/kernel/io_uring_disabled" : "");
        return rc;
    }
    io_uring_queue_exit(&ring);
    return 0;
}

static void uring_cleanup(void *eng)
{
    uring_eng *e = eng;
    if (!e)
        return;
    io_uring_queue_exit(&e->ring);
    free(e);
}

static void *uring_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    uring_eng *e = calloc(1, sizeof(*e));
    if (!e) {
        snprintf(err, errlen, "io_uring: out of memory");
        return NULL;
    }
    e->depth = depth;
    e->files = files;
    int rc = io_uring_queue_init((unsigned)depth, &e->ring, 0);
    if (rc < 0) {
        snprintf(err, errlen, "io_uring: io_uring_queue_init(%d) failed: %s", depth, strerror(-rc));
        free(e);
        return NULL;
    }
    int *fds = malloc(sizeof(int) * (size_t)(nfiles > 0 ? nfiles : 1));
    if (fds) {
        for (int i = 0; i < nfiles; i++)
            fds[i] = files[i].fd;
        e->fixed = nfiles > 0 && io_uring_register_files(&e->ring, fds, (unsigned)nfiles) == 0;
        free(fds);
    }
    return e;
}

static int uring_queue(void *eng, lb__io_unit *u)
{
    uring_eng *e = eng;
    if (u->op == LB_IO_FSYNC || u->op == LB_IO_FDATASYNC) {
        lb__io_do_sync(u);
        return LB_IO_DONE;
    }
    if (e->nq + e->inflight >= e->depth)
        return LB_IO_BUSY;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
    if (!sqe)
        return LB_IO_BUSY;
    int fd = e->fixed ? u->file : u->fd;
    if (u->op == LB_IO_READ)
        io_uring_prep_read(sqe, fd, u->buf, u->len, u->off);
    else
        io_uring_prep_write(sqe, fd, u->buf, u->len, u->off);
    if (e->fixed)
        sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, u);
    e->nq++;
    return LB_IO_QUEUED;
}

static int uring_commit(void *eng)
{
    uring_eng *e = eng;
    if (e->nq == 0)
        return 0;
    int rc;
    do rc = io_uring_submit(&e->ring); while (rc == -EINTR);
    if (rc < 0)
        return rc;
    e->inflight += rc;
    e->nq -= rc;
    return rc;
}

static int uring_reap(void *eng, int min, int max, lb__io_unit **done)
{
    uring_eng *e = eng;
    int n = 0;
    if (max > e->inflight)
        max = e->inflight;
    while (n < max) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_peek_cqe(&e->ring, &cqe);
        if (rc == -EAGAIN) {
            if (n >= min)
                break;
            rc = io_uring_wait_cqe(&e->ring, &cqe);
            if (rc == -EINTR)
                continue;
        }
        if (rc < 0) {
            e->inflight -= n;
            return n > 0 ? n : rc;
        }
        lb__io_unit *u = io_uring_cqe_get_data(cqe);
        u->res = cqe->res;
        io_uring_cqe_seen(&e->ring, cqe);
        done[n++] = u;
    }
    e->inflight -= n;
    return n;
}

#else /* !LB_HAVE_URING */

static int uring_probe(char *err, size_t errlen)
{
    snprintf(err, errlen, "io_uring: this lbench was built without liburing "
             "(install liburing-dev, e.g. contrib/install-deps.sh build, and rebuild)");
    return -ENOSYS;
}

static void *uring_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    (void)files; (void)nfiles; (void)depth;
    uring_probe(err, errlen);
    return NULL;
}

static void uring_cleanup(void *eng) { (void)eng; }
static int uring_queue(void *eng, lb__io_unit *u) { (void)eng; u->res = -ENOSYS; return LB_IO_DONE; }
static int uring_commit(void *eng) { (void)eng; return -ENOSYS; }
static int uring_reap(void *eng, int min, int max, lb__io_unit **done)
{
    (void)eng; (void)min; (void)max; (void)done;
    return -ENOSYS;
}

#endif

/* One table for both builds: without liburing every op explains why. */
const lb__io_engine_ops lb__io_uring_ops = {
    .name = "io_uring",
    .flags = LB_IO_ENG_ASYNC,
    .probe = uring_probe,
    .init = uring_init,
    .cleanup = uring_cleanup,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
};

