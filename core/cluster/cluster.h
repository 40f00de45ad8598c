/* cluster — the multi-process layer: several lbench processes (ranks) that
 * run one benchmark together.  A neutral interface: an ops table with a
 * single-process default here in the core, and an MPI implementation
 * (core/cluster_mpi.c) compiled only into the lbench-mpi binary, which
 * registers it at start.  liblbench and plain lbench never link MPI.
 *
 * Only the main thread (the main Lua state, the reporter) calls these;
 * workers never do.  Every collective must be called by every rank in the
 * same order, as MPI requires.  Errors are negative errno values. */
#ifndef LB_CLUSTER_H
#define LB_CLUSTER_H

#include <stdint.h>

typedef struct lb_cluster_ops {
    const char *name;                       /* "single", "mpi" */
    int (*rank)(void);
    int (*size)(void);
    const char *(*library)(void);           /* the MPI library's version line */
    /* Collective: every rank contributes *v, every rank gets the minimum. */
    int (*min)(int64_t *v);
    int (*max)(int64_t *v);
    /* Collective: len bytes from root to every rank. */
    int (*bcast)(void *buf, int64_t len, int root);
    /* Collective gather of variable-length byte strings to root.  On root,
     * lens[size] receives each rank's length first (lens_step), then out
     * (sum of lens bytes) receives them in rank order (data_step).  A rank
     * that does not send within timeout_ms fails root with -ETIMEDOUT and
     * missing[r] = 1 for each such rank. */
    int (*gather_lens)(int64_t len, int64_t *lens, char *missing, int timeout_ms);
    int (*gather_data)(const void *buf, int64_t len, void *out, const int64_t *lens, char *missing, int timeout_ms);
    /* Point to point, non-blocking for the caller: tell every other rank to
     * stop (a failure here), and ask whether a rank asked us (its rank + 1,
     * or 0). */
    int (*notify_stop)(void);
    int (*poll_stop)(void);
    /* Interval snapshots: a rank posts len bytes to rank 0 without waiting
     * (the bytes are copied; the send completes in the background, and
     * drain waits for every posted send).  Rank 0 asks for the next posted
     * message: its length and sender once it has wholly arrived (probe,
     * -1: none yet), then takes it (recv, from that sender).  Neither
     * waits: the reporter that calls them keeps its ticks on time. */
    int (*post)(const void *buf, int64_t len);
    int64_t (*probe)(int *from);
    int (*recv)(int from, void *buf, int64_t len);
    int (*drain)(void);
    /* How many posted messages are still moving between this rank and
     * another (sends not completed; rank 0: a receive in progress).  A
     * message above the transport's eager limit moves only while both
     * ends call in, so the reporter calls in more often while it is > 0. */
    int (*in_flight)(void);
    /* Collective, before a run's start: each rank's wall-clock offset to
     * rank 0's, estimated as NTP does.  Rank 0 exchanges `rounds` pings
     * with each other rank in turn and keeps the one with the smallest
     * round trip: offset = t_remote - (t_send + t_recv) / 2, whose error
     * is at most half that round trip (the remote reading lies somewhere
     * inside it).  On rank 0, offset_ns[r] and rtt_ns[r] for every rank
     * (rank 0's own are 0); on the others the arrays are left as they are. */
    int (*clock_offsets)(int rounds, int64_t *offset_ns, int64_t *rtt_ns);
    /* The end of a run, streamed: every other rank sends rank 0 its one
     * part (part_send, which may wait until rank 0 takes it); rank 0 takes
     * the parts one at a time in the order they arrive (part_probe: the
     * next one's length and sender, -1 none yet; part_recv: into buf), so
     * that it merges each and holds one at a time.  A gather would hold
     * every rank's at once: 600 MB from a thousand ranks, which took
     * seconds to fault in on a VM (contrib/merge_bench.lua). */
    int (*part_send)(const void *buf, int64_t len);
    int64_t (*part_probe)(int *from);
    int (*part_recv)(int from, void *buf, int64_t len);
} lb_cluster_ops;

/* Install `ops` (the binary does so before anything else runs); NULL
 * restores the single-process default.  -EINVAL for an incomplete table. */
int lb_cluster_register(const lb_cluster_ops *ops);

/* FFI BEGIN */
int lb_cluster_rank(void);
int lb_cluster_size(void);
const char *lb_cluster_name(void);
const char *lb_cluster_library(void);
int lb_cluster_min(int64_t *v);
int lb_cluster_max(int64_t *v);
int lb_cluster_bcast(void *buf, int64_t len, int root);
int lb_cluster_gather_lens(int64_t len, int64_t *lens, char *missing, int timeout_ms);
int lb_cluster_gather_data(const void *buf, int64_t len, void *out, const int64_t *lens, char *missing, int timeout_ms);
int lb_cluster_notify_stop(void);
int lb_cluster_poll_stop(void);
int lb_cluster_post(const void *buf, int64_t len);
int64_t lb_cluster_probe(int *from);
int lb_cluster_recv(int from, void *buf, int64_t len);
int lb_cluster_drain(void);
int lb_cluster_in_flight(void);
int lb_cluster_clock_offsets(int rounds, int64_t *offset_ns, int64_t *rtt_ns);
int lb_cluster_part_send(const void *buf, int64_t len);
int64_t lb_cluster_part_probe(int *from);
int lb_cluster_part_recv(int from, void *buf, int64_t len);
/* The job cannot end cleanly (a rank stopped answering): the binary's main
 * aborts every rank instead of waiting in the library's finalisation. */
void lb_cluster_request_abort(void);
int lb_cluster_abort_requested(void);
/* FFI END */

#endif
