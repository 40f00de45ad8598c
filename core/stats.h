/* stats — per-worker counters, per-type accounting and interval snapshots.
 *
 * Every worker owns one lb_stats block and one lb_stats_hists set.  Only
 * that worker writes them (no locks, no read-modify-write atomics on the
 * hot path).  Counters are cumulative and monotonic, so the reporter reads
 * them at any time with relaxed loads and takes differences.  Histograms
 * cannot be read while they are written, so each worker records into one of
 * two buffers and flips to the other when the reporter asks (see
 * lb_stats_hists); the reporter then merges the released buffer.
 *
 * Memory: a default latency histogram is lb_hist_size() bytes (about
 * 270 KiB); each worker holds two for latency, two for queue time, and two
 * per event type it actually uses (allocated on first use). */
#ifndef LB_STATS_H
#define LB_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "hist.h"

/* FFI BEGIN */
enum { LB_MAX_TYPES = 64 };

/* Counters of a layer above the core, kept in each worker's block so that
 * they travel with it (flip copies, merges, reports) without the core
 * knowing what they mean: the SQL layer keeps its lb_db_stats here (db.h).
 * `sums` are added field by field.  `codes` count occurrences per code
 * (an error code): the single writer claims slots in order with
 * lb_stats_count_code (count 0 = free; the last slot has code -1 and
 * counts every code that found no slot of its own), and merges match
 * slots by code. */
enum { LB_STATS_EXT_SUMS = 16, LB_STATS_EXT_CODES = 32 };

typedef struct lb_code_count {
    int32_t code;
    uint32_t pad;
    uint64_t count;
} lb_code_count;

typedef struct lb_stats_ext {
    uint64_t sums[LB_STATS_EXT_SUMS];
    lb_code_count codes[LB_STATS_EXT_CODES];
} lb_stats_ext;

/* Counts kept per named event type (e.g. TPC-C's new_order). */
typedef struct lb_type_counts {
    uint64_t events;    /* completed events of this type */
    uint64_t restarts;  /* restarts after an ignored error (deadlock, ...) */
    uint64_t rollbacks; /* events the scenario marked as rolled back */
    uint64_t pad;
} lb_type_counts;

/* Cumulative counters of one worker.  Single writer (the worker);
 * readers use lb_stats_add() which loads each field relaxed. */
typedef struct lb_stats {
    uint64_t events;       /* completed, recorded events */
    uint64_t restarts;     /* event restarts after ignored errors */
    uint64_t failures;     /* events that raised a run-stopping error */
    uint64_t busy_ns;      /* sum of event latencies: sysbench's "execution time" */
    uint64_t io_reads, io_writes, io_fsyncs;
    uint64_t io_bytes_read, io_bytes_written;
    lb_stats_ext ext;      /* a layer's counters (db/: lb_db_stats) */
    lb_type_counts types[LB_MAX_TYPES];
} lb_stats;

/* A merged view of all workers at one moment. */
typedef struct lb_snapshot {
    int64_t t_ns;                       /* when it was taken (monotonic) */
    int threads_running;                /* workers that ran during the interval */
    lb_stats sum;                       /* cumulative counters over all workers */
    lb_hist *lat;                       /* latency of the events in this snapshot */
    lb_hist *queue;                     /* queue time (rate mode) */
    lb_hist *type_lat[LB_MAX_TYPES];    /* per type; NULL when unused */
} lb_snapshot;

int lb_stats_snapshot_init(lb_snapshot *s, const lb_hist_config *cfg);
void lb_stats_snapshot_free(lb_snapshot *s);
/* Clear the histograms (counters are overwritten by each collection). */
void lb_stats_snapshot_reset_hists(lb_snapshot *s);
/* Merge the histograms of `src` into `dst`; -ENOMEM on failure. */
int lb_stats_snapshot_merge_hists(lb_snapshot *dst, const lb_snapshot *src);
/* Add the counters of `src` into `dst` (relaxed loads of src: src may be
 * written concurrently by its worker).  Also the merge of other ranks'
 * counters (cluster.h). */
void lb_stats_add(lb_stats *dst, const lb_stats *src);
/* FFI END */

/* The double-buffered histograms of one worker. */
typedef struct lb_stats_hists {
    const lb_hist_config *cfg;
    lb_hist *lat[2];
    lb_hist *queue[2];
    lb_hist *type_lat[2][LB_MAX_TYPES];  /* NULL until the type is used */
    int cur;                             /* buffer the worker writes */
    _Atomic uint64_t swap_req;           /* written by the reporter */
    _Atomic uint64_t swap_ack;           /* written by the worker */
    /* The worker's counters at each flip, copied by the worker before it
     * acknowledges (slot ack & 1): the reporter pairs them with the buffer
     * released by that flip, so an interval's event count always equals
     * its histogram count (counters read live would include events
     * recorded into the new buffer after the flip).  Two slots, so the
     * worker can acknowledge a newer request while the reporter still
     * reads the older copy. */
    const lb_stats *live;                /* the worker's own counters */
    lb_stats at_swap[2];
    uint64_t taken;                      /* reporter only: last ack whose buffer it merged */
} lb_stats_hists;

/* Allocate the latency and queue buffers; -ENOMEM on failure.  `live`
 * (may be NULL) is the owner's counter block, copied at every flip. */
int lb_stats_hists_init(lb_stats_hists *sh, const lb_hist_config *cfg, const lb_stats *live);
void lb_stats_hists_free(lb_stats_hists *sh);

/* Worker side: the type histogram of the current buffer, allocated on
 * first use.  NULL only when out of memory (the sample is then dropped). */
lb_hist *lb_stats_type_hist(lb_stats_hists *sh, int type);

/* Worker side: flip buffers when the reporter asked for it.  Cheap when
 * nothing is pending (one relaxed load). */
static inline void lb_stats_hists_poll(lb_stats_hists *sh)
{
    /* Acquire pairs with the reporter's release store of swap_req: its
     * reset of the buffer we flip to happens before our next record into
     * it.  (A plain load on x86.) */
    uint64_t req = atomic_load_explicit(&sh->swap_req, memory_order_acquire);
    if (req != atomic_load_explicit(&sh->swap_ack, memory_order_relaxed)) {
        sh->cur ^= 1;
        if (sh->live)
            sh->at_swap[req & 1] = *sh->live;
        /* Release: everything recorded into the old buffer is visible to
         * the reporter once it sees the acknowledgement. */
        atomic_store_explicit(&sh->swap_ack, req, memory_order_release);
    }
}

/* Bump a single-writer counter: a relaxed store of the new value is enough
 * for the reporter's relaxed loads and costs a plain add on x86 (no locked
 * read-modify-write). */
static inline void lb_stats_bump(uint64_t *p, uint64_t by)
{
    __atomic_store_n(p, *p + by, __ATOMIC_RELAXED);
}


/* Writer side of a block's code table: mark the overflow slot of a zeroed
 * block (also done on first overflow), and count one occurrence of `code`. */
void lb_stats_ext_init(lb_stats_ext *e);
void lb_stats_count_code(lb_stats_ext *e, int32_t code);

/* Merge buffer `b` of a worker's set into `dst` and clear that buffer. */
int lb_stats_snapshot_take(lb_snapshot *dst, lb_stats_hists *sh, int b);

#endif
