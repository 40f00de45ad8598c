/* series — data points every N I/Os, shared by the workers of a run.
 *
 * The write-cliff curve of an SSD shows up against I/Os done, not against
 * time, so fileio's --report-every-ios asks for one point per N completed
 * reads + writes of all threads together.  A series is found by a key (the
 * target path): the main state opens it, the workers' jobs look it up and
 * flush their counts and latency histograms into it every few I/Os; the
 * reporter takes the points out.  Jobs flush under one mutex per series,
 * a few times per N I/Os, so the hot path of a completion never takes it.
 *
 * The public names are lb_io_shared_* (the series is shared by the jobs);
 * lb__io_series_* is the side the job runner (io.c) uses. */
#ifndef LB_IO_SERIES_H
#define LB_IO_SERIES_H

#include <stdint.h>

#include "diskstats.h"
#include "hist.h"

/* FFI BEGIN */
/* Counts of I/O over a span: a job's totals, or a window of a series. */
typedef struct lb_io_counters {
    uint64_t reads, writes, fsyncs;
    uint64_t bytes_read, bytes_written;
    uint64_t lat_read_ns, lat_write_ns;   /* sums of latencies */
} lb_io_counters;

typedef struct lb_io_shared lb_io_shared;

/* ---- data points every N I/Os, shared by the workers of a run ---- */
/* Latency percentiles of a point, in this order in read_lat_ms/write_lat_ms. */
enum { LB_IO_PCT_P50 = 0, LB_IO_PCT_P95 = 1, LB_IO_PCT_P99 = 2, LB_IO_PCT_P99_9 = 3, LB_IO_PCT_MAX = 4,
       LB_IO_NPCT = 5 };
typedef struct lb_io_point {
    uint64_t ios;                 /* cumulative reads + writes at this point (at or past
                                     a multiple of every_ios: jobs flush in batches) */
    double time_s;                /* since the first I/O of the series */
    double secs;                  /* length of the window since the previous point */
    uint64_t reads, writes, fsyncs;           /* in the window */
    uint64_t bytes_read, bytes_written;       /* in the window */
    double read_lat_avg_ms, write_lat_avg_ms; /* in the window (0: none) */
    /* p50, p95, p99, p99.9 and max (LB_IO_PCT_*) of the latencies of the
     * window's reads / writes, in ms, from a histogram (within its 0.05 %
     * error; max exact); all 0 when the window has none.  Points emitted
     * together by one flush share the window, its averages and these. */
    double read_lat_ms[5], write_lat_ms[5];
    /* What reached the watched block device in the window (all 0 when no
     * device is watched): completed reads and writes after the kernel's
     * merging, bytes (read-ahead and the filesystem's own writes
     * included), milliseconds spent in reads + writes and busy. */
    uint64_t dev_reads, dev_writes, dev_bytes_read, dev_bytes_written;
    uint64_t dev_wait_ms, dev_busy_ms;
} lb_io_point;

/* Registry by key (the target path): the main state opens a series, the
 * workers look it up.  Open with the same key returns the same series
 * (refcounted); every_ios must be > 0. */
lb_io_shared *lb_io_shared_open(const char *key, uint64_t every_ios);
lb_io_shared *lb_io_shared_lookup(const char *key);   /* no reference taken */
void lb_io_shared_close(lb_io_shared *sh);
int lb_io_shared_npoints(lb_io_shared *sh);
int lb_io_shared_point(lb_io_shared *sh, int i, lb_io_point *out);
/* Points not yet handed out for printing: sets *first to the first one's
 * index and returns how many (0: none); each point is handed out once. */
int lb_io_shared_take_unprinted(lb_io_shared *sh, int32_t *first);
/* Record block device `name`'s counters (/proc/diskstats) in every point
 * from now on, beside lbench's own: 0, or -1 when it cannot be read (the
 * points then carry none).  The base is taken again at the first I/O. */
int lb_io_shared_watch_device(lb_io_shared *sh, const char *name);
/* 1 when the points carry a device's counters. */
int lb_io_shared_device_watched(lb_io_shared *sh);
/* FFI END */

/* Start the series' clock at `now` unless a job already did (the first
 * job to start wins, so time_s counts from the first I/O of the run). */
void lb__io_series_start(lb_io_shared *sh, int64_t now);
/* How many I/Os a job gathers before it flushes: a sixteenth of the
 * point spacing, so a point overshoots its multiple by little. */
uint64_t lb__io_series_flush_hint(const lb_io_shared *sh);
/* Add a job's window of counts `d` and its read/write latency histograms
 * (hr, hw: NULL or the job's own; the caller resets them afterwards), and
 * emit one point per multiple of every_ios crossed. */
void lb__io_series_flush(lb_io_shared *sh, const lb_io_counters *d, const lb_hist *hr, const lb_hist *hw,
                         int64_t now);

#endif
