/* io — the engine-independent core: registry, jobs, the submit/reap loop,
 * accounting, payload stamping, generation map, data points, verification,
 * steady state.  See io.h for the contracts.
 *
 * Block format (when stamping).  The set is cut into chunks of `vbs` bytes
 * (4 KiB by default); every written chunk starts with a 64-byte header:
 *
 *     magic, offset in its file, file number, generation, write id,
 *     part / nparts of the write, vbs, body hash, header checksum
 *
 * The body (the rest of the chunk) is random data that stays the same for
 * the life of an I/O unit's write buffer, so its hash is computed once per
 * unit and chunk position at start-up; per write only the header is filled
 * and checksummed (about 20 ns per chunk).  verify recomputes both hashes
 * from what is on disk: a flipped byte anywhere fails one of them.
 *
 * The generation map keeps, per chunk, the generation of the last write
 * that completed (was acknowledged).  A chunk whose header carries an older
 * generation is a lost write; a header of another place is a misplaced
 * write; a failed checksum, or a stale chunk inside a write whose other
 * chunks are current, is a torn write. */
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "clock.h"
#include "hist.h"
#include "stats.h"

/* ---- registry ------------------------------------------------------------ */

static const lb__io_engine_ops *const engines[] = {
    &lb__io_sync_ops,
    &lb__io_libaio_ops,
    &lb__io_uring_ops,
    &lb__io_mmap_ops,
    &lb__io_null_ops,
};
enum { NENGINES = sizeof(engines) / sizeof(engines[0]) };

static int ops_complete(const lb__io_engine_ops *o)
{
    return o->name && o->init && o->cleanup && o->queue && o->commit && o->reap;
}

static const lb__io_engine_ops *engine_find(const char *name)
{
    if (!name)
        return NULL;
    if (!strcmp(name, "psync"))
        name = "sync";
    if (!strcmp(name, "uring"))
        name = "io_uring";
    for (int i = 0; i < NENGINES; i++)
        if (!strcmp(engines[i]->name, name))
            return ops_complete(engines[i]) ? engines[i] : NULL;
    return NULL;
}

int lb_io_engine_count(void) { return NENGINES; }

const char *lb_io_engine_name(int i)
{
    return i >= 0 && i < NENGINES ? engines[i]->name : NULL;
}

int lb_io_engine_probe(const char *name, char *err, size_t errlen)
{
    const lb__io_engine_ops *o = engine_find(name);
    if (!o) {
        snprintf(err, errlen, "unknown I/O engine '%s' (sync, libaio, io_uring, mmap, null)", name ? name : "");
        return -EINVAL;
    }
    return o->probe ? o->probe(err, errlen) : 0;
}

/* ---- hashing --------------------------------------------------------------- */

#define MAGIC 0x4f4948434e45424cULL   /* "LBENCHIO" little-endian */
#define K1 0x9E3779B185EBCA87ULL
#define K2 0xC2B2AE3D27D4EB4FULL
#define K3 0x165667B19E3779F9ULL
#define GEN_UNVERIFIABLE 0xFFFFu

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t fmix(uint64_t h)
{
    h ^= h >> 33; h *= K2;
    h ^= h >> 29; h *= K3;
    h ^= h >> 32;
    return h;
}

/* Four independent multiply-rotate lanes over 8-byte words (n: multiple
 * of 32), folded and finalised; any change of a byte changes the result
 * with probability 1 - 2^-64 for practical purposes. */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = p;
    uint64_t a = seed + K1, c = seed ^ K2, d = seed + K3, e = seed - K1;
    for (size_t i = 0; i + 32 <= n; i += 32) {
        a = rotl64(a + load64(b + i) * K2, 31) * K1;
        c = rotl64(c + load64(b + i + 8) * K2, 31) * K1;
        d = rotl64(d + load64(b + i + 16) * K2, 31) * K1;
        e = rotl64(e + load64(b + i + 24) * K2, 31) * K1;
    }
    return fmix(rotl64(a, 1) + rotl64(c, 7) + rotl64(d, 12) + rotl64(e, 18) + n);
}

typedef struct blk_hdr {
    uint64_t magic;
    uint64_t offset;      /* of this chunk, in its file */
    uint32_t file;
    uint32_t generation;
    uint64_t write_id;    /* (tid << 40) | per-job write counter */
    uint32_t part, nparts;
    uint32_t vbs;
    uint32_t flags;
    uint64_t body_hash;   /* of bytes [64, vbs) */
    uint64_t csum;        /* of bytes [0, 56) */
} blk_hdr;
_Static_assert(sizeof(blk_hdr) == LB_IO_HDR_SIZE, "block header is 64 bytes");

static inline uint64_t hdr_csum(const blk_hdr *h)
{
    const unsigned char *b = (const unsigned char *)h;
    uint64_t x = K3;
    for (int i = 0; i < 56; i += 8)
        x = rotl64(x ^ (load64(b + i) * K1), 27) * K2 + K3;
    return fmix(x);
}

static inline uint16_t genval(uint32_t gen)
{
    return (uint16_t)((gen - 1) % 65534u + 1u);   /* 1..65534: 0 unwritten, 0xFFFF unverifiable */
}

/* ---- generation map --------------------------------------------------------- */

struct lb_io_genmap {
    uint16_t *map;
    uint64_t n;
    size_t bytes;
};

