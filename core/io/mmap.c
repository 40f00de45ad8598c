/* mmap engine: memcpy from/to a shared mapping of each file, msync for the
 * sync ops — sysbench's --file-io-mode=mmap.  Every I/O completes inside
 * queue() (LB_IO_DONE); a read or write that faults waits for the page
 * inside the memcpy, which is what this mode measures.  The engine flags
 * LB_IO_ENG_MMAP so the core sizes each file before it is mapped. */
#include "engine.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

typedef struct mmap_eng {
    lb__io_file *files;
    int nfiles;            /* mapped so far */
    uint64_t *lock_base;   /* per file: its stripes' first slot in the lock pool */
} mmap_eng;

/* A write through a shared mapping is a plain memcpy: two threads writing
 * the same chunk at once interleave their bytes (verify then rightly finds
 * it torn), where pwrite to a buffered file is serialised by the kernel's
 * inode lock.  Writes here are serialised per 64 KiB stripe of a file
 * instead: a pool of spinlocks shared by every job of the process, a file's
 * consecutive stripes on consecutive slots from a base derived from its
 * device and inode.  A write takes its stripes' slots in ascending slot
 * order, so two writers never wait on each other in a cycle; uncontended it
 * costs one atomic exchange and one store per stripe. */
#define STRIPE_SHIFT 16
#define NLOCKS 1024
/* One cache line per slot: threads writing different stripes do not share
 * a line. */
static struct {
    _Alignas(64) atomic_flag f;   /* zero-initialised: clear */
} stripe_locks[NLOCKS];

static void lock_slot(uint64_t i)
{
    while (atomic_flag_test_and_set_explicit(&stripe_locks[i].f, memory_order_acquire))
        ;
}

/* Slots [a, b] (b - a < NLOCKS, taken mod NLOCKS), locked (lock = 1) or
 * unlocked in ascending slot order. */
static void stripe_range(uint64_t a, uint64_t b, int lock)
{
    uint64_t n = b - a + 1, lo = a % NLOCKS;
    for (int pass = 0; pass < 2; pass++) {
        /* A range that wraps is two runs: [0, wrapped end] first, then
         * [lo, NLOCKS - 1]; one that does not is the second pass alone. */
        uint64_t from = pass == 0 ? 0 : lo;
        uint64_t to = pass == 0 ? (lo + n > NLOCKS ? lo + n - NLOCKS : 0) : (lo + n > NLOCKS ? NLOCKS : lo + n);
        for (uint64_t i = from; i < to; i++) {
            if (lock)
                lock_slot(i);
            else
                atomic_flag_clear_explicit(&stripe_locks[i].f, memory_order_release);
        }
    }
}

static void locked_write(mmap_eng *m, const lb__io_unit *u)
{
    lb__io_file *f = &m->files[u->file];
    uint64_t base = m->lock_base[u->file];
    uint64_t s0 = u->off >> STRIPE_SHIFT, s1 = (u->off + u->len - 1) >> STRIPE_SHIFT;
    if (s1 - s0 >= NLOCKS)   /* a write of more than 64 MiB: the whole pool */
        s0 = 0, s1 = NLOCKS - 1, base = 0;
    stripe_range(base + s0, base + s1, 1);
    memcpy((char *)f->map + u->off, u->buf, u->len);
    stripe_range(base + s0, base + s1, 0);
}

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
    free(m->lock_base);
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
    m->nfiles = 0;
    m->lock_base = calloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof(*m->lock_base));
    if (!m->lock_base) {
        snprintf(err, errlen, "mmap engine: out of memory");
        free(m);
        return NULL;
    }
    for (int i = 0; i < nfiles; i++) {
        struct stat st;
        /* The same file reached by two jobs gets the same slots. */
        if (fstat(files[i].fd, &st) == 0)
            m->lock_base[i] = ((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)st.st_ino * 0xc2b2ae3d27d4eb4fULL);
        void *p = mmap(NULL, files[i].size, PROT_READ | PROT_WRITE, MAP_SHARED, files[i].fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "mmap engine: cannot map %s: %s", files[i].path, strerror(errno));
            m->nfiles = i;
            mmap_cleanup(m);
            return NULL;
        }
        files[i].map = p;
        m->nfiles = i + 1;
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
        locked_write(m, u);
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
