/* genmap — the generation map: one 16-bit generation per chunk of a set.
 *
 * Each entry holds the generation of the last write to that chunk that
 * completed (was acknowledged), so verify can tell a lost write (the disk
 * holds an older generation) from a current one.  The map is a file mapped
 * MAP_SHARED: workers store into it without locks (relaxed atomics, see
 * io.c's mark_written) and the kernel writes it back with the page cache,
 * so it outlives the process that wrote it.
 *
 * Entry values: 0 never written, 1..65534 a generation (wrapping),
 * LB__IO_GEN_UNVERIFIABLE written without stamps (nothing to check). */
#ifndef LB_IO_GENMAP_H
#define LB_IO_GENMAP_H

#include <stddef.h>
#include <stdint.h>

/* FFI BEGIN */
typedef struct lb_io_genmap lb_io_genmap;
/* ---- the generation map: one 16-bit generation per chunk of the set ---- */
/* Open (create: make it, zero-filled) a map of `nchunks` entries. */
lb_io_genmap *lb_io_genmap_open(const char *path, uint64_t nchunks, int create, char *err, size_t errlen);
/* The entries (NULL for an empty map) and their number. */
uint16_t *lb_io_genmap_data(lb_io_genmap *g);
uint64_t lb_io_genmap_count(const lb_io_genmap *g);
void lb_io_genmap_close(lb_io_genmap *g);
/* FFI END */

#define LB__IO_GEN_UNVERIFIABLE 0xFFFFu

/* The entry value of generation `gen` (>= 1): 1..65534, skipping the two
 * reserved values so that a wrapped generation never reads as "unwritten"
 * or "unverifiable". */
static inline uint16_t lb__io_genval(uint32_t gen)
{
    return (uint16_t)((gen - 1) % 65534u + 1u);
}

#endif