lb_io_genmap *lb_io_genmap_open(const char *path, uint64_t nchunks, int create, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open the generation map %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t bytes = (size_t)nchunks * sizeof(uint16_t);
    struct stat st;
    if (fstat(fd, &st) < 0 || (!create && (uint64_t)st.st_size < bytes)) {
        snprintf(err, errlen, "generation map %s is shorter than the file set (%llu chunks)", path,
                 (unsigned long long)nchunks);
        close(fd);
        return NULL;
    }
    if (create && ftruncate(fd, (off_t)bytes) < 0) {
        snprintf(err, errlen, "cannot size the generation map %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    lb_io_genmap *g = calloc(1, sizeof(*g));
    void *p = bytes ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : NULL;
    close(fd);
    if (!g || p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the generation map %s: %s", path, g ? strerror(errno) : "out of memory");
        if (p && p != MAP_FAILED)
            munmap(p, bytes);
        free(g);
        return NULL;
    }
    g->map = p;
    g->n = nchunks;
    g->bytes = bytes;
    return g;
}

uint16_t *lb_io_genmap_data(lb_io_genmap *g) { return g ? g->map : NULL; }
uint64_t lb_io_genmap_count(const lb_io_genmap *g) { return g ? g->n : 0; }

void lb_io_genmap_close(lb_io_genmap *g)
{
    if (!g)
        return;
    if (g->map)
        munmap(g->map, g->bytes);
    free(g);
}

/* ---- shared data points ------------------------------------------------------ */

struct lb_io_shared {
    char *key;
    int refs;
    lb_io_shared *next;
    uint64_t every;
    uint64_t flush_hint;            /* jobs flush at least this often (I/Os) */
    _Atomic uint64_t ios, reads, writes, fsyncs, br, bw, lat_r, lat_w;
    _Atomic uint64_t next_at;
    _Atomic int64_t t0;
    pthread_mutex_t mu;
    lb_io_point *pts;
    int n, cap;
    int printed;
    uint64_t last[8];               /* counters at the previous point */
    int64_t last_t;
    lb_hist *win_r, *win_w;         /* latencies of the reads / writes since the previous point (under mu) */
};

_Static_assert(LB_IO_NPCT == 5, "lb_io_point's read_lat_ms/write_lat_ms hold LB_IO_NPCT values");
static const double point_pcts[LB_IO_NPCT] = { 50, 95, 99, 99.9, 100 };

static void shared_free(lb_io_shared *s)
{
    lb_hist_free(s->win_r);
    lb_hist_free(s->win_w);
    free(s->pts);
    free(s->key);
    free(s);
}

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static lb_io_shared *reg_head;

lb_io_shared *lb_io_shared_open(const char *key, uint64_t every_ios)
{
    if (!key || every_ios == 0)
        return NULL;
    pthread_mutex_lock(&reg_mu);
    lb_io_shared *s;
    lb_hist_config hc;
    for (s = reg_head; s; s = s->next)
        if (!strcmp(s->key, key))
            break;
    if (s) {
        s->refs++;
    } else if ((s = calloc(1, sizeof(*s))) && (s->key = strdup(key)) && lb_hist_config_default(&hc) == 0 &&
               (s->win_r = lb_hist_new(&hc)) && (s->win_w = lb_hist_new(&hc))) {
        s->refs = 1;
        s->every = every_ios;
        s->flush_hint = every_ios / 16 ? every_ios / 16 : 1;
        atomic_store(&s->next_at, every_ios);
        pthread_mutex_init(&s->mu, NULL);
        s->next = reg_head;
        reg_head = s;
    } else {
        if (s)
            shared_free(s);
        s = NULL;
    }
    pthread_mutex_unlock(&reg_mu);
    return s;
}

lb_io_shared *lb_io_shared_lookup(const char *key)
{
    pthread_mutex_lock(&reg_mu);
    lb_io_shared *s;
    for (s = reg_head; s; s = s->next)
        if (!strcmp(s->key, key))
            break;
    pthread_mutex_unlock(&reg_mu);
    return s;
}

void lb_io_shared_close(lb_io_shared *sh)
{
    if (!sh)
        return;
    pthread_mutex_lock(&reg_mu);
    if (--sh->refs > 0) {
        pthread_mutex_unlock(&reg_mu);
        return;
    }
    for (lb_io_shared **pp = &reg_head; *pp; pp = &(*pp)->next)
        if (*pp == sh) {
            *pp = sh->next;
            break;
        }
    pthread_mutex_unlock(&reg_mu);
    pthread_mutex_destroy(&sh->mu);
    shared_free(sh);
}

int lb_io_shared_npoints(lb_io_shared *sh)
{
    if (!sh)
        return 0;
    pthread_mutex_lock(&sh->mu);
    int n = sh->n;
    pthread_mutex_unlock(&sh->mu);
    return n;
}

int lb_io_shared_point(lb_io_shared *sh, int i, lb_io_point *out)
{
    int rc = -EINVAL;
    pthread_mutex_lock(&sh->mu);
    if (i >= 0 && i < sh->n) {
        *out = sh->pts[i];
        rc = 0;
    }
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

int lb_io_shared_take_unprinted(lb_io_shared *sh, int32_t *first)
{
    if (!sh)
        return 0;
    pthread_mutex_lock(&sh->mu);
    *first = sh->printed;
    int n = sh->n - sh->printed;
    sh->printed = sh->n;
    pthread_mutex_unlock(&sh->mu);
    return n;
}

static void shared_start(lb_io_shared *sh, int64_t now)
{
    int64_t zero = 0;
    atomic_compare_exchange_strong(&sh->t0, &zero, now);
}

/* Window histogram -> the point's percentiles in ms (all 0 when empty).
 * Out-of-range samples (a latency < 0 or > ~73 min) read as 0 / highest. */
static void window_pcts(const lb_hist *h, double *out_ms)
{
    int64_t v[LB_IO_NPCT];
    lb_hist_percentiles(h, point_pcts, LB_IO_NPCT, v);
    for (int i = 0; i < LB_IO_NPCT; i++) {
        if (v[i] == INT64_MIN)
            v[i] = 0;
        else if (v[i] == INT64_MAX)
            v[i] = lb_hist_cfg(h)->highest;
        out_ms[i] = (double)v[i] / 1e6;
    }
}

/* Add a job's window of counts and its read/write latency histograms (hr,
 * hw: NULL or the job's own, reset by the caller afterwards); emit one
 * point per multiple of `every` crossed.  Several crossings in one flush
 * share the window evenly (counts) or as a whole (averages, percentiles).
 * Everything happens under mu, so the counts, averages and percentiles of
 * a point describe the same I/Os; a job flushes every flush_hint I/Os, and
 * the merge walks only the slots between its window's min and max. */
static void shared_flush(lb_io_shared *sh, const lb_io_counters *d, const lb_hist *hr, const lb_hist *hw,
                         int64_t now)
{
    uint64_t n = d->reads + d->writes;
    pthread_mutex_lock(&sh->mu);
    if (hr && d->reads)
        lb_hist_merge(sh->win_r, hr);
    if (hw && d->writes)
        lb_hist_merge(sh->win_w, hw);
    atomic_fetch_add_explicit(&sh->reads, d->reads, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->writes, d->writes, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->fsyncs, d->fsyncs, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->br, d->bytes_read, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->bw, d->bytes_written, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->lat_r, d->lat_read_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&sh->lat_w, d->lat_write_ns, memory_order_relaxed);
    uint64_t total = atomic_fetch_add_explicit(&sh->ios, n, memory_order_acq_rel) + n;
    if (total < atomic_load_explicit(&sh->next_at, memory_order_acquire)) {
        pthread_mutex_unlock(&sh->mu);
        return;
    }
    uint64_t cur[8] = {
        atomic_load(&sh->ios), atomic_load(&sh->reads), atomic_load(&sh->writes), atomic_load(&sh->fsyncs),
        atomic_load(&sh->br), atomic_load(&sh->bw), atomic_load(&sh->lat_r), atomic_load(&sh->lat_w),
    };
    uint64_t next = atomic_load(&sh->next_at);
    int k = 0;
    while (cur[0] >= next + (uint64_t)k * sh->every)
        k++;
    if (k > 0 && sh->n + k > sh->cap) {
        int cap = sh->cap ? sh->cap * 2 : 64;
        while (cap < sh->n + k)
            cap *= 2;
        lb_io_point *p = realloc(sh->pts, sizeof(*p) * (size_t)cap);
        if (!p) {
            k = 0;   /* out of memory: drop these points, keep counting */
            atomic_store(&sh->next_at, next + sh->every);
        } else {
            sh->pts = p;
            sh->cap = cap;
        }
    }
    if (k > 0) {
        int64_t t0 = atomic_load(&sh->t0);
        int64_t last_t = sh->last_t ? sh->last_t : t0;
        double win = (double)(now - last_t) / 1e9 / k;
        double rp[LB_IO_NPCT], wp[LB_IO_NPCT];
        window_pcts(sh->win_r, rp);
        window_pcts(sh->win_w, wp);
        for (int i = 0; i < k; i++) {
            lb_io_point *p = &sh->pts[sh->n++];
            memset(p, 0, sizeof(*p));
            p->ios = next + (uint64_t)i * sh->every;
            p->secs = win;
            p->time_s = (double)(last_t - t0) / 1e9 + win * (i + 1);
            p->reads = (cur[1] - sh->last[1]) / (uint64_t)k;
            p->writes = (cur[2] - sh->last[2]) / (uint64_t)k;
            p->fsyncs = (cur[3] - sh->last[3]) / (uint64_t)k;
            p->bytes_read = (cur[4] - sh->last[4]) / (uint64_t)k;
            p->bytes_written = (cur[5] - sh->last[5]) / (uint64_t)k;
            uint64_t dr = cur[1] - sh->last[1], dw = cur[2] - sh->last[2];
            p->read_lat_avg_ms = dr ? (double)(cur[6] - sh->last[6]) / (double)dr / 1e6 : 0;
            p->write_lat_avg_ms = dw ? (double)(cur[7] - sh->last[7]) / (double)dw / 1e6 : 0;
            memcpy(p->read_lat_ms, rp, sizeof(rp));
            memcpy(p->write_lat_ms, wp, sizeof(wp));
        }
        memcpy(sh->last, cur, sizeof(cur));
        sh->last_t = now;
        atomic_store(&sh->next_at, next + (uint64_t)k * sh->every);
        lb_hist_reset(sh->win_r);
        lb_hist_reset(sh->win_w);
    }
    pthread_mutex_unlock(&sh->mu);
}

/* ---- jobs ------------------------------------------------------------------- */

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
    uint64_t fsize, set_size;
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

    lb_rand rand;
    double bs_cum[LB_IO_MAX_BS];
    uint64_t per_file[LB_IO_MAX_BS], nblk[LB_IO_MAX_BS];
    lb_zipf zipf[LB_IO_MAX_BS];
    uint64_t scatter[LB_IO_MAX_BS];   /* multiplier coprime with nblk, 0: none */

    uint64_t pos, rs, re;      /* sequential position and region */
    int passes_done;
    int seq_done;
    uint64_t issued;           /* reads + writes issued */
    uint64_t reqs;             /* requests since the last periodic fsync */
    uint8_t *dirty;            /* per file: written since its last fsync */
    int ndirty;
    int fsync_pending;
    uint64_t write_ctr;

    lb_io_genmap *gmap;
    uint64_t chunks_per_file;
    uint16_t gval;
    int stamp, nodata;

    lb_io_shared *sh;
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

lb_io_job *lb_io_job_new(const char *engine, const lb_io_params *p, char *err, size_t errlen)
{
    const lb__io_engine_ops *ops = engine_find(engine);
    if (!ops) {
        snprintf(err, errlen, "unknown I/O engine '%s' (sync, libaio, io_uring, mmap, null)", engine ? engine : "");
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
    double sum = 0;
    uint32_t maxbs = 0;
    for (int i = 0; i < p->nbs; i++) {
        if (p->bs[i] == 0 || p->bs_pct[i] < 0) {
            snprintf(err, errlen, "block sizes must be > 0 with non-negative shares");
            return NULL;
        }
        if (p->vbs && (p->bs[i] % p->vbs) && (stamp || p->compress_pct)) {
            snprintf(err, errlen, "block size %u is not a multiple of the verify chunk size %u "
                     "(prepare the set with a smaller --file-block-size, or use --stamp=off)", p->bs[i], p->vbs);
            return NULL;
        }
        sum += p->bs_pct[i];
        if (p->bs[i] > maxbs)
            maxbs = p->bs[i];
    }
    if (sum <= 0) {
        snprintf(err, errlen, "block size shares sum to 0");
        return NULL;
    }
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
    j->gval = genval(p->generation ? p->generation : 1);
    double c = 0;
    for (int i = 0; i < p->nbs; i++) {
        c += p->bs_pct[i] / sum * 100.0;
        j->bs_cum[i] = c;
    }
    j->bs_cum[p->nbs - 1] = 100.0;
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
    if (j->nodata)
        oflags &= ~(O_DIRECT | O_SYNC | O_DSYNC);
    int fd = open(path, oflags, 0644);
    if (fd < 0) {
        int e = errno;
        if (e == EINVAL && (oflags & O_DIRECT))
            return job_fail(j, -e, "cannot open %s with O_DIRECT: the filesystem does not support direct I/O", path);
        return job_fail(j, -e, "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
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
    if (j->started)   /* otherwise lb_io_job_start allocates (and can fail) */
        window_hists(j);
}

static void *alloc_aligned(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 4096) != 0)
        return NULL;
    return p;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int lb_io_job_start(lb_io_job *j)
{
    if (j->started)
        return 0;
    if (j->nfiles == 0)
        return job_fail(j, -EINVAL, "no files");
    j->set_size = j->fsize * (uint64_t)j->nfiles;
    for (int i = 0; i < j->p.nbs; i++) {
        uint32_t bs = j->p.bs[i];
        j->per_file[i] = j->fsize / bs;
        j->nblk[i] = j->per_file[i] * (uint64_t)j->nfiles;
        if (j->nblk[i] == 0)
            return job_fail(j, -EINVAL, "block size %u is larger than a file (%llu bytes)", bs,
                            (unsigned long long)j->fsize);
        if (j->p.dist == LB_IO_DIST_ZIPF &&
            lb_zipf_init(&j->zipf[i], (double)j->nblk[i], j->p.dist_arg > 0 ? j->p.dist_arg : 1.2) != 0)
            return job_fail(j, -EINVAL, "bad zipf parameter %g", j->p.dist_arg);
        /* Hot ranks of zipf/pareto are scattered over the set by
         * k -> k * m mod n, a bijection when m is coprime with n. */
        uint64_t m = 2654435761ULL % j->nblk[i];
        if (m == 0)
            m = 1;
        while (gcd64(m, j->nblk[i]) != 1)
            m++;
        j->scatter[i] = m;
    }
    j->rs = j->p.region_start;
    j->re = j->p.region_end ? j->p.region_end : j->set_size;
    if (j->re > j->set_size)
        j->re = j->set_size;
    if (j->rs >= j->re)
        return job_fail(j, -EINVAL, "empty region [%llu, %llu)", (unsigned long long)j->rs,
                        (unsigned long long)j->re);
    j->pos = j->rs;
    if (j->stamp || j->gmap)
        j->chunks_per_file = j->fsize / j->p.vbs;
    if (window_hists(j) < 0)
        return j->failed;

    int d = j->depth;
    j->units = calloc((size_t)d, sizeof(*j->units));
    j->ext = calloc((size_t)d, sizeof(*j->ext));
    j->freel = calloc((size_t)d, sizeof(*j->freel));
    j->pend = calloc((size_t)d, sizeof(*j->pend));
    j->done = calloc((size_t)d, sizeof(*j->done));
    j->dirty = calloc((size_t)j->nfiles, 1);
    if (!j->units || !j->ext || !j->freel || !j->pend || !j->done || !j->dirty)
        return job_fail(j, -ENOMEM, "out of memory");
    size_t nchunk = j->p.vbs ? j->maxbs / j->p.vbs : 0;
    for (int i = 0; i < d; i++) {
        unit_ext *x = &j->ext[i];
        x->wbuf = alloc_aligned(j->maxbs);
        x->rbuf = alloc_aligned(j->maxbs);
        if (!x->wbuf || !x->rbuf)
            return job_fail(j, -ENOMEM, "out of memory for %d buffers of %u bytes", d, j->maxbs);
        /* Incompressible payload by default: random bytes, never zeros. */
        lb_rand_bytes(&j->rand, x->wbuf, j->maxbs);
        memset(x->rbuf, 0, j->maxbs);
        if (j->p.compress_pct > 0) {
            uint32_t cs = j->p.vbs ? j->p.vbs : 4096;
            for (uint32_t off = 0; off + cs <= j->maxbs; off += cs) {
                uint32_t body = cs - (j->stamp ? LB_IO_HDR_SIZE : 0);
                uint32_t z = (uint32_t)((uint64_t)body * (uint32_t)(j->p.compress_pct > 100 ? 100 : j->p.compress_pct) / 100);
                memset((char *)x->wbuf + off + cs - z, 0, z);
            }
        }
        if (j->stamp) {
            x->body_hash = calloc(nchunk ? nchunk : 1, sizeof(uint64_t));
            if (!x->body_hash)
                return job_fail(j, -ENOMEM, "out of memory");
            for (size_t c = 0; c < nchunk; c++)
                x->body_hash[c] = hash_bytes((char *)x->wbuf + c * j->p.vbs + LB_IO_HDR_SIZE,
                                             j->p.vbs - LB_IO_HDR_SIZE, 0);
        }
        lb__io_unit *u = &j->units[i];
        u->idx = (uint32_t)i;
        j->freel[j->nfree++] = u;
    }
    char e[LB_IO_ERRLEN];
    e[0] = 0;
    j->eng = j->ops->init(j->files, j->nfiles, d, e, sizeof(e));
    if (!j->eng)
        return job_fail(j, -EIO, "%s", e[0] ? e : "engine initialisation failed");
    j->started = 1;
    if (j->sh)
        shared_start(j->sh, lb_clock_ns_inline());
    return 0;
}

/* ---- choosing the next I/O ------------------------------------------------ */

static inline int pick_bs(lb_io_job *j)
{
    if (j->p.nbs == 1)
        return 0;
    double u = lb_rand_double(&j->rand) * 100.0;
    for (int i = 0; i < j->p.nbs - 1; i++)
        if (u < j->bs_cum[i])
            return i;
    return j->p.nbs - 1;
}

static inline uint64_t mulmod(uint64_t a, uint64_t b, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)a * b) % n);
}

/* Random block number in [0, nblk) for block-size index `b`. */
static inline uint64_t pick_block(lb_io_job *j, int b)
{
    uint64_t n = j->nblk[b];
    uint64_t k;
    switch (j->p.dist) {
    case LB_IO_DIST_ZIPF:
        k = (uint64_t)lb_rand_zipf(&j->rand, &j->zipf[b]) - 1;
        return mulmod(k, j->scatter[b], n);
    case LB_IO_DIST_PARETO:
        k = (uint64_t)lb_rand_pareto(&j->rand, 0, (double)(n - 1), j->p.dist_arg > 0 ? j->p.dist_arg : 0.2);
        return mulmod(k, j->scatter[b], n);
    case LB_IO_DIST_NORMAL: {
        double sigma = (j->p.dist_arg > 0 ? j->p.dist_arg : 10) / 100.0 * (double)n;
        for (;;) {
            double u1 = lb_rand_double(&j->rand), u2 = lb_rand_double(&j->rand);
            double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
            double x = (double)n / 2.0 + z * sigma;
            if (x >= 0 && x < (double)n)
                return (uint64_t)x;
        }
    }
    default:
        return (uint64_t)lb_rand_uniform(&j->rand, 0, (double)(n - 1));
    }
}

/* Sequential: the next block of `bs` bytes; 0 when the passes are done. */
static int next_seq(lb_io_job *j, uint32_t bs, int *file, uint64_t *off)
{
    for (int guard = 0; guard < 3; guard++) {
        if (j->pos + bs > j->re) {
            j->passes_done++;
            if (j->p.passes > 0 && j->passes_done >= j->p.passes) {
                j->seq_done = 1;
                return 0;
            }
            j->pos = j->rs;
        }
        uint64_t f = j->pos / j->fsize, o = j->pos % j->fsize;
        if (o + bs > j->fsize) {
            j->pos = (f + 1) * j->fsize;   /* the rest of this file is too short */
            continue;
        }
        *file = (int)f;
        *off = o;
        j->pos += bs;
        return 1;
    }
    j->seq_done = 1;
    return 0;
}

static inline int can_issue(const lb_io_job *j)
{
    return !j->failed && !j->seq_done && !(j->p.max_ios && j->issued >= j->p.max_ios);
}

static void stamp_write(lb_io_job *j, lb__io_unit *u)
{
    unit_ext *x = &j->ext[u->idx];
    uint32_t vbs = j->p.vbs, n = u->len / vbs;
    uint64_t wid = ((uint64_t)(uint32_t)j->p.tid << 40) | (++j->write_ctr & ((1ULL << 40) - 1));
    for (uint32_t c = 0; c < n; c++) {
        /* Built and summed on the stack, then stored whole: the buffer's
         * line was last read by the device (another CPU of the host for a
         * virtual disk), so taking it back costs a cache miss; as plain
         * stores that miss drains from the store buffer while we go on,
         * whereas summing in place would wait for it. */
        blk_hdr h = {
            .magic = MAGIC,
            .offset = u->off + (uint64_t)c * vbs,
            .file = (uint32_t)u->file,
            .generation = j->p.generation,
            .write_id = wid,
            .part = c,
            .nparts = n,
            .vbs = vbs,
            .flags = 0,
            .body_hash = x->body_hash[c],
        };
        h.csum = hdr_csum(&h);
        memcpy((char *)x->wbuf + (size_t)c * vbs, &h, sizeof h);
    }
}

/* Fill `u` with the next read or write; 0 when nothing is left to issue. */
static int next_io(lb_io_job *j, lb__io_unit *u)
{
    int b = pick_bs(j);
    uint32_t bs = j->p.bs[b];
    int file;
    uint64_t off;
    if (j->p.pattern == LB_IO_SEQ) {
        if (!next_seq(j, bs, &file, &off))
            return 0;
    } else {
        uint64_t k = pick_block(j, b);
        uint64_t pf = j->per_file[b];
        file = (int)(k / pf);
        off = (k % pf) * bs;
    }
    int is_read = j->p.read_pct >= 100 ? 1 : j->p.read_pct <= 0 ? 0 : lb_rand_double(&j->rand) * 100.0 < j->p.read_pct;
    unit_ext *x = &j->ext[u->idx];
    u->op = is_read ? LB_IO_READ : LB_IO_WRITE;
    u->file = file;
    u->fd = j->files[file].fd;
    u->off = off;
    u->len = bs;
    u->buf = is_read ? x->rbuf : x->wbuf;
    if (!is_read) {
        if (j->stamp)
            stamp_write(j, u);
        if (j->gmap)   /* mark_written stores here at completion: fetch it while the write is in flight */
            __builtin_prefetch(&j->gmap->map[(uint64_t)file * j->chunks_per_file + off / j->p.vbs], 1, 1);
        if (!j->dirty[file]) {
            j->dirty[file] = 1;
            j->ndirty++;
        }
        if (j->p.fsync_all)
            j->fsync_pending = 1;
    }
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
        shared_flush(j->sh, &j->acc, j->lat_r, j->lat_w, now);
    memset(&j->acc, 0, sizeof(j->acc));
    j->acc_ios = 0;
    lb_hist_reset(j->lat_r);
    lb_hist_reset(j->lat_w);
}

static inline void mark_written(lb_io_job *j, const lb__io_unit *u)
{
    if (!j->gmap)
        return;
    uint16_t v = j->stamp ? j->gval : GEN_UNVERIFIABLE;
    /* Every chunk the write touches (unstamped writes need not be aligned). */
    uint64_t c = (uint64_t)u->file * j->chunks_per_file + u->off / j->p.vbs;
    uint64_t n = (u->off + u->len - 1) / j->p.vbs - u->off / j->p.vbs + 1;
    uint16_t *m = j->gmap->map;
    /* Relaxed atomic stores: threads may complete writes to the same chunk. */
    for (uint64_t i = 0; i < n && c + i < j->gmap->n; i++)
        __atomic_store_n(&m[c + i], v, __ATOMIC_RELAXED);
}

static void complete(lb_io_job *j, lb_worker *w, lb__io_unit *u, int64_t lat, lb_io_counters *st)
{
    int op = u->op;
    if (op == LB_IO_READ || op == LB_IO_WRITE) {
        if (u->res != (int64_t)u->len) {
            const char *what = op == LB_IO_READ ? "read" : "write";
            if (u->res < 0)
                job_fail(j, (int)u->res, "%s of %u bytes at offset %llu of %s failed: %s", what, u->len,
                         (unsigned long long)u->off, j->files[u->file].path, strerror((int)-u->res));
            else
                job_fail(j, -EIO, "short %s at offset %llu of %s: %lld of %u bytes", what,
                         (unsigned long long)u->off, j->files[u->file].path, (long long)u->res, u->len);
        } else if (op == LB_IO_READ) {
            st->reads++;
            st->bytes_read += u->len;
            st->lat_read_ns += (uint64_t)lat;
            if (j->lat_r)
                lb_hist_record(j->lat_r, lat);
            if (w)
                lb_worker_record(w, j->p.type_read, lat);
        } else {
            st->writes++;
            st->bytes_written += u->len;
            st->lat_write_ns += (uint64_t)lat;
            if (j->lat_w)
                lb_hist_record(j->lat_w, lat);
            mark_written(j, u);
            if (w)
                lb_worker_record(w, j->p.type_write, lat);
        }
    } else {
        if (u->res < 0)
            job_fail(j, (int)u->res, "fsync of %s failed: %s", j->files[u->file].path, strerror((int)-u->res));
        else {
            st->fsyncs++;
            if (w)
                lb_worker_record(w, j->p.type_fsync, lat);
        }
    }
    j->freel[j->nfree++] = u;
}

/* Drained queue: fsync every file written since its last fsync. */
static void do_fsyncs(lb_io_job *j, lb_worker *w, lb_io_counters *st, int64_t *now, int record)
{
    for (int f = 0; f < j->nfiles && !j->failed; f++) {
        if (!j->dirty[f])
            continue;
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
                job_fail(j, (int)u->res, "fsync of %s failed: %s", j->files[f].path, strerror((int)-u->res));
            j->freel[j->nfree++] = u;
        }
        j->dirty[f] = 0;
    }
    j->ndirty = 0;
    j->fsync_pending = 0;
}

static void account(lb_io_job *j, lb_worker *w, const lb_io_counters *st, int64_t now)
{
    lb_io_counters *t = &j->total;
    t->reads += st->reads;
    t->writes += st->writes;
    t->fsyncs += st->fsyncs;
    t->bytes_read += st->bytes_read;
    t->bytes_written += st->bytes_written;
    t->lat_read_ns += st->lat_read_ns;
    t->lat_write_ns += st->lat_write_ns;
    if (w) {
        lb_stats *s = lb_worker_stats(w);
        if (st->reads) lb_stats_bump(&s->io_reads, st->reads);
        if (st->writes) lb_stats_bump(&s->io_writes, st->writes);
        if (st->fsyncs) lb_stats_bump(&s->io_fsyncs, st->fsyncs);
        if (st->bytes_read) lb_stats_bump(&s->io_bytes_read, st->bytes_read);
        if (st->bytes_written) lb_stats_bump(&s->io_bytes_written, st->bytes_written);
    }
    if (j->sh) {
        lb_io_counters *a = &j->acc;
        a->reads += st->reads;
        a->writes += st->writes;
        a->fsyncs += st->fsyncs;
        a->bytes_read += st->bytes_read;
        a->bytes_written += st->bytes_written;
        a->lat_read_ns += st->lat_read_ns;
        a->lat_write_ns += st->lat_write_ns;
        j->acc_ios += st->reads + st->writes;
        if (j->acc_ios >= j->sh->flush_hint)
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

int lb_io_job_step(lb_io_job *j, lb_worker *w)
{
    if (w)
        lb_ev_skip(w);
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
    const lb__io_engine_ops *ops = j->ops;

    while (!j->failed) {
        if (w)
            lb_worker_poll(w);
        if (j->fsync_pending && j->inflight == 0 && !j->retry) {
            uint64_t before = st.fsyncs;
            do_fsyncs(j, w, &st, &now, 1);
            completed += (int)(st.fsyncs - before);
        }
        /* Fill the queue. */
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
            int rc = ops->queue(j->eng, u);
            if (rc == LB_IO_DONE) {
                int64_t t = lb_clock_ns_inline();
                u->t_start = now;
                complete(j, w, u, t - now, &st);
                now = t;
                completed++;
                if (now >= t_end)
                    break;
                continue;
            }
            if (rc == LB_IO_BUSY) {
                j->retry = u;
                break;
            }
            if (rc != LB_IO_QUEUED) {
                j->freel[j->nfree++] = u;
                job_fail(j, rc < 0 ? rc : -EIO, "%s: queueing an I/O failed", ops->name);
                break;
            }
            j->pend[npend++] = u;
        }
        if (npend > 0 || j->uncommitted > 0) {
            int64_t t = lb_clock_ns_inline();
            for (int i = 0; i < npend; i++)
                j->pend[i]->t_start = t;
            j->inflight += npend;
            j->uncommitted += npend;
            int rc = ops->commit(j->eng);
            if (rc < 0 && rc != -EAGAIN) {
                job_fail(j, rc, "%s: submitting I/O failed: %s", ops->name, strerror(-rc));
                break;
            }
            if (rc > 0)
                j->uncommitted -= rc;
            now = t;
            /* Batches smaller than the depth: fill the queue before waiting. */
            if (j->inflight < j->depth && npend == j->batch && !j->fsync_pending && can_issue(j) && !j->retry)
                continue;
        }
        if (j->inflight > 0) {
            /* Wait for reap_min completions (never more than can come:
             * units not yet accepted by the engine do not complete). */
            int want = j->p.reap_min > 1 ? j->p.reap_min : 1;
            int can = j->inflight - j->uncommitted;
            if (want > can)
                want = can > 0 ? can : 1;
            if (!can_issue(j) && !j->retry)
                want = 1;   /* draining: take what comes */
            int n = reap_some(j, w, want, &st, &now);
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
        flush_shared(j, now);
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
        lb_io_counters dummy;
        memset(&dummy, 0, sizeof(dummy));
        do_fsyncs(j, NULL, &dummy, &now, 0);
    }
    return j->failed;
}

const lb_io_counters *lb_io_job_counters(const lb_io_job *j) { return &j->total; }
uint64_t lb_io_job_set_size(const lb_io_job *j) { return j->fsize * (uint64_t)j->nfiles; }
uint64_t lb_io_job_position(const lb_io_job *j) { return j->pos; }
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

/* ---- verification ---------------------------------------------------------- */

static void add_bad(lb_io_verify_result *res, lb_io_bad_block *bad, int maxbad, int kind, int file,
                    uint64_t off, uint16_t expected, const blk_hdr *h, int has_hdr)
{
    switch (kind) {
    case LB_IO_BAD_LOST: res->lost++; break;
    case LB_IO_BAD_TORN: res->torn++; break;
    case LB_IO_BAD_MISPLACED: res->misplaced++; break;
    default: res->newer++; break;
    }
    if (!bad || res->nbad >= maxbad)
        return;
    lb_io_bad_block *b = &bad[res->nbad++];
    memset(b, 0, sizeof(*b));
    b->kind = kind;
    b->file = file;
    b->offset = off;
    b->expected_gen = expected;
    b->found_gen = has_hdr ? h->generation : 0;
    b->found_file = has_hdr ? (int32_t)h->file : -1;
    b->found_offset = has_hdr ? h->offset : 0;
}

/* Classification of one chunk before neighbour checks. */
enum { C_OK, C_NOHDR, C_BADHDR, C_MISPLACED, C_BADBODY, C_STALE, C_NEWER, C_SKIP };

static int classify(const unsigned char *p, uint32_t vbs, int file, uint64_t off, uint16_t expected, int have_map)
{
    const blk_hdr *h = (const blk_hdr *)p;
    if (have_map && (expected == 0 || expected == GEN_UNVERIFIABLE))
        return C_SKIP;
    if (h->magic != MAGIC)
        return C_NOHDR;
    if (hdr_csum(h) != h->csum || h->vbs != vbs)
        return C_BADHDR;
    if (h->file != (uint32_t)file || h->offset != off)
        return C_MISPLACED;
    if (hash_bytes(p + LB_IO_HDR_SIZE, vbs - LB_IO_HDR_SIZE, 0) != h->body_hash)
        return C_BADBODY;
    if (have_map) {
        uint16_t g = genval(h->generation);
        if (g != expected)
            return (int16_t)(uint16_t)(g - expected) > 0 ? C_NEWER : C_STALE;
    }
    return C_OK;
}

int lb_io_verify_file(const char *path, int32_t file, uint64_t size, uint32_t vbs,
                      lb_io_genmap *map, int32_t direct, lb_io_verify_result *res,
                      lb_io_bad_block *bad, int32_t maxbad, char *err, size_t errlen)
{
    if (vbs < 128 || vbs % 64) {
        snprintf(err, errlen, "bad verify chunk size %u", vbs);
        return -EINVAL;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd < 0 && direct && errno == EINVAL)
        fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return -e;
    }
    size_t win = (size_t)vbs * (1048576 / vbs > 0 ? 1048576 / vbs : 1);
    unsigned char *buf = alloc_aligned(win);
    int *cls = calloc(win / vbs, sizeof(int));
    if (!buf || !cls) {
        free(buf);
        free(cls);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    uint64_t nch = size / vbs;
    uint64_t base = (uint64_t)file * nch;
    const uint16_t *m = map ? map->map : NULL;
    int rc = 0;
    for (uint64_t off = 0; off + vbs <= size; off += win) {
        size_t want = size - off < win ? (size_t)(size - off) / vbs * vbs : win;
        size_t got = 0;
        while (got < want) {
            ssize_t n = pread(fd, buf + got, want - got, (off_t)(off + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                int e = n < 0 ? errno : EIO;
                snprintf(err, errlen, "cannot read %s at offset %llu: %s", path,
                         (unsigned long long)(off + got), n < 0 ? strerror(e) : "unexpected end of file");
                rc = -e;
                goto out;
            }
            got += (size_t)n;
        }
        size_t nc = want / vbs;
        for (size_t c = 0; c < nc; c++) {
            uint64_t ci = off / vbs + c;
            uint16_t exp = m && base + ci < map->n ? m[base + ci] : 0;
            cls[c] = classify(buf + c * vbs, vbs, file, off + c * vbs, exp, m != NULL);
        }
        for (size_t c = 0; c < nc; c++) {
            uint64_t coff = off + c * vbs;
            uint64_t ci = coff / vbs;
            uint16_t exp = m && base + ci < map->n ? m[base + ci] : 0;
            const blk_hdr *h = (const blk_hdr *)(buf + c * vbs);
            res->chunks++;
            switch (cls[c]) {
            case C_OK: res->ok++; break;
            case C_SKIP:
                if (exp == 0) res->unwritten++; else res->unverifiable++;
                break;
            case C_NOHDR: add_bad(res, bad, maxbad, LB_IO_BAD_LOST, file, coff, exp, h, 0); break;
            case C_BADHDR:
            case C_BADBODY: add_bad(res, bad, maxbad, LB_IO_BAD_TORN, file, coff, exp, h, 1); break;
            case C_MISPLACED: add_bad(res, bad, maxbad, LB_IO_BAD_MISPLACED, file, coff, exp, h, 1); break;
            case C_NEWER: add_bad(res, bad, maxbad, LB_IO_BAD_NEWER, file, coff, exp, h, 1); break;
            case C_STALE: {
                /* Stale, but a neighbour holds the current part of a write
                 * that spans this chunk: the write is torn, not lost. */
                int torn = 0;
                if (c > 0 && cls[c - 1] == C_OK) {
                    const blk_hdr *p = (const blk_hdr *)(buf + (c - 1) * vbs);
                    torn = p->part + 1 < p->nparts;
                }
                if (!torn && c + 1 < nc && cls[c + 1] == C_OK) {
                    const blk_hdr *q = (const blk_hdr *)(buf + (c + 1) * vbs);
                    torn = q->part > 0;
                }
                add_bad(res, bad, maxbad, torn ? LB_IO_BAD_TORN : LB_IO_BAD_LOST, file, coff, exp, h, 1);
                break;
            }
            }
        }
    }
out:
    free(buf);
    free(cls);
    close(fd);
    return rc;
}

/* ---- filesystem facts ---------------------------------------------------------- */

int lb_io_space_of(const char *path, lb_io_space *out)
{
    memset(out, 0, sizeof(*out));
    struct stat st;
    if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        uint64_t bytes = 0;
        int rc = ioctl(fd, BLKGETSIZE64, &bytes);
        int e = errno;
        close(fd);
        if (rc < 0)
            return -e;
        out->total = out->avail = bytes;
        out->is_blockdev = 1;
        return 0;
    }
    struct statvfs vs;
    if (statvfs(path, &vs) < 0)
        return -errno;
    out->total = (uint64_t)vs.f_blocks * vs.f_frsize;
    out->avail = (uint64_t)vs.f_bavail * vs.f_frsize;
    return 0;
}

int lb_io_isatty(int fd) { return isatty(fd); }

int lb_io_invalidate(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    /* POSIX_FADV_DONTNEED only starts writeback of dirty pages and keeps
     * them; sync first.  EROFS/EINVAL: nothing can be dirty there. */
    int rc = fdatasync(fd) < 0 && errno != EROFS && errno != EINVAL ? -errno : 0;
    if (rc == 0)
        rc = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc;
}

int lb_io_path_kind(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR ? LB_IO_PATH_NONE : -errno;
    if (S_ISREG(st.st_mode)) return LB_IO_PATH_FILE;
    if (S_ISDIR(st.st_mode)) return LB_IO_PATH_DIR;
    if (S_ISBLK(st.st_mode)) return LB_IO_PATH_BLOCKDEV;
    return LB_IO_PATH_OTHER;
}

int64_t lb_io_path_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    if (S_ISBLK(st.st_mode)) {
        lb_io_space sp;
        int rc = lb_io_space_of(path, &sp);
        return rc < 0 ? rc : (int64_t)sp.total;
    }
    return (int64_t)st.st_size;
}

int lb_io_mkdir_p(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -errno;
            buf[i] = c;
        }
    }
    return lb_io_path_kind(path) == LB_IO_PATH_DIR ? 0 : -ENOTDIR;
}

int lb_io_dir_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* ---- steady state ---------------------------------------------------------- */

int lb_io_steady_state(const double *y, int32_t n, int32_t window, double range_limit_pct,
                       double slope_limit_pct, lb_io_steady *out)
{
    memset(out, 0, sizeof(*out));
    if (window < 2)
        window = 2;
    out->window = window;
    if (!y || n < window)
        return 0;
    const double *v = y + (n - window);
    double sx = 0, sy = 0, sxx = 0, sxy = 0, mn = v[0], mx = v[0];
    for (int i = 0; i < window; i++) {
        double x = i;
        sx += x; sy += v[i]; sxx += x * x; sxy += x * v[i];
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    double avg = sy / window;
    double slope = (window * sxy - sx * sy) / (window * sxx - sx * sx);
    out->avg = avg;
    out->min = mn;
    out->max = mx;
    out->slope = slope;
    if (avg <= 0)
        return 0;
    out->range_pct = (mx - mn) / avg * 100.0;
    out->excursion_pct = fabs(slope) * (window - 1) / avg * 100.0;
    out->steady = out->range_pct <= range_limit_pct && out->excursion_pct <= slope_limit_pct;
    return out->steady;
}
