/* null engine: accepts every I/O and completes it without touching a
 * file, to measure lbench itself (fio's null engine plays the same role).
 *
 * With iodepth 1 an I/O completes inside queue(); deeper, it is queued and
 * comes back from the next reap(), so the async path of the core (queue,
 * commit, reap, completion accounting) is exercised exactly as with a real
 * asynchronous engine. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct null_eng {
    int depth;
    int nq;            /* queued, not committed */
    int ndone;         /* committed, not reaped */
    lb__io_unit **q;
    lb__io_unit **done;
} null_eng;

static void *null_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    (void)files; (void)nfiles;
    null_eng *n = calloc(1, sizeof(*n));
    if (n) {
        n->depth = depth;
        n->q = calloc((size_t)depth, sizeof(*n->q));
        n->done = calloc((size_t)depth, sizeof(*n->done));
    }
    if (!n || !n->q || !n->done) {
        if (n) { free(n->q); free(n->done); free(n); }
        snprintf(err, errlen, "null engine: out of memory");
        return NULL;
    }
    return n;
}

static void null_cleanup(void *eng)
{
    null_eng *n = eng;
    if (!n)
        return;
    free(n->q);
    free(n->done);
    free(n);
}

static int null_queue(void *eng, lb__io_unit *u)
{
    null_eng *n = eng;
    u->res = (u->op == LB_IO_READ || u->op == LB_IO_WRITE) ? (int64_t)u->len : 0;
    if (n->depth <= 1)
        return LB_IO_DONE;
    if (n->nq + n->ndone >= n->depth)
        return LB_IO_BUSY;
    n->q[n->nq++] = u;
    return LB_IO_QUEUED;
}

static int null_commit(void *eng)
{
    null_eng *n = eng;
    int k = n->nq;
    for (int i = 0; i < k; i++)
        n->done[n->ndone++] = n->q[i];
    n->nq = 0;
    return k;
}

static int null_reap(void *eng, int min, int max, lb__io_unit **done)
{
    null_eng *n = eng;
    (void)min;
    int k = n->ndone < max ? n->ndone : max;
    for (int i = 0; i < k; i++)
        done[i] = n->done[i];
    for (int i = k; i < n->ndone; i++)
        n->done[i - k] = n->done[i];
    n->ndone -= k;
    return k;
}

const lb__io_engine_ops lb__io_null_ops = {
    .name = "null",
    .flags = LB_IO_ENG_ASYNC | LB_IO_ENG_NODATA,
    .init = null_init,
    .cleanup = null_cleanup,
    .queue = null_queue,
    .commit = null_commit,
    .reap = null_reap,
};
