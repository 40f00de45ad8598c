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
/* Cuts of a run's time into periods beyond its report grid (run.h). */
enum { LB_MAX_CUTS = 64 };

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
    uint64_t busy_ns;      /* wall time with an event in flight (worker.c): sysbench's "execution time" in thread mode */
    uint64_t io_reads, io_writes, io_fsyncs;
    uint64_t io_bytes_read, io_bytes_written;
    uint64_t not_started;  /* --rate: intended starts before the deadline not begun by it */
    uint64_t pad0;
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
/* dst = a - b, counter by counter (code slots matched by code): what
 * happened between b and its later state a (an interval of one rank). */
void lb_stats_sub(lb_stats *dst, const lb_stats *a, const lb_stats *b);
/* An lb_stats on the wire between processes (lbench-mpi): its 64-bit
 * words in order, little-endian (an error code as one signed word),
 * whatever the hosts' byte order.  lb_stats_from_wire: -EINVAL when `len`
 * is not lb_stats_wire_size() (another build). */
int64_t lb_stats_wire_size(void);
void lb_stats_to_wire(const lb_stats *s, void *out);
int lb_stats_from_wire(lb_stats *s, const void *in, int64_t len);
/* FFI END */

/* The histograms of one worker, by period of completion.
 *
 * The run's time is cut into periods at known instants (report ticks, the
 * warm-up end, phase boundaries: lb_run_next_cut), and every event counts
 * in the period in which it completed, whatever it did while it ran.  The
 * worker decides: when an event completes at or after the next cut, it
 * closes its period (copies its counters as they stand into at_end[],
 * publishes `sealed`) and records into the next period's buffer.  The
 * reporter merges a period once it is sealed.  A worker still inside one
 * long event (a blocking call, a database wait) has sealed nothing; the
 * reporter then closes its period itself (run.c): it makes sure no record
 * is in progress (`seq` odd while one is, with an asymmetric barrier on
 * the reporter's side, so the worker's side costs two plain stores), after
 * which any record reads a clock past the cut and goes to a later period.
 * The reporter never waits for an event to end.
 *
 * LB_STATS_RING periods are buffered: the worker runs up to RING - 1
 * periods ahead of the reporter.  Further ahead (a reporter stalled for
 * that long) it stays in the last free period (`held`) until the reporter
 * catches up; those events then count a period or more early. */
enum { LB_STATS_RING = 3 };

/* Where the periods end: every grid_ns from t0 (0: no grid) and at each
 * of at[] (sorted, absolute); a grid instant within 1 ms of one of at[] is
 * left out (the period would be too short to report).  Fixed at the start
 * barrier, read-only after. */
typedef struct lb_cuts {
    int64_t t0;
    int64_t grid_ns;
    int n;
    int64_t at[LB_MAX_CUTS];
} lb_cuts;

/* The first cut after `after` (INT64_MAX: none). */
int64_t lb_cuts_next(const lb_cuts *c, int64_t after);

typedef struct lb_stats_hists {
    const lb_hist_config *cfg;
    lb_hist *lat[LB_STATS_RING];
    lb_hist *queue[LB_STATS_RING];                  /* NULL when not paced */
    lb_hist *type_lat[LB_STATS_RING][LB_MAX_TYPES]; /* NULL until the type is used */
    const lb_stats *live;                           /* the worker's own counters */
    const lb_cuts *cuts;                            /* the run's */
    /* Worker side. */
    uint64_t cur;                  /* period it records into */
    int buf;                       /* cur % LB_STATS_RING */
    int held_w;                    /* held (the worker's own copy) */
    uint64_t slot;                 /* period its last record completed in (> cur when held) */
    int64_t next_cut;              /* end of period `slot` (INT64_MAX: none) */
    int fence;                     /* no asymmetric barrier: a full fence per record */
    _Atomic int held;
    _Atomic uint64_t seq;          /* odd while a record is in progress */
    _Atomic uint64_t sealed;       /* periods < sealed are final */
    lb_stats at_end[LB_STATS_RING];/* counters at the end of period p: at_end[p % RING] */
    /* Reporter side. */
    _Atomic uint64_t taken;        /* periods < taken are merged and their buffers cleared */
    lb_stats collected;            /* the counters as of the last collection */
} lb_stats_hists;

/* Allocate the buffers (queue-time ones when `paced`); -ENOMEM on
 * failure.  `live` is the owner's counter block. */
int lb_stats_hists_init(lb_stats_hists *sh, const lb_hist_config *cfg, const lb_stats *live, int paced,
                        const lb_cuts *cuts);
void lb_stats_hists_free(lb_stats_hists *sh);

/* Worker side: the type histogram of the current buffer, allocated on
 * first use.  NULL only when out of memory (the sample is then dropped). */
lb_hist *lb_stats_type_hist(lb_stats_hists *sh, int type);

/* Worker side: a record begins.  Before the clock is read: the reporter's
 * barrier then orders that read after its own (run.c, seal_idle). */
static inline void lb_stats_rec_enter(lb_stats_hists *sh)
{
    uint64_t s = atomic_load_explicit(&sh->seq, memory_order_relaxed);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer has no fences: the same order by a seq_cst write. */
    atomic_exchange_explicit(&sh->seq, s + 1, memory_order_seq_cst);
#else
    atomic_store_explicit(&sh->seq, s + 1, memory_order_relaxed);
    if (sh->fence)
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    /* The counter stores of the record stay after the odd mark (the
     * reporter's seqlock read of the live counters). */
    atomic_thread_fence(memory_order_release);
#endif
}

static inline void lb_stats_rec_exit(lb_stats_hists *sh)
{
    uint64_t s = atomic_load_explicit(&sh->seq, memory_order_relaxed);
    atomic_store_explicit(&sh->seq, s + 1, memory_order_release);
}

/* Worker side, inside a record: an event completed at `t` crossed the
 * next cut (or the worker is held): close periods up to t's. */
void lb_stats_cross(lb_stats_hists *sh, int64_t t);

static inline void lb_stats_at(lb_stats_hists *sh, int64_t t)
{
    if (__builtin_expect(t >= sh->next_cut || sh->held_w, 0))
        lb_stats_cross(sh, t);
}

/* Worker side, at the start barrier (t0 known): period 0 begins. */
void lb_stats_hists_start(lb_stats_hists *sh);

/* Reporter side: whether the asymmetric barrier is available (else every
 * record pays a full fence: sh->fence), and the barrier itself: after it,
 * a record not yet seen in progress reads the clock after the caller did. */
int lb_stats_barrier_available(void);
void lb_stats_barrier(void);

/* Reporter side: merge worker set `sh`'s periods before `upto` into
 * `dst` (only those of a worker held at one: see above) and set
 * sh->collected to its counters as of that cut.  `quiescent`: the worker
 * has ended (everything it recorded is final; upto UINT64_MAX takes all).
 * *barrier_done: the caller's flag, so that one barrier serves every
 * worker of a collection.  Called at or after the cut that ends period
 * upto - 1.  0 or -ENOMEM. */
int lb_stats_collect(lb_stats_hists *sh, lb_snapshot *dst, uint64_t upto, int quiescent, int *barrier_done);

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

/* Reporter side: merge period p's buffer into `dst` and clear it. */
int lb_stats_snapshot_take(lb_snapshot *dst, lb_stats_hists *sh, uint64_t p);

#endif
