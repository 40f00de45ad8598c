/* kern — the hot loops of the CPU, memory and threading micro-benchmarks
 * (scenarios cpu, memory, threads, mutex: sysbench's built-in tests of the
 * same names).  Each event of those scenarios is one call here; what the
 * threads of a run share (a memory block, an array of mutexes) is an
 * lb_kern found by a key: the main state opens it, the workers look it up,
 * the main state closes it after the run (as lb_io_shared). */
#ifndef LB_KERN_H
#define LB_KERN_H

#include <stdint.h>

#include "rand.h"

/* FFI BEGIN */
typedef struct lb_kern lb_kern;

/* Operations of the memory kernel. */
enum { LB_KERN_MEM_NONE = 0, LB_KERN_MEM_READ = 1, LB_KERN_MEM_WRITE = 2 };

/* Open (or take another reference to) the shared state under `key`:
 * `nlocks` mutexes (padded to a cache line each when `padded`), `nbufs`
 * zeroed blocks of `buf_bytes` bytes each, page-aligned, from the HugeTLB
 * pool when `hugetlb` (rounded up to its page size).  NULL on failure,
 * with the reason in err (errlen bytes). */
lb_kern *lb_kern_open(const char *key, int nlocks, int padded, int nbufs, int64_t buf_bytes, int hugetlb,
                      char *err, int errlen);
lb_kern *lb_kern_lookup(const char *key);   /* no reference taken */
void lb_kern_close(lb_kern *k);

/* sysbench cpu's event: count the primes below `max` by trial division up
 * to the square root, in 64-bit integers.  Returns the count. */
uint64_t lb_kern_primes(uint32_t max);
/* The same divisions without the count: the cpu scenario's event. */
void lb_kern_cpu_event(uint32_t max);

/* sysbench memory's event: one pass over block `buf` of k, word by word
 * (size_t), in order or at uniformly random words (rnd), reading, writing
 * or touching nothing (op: LB_KERN_MEM_*). */
void lb_kern_memory(lb_kern *k, int buf, int op, int rnd, lb_rand *r);

/* sysbench threads' event: take the next mutex of k in turn (one counter
 * shared by the threads) and `yields` times lock it, yield the CPU, unlock. */
void lb_kern_threads(lb_kern *k, uint32_t yields);

/* sysbench mutex's event: `locks` times spin `loops` empty iterations, then
 * increment a shared counter under a mutex of k chosen at random. */
void lb_kern_mutex(lb_kern *k, uint32_t locks, uint32_t loops, lb_rand *r);
/* FFI END */

#endif
