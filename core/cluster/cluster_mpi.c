/* cluster_mpi — cluster.h over MPI.  Collectives are MPI's own, except the
 * gathers, which are point to point so that root can give up after a
 * timeout and name the ranks that never sent (a blocking MPI_Gatherv would
 * wait forever for a rank that stopped answering). */
#include "cluster_mpi.h"

#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../clock.h"
#include "cluster.h"

enum { TAG_LEN = 7101, TAG_DATA = 7102, TAG_STOP = 7103, TAG_POST = 7104, TAG_CLOCK = 7105, TAG_PART = 7106 };

static int g_rank, g_size;
static char g_library[256];

static int mpi_rank(void) { return g_rank; }
static int mpi_size(void) { return g_size; }
static const char *mpi_library(void) { return g_library; }

static int mpi_min(int64_t *v)
{
    return MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_max(int64_t *v)
{
    return MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int mpi_bcast(void *buf, int64_t len, int root)
{
    if (len < 0 || len > INT32_MAX)
        return -EINVAL;
    return MPI_Bcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

/* Root: wait for the receives reqs[1..size-1] until timeout_ms; on timeout
 * mark the ranks still outstanding and cancel their receives. */
static int wait_all(MPI_Request *reqs, char *missing, int timeout_ms)
{
    int64_t give_up = lb_clock_ns() + (int64_t)timeout_ms * 1000000LL;
    for (;;) {
        int done = 0;
        if (MPI_Testall(g_size - 1, reqs + 1, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return -EIO;
        if (done)
            return 0;
        if (lb_clock_ns() >= give_up)
            break;
        /* 1 ms: the gather ends the run, it is not on any hot path. */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    for (int r = 1; r < g_size; r++) {
        int flag = 0;
        if (reqs[r] != MPI_REQUEST_NULL)
            MPI_Test(&reqs[r], &flag, MPI_STATUS_IGNORE);
        if (reqs[r] != MPI_REQUEST_NULL && !flag) {
            missing[r] = 1;
            MPI_Cancel(&reqs[r]);
            MPI_Request_free(&reqs[r]);
        }
    }
    return -ETIMEDOUT;
}

static int mpi_gather_lens(int64_t len, int64_t *lens, char *missing, int timeout_ms)
{
    if (g_rank != 0)
        return MPI_Send(&len, 1, MPI_INT64_T, 0, TAG_LEN, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
    MPI_Request reqs[g_size];
    memset(missing, 0, (size_t)g_size);
    lens[0] = len;
    reqs[0] = MPI_REQUEST_NULL;
    for (int r = 1; r < g_size; r++)
        MPI_Irecv(&lens[r], 1, MPI_INT64_T, r, TAG_LEN, MPI_COMM_WORLD, &reqs[r]);
    return wait_all(reqs, missing, timeout_ms);
}

static int mpi_gather_data(const void *buf, int64_t len, void *out, const int64_t *lens, char *missing,
                           int timeout_ms)
{
    if (len < 0 || len > INT32_MAX)
        return -EINVAL;
    if (g_rank != 0)
        return MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
    MPI_Request reqs[g_size];
    memset(missing, 0, (size_t)g_size);
    char *at = out;
    if (len > 0)
        memcpy(at, buf, (size_t)len);
    at += lens[0];
    reqs[0] = MPI_REQUEST_NULL;
    for (int r = 1; r < g_size; r++) {
        if (lens[r] < 0 || lens[r] > INT32_MAX)
            return -EINVAL;
        MPI_Irecv(at, (int)lens[r], MPI_BYTE, r, TAG_DATA, MPI_COMM_WORLD, &reqs[r]);
        at += lens[r];
    }
    return wait_all(reqs, missing, timeout_ms);
}

/* The end of a run: one part per rank, on a tag of its own, so that rank
 * 0 probes for any sender and nothing else matches.  A rank's next part
 * belongs to a later run, which cannot start before rank 0 has taken this
 * one (the start barrier waits for it). */
static int mpi_part_send(const void *buf, int64_t len)
{
    if (len < 0 || len > INT32_MAX)
        return -EINVAL;
    return MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_PART, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

static int64_t mpi_part_probe(int *from)
{
    int flag = 0, count = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_PART, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag)
        return -1;
    if (MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
        return -1;
    *from = st.MPI_SOURCE;
    return count;
}

/* The probed message is matched: its sender waits in part_send while a
 * large one moves, so this returns once it has. */
static int mpi_part_recv(int from, void *buf, int64_t len)
{
    if (len < 0 || len > INT32_MAX)
        return -EINVAL;
    return MPI_Recv(buf, (int)len, MPI_BYTE, from, TAG_PART, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? 0
               : -EIO;
}

/* A few bytes each: sent eagerly, so this returns without the receivers
 * taking part (they poll). */
static int mpi_notify_stop(void)
{
    for (int r = 0; r < g_size; r++)
        if (r != g_rank && MPI_Send(&g_rank, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -EIO;
    return 0;
}

static int mpi_poll_stop(void)
{
    int flag = 0, from = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_STOP, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag)
        return 0;
    MPI_Recv(&from, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return st.MPI_SOURCE + 1;
}

/* Posted sends still in flight, with the copies they send from. */
typedef struct posted {
    MPI_Request req;
    void *copy;
    struct posted *next;
} posted;
static posted *g_posted;

/* Free the posted sends that have completed. */
static void reap_posted(int wait)
{
    for (posted **pp = &g_posted; *pp;) {
        posted *p = *pp;
        int done = 0;
        if (wait)
            MPI_Wait(&p->req, MPI_STATUS_IGNORE), done = 1;
        else
            MPI_Test(&p->req, &done, MPI_STATUS_IGNORE);
        if (done) {
            *pp = p->next;
            free(p->copy);
            free(p);
        } else {
            pp = &p->next;
        }
    }
}

static int mpi_post(const void *buf, int64_t len)
{
    if (len < 0 || len > INT32_MAX || g_rank == 0)
        return -EINVAL;
    reap_posted(0);
    posted *p = malloc(sizeof(*p));
    void *copy = malloc(len > 0 ? (size_t)len : 1);
    if (!p || !copy) {
        free(p), free(copy);
        return -ENOMEM;
    }
    memcpy(copy, buf, (size_t)len);
    p->copy = copy;
    if (MPI_Isend(copy, (int)len, MPI_BYTE, 0, TAG_POST, MPI_COMM_WORLD, &p->req) != MPI_SUCCESS) {
        free(p), free(copy);
        return -EIO;
    }
    p->next = g_posted;
    g_posted = p;
    return 0;
}

/* Rank 0's posted messages being received, one slot per sender.  Never
 * a blocking MPI_Recv: a message above the transport's eager limit (Open
 * MPI's shared memory: 4 KB; an interval with its histograms is 5-20 KB)
 * moves only when its sender calls into MPI, which a rank's reporter does
 * every 100 ms or so, and not at all while its host stalls; MPI_Recv held
 * rank 0's reporter, and so its ticks, that long (measured: up to 90 ms
 * per interval at 2 ranks on one host; 0.7 s behind a stopped rank).  So
 * each message is received with MPI_Irecv and handed over once MPI_Test
 * says it is in; each sender has its own slot, so that one stalled
 * sender's message in progress holds up no other sender's. */
typedef struct incoming {
    MPI_Request req;
    char *buf;
    int64_t len;
    int active, done;
} incoming;
static incoming *g_in; /* g_size slots, rank 0 only */

/* Start receiving sender r's next posted message, if one has come. */
static void start_incoming(int r)
{
    incoming *in = &g_in[r];
    int flag = 0, count = 0;
    MPI_Status st;
    if (MPI_Iprobe(r, TAG_POST, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag)
        return;
    MPI_Get_count(&st, MPI_BYTE, &count);
    char *buf = malloc(count > 0 ? (size_t)count : 1);
    if (!buf)
        return; /* asked again at the next poll */
    /* The next message from this sender with this tag is the one probed:
     * MPI keeps one sender's messages in order, and only this thread
     * receives. */
    if (MPI_Irecv(buf, count, MPI_BYTE, r, TAG_POST, MPI_COMM_WORLD, &in->req) != MPI_SUCCESS) {
        free(buf);
        return;
    }
    in->buf = buf, in->len = count, in->active = 1, in->done = 0;
}

/* A sender whose message has wholly arrived: its length, or -1. */
static int64_t mpi_probe(int *from)
{
    if (!g_in)
        return -1;
    for (int r = 1; r < g_size; r++) {
        incoming *in = &g_in[r];
        if (!in->active)
            start_incoming(r);
        if (in->active && !in->done) {
            int done = 0;
            if (MPI_Test(&in->req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
                in->done = 1;
        }
        if (in->active && in->done) {
            *from = r;
            return in->len;
        }
    }
    return -1;
}

/* Take the message probe announced (its sender and length). */
static int mpi_recv(int from, void *buf, int64_t len)
{
    if (!g_in || from < 1 || from >= g_size)
        return -EINVAL;
    incoming *in = &g_in[from];
    if (!in->active || !in->done || len != in->len)
        return -EINVAL;
    memcpy(buf, in->buf, (size_t)len);
    free(in->buf);
    memset(in, 0, sizeof(*in));
    return 0;
}

/* At the end: every posted message still on its way received and dropped
 * (MPI_Finalize wants no message pending). */
static void drop_posted(void)
{
    if (!g_in)
        return;
    for (int r = 1; r < g_size; r++) {
        incoming *in = &g_in[r];
        for (;;) {
            if (!in->active)
                start_incoming(r);
            if (!in->active)
                break;
            if (!in->done)
                MPI_Wait(&in->req, MPI_STATUS_IGNORE);
            free(in->buf);
            memset(in, 0, sizeof(*in));
        }
    }
    free(g_in);
    g_in = NULL;
}

static int mpi_drain(void)
{
    reap_posted(1);
    return 0;
}

static int mpi_in_flight(void)
{
    reap_posted(0);
    int n = 0;
    for (int r = 1; g_in && r < g_size; r++)
        n += g_in[r].active && !g_in[r].done;
    for (const posted *p = g_posted; p; p = p->next)
        n++;
    return n;
}

/* Nanoseconds since the epoch as an integer (lb_clock_wall's double of
 * seconds resolves only about 0.2 us today, a round trip's size here). */
static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Rank 0 pings each other rank in turn (the others wait in a receive, so
 * only one pair is busy at a time and no rank's reply queues behind
 * another's).  A ping carries nothing; the reply is the remote wall clock
 * read as soon as the ping arrived.  The smallest round trip is the one
 * least disturbed by scheduling, so its midpoint is the best estimate. */
static int mpi_clock_offsets(int rounds, int64_t *offset_ns, int64_t *rtt_ns)
{
    int64_t t_remote = 0;
    char ping = 0;
    if (g_rank != 0) {
        for (int i = 0; i < rounds; i++) {
            if (MPI_Recv(&ping, 1, MPI_BYTE, 0, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return -EIO;
            t_remote = wall_ns();
            if (MPI_Send(&t_remote, 1, MPI_INT64_T, 0, TAG_CLOCK, MPI_COMM_WORLD) != MPI_SUCCESS)
                return -EIO;
        }
        return 0;
    }
    offset_ns[0] = rtt_ns[0] = 0;
    for (int r = 1; r < g_size; r++) {
        int64_t best = INT64_MAX;
        for (int i = 0; i < rounds; i++) {
            int64_t t_send = wall_ns();
            if (MPI_Send(&ping, 1, MPI_BYTE, r, TAG_CLOCK, MPI_COMM_WORLD) != MPI_SUCCESS ||
                MPI_Recv(&t_remote, 1, MPI_INT64_T, r, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return -EIO;
            int64_t t_recv = wall_ns();
            if (t_recv - t_send < best) {
                best = t_recv - t_send;
                rtt_ns[r] = best;
                offset_ns[r] = t_remote - (t_send + (t_recv - t_send) / 2);
            }
        }
    }
    return 0;
}

static const lb_cluster_ops mpi_ops = {
    .name = "mpi", .rank = mpi_rank, .size = mpi_size, .library = mpi_library,
    .min = mpi_min, .max = mpi_max, .bcast = mpi_bcast,
    .gather_lens = mpi_gather_lens, .gather_data = mpi_gather_data,
    .notify_stop = mpi_notify_stop, .poll_stop = mpi_poll_stop,
    .post = mpi_post, .probe = mpi_probe, .recv = mpi_recv, .drain = mpi_drain,
    .in_flight = mpi_in_flight,
    .clock_offsets = mpi_clock_offsets,
    .part_send = mpi_part_send, .part_probe = mpi_part_probe, .part_recv = mpi_part_recv,
};

int lb_cluster_mpi_init(int *argc, char ***argv)
{
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int len = 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    /* The first line ("Open MPI v4.1.4, package: ..."), up to the first comma. */
    size_t n = strcspn(lib, ",\n");
    if (n >= sizeof(g_library))
        n = sizeof(g_library) - 1;
    memcpy(g_library, lib, n);
    g_library[n] = 0;
    if (g_rank == 0 && g_size > 1 && !(g_in = calloc((size_t)g_size, sizeof(*g_in))))
        return -1;
    return lb_cluster_register(&mpi_ops) == 0 ? 0 : -1;
}

void lb_cluster_mpi_finish(int status)
{
    if (lb_cluster_abort_requested())
        MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
    /* Posted interval snapshots rank 0 has received (it drains them after
     * the final gather), then stop notices that arrived after a rank's
     * last poll and snapshots no one took: received here so that no
     * message is left unmatched at finalisation. */
    reap_posted(1);
    MPI_Barrier(MPI_COMM_WORLD);
    while (mpi_poll_stop())
        ;
    drop_posted();
    MPI_Finalize();
}
