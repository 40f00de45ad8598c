/* libaio engine: Linux native AIO (io_submit / io_getevents).
 *
 * queue() prepares an iocb and parks it; commit() hands every parked iocb
 * to the kernel with one io_submit; reap() first reads completions straight
 * from the AIO ring the kernel maps into our address space (no system call
 * when events are already there) and only enters io_getevents to wait.
 * Reading the ring from user space is safe here because one thread owns
 * the context; the kernel re-reads the ring's head on every io_getevents.
 * fsync/fdatasync run synchronously inside queue() (the core drains the
 * queue first, so they cover every completed write). */
#include "engine.h"

#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ring the kernel shares with user space (fs/aio.c, a stable ABI). */
struct aio_ring_user {
    unsigned id, nr, head, tail;
    unsigned magic, compat_features, incompat_features, header_length;
    struct io_event events[];
};
#define AIO_RING_MAGIC_VALUE 0xa10a10a1u

typedef struct aio_eng {
    io_context_t ctx;
    int depth;
    int npend;                 /* parked by queue(), not yet submitted */
    int inflight;
    struct iocb *cbs;          /* one per unit, indexed by unit idx */
    struct iocb **pend;
    struct io_event *evs;
} aio_eng;

static void aio_cleanup(void *eng)
{
    aio_eng *a = eng;
    if (!a)
        return;
    if (a->ctx)
        io_destroy(a->ctx);
    free(a->cbs);
    free(a->pend);
    free(a->evs);
    free(a);
}

static void *aio_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    (void)files; (void)nfiles;
    aio_eng *a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "libaio: out of memory");
        return NULL;
    }
    a->depth = depth;
    a->cbs = calloc((size_t)depth, sizeof(*a->cbs));
    a->pend = calloc((size_t)depth, sizeof(*a->pend));
    a->evs = calloc((size_t)depth, sizeof(*a->evs));
    if (!a->cbs || !a->pend || !a->evs) {
        snprintf(err, errlen, "libaio: out of memory");
        aio_cleanup(a);
        return NULL;
    }
    int rc = io_setup(depth, &a->ctx);
    if (rc < 0) {
        a->ctx = 0;
        snprintf(err, errlen, "libaio: io_setup(%d) failed: %s%s", depth, strerror(-rc),
                 rc == -EAGAIN ? " (raise /proc/sys/fs/aio-max-nr or lower --iodepth/--threads)" : "");
        aio_cleanup(a);
        return NULL;
    }
    return a;
}

static int aio_queue(void *eng, lb__io_unit *u)
{
    aio_eng *a = eng;
    if (u->op == LB_IO_FSYNC || u->op == LB_IO_FDATASYNC) {
        lb__io_do_sync(u);
        return LB_IO_DONE;
    }
    if (a->npend + a->inflight >= a->depth)
        return LB_IO_BUSY;
    struct iocb *cb = &a->cbs[u->idx];
    if (u->op == LB_IO_READ)
        io_prep_pread(cb, u->fd, u->buf, u->len, (long long)u->off);
    else
        io_prep_pwrite(cb, u->fd, u->buf, u->len, (long long)u->off);
    cb->data = u;
    a->pend[a->npend++] = cb;
    return LB_IO_QUEUED;
}

static int aio_commit(void *eng)
{
    aio_eng *a = eng;
    int done = 0;
    while (a->npend > 0) {
        int rc = io_submit(a->ctx, a->npend, a->pend);
        if (rc == -EINTR)
            continue;
        if (rc < 0)
            return done > 0 ? done : rc;
        if (rc == 0)
            return done > 0 ? done : -EAGAIN;
        a->inflight += rc;
        done += rc;
        if (rc < a->npend)
            memmove(a->pend, a->pend + rc, (size_t)(a->npend - rc) * sizeof(*a->pend));
        a->npend -= rc;
        if (a->npend > 0)
            return done;   /* the kernel is full: reap before submitting more */
    }
    return done;
}

static inline int64_t aio_res(const struct io_event *ev)
{
    /* res is an unsigned long holding a byte count or -errno. */
    return (int64_t)(long)ev->res;
}

/* Completions already in the ring, without a system call. */
static int ring_reap(aio_eng *a, int max, lb__io_unit **done)
{
    struct aio_ring_user *ring = (struct aio_ring_user *)a->ctx;
    if (ring->magic != AIO_RING_MAGIC_VALUE)
        return -1;
    unsigned head = ring->head;
    unsigned tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    unsigned nr = ring->nr;
    int n = 0;
    while (head != tail && n < max) {
        struct io_event *ev = &ring->events[head];
        lb__io_unit *u = (lb__io_unit *)ev->data;
        u->res = aio_res(ev);
        done[n++] = u;
        head = head + 1 == nr ? 0 : head + 1;
    }
    if (n > 0)
        __atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
    return n;
}

static int aio_reap(void *eng, int min, int max, lb__io_unit **done)
{
    aio_eng *a = eng;
    if (max > a->inflight)
        max = a->inflight;
    if (max <= 0)
        return 0;
    int n = ring_reap(a, max, done);
    if (n < 0)
        n = 0;   /* no user-visible ring: system calls only */
    while (n < min) {
        int want = max - n;
        int rc = io_getevents(a->ctx, min - n, want, a->evs, NULL);
        if (rc == -EINTR)
            continue;
        if (rc < 0) {
            a->inflight -= n;
            return n > 0 ? n : rc;
        }
        for (int i = 0; i < rc; i++) {
            lb__io_unit *u = (lb__io_unit *)a->evs[i].data;
            u->res = aio_res(&a->evs[i]);
            done[n++] = u;
        }
    }
    a->inflight -= n;
    return n;
}

const lb__io_engine_ops lb__io_libaio_ops = {
    .name = "libaio",
    .flags = LB_IO_ENG_ASYNC,
    .init = aio_init,
    .cleanup = aio_cleanup,
    .queue = aio_queue,
    .commit = aio_commit,
    .reap = aio_reap,
};
