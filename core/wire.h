/* wire — 64-bit words in little-endian byte order, whatever the host's:
 * what lbench-mpi's ranks exchange (packed histograms, lb_stats) reads the
 * same on every architecture of a job. */
#ifndef LB_WIRE_H
#define LB_WIRE_H

#include <stdint.h>
#include <string.h>

/* On a little-endian host the wire form is the memory form: one unaligned
 * load or store (memcpy) per word.  GCC left the portable byte loop as
 * eight loads and shifts per word, and rank 0 reads every word of every
 * rank's histograms (hundreds of megabytes at the end of a job of a
 * thousand ranks: contrib/merge_bench.lua). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LB_WIRE_NATIVE 1
#else
#define LB_WIRE_NATIVE 0
#endif

static inline void lb_wire_put64(void *buf, int64_t i, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + 8 * i;
    if (LB_WIRE_NATIVE) {
        memcpy(p, &v, sizeof v);
        return;
    }
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static inline uint64_t lb_wire_get64(const void *buf, int64_t i)
{
    const unsigned char *p = (const unsigned char *)buf + 8 * i;
    uint64_t v = 0;
    if (LB_WIRE_NATIVE) {
        memcpy(&v, p, sizeof v);
        return v;
    }
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

#endif
