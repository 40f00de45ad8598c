/* io — jobs: files, I/O units and their buffers, choosing each I/O, the
 * submit/reap loop, and the accounting of every completion.  See io.h for
 * the contracts and engine.h for the engines' side.
 *
 * The core, not the engine, takes every timestamp: a unit's start time is
 * stamped once when its batch is committed (or when queue() completes it
 * inline), its latency is taken when it comes back from reap().  Counters
 * are gathered per step on the stack and published once per batch, so the
 * per-I/O cost is a few adds and one histogram record. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "hist.h"
#include "pick.h"
#include "stats.h"

typedef struct unit_ext {
    void *wbuf, *rbuf;
    uint64_t *body_hash;       /* per chunk of wbuf */
} unit_ext;

struct lb_io_job {
    const lb__io_engine_ops *ops;
    void *eng;
    lb_io_params p;
    int depth, batch;
    lb__io_file *files;
    int nfiles, capfiles;
    uint64_t fsize;            /* bytes per file (all the same) */
    uint32_t maxbs;

    lb__io_unit *units;
    unit_ext *ext;
    lb__io_unit **freel;
    int nfree;
    lb__io_unit **pend;        /* queued since the last commit */
    lb__io_unit **done;
    lb__io_unit *retry;        /* prepared unit the engine said BUSY to */
    int inflight;              /* handed to the engine, not completed */
    int uncommitted;           /* queued but not yet accepted by commit */

    lb_rand rand;              /* payload, then every draw of pick and the read/write choice */
    lb__io_pick pick;
    uint64_t issued;           /* reads + writes issued */
    uint64_t reqs;             /* requests since the last periodic fsync */
    uint8_t *dirty;            /* per file: written since its last fsync */
    int ndirty;
    int fsync_pending;
    uint64_t write_ctr;

    lb_io_genmap *gmap;
    uint16_t *gmap_data;       /* gmap's entries and their number, kept here */
    uint64_t gmap_n;           /*   for the completion path */
    uint64_t chunks_per_file;
    uint16_t gval;
    int stamp, nodata;

    lb_io_shared *sh;
    uint64_t flush_hint;       /* with sh: flush after this many I/Os */
    lb_hist *lat_r, *lat_w;    /* with sh: read / write latencies not yet flushed (else NULL) */
    lb_io_counters acc;        /* not yet flushed to the shared series */
    uint64_t acc_ios;
    lb_io_counters total;
    int started;
    int failed;                /* -errno once an I/O failed */
    char err[LB_IO_ERRLEN];
};

void lb_io_params_init(lb_io_params *p)
{
    memset(p, 0, sizeof(*p));
    p->iodepth = 1;
    p->pattern = LB_IO_RAND;
    p->dist = LB_IO_DIST_UNIFORM;
    p->read_pct = 100;
    p->nbs = 1;
    p->bs[0] = 4096;
    p->bs_pct[0] = 100;
    p->fsync_op = LB_IO_FSYNC;
    p->vbs = 4096;
    p->generation = 1;
    p->type_read = p->type_write = p->type_fsync = -1;
}

/* Record the first failure (its errno sticks: later I/Os of a failed job
 * are not issued) and the latest reason. */
static int job_fail(lb_io_job *j, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int job_fail(lb_io_job *j, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof(j->err), fmt, ap);
    va_end(ap);
    if (!j->failed)
        j->failed = rc < 0 ? rc : -EIO;
    return j->failed;
}

/* The block-size list of p: 0 with *maxbs set, or -1 with err. */
static int check_sizes(const lb_io_params *p, int stamp, uint32_t *maxbs, char *err, size_t errlen)
{
    double sum = 0;
    *maxbs = 0;
    for (int i = 0; i < p->nbs; i++) {
        if (p->bs[i] == 0 || p->bs_pct[i] < 0) {
            snprintf(err, errlen, "block sizes must be > 0 with non-negative shares");
            return -1;
        }
        if (p->vbs && (p->bs[i] % p->vbs) && (stamp || p->compress_pct)) {
            snprintf(err, errlen, "block size %u is not a multiple of the verify chunk size %u "
                     "(prepare the set with a smaller --file-block-size, or use --stamp=off)", p->bs[i], p->vbs);
            return -1;
        }
        sum += p->bs_pct[i];
        if (p->bs[i] > *maxbs)
            *maxbs = p->bs[i];
    }
    if (sum <= 0) {
        snprintf(err, errlen, "block size shares sum to 0");
        return -1;
    }
    return 0;
}

