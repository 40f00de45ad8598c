/* verify — block stamps: their format, their hashes, stamping a write and
 * checking a file against its stamps and the generation map.
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
 * With the generation map (genmap.h), a chunk whose header carries an
 * older generation than the map is a lost write; a header of another place
 * is a misplaced write; a failed checksum, or a stale chunk inside a write
 * whose other chunks are current, is a torn write. */
#ifndef LB_IO_VERIFY_H
#define LB_IO_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "genmap.h"
#include "lbench.h"

/* FFI BEGIN */
enum { LB_IO_HDR_SIZE = 64 };
/* Kinds of mismatched blocks found by verify. */
enum { LB_IO_BAD_LOST = 1,       /* acknowledged write not on disk: old generation or no header */
       LB_IO_BAD_TORN = 2,       /* checksum mismatch, or a multi-chunk write only partly present */
       LB_IO_BAD_MISPLACED = 3,  /* a valid block of another file or offset */
       LB_IO_BAD_NEWER = 4 };    /* generation newer than the map says (map not persisted) */

/* ---- verification ---- */
typedef struct lb_io_verify_result {
    uint64_t chunks;       /* chunks read */
    uint64_t ok;
    uint64_t lost, torn, misplaced, newer;
    uint64_t unverifiable; /* last written without stamps (--stamp=off) */
    uint64_t unwritten;    /* never written according to the map */
    int32_t nbad;          /* entries filled in the caller's array */
    int32_t pad;
} lb_io_verify_result;

typedef struct lb_io_bad_block {
    int32_t kind;          /* LB_IO_BAD_* */
    int32_t file;          /* where it was found */
    uint64_t offset;
    uint32_t expected_gen; /* from the map (low 16 bits) */
    uint32_t found_gen;    /* from the header (0: no header) */
    int32_t found_file;    /* header's file and offset (misplaced), -1: none */
    int32_t pad;
    uint64_t found_offset;
} lb_io_bad_block;

/* Read `path` (file number `file` of a set whose chunks are `vbs` bytes)
 * and check every chunk against its header and the map (NULL: check only
 * headers and checksums).  Counts go into *res (added); up to `maxbad`
 * mismatches into bad[] (res->nbad counts the filled entries).  0 or
 * -errno with the reason in err; -EINTR when *stop became non-zero (a
 * signal: lb_runtime_stop_flag; `stop` may be NULL), checked every
 * megabyte. */
int lb_io_verify_file(const char *path, int32_t file, uint64_t size, uint32_t vbs,
                      lb_io_genmap *map, int32_t direct, lb_io_verify_result *res,
                      lb_io_bad_block *bad, int32_t maxbad, const volatile int *stop, char *err, size_t errlen);
/* FFI END */

/* Hash of a chunk's body (the `n` bytes after its header; n a multiple of
 * 32), as stored in the header's body_hash. */
uint64_t lb__io_body_hash(const void *body, size_t n);

/* What a write's headers carry besides its place. */
typedef struct lb__io_stamp {
    uint32_t file;
    uint32_t generation;
    uint64_t write_id;           /* (tid << 40) | per-job write counter */
    const uint64_t *body_hash;   /* per chunk of buf, from lb__io_body_hash */
} lb__io_stamp;

/* Write the header of every `vbs` chunk of the `len` bytes of buf (len a
 * multiple of vbs), the write going to offset `off` of its file. */
void lb__io_stamp_write(void *buf, uint32_t len, uint32_t vbs, uint64_t off, const lb__io_stamp *s);

#endif
