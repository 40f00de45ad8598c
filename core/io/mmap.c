/* mmap engine: memcpy from/to a shared mapping of each file, msync for the
 * sync ops — sysbench's --file-io-mode=mmap.  Every I/O completes inside
 * queue() (LB_IO_DONE); a read or write that faults waits for the page
 * inside the memcpy, which is what this mode measures.  The engine flags
 * LB_IO_ENG_MMAP so the core sizes each file before it is mapped. */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct mmap_eng {
    lb__io_file *files;
    int nfiles;            /* mapped so far */
} mmap_eng;

static void mmap_cleanup(void *eng)
{
    mmap_eng *m = eng;
    if (!m)
        return;
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].map) {
            munmap(m->files[i].map, m->files[i].size);
            m->files[i].map = NULL;
        }
    free(m);
}

static void *mmap_init(lb__io_file *files, int nfiles, int depth, char *err, size_t errlen)
{
    (void)depth;
    mmap_eng *m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(err, errlen, "mmap engine: out of memory");
        return NULL;
    }
    m->files = files;
    m->nfiles = nfiles;
    for (int i = 0; i < nfiles; i++) {
        void *p = mmap(NULL, files[i].size, PROT_READ | PROT_WRITE, MAP_SHARED, files[i].fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "mmap engine: cannot map %s: %s", files[i].path, strerror(errno));
            m->nfiles = i;
            mmap_cleanup(m);
            return NULL;
        }
        files[i].map = p;
    }
    return m;
}

static int mmap_queue(void *eng, lb__io_unit *u)
{
    mmap_eng *m = eng;
    lb__io_file *f = &m->files[u->file];
    switch (u->op) {
    case LB_IO_READ:
        memcpy(u->buf, (char *)f->map + u->off, u->len);
        u->res = u->len;
        break;
    case LB_IO_WRITE:
        memcpy((char *)f->map + u->off, u->buf, u->len);
        u->res = u->len;
        break;
    case LB_IO_FSYNC:
    case LB_IO_FDATASYNC:
        u->res = msync(f->map, f->size, MS_SYNC) < 0 ? -errno : 0;
        break;
    default:
        u->res = -EINVAL;
    }
    return LB_IO_DONE;
}

const lb__io_engine_ops lb__io_mmap_ops = {
    .name = "mmap",
    .flags = LB_IO_ENG_MMAP,
    .init = mmap_init,
    .cleanup = mmap_cleanup,
    .queue = mmap_queue,
    .commit = lb__io_inline_commit,
    .reap = lb__io_inline_reap,
};