lb_io_job *lb_io_job_new(const char *engine, const lb_io_params *p, char *err, size_t errlen)
{
    const lb__io_engine_ops *ops = lb__io_engine_find(engine);
    if (!ops) {
        lb__io_engine_unknown(engine, err, errlen);
        return NULL;
    }
    if (p->nbs < 1 || p->nbs > LB_IO_MAX_BS) {
        snprintf(err, errlen, "between 1 and %d block sizes", LB_IO_MAX_BS);
        return NULL;
    }
    if (p->iodepth < 1 || p->iodepth > 65536) {
        snprintf(err, errlen, "iodepth must be in 1..65536");
        return NULL;
    }
    int nodata = (ops->flags & LB_IO_ENG_NODATA) != 0;
    int stamp = p->stamp && !nodata;
    if (stamp && (p->vbs < LB_IO_HDR_SIZE * 2 || p->vbs % 64)) {
        snprintf(err, errlen, "verify chunk size %u must be a multiple of 64 and at least 128", p->vbs);
        return NULL;
    }
    uint32_t maxbs;
    if (check_sizes(p, stamp, &maxbs, err, errlen) < 0)
        return NULL;
    lb_io_job *j = calloc(1, sizeof(*j));
    if (!j) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    j->ops = ops;
    j->p = *p;
    j->depth = (ops->flags & LB_IO_ENG_ASYNC) ? p->iodepth : 1;
    j->batch = p->batch > 0 && p->batch < j->depth ? p->batch : j->depth;
    j->maxbs = maxbs;
    j->nodata = nodata;
    j->stamp = stamp;
    j->gval = lb__io_genval(p->generation ? p->generation : 1);
    if (j->p.step_ns <= 0)
        j->p.step_ns = 1000000;
    lb_rand_seed(&j->rand, p->seed, (uint64_t)p->tid + 1);
    return j;
}

