/* verify — block stamps and verification.  See verify.h for the format. */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

/* ---- hashing --------------------------------------------------------------- */

#define MAGIC 0x4f4948434e45424cULL   /* "LBENCHIO" little-endian */
#define K1 0x9E3779B185EBCA87ULL
#define K2 0xC2B2AE3D27D4EB4FULL
#define K3 0x165667B19E3779F9ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);   /* unaligned-safe; compiles to one load */
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

uint64_t lb__io_body_hash(const void *body, size_t n) { return hash_bytes(body, n, 0); }

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

/* ---- stamping ---------------------------------------------------------------- */

void lb__io_stamp_write(void *buf, uint32_t len, uint32_t vbs, uint64_t off, const lb__io_stamp *s)
{
    uint32_t n = len / vbs;
    for (uint32_t c = 0; c < n; c++) {
        /* Built and summed on the stack, then stored whole: the buffer's
         * line was last read by the device (another CPU of the host for a
         * virtual disk), so taking it back costs a cache miss; as plain
         * stores that miss drains from the store buffer while we go on,
         * whereas summing in place would wait for it. */
        blk_hdr h = {
            .magic = MAGIC,
            .offset = off + (uint64_t)c * vbs,
            .file = s->file,
            .generation = s->generation,
            .write_id = s->write_id,
            .part = c,
            .nparts = n,
            .vbs = vbs,
            .flags = 0,
            .body_hash = s->body_hash[c],
        };
        h.csum = hdr_csum(&h);
        memcpy((char *)buf + (size_t)c * vbs, &h, sizeof h);
    }
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
    if (have_map && (expected == 0 || expected == LB__IO_GEN_UNVERIFIABLE))
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
        uint16_t g = lb__io_genval(h->generation);
        if (g != expected)   /* compared modulo the wrap of the 16-bit generation */
            return (int16_t)(uint16_t)(g - expected) > 0 ? C_NEWER : C_STALE;
    }
    return C_OK;
}

/* One megabyte of a file being verified, its chunks and their classes. */
typedef struct vwin {
    const unsigned char *buf;
    const int *cls;
    size_t nc;                 /* chunks in buf */
    uint64_t off;              /* of buf[0] in the file */
    uint32_t vbs;
    int file;
    const uint16_t *map;       /* the file's first entry of the map, or NULL */
    uint64_t map_n;            /* entries of the map from there on */
} vwin;

static uint16_t expected_gen(const vwin *w, uint64_t ci)
{
    return w->map && ci < w->map_n ? w->map[ci] : 0;
}

/* A stale chunk is torn rather than lost when a neighbour holds the
 * current part of a write that spans it. */
static int stale_is_torn(const vwin *w, size_t c)
{
    if (c > 0 && w->cls[c - 1] == C_OK) {
        const blk_hdr *p = (const blk_hdr *)(w->buf + (c - 1) * w->vbs);
        if (p->part + 1 < p->nparts)
            return 1;
    }
    if (c + 1 < w->nc && w->cls[c + 1] == C_OK) {
        const blk_hdr *q = (const blk_hdr *)(w->buf + (c + 1) * w->vbs);
        return q->part > 0;
    }
    return 0;
}

/* Count the classified chunks of a window into res, listing the bad ones. */
static void tally(const vwin *w, lb_io_verify_result *res, lb_io_bad_block *bad, int maxbad)
{
    for (size_t c = 0; c < w->nc; c++) {
        uint64_t coff = w->off + c * w->vbs;
        uint16_t exp = expected_gen(w, coff / w->vbs);
        const blk_hdr *h = (const blk_hdr *)(w->buf + c * w->vbs);
        int kind = 0, has_hdr = 1;
        res->chunks++;
        switch (w->cls[c]) {
        case C_OK: res->ok++; break;
        case C_SKIP:
            if (exp == 0) res->unwritten++; else res->unverifiable++;
            break;
        case C_NOHDR: kind = LB_IO_BAD_LOST; has_hdr = 0; break;
        case C_BADHDR:
        case C_BADBODY: kind = LB_IO_BAD_TORN; break;
        case C_MISPLACED: kind = LB_IO_BAD_MISPLACED; break;
        case C_NEWER: kind = LB_IO_BAD_NEWER; break;
        case C_STALE: kind = stale_is_torn(w, c) ? LB_IO_BAD_TORN : LB_IO_BAD_LOST; break;
        }
        if (kind)
            add_bad(res, bad, maxbad, kind, w->file, coff, exp, h, has_hdr);
    }
}

/* Fill buf with `want` bytes at `off`: 0, or -errno with the reason. */
static int read_fully(int fd, const char *path, unsigned char *buf, size_t want, uint64_t off, char *err,
                      size_t errlen)
{
    size_t got = 0;
    while (got < want) {
        ssize_t n = pread(fd, buf + got, want - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            snprintf(err, errlen, "cannot read %s at offset %llu: %s", path,
                     (unsigned long long)(off + got), n < 0 ? strerror(e) : "unexpected end of file");
            return -e;
        }
        got += (size_t)n;
    }
    return 0;
}

static int open_for_verify(const char *path, int direct, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd < 0 && direct && errno == EINVAL)   /* no direct I/O here: read through the cache */
        fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
        return -e;
    }
    return fd;
}

int lb_io_verify_file(const char *path, int32_t file, uint64_t size, uint32_t vbs,
                      lb_io_genmap *map, int32_t direct, lb_io_verify_result *res,
                      lb_io_bad_block *bad, int32_t maxbad, const volatile int *stop, char *err, size_t errlen)
{
    if (vbs < 128 || vbs % 64) {
        snprintf(err, errlen, "bad verify chunk size %u", vbs);
        return -EINVAL;
    }
    int fd = open_for_verify(path, direct, err, errlen);
    if (fd < 0)
        return fd;
    /* Whole chunks of about a megabyte per read: large enough for the
     * device, small enough to notice a stop request quickly. */
    size_t win = (size_t)vbs * (1048576 / vbs > 0 ? 1048576 / vbs : 1);
    unsigned char *buf = lb__io_alloc_aligned(win);
    int *cls = calloc(win / vbs, sizeof(int));
    if (!buf || !cls) {
        free(buf);
        free(cls);
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    uint64_t base = (uint64_t)file * (size / vbs);
    const uint16_t *m = lb_io_genmap_data(map);
    uint64_t mn = lb_io_genmap_count(map);
    vwin w = { .buf = buf, .cls = cls, .vbs = vbs, .file = file,
               .map = m && base < mn ? m + base : NULL, .map_n = m && base < mn ? mn - base : 0 };
    int rc = 0;
    for (uint64_t off = 0; off + vbs <= size; off += win) {
        if (stop && *stop) {
            snprintf(err, errlen, "interrupted");
            rc = -EINTR;
            break;
        }
        size_t want = size - off < win ? (size_t)(size - off) / vbs * vbs : win;
        if ((rc = read_fully(fd, path, buf, want, off, err, errlen)) < 0)
            break;
        w.nc = want / vbs;
        w.off = off;
        for (size_t c = 0; c < w.nc; c++)
            cls[c] = classify(buf + c * vbs, vbs, file, off + c * vbs, expected_gen(&w, off / vbs + c), m != NULL);
        tally(&w, res, bad, maxbad);
    }
    free(buf);
    free(cls);
    close(fd);
    return rc;
}
