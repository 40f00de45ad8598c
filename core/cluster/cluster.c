/* cluster — the registered implementation and the single-process default:
 * one rank, collectives that return what they were given. */
#include "cluster.h"

#include <errno.h>
#include <string.h>

static int single_rank(void) { return 0; }
static int single_size(void) { return 1; }
static const char *single_library(void) { return ""; }
static int single_reduce(int64_t *v) { (void)v; return 0; }
static int single_bcast(void *buf, int64_t len, int root)
{
    (void)buf, (void)len;
    return root == 0 ? 0 : -EINVAL;
}
static int single_gather_lens(int64_t len, int64_t *lens, char *missing, int timeout_ms)
{
    (void)timeout_ms;
    lens[0] = len;
    missing[0] = 0;
    return 0;
}
static int single_gather_data(const void *buf, int64_t len, void *out, const int64_t *lens, char *missing,
                              int timeout_ms)
{
    (void)lens, (void)missing, (void)timeout_ms;
    if (len > 0)
        memcpy(out, buf, (size_t)len);
    return 0;
}
static int single_notify(void) { return 0; }
/* Alone, rank 0 is the only rank: nothing is ever posted to it. */
static int single_post(const void *buf, int64_t len)
{
    (void)buf, (void)len;
    return -EINVAL;
}
static int64_t single_probe(int *from)
{
    (void)from;
    return -1;
}
static int single_recv(int from, void *buf, int64_t len)
{
    (void)from, (void)buf, (void)len;
    return -EINVAL;
}
static int single_poll(void) { return 0; }
/* One clock: no offset, no uncertainty. */
static int single_clock_offsets(int rounds, int64_t *offset_ns, int64_t *rtt_ns)
{
    (void)rounds;
    offset_ns[0] = 0;
    rtt_ns[0] = 0;
    return 0;
}

static const lb_cluster_ops single_ops = {
    .name = "single", .rank = single_rank, .size = single_size, .library = single_library,
    .min = single_reduce, .max = single_reduce, .bcast = single_bcast,
    .gather_lens = single_gather_lens, .gather_data = single_gather_data,
    .notify_stop = single_notify, .poll_stop = single_poll,
    .post = single_post, .probe = single_probe, .recv = single_recv, .drain = single_notify,
    .in_flight = single_poll,
    .clock_offsets = single_clock_offsets,
    /* Alone, rank 0 has no other rank's part to take. */
    .part_send = single_post, .part_probe = single_probe, .part_recv = single_recv,
};

static const lb_cluster_ops *g_ops = &single_ops;
static int g_abort;

int lb_cluster_register(const lb_cluster_ops *ops)
{
    if (!ops) {
        g_ops = &single_ops;
        return 0;
    }
    if (!ops->name || !ops->rank || !ops->size || !ops->library || !ops->min || !ops->max || !ops->bcast ||
        !ops->gather_lens || !ops->gather_data || !ops->notify_stop || !ops->poll_stop || !ops->post ||
        !ops->probe || !ops->recv || !ops->drain || !ops->in_flight || !ops->clock_offsets ||
        !ops->part_send || !ops->part_probe || !ops->part_recv)
        return -EINVAL;
    g_ops = ops;
    return 0;
}

int lb_cluster_rank(void) { return g_ops->rank(); }
int lb_cluster_size(void) { return g_ops->size(); }
const char *lb_cluster_name(void) { return g_ops->name; }
const char *lb_cluster_library(void) { return g_ops->library(); }
int lb_cluster_min(int64_t *v) { return g_ops->min(v); }
int lb_cluster_max(int64_t *v) { return g_ops->max(v); }
int lb_cluster_bcast(void *buf, int64_t len, int root) { return g_ops->bcast(buf, len, root); }
int lb_cluster_gather_lens(int64_t len, int64_t *lens, char *missing, int timeout_ms)
{
    return g_ops->gather_lens(len, lens, missing, timeout_ms);
}
int lb_cluster_gather_data(const void *buf, int64_t len, void *out, const int64_t *lens, char *missing,
                           int timeout_ms)
{
    return g_ops->gather_data(buf, len, out, lens, missing, timeout_ms);
}
int lb_cluster_notify_stop(void) { return g_ops->notify_stop(); }
int lb_cluster_poll_stop(void) { return g_ops->poll_stop(); }
int lb_cluster_post(const void *buf, int64_t len) { return g_ops->post(buf, len); }
int64_t lb_cluster_probe(int *from) { return g_ops->probe(from); }
int lb_cluster_recv(int from, void *buf, int64_t len) { return g_ops->recv(from, buf, len); }
int lb_cluster_drain(void) { return g_ops->drain(); }
int lb_cluster_in_flight(void) { return g_ops->in_flight(); }
int lb_cluster_clock_offsets(int rounds, int64_t *offset_ns, int64_t *rtt_ns)
{
    if (rounds < 1)
        return -EINVAL;
    return g_ops->clock_offsets(rounds, offset_ns, rtt_ns);
}
int lb_cluster_part_send(const void *buf, int64_t len) { return g_ops->part_send(buf, len); }
int64_t lb_cluster_part_probe(int *from) { return g_ops->part_probe(from); }
int lb_cluster_part_recv(int from, void *buf, int64_t len) { return g_ops->part_recv(from, buf, len); }
void lb_cluster_request_abort(void) { g_abort = 1; }
int lb_cluster_abort_requested(void) { return g_abort; }