int lb_io_job_add_file(lb_io_job *j, const char *path, uint64_t size, int32_t flags)
{
    if (j->started)
        return job_fail(j, -EINVAL, "files must be added before the job starts");
    if (j->nfiles && size != j->fsize)
        return job_fail(j, -EINVAL, "every file of a job has the same size");
    if (j->nfiles == j->capfiles) {
        int cap = j->capfiles ? j->capfiles * 2 : 16;
        lb__io_file *f = realloc(j->files, sizeof(*f) * (size_t)cap);
        if (!f)
            return job_fail(j, -ENOMEM, "out of memory");
        j->files = f;
        j->capfiles = cap;
    }
    int oflags = O_RDWR | O_CLOEXEC;
    if (flags & LB_IO_F_DIRECT) oflags |= O_DIRECT;
    if (flags & LB_IO_F_SYNC) oflags |= O_SYNC;
    if (flags & LB_IO_F_DSYNC) oflags |= O_DSYNC;
    if (flags & LB_IO_F_CREATE) oflags |= O_CREAT;
    if (j->nodata)   /* nothing is read or written: let any filesystem open it */
        oflags &= ~(O_DIRECT | O_SYNC | O_DSYNC);
    int fd = open(path, oflags, 0644);
    if (fd < 0) {
        int e = errno;
        if (e == EINVAL && (oflags & O_DIRECT))
            return job_fail(j, -e, "cannot open %s with O_DIRECT: the filesystem does not support direct I/O", path);
        return job_fail(j, -e, "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
    /* A mapping cannot grow the file: size it now. */
    if (fstat(fd, &st) == 0 && !S_ISBLK(st.st_mode) && (j->ops->flags & LB_IO_ENG_MMAP) &&
        (uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0) {
        int e = errno;
        close(fd);
        return job_fail(j, -e, "cannot size %s for mmap: %s", path, strerror(e));
    }
    lb__io_file *f = &j->files[j->nfiles++];
    f->fd = fd;
    f->size = size;
    f->map = NULL;
    f->path = strdup(path);
    j->fsize = size;
    return 0;
}

int lb_io_job_set_genmap(lb_io_job *j, const char *path)
{
    if (j->nodata)
        return 0;
    if (!j->nfiles || !j->p.vbs)
        return job_fail(j, -EINVAL, "add the files before the generation map");
    j->chunks_per_file = j->fsize / j->p.vbs;
    char e[256];
    j->gmap = lb_io_genmap_open(path, j->chunks_per_file * (uint64_t)j->nfiles, 0, e, sizeof(e));
    if (!j->gmap)
        return job_fail(j, -EIO, "%s", e);
    j->gmap_data = lb_io_genmap_data(j->gmap);
    j->gmap_n = lb_io_genmap_count(j->gmap);
    return 0;
}

/* The window histograms exist exactly when the job has a series, so the
 * completion path tests one pointer and runs without a series pay nothing. */
static int window_hists(lb_io_job *j)
{
    if (!j->sh) {
        lb_hist_free(j->lat_r);
        lb_hist_free(j->lat_w);
        j->lat_r = j->lat_w = NULL;
        return 0;
    }
    lb_hist_config hc;
    lb_hist_config_default(&hc);
    if (!j->lat_r)
        j->lat_r = lb_hist_new(&hc);
    if (!j->lat_w)
        j->lat_w = lb_hist_new(&hc);
    if (!j->lat_r || !j->lat_w)
        return job_fail(j, -ENOMEM, "out of memory for the data points' latency histograms");
    return 0;
}

void lb_io_job_set_shared(lb_io_job *j, lb_io_shared *sh)
{
    j->sh = sh;
    j->flush_hint = sh ? lb__io_series_flush_hint(sh) : 0;
    if (j->started)   /* otherwise lb_io_job_start allocates (and can fail) */
        window_hists(j);
}

/* Fill a unit's write buffer: random bytes (incompressible, never zeros)
 * with the compress_pct share of each chunk's body zeroed, and the hashes
 * of its chunk bodies when stamping.  0 / -errno. */
static int init_payload(lb_io_job *j, unit_ext *x)
{
    lb_rand_bytes(&j->rand, x->wbuf, j->maxbs);
    memset(x->rbuf, 0, j->maxbs);
    if (j->p.compress_pct > 0) {
        uint32_t cs = j->p.vbs ? j->p.vbs : 4096;
        uint32_t pct = (uint32_t)(j->p.compress_pct > 100 ? 100 : j->p.compress_pct);
        for (uint32_t off = 0; off + cs <= j->maxbs; off += cs) {
            uint32_t body = cs - (j->stamp ? LB_IO_HDR_SIZE : 0);
            uint32_t z = (uint32_t)((uint64_t)body * pct / 100);
            memset((char *)x->wbuf + off + cs - z, 0, z);
        }
    }
    if (j->stamp) {
        size_t nchunk = j->p.vbs ? j->maxbs / j->p.vbs : 0;
        x->body_hash = calloc(nchunk ? nchunk : 1, sizeof(uint64_t));
        if (!x->body_hash)
            return job_fail(j, -ENOMEM, "out of memory");
        for (size_t c = 0; c < nchunk; c++)
            x->body_hash[c] = lb__io_body_hash((char *)x->wbuf + c * j->p.vbs + LB_IO_HDR_SIZE,
                                               j->p.vbs - LB_IO_HDR_SIZE);
    }
    return 0;
}

/* Units, their buffers and the free list.  0 / -errno. */
static int init_units(lb_io_job *j)
{
    int d = j->depth;
    j->units = calloc((size_t)d, sizeof(*j->units));
    j->ext = calloc((size_t)d, sizeof(*j->ext));
    j->freel = calloc((size_t)d, sizeof(*j->freel));
    j->pend = calloc((size_t)d, sizeof(*j->pend));
    j->done = calloc((size_t)d, sizeof(*j->done));
    j->dirty = calloc((size_t)j->nfiles, 1);
    if (!j->units || !j->ext || !j->freel || !j->pend || !j->done || !j->dirty)
        return job_fail(j, -ENOMEM, "out of memory");
    for (int i = 0; i < d; i++) {
        unit_ext *x = &j->ext[i];
        x->wbuf = lb__io_alloc_aligned(j->maxbs);
        x->rbuf = lb__io_alloc_aligned(j->maxbs);
        if (!x->wbuf || !x->rbuf)
            return job_fail(j, -ENOMEM, "out of memory for %d buffers of %u bytes", d, j->maxbs);
        if (init_payload(j, x) < 0)
            return j->failed;
        lb__io_unit *u = &j->units[i];
        u->idx = (uint32_t)i;
        j->freel[j->nfree++] = u;
    }
    return 0;
}

int lb_io_job_start(lb_io_job *j)
{
    if (j->started)
        return 0;
    if (j->nfiles == 0)
        return job_fail(j, -EINVAL, "no files");
    char e[LB_IO_ERRLEN];
    int rc = lb__io_pick_init(&j->pick, &j->p, j->fsize, j->nfiles, e, sizeof(e));
    if (rc < 0)
        return job_fail(j, rc, "%s", e);
    if (j->stamp || j->gmap)
        j->chunks_per_file = j->fsize / j->p.vbs;
    if (window_hists(j) < 0 || init_units(j) < 0)
        return j->failed;
    e[0] = 0;
    j->eng = j->ops->init(j->files, j->nfiles, j->depth, e, sizeof(e));
    if (!j->eng)
        return job_fail(j, -EIO, "%s", e[0] ? e : "engine initialisation failed");
    j->started = 1;
    if (j->sh)
        lb__io_series_start(j->sh, lb_clock_ns_inline());
    return 0;
}

/* ---- choosing the next I/O ------------------------------------------------ */

static inline int can_issue(const lb_io_job *j)
{
    return !j->failed && !j->pick.done && !(j->p.max_ios && j->issued >= j->p.max_ios);
}

static void stamp_unit(lb_io_job *j, const lb__io_unit *u)
{
    unit_ext *x = &j->ext[u->idx];
    lb__io_stamp s = {
        .file = (uint32_t)u->file,
        .generation = j->p.generation,
        .write_id = ((uint64_t)(uint32_t)j->p.tid << 40) | (++j->write_ctr & ((1ULL << 40) - 1)),
        .body_hash = x->body_hash,
    };
    lb__io_stamp_write(x->wbuf, u->len, j->p.vbs, u->off, &s);
}

/* Bookkeeping of a write being issued: stamps, the files to fsync. */
static void issue_write(lb_io_job *j, lb__io_unit *u)
{
    if (j->stamp)
        stamp_unit(j, u);
    if (j->gmap_data)   /* mark_written stores here at completion: fetch it while the write is in flight */
        __builtin_prefetch(&j->gmap_data[(uint64_t)u->file * j->chunks_per_file + u->off / j->p.vbs], 1, 1);
    if (!j->dirty[u->file]) {
        j->dirty[u->file] = 1;
        j->ndirty++;
    }
    if (j->p.fsync_all)
        j->fsync_pending = 1;
}

/* Fill `u` with the next read or write; 0 when nothing is left to issue. */
static int next_io(lb_io_job *j, lb__io_unit *u)
{
    uint32_t bs;
    int file;
    uint64_t off;
    if (!lb__io_pick_next(&j->pick, &j->rand, &bs, &file, &off))
        return 0;
    int is_read = j->p.read_pct >= 100 ? 1 : j->p.read_pct <= 0 ? 0 : lb_rand_double(&j->rand) * 100.0 < j->p.read_pct;
    unit_ext *x = &j->ext[u->idx];
    u->op = is_read ? LB_IO_READ : LB_IO_WRITE;
    u->file = file;
    u->fd = j->files[file].fd;
    u->off = off;
    u->len = bs;
    u->buf = is_read ? x->rbuf : x->wbuf;
    if (!is_read)
        issue_write(j, u);
    j->issued++;
    if (j->p.fsync_freq && ++j->reqs >= j->p.fsync_freq) {
        j->reqs = 0;
        if (j->ndirty)
            j->fsync_pending = 1;
    }
    return 1;
}

/* ---- completion and accounting ----------------------------------------------- */

static void flush_shared(lb_io_job *j, int64_t now)
{
    if (!j->sh)
        return;
    if (j->acc.reads + j->acc.writes + j->acc.fsyncs)
        lb__io_series_flush(j->sh, &j->acc, j->lat_r, j->lat_w, now);
    memset(&j->acc, 0, sizeof(j->acc));
    j->acc_ios = 0;
    lb_hist_reset(j->lat_r);
    lb_hist_reset(j->lat_w);
}

static inline void mark_written(lb_io_job *j, const lb__io_unit *u)
{
    if (!j->gmap)
        return;
    uint16_t v = j->stamp ? j->gval : LB__IO_GEN_UNVERIFIABLE;
    /* Every chunk the write touches (unstamped writes need not be aligned). */
    uint64_t c = (uint64_t)u->file * j->chunks_per_file + u->off / j->p.vbs;
    uint64_t n = (u->off + u->len - 1) / j->p.vbs - u->off / j->p.vbs + 1;
    uint16_t *m = j->gmap_data;
    /* Relaxed atomic stores: threads may complete writes to the same chunk. */
    for (uint64_t i = 0; i < n && c + i < j->gmap_n; i++)
        __atomic_store_n(&m[c + i], v, __ATOMIC_RELAXED);
}

/* A read or write that moved fewer bytes than asked: why. */
static void fail_rw(lb_io_job *j, const lb__io_unit *u)
{
    const char *what = u->op == LB_IO_READ ? "read" : "write";
    if (u->res < 0)
        job_fail(j, (int)u->res, "%s of %u bytes at offset %llu of %s failed: %s", what, u->len,
                 (unsigned long long)u->off, j->files[u->file].path, strerror((int)-u->res));
    else
        job_fail(j, -EIO, "short %s at offset %llu of %s: %lld of %u bytes", what,
                 (unsigned long long)u->off, j->files[u->file].path, (long long)u->res, u->len);
}

static void fail_sync(lb_io_job *j, const lb__io_unit *u)
{
    job_fail(j, (int)u->res, "fsync of %s failed: %s", j->files[u->file].path, strerror((int)-u->res));
}

static void complete(lb_io_job *j, lb_worker *w, lb__io_unit *u, int64_t lat, lb_io_counters *st)
{
    int op = u->op;
    if ((op == LB_IO_READ || op == LB_IO_WRITE) && u->res != (int64_t)u->len) {
        fail_rw(j, u);
    } else if (op == LB_IO_READ) {
        st->reads++;
        st->bytes_read += u->len;
        st->lat_read_ns += (uint64_t)lat;
        if (j->lat_r)
            lb_hist_record(j->lat_r, lat);
        if (w)
            lb_worker_record(w, j->p.type_read, lat);
    } else if (op == LB_IO_WRITE) {
        st->writes++;
        st->bytes_written += u->len;
        st->lat_write_ns += (uint64_t)lat;
        if (j->lat_w)
            lb_hist_record(j->lat_w, lat);
        mark_written(j, u);
        if (w)
            lb_worker_record(w, j->p.type_write, lat);
    } else if (u->res < 0) {
        fail_sync(j, u);
    } else {
        st->fsyncs++;
        if (w)
            lb_worker_record(w, j->p.type_fsync, lat);
    }
    j->freel[j->nfree++] = u;
}

/* Drained queue: fsync every file written since its last fsync. */
static void do_fsyncs(lb_io_job *j, lb_worker *w, lb_io_counters *st, int64_t *now, int record)
{
    for (int f = 0; f < j->nfiles && !j->failed; f++) {
        if (!j->dirty[f])
            continue;
        if (record && j->p.sysbench_counts) {
            /* sysbench: each fsync is one of the run's events */
            if (j->p.max_ios && j->issued >= j->p.max_ios)
                break;
            j->issued++;
        }
        lb__io_unit *u = j->freel[--j->nfree];
        u->op = j->p.fsync_op == LB_IO_FDATASYNC ? LB_IO_FDATASYNC : LB_IO_FSYNC;
        u->file = f;
        u->fd = j->files[f].fd;
        u->off = 0;
        u->len = 0;
        int64_t t0 = lb_clock_ns_inline();
        int rc = j->ops->queue(j->eng, u);
        if (rc != LB_IO_DONE) {
            /* Engines complete syncs inline; anything else is a bug. */
            u->res = -EINVAL;
        }
        *now = lb_clock_ns_inline();
        if (record)
            complete(j, w, u, *now - t0, st);
        else {
            if (u->res < 0)
                fail_sync(j, u);
            j->freel[j->nfree++] = u;
        }
        j->dirty[f] = 0;
        j->ndirty--;
    }
    j->fsync_pending = 0;
}

static void add_counters(lb_io_counters *t, const lb_io_counters *st)
{
    t->reads += st->reads;
    t->writes += st->writes;
    t->fsyncs += st->fsyncs;
    t->bytes_read += st->bytes_read;
    t->bytes_written += st->bytes_written;
    t->lat_read_ns += st->lat_read_ns;
    t->lat_write_ns += st->lat_write_ns;
}

/* Publish a batch's counts: the job's totals, the worker's counters, and
 * the series' window (flushed every flush_hint I/Os). */
static void account(lb_io_job *j, lb_worker *w, const lb_io_counters *st, int64_t now)
{
    add_counters(&j->total, st);
    if (w) {
        lb_stats *s = lb_worker_stats(w);
        if (st->reads) lb_stats_bump(&s->io_reads, st->reads);
        if (st->writes) lb_stats_bump(&s->io_writes, st->writes);
        if (st->fsyncs) lb_stats_bump(&s->io_fsyncs, st->fsyncs);
        if (st->bytes_read) lb_stats_bump(&s->io_bytes_read, st->bytes_read);
        if (st->bytes_written) lb_stats_bump(&s->io_bytes_written, st->bytes_written);
    }
    if (j->sh) {
        add_counters(&j->acc, st);
        j->acc_ios += st->reads + st->writes;
        if (j->acc_ios >= j->flush_hint)
            flush_shared(j, now);
    }
}

/* Reap at least `min` completions and account them. */
static int reap_some(lb_io_job *j, lb_worker *w, int min, lb_io_counters *st, int64_t *now)
{
    int max = j->p.reap_max > 0 && j->p.reap_max < j->inflight ? j->p.reap_max : j->inflight;
    if (max < min)
        max = min;
    int n = j->ops->reap(j->eng, min, max, j->done);
    if (n < 0) {
        if (n == -EINTR)
            return 0;
        job_fail(j, n, "%s: reaping completions failed: %s", j->ops->name, strerror(-n));
        return n;
    }
    int64_t t = lb_clock_ns_inline();
    *now = t;
    for (int i = 0; i < n; i++) {
        lb__io_unit *u = j->done[i];
        complete(j, w, u, t - u->t_start, st);
    }
    j->inflight -= n;
    return n;
}

/* ---- the submit/reap loop ------------------------------------------------------ */

/* Queue units until the depth, the batch or the time budget is reached;
 * I/Os the engine completes inline are accounted here.  Returns the number
 * queued for the next commit (in j->pend). */
static int fill_queue(lb_io_job *j, lb_worker *w, lb_io_counters *st, int64_t *now, int64_t t_end,
                      int *completed)
{
    int npend = 0;
    while ((j->retry || !j->fsync_pending) && j->inflight + npend < j->depth && npend < j->batch) {
        lb__io_unit *u = j->retry;
        if (u) {
            j->retry = NULL;
        } else {
            if (!can_issue(j))
                break;
            u = j->freel[--j->nfree];
            if (!next_io(j, u)) {
                j->freel[j->nfree++] = u;
                break;
            }
        }
        int rc = j->ops->queue(j->eng, u);
        if (rc == LB_IO_DONE) {
            int64_t t = lb_clock_ns_inline();
            u->t_start = *now;
            complete(j, w, u, t - *now, st);
            *now = t;
            (*completed)++;
            if (*now >= t_end)
                break;
            continue;
        }
        if (rc == LB_IO_BUSY) {
            j->retry = u;
            break;
        }
        if (rc != LB_IO_QUEUED) {
            j->freel[j->nfree++] = u;
            job_fail(j, rc < 0 ? rc : -EIO, "%s: queueing an I/O failed", j->ops->name);
            break;
        }
        j->pend[npend++] = u;
    }
    return npend;
}

/* Stamp the start time of the `npend` units just queued and commit.
 * Returns -errno when submitting failed, 1 when the caller should fill the
 * queue again before waiting (batches smaller than the depth), else 0. */
static int submit(lb_io_job *j, int npend, int64_t *now)
{
    int64_t t = lb_clock_ns_inline();
    for (int i = 0; i < npend; i++)
        j->pend[i]->t_start = t;
    j->inflight += npend;
    j->uncommitted += npend;
    int rc = j->ops->commit(j->eng);
    if (rc < 0 && rc != -EAGAIN)
        return job_fail(j, rc, "%s: submitting I/O failed: %s", j->ops->name, strerror(-rc));
    if (rc > 0)
        j->uncommitted -= rc;
    *now = t;
    return j->inflight < j->depth && npend == j->batch && !j->fsync_pending && can_issue(j) && !j->retry;
}

/* How many completions to wait for: reap_min, but never more than can
 * come (units not yet accepted by the engine do not complete), and one
 * when draining. */
static int reap_want(const lb_io_job *j)
{
    int want = j->p.reap_min > 1 ? j->p.reap_min : 1;
    int can = j->inflight - j->uncommitted;
    if (want > can)
        want = can > 0 ? can : 1;
    if (!can_issue(j) && !j->retry)
        want = 1;   /* draining: take what comes */
    return want;
}

int lb_io_job_step(lb_io_job *j, lb_worker *w)
{
    if (j->failed)
        return j->failed;
    if (!j->started) {
        int rc = lb_io_job_start(j);
        if (rc < 0)
            return rc;
    }
    lb_io_counters st;
    memset(&st, 0, sizeof(st));
    int64_t now = lb_clock_ns_inline();
    int64_t t_end = now + j->p.step_ns;
    int completed = 0;

    while (!j->failed) {
        if (j->fsync_pending && j->inflight == 0 && !j->retry) {
            uint64_t before = st.fsyncs;
            do_fsyncs(j, w, &st, &now, 1);
            completed += (int)(st.fsyncs - before);
        }
        int npend = fill_queue(j, w, &st, &now, t_end, &completed);
        if (npend > 0 || j->uncommitted > 0) {
            int rc = submit(j, npend, &now);
            if (rc < 0)
                break;
            if (rc > 0)
                continue;
        }
        if (j->inflight > 0) {
            int n = reap_some(j, w, reap_want(j), &st, &now);
            if (n < 0)
                break;
            completed += n;
        } else if (!j->fsync_pending && !j->retry && !can_issue(j)) {
            break;   /* nothing in flight and nothing left */
        }
        if (now >= t_end && completed > 0)
            break;
    }
    account(j, w, &st, now);
    if (j->failed)
        return j->failed;
    if (completed == 0 && j->inflight == 0 && !can_issue(j))
        flush_shared(j, now);   /* the job is over: its last partial window goes out */
    return completed;
}

int lb_io_job_finish(lb_io_job *j, lb_worker *w)
{
    if (!j->started)
        return j->failed;
    lb_io_counters st;
    memset(&st, 0, sizeof(st));
    int64_t now = lb_clock_ns_inline();
    while (j->inflight > 0 && !j->failed) {
        if (j->uncommitted > 0) {
            int rc = j->ops->commit(j->eng);
            if (rc > 0)
                j->uncommitted -= rc;
        }
        if (reap_some(j, w, 1, &st, &now) < 0)
            break;
    }
    account(j, w, &st, now);
    flush_shared(j, now);
    if (!j->failed && j->p.fsync_end && j->ndirty && !j->nodata) {
        lb_io_counters dummy;   /* the closing fsync is not part of the measurement */
        memset(&dummy, 0, sizeof(dummy));
        int synced = j->ndirty;
        do_fsyncs(j, NULL, &dummy, &now, 0);
        /* ... but sysbench counts it with the fsyncs of its report */
        if (j->p.sysbench_counts && w && !j->failed)
            lb_stats_bump(&lb_worker_stats(w)->io_fsyncs, (uint64_t)synced);
    }
    return j->failed;
}

const lb_io_counters *lb_io_job_counters(const lb_io_job *j) { return &j->total; }
const char *lb_io_job_error(const lb_io_job *j) { return j->err; }

void lb_io_job_free(lb_io_job *j)
{
    if (!j)
        return;
    if (j->eng) {
        /* A job abandoned after an error may still have I/O in flight: wait
         * for it before its buffers go back to the allocator. */
        while (j->inflight - j->uncommitted > 0) {
            int n = j->ops->reap(j->eng, 1, j->inflight - j->uncommitted, j->done);
            if (n <= 0)
                break;
            j->inflight -= n;
        }
        j->ops->cleanup(j->eng);
    }
    for (int i = 0; i < j->nfiles; i++) {
        close(j->files[i].fd);
        free(j->files[i].path);
    }
    free(j->files);
    if (j->ext)
        for (int i = 0; i < j->depth; i++) {
            free(j->ext[i].wbuf);
            free(j->ext[i].rbuf);
            free(j->ext[i].body_hash);
        }
    free(j->ext);
    free(j->units);
    free(j->freel);
    free(j->pend);
    free(j->done);
    free(j->dirty);
    lb_io_genmap_close(j->gmap);
    lb_hist_free(j->lat_r);
    lb_hist_free(j->lat_w);
    free(j);
}
