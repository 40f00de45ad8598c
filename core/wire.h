/* wire — 64-bit words in little-endian byte order, whatever the host's:
 * what lbench-mpi's ranks exchange (packed histograms, lb_stats) reads the
 * same on every architecture of a job. */
#ifndef LB_WIRE_H
#define LB_WIRE_H

#include <stdint.h>

static inline void lb_wire_put64(void *buf, int64_t i, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + 8 * i;
    for (int k = 0; k < 8; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static inline uint64_t lb_wire_get64(const void *buf, int64_t i)
{
    const unsigned char *p = (const unsigned char *)buf + 8 * i;
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

#endif
