#include "stats.h"
#include "wire.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

int lb_stats_hists_init(lb_stats_hists *sh, const lb_hist_config *cfg, const lb_stats *live, int paced,
                        const lb_cuts *cuts)
{
    memset(sh, 0, sizeof(*sh));
    sh->cfg = cfg;
    sh->live = live;
    sh->cuts = cuts;
    sh->next_cut = INT64_MAX;
    sh->fence = !lb_stats_barrier_available();
    for (int b = 0; b < LB_STATS_RING; b++) {
        sh->lat[b] = lb_hist_new(cfg);
        if (paced)
            sh->queue[b] = lb_hist_new(cfg);
        if (!sh->lat[b] || (paced && !sh->queue[b])) {
            lb_stats_hists_free(sh);
            return -ENOMEM;
        }
        lb_stats_ext_init(&sh->at_end[b].ext);
    }
    lb_stats_ext_init(&sh->collected.ext);
    return 0;
}

void lb_stats_hists_free(lb_stats_hists *sh)
{
    for (int b = 0; b < LB_STATS_RING; b++) {
        lb_hist_free(sh->lat[b]);
        lb_hist_free(sh->queue[b]);
        sh->lat[b] = sh->queue[b] = NULL;
        for (int t = 0; t < LB_MAX_TYPES; t++) {
            lb_hist_free(sh->type_lat[b][t]);
            sh->type_lat[b][t] = NULL;
        }
    }
}

lb_hist *lb_stats_type_hist(lb_stats_hists *sh, int type)
{
    lb_hist *h = sh->type_lat[sh->buf][type];
    if (!h) {
        /* Only in the buffer this worker records into; the reporter reads
         * it once the period is sealed (release) or the worker is seen
         * outside a record (release of seq). */
        h = sh->type_lat[sh->buf][type] = lb_hist_new(sh->cfg);
    }
    return h;
}

/* ---- cuts ------------------------------------------------------------ */

#define CUT_MERGE_NS 1000000LL

static int near_listed(const lb_cuts *c, int64_t g)
{
    for (int i = 0; i < c->n; i++)
        if (g - c->at[i] < CUT_MERGE_NS && c->at[i] - g < CUT_MERGE_NS)
            return 1;
    return 0;
}

int64_t lb_cuts_next(const lb_cuts *c, int64_t after)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < c->n; i++)
        if (c->at[i] > after) {
            best = c->at[i];
            break;
        }
    if (c->grid_ns <= 0 || c->t0 == INT64_MAX)
        return best;
    int64_t k = after < c->t0 ? 1 : (after - c->t0) / c->grid_ns + 1;
    for (;; k++) {
        if (k > (INT64_MAX - c->t0) / c->grid_ns)
            return best;
        int64_t g = c->t0 + k * c->grid_ns;
        if (g >= best)
            return best;
        if (!near_listed(c, g))
            return g;
    }
}

/* ---- the worker's side of the periods -------------------------------- */

void lb_stats_hists_start(lb_stats_hists *sh)
{
    sh->cur = sh->slot = 0;
    sh->buf = 0;
    sh->next_cut = lb_cuts_next(sh->cuts, sh->cuts->t0);
}

void lb_stats_cross(lb_stats_hists *sh, int64_t t)
{
    while (t >= sh->next_cut) {
        sh->slot++;
        sh->next_cut = lb_cuts_next(sh->cuts, sh->next_cut);
    }
    /* Acquire: the reporter cleared the buffers of the periods it took
     * before it published `taken`; we may reuse them now. */
    uint64_t taken = atomic_load_explicit(&sh->taken, memory_order_acquire);
    uint64_t target = sh->slot;
    int held = 0;
    if (target > taken + LB_STATS_RING - 1) {
        target = taken + LB_STATS_RING - 1;
        held = 1;
    }
    if (target <= sh->cur) {
        sh->held_w = held;
        atomic_store_explicit(&sh->held, held, memory_order_relaxed);
        return;
    }
    /* The counters as they stand end every period left; periods the
     * reporter already closed itself (< taken) keep its figures. */
    for (uint64_t q = sh->cur > taken ? sh->cur : taken; q < target; q++)
        sh->at_end[q % LB_STATS_RING] = *sh->live;
    sh->cur = target;
    sh->buf = (int)(target % LB_STATS_RING);
    sh->held_w = held;
    atomic_store_explicit(&sh->held, held, memory_order_relaxed);
    atomic_store_explicit(&sh->sealed, target, memory_order_release);
}

/* ---- the reporter's side --------------------------------------------- */

static pthread_once_t barrier_once = PTHREAD_ONCE_INIT;
static int barrier_ok;

static void barrier_register(void)
{
    /* LB_NO_MEMBARRIER=1 takes the fallback (tests cover both). */
    const char *off = getenv("LB_NO_MEMBARRIER");
    if (off && *off == '1')
        return;
    barrier_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

int lb_stats_barrier_available(void)
{
    pthread_once(&barrier_once, barrier_register);
    return barrier_ok;
}

void lb_stats_barrier(void)
{
    if (lb_stats_barrier_available() && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        return;
#if defined(__SANITIZE_THREAD__)
    static _Atomic int order; /* ThreadSanitizer has no fences */
    atomic_fetch_add_explicit(&order, 0, memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Wait until no record is in progress; returns the even sequence seen. */
static uint64_t wait_no_record(lb_stats_hists *sh)
{
    for (int spins = 0;; spins++) {
        uint64_t s = atomic_load_explicit(&sh->seq, memory_order_acquire);
        if ((s & 1) == 0)
            return s;
        /* A record takes nanoseconds unless its thread was preempted. */
        if (spins > 64)
            sched_yield();
    }
}

/* The live counters, consistent with the histogram buffers: read while no
 * record was in progress (a seqlock read).  0, or -EAGAIN when a record
 * began meanwhile. */
static int read_live(lb_stats_hists *sh, uint64_t s1, lb_stats *out)
{
    memset(out, 0, sizeof(*out));
    lb_stats_add(out, sh->live);
    /* A release RMW keeps the loads above before the second look (it
     * writes back the value it read: the worker loses no update). */
    return atomic_fetch_add_explicit(&sh->seq, 0, memory_order_acq_rel) == s1 ? 0 : -EAGAIN;
}

static void set_collected(lb_stats_hists *sh, const lb_stats *src)
{
    memset(&sh->collected, 0, sizeof(sh->collected));
    lb_stats_add(&sh->collected, src);
}

int lb_stats_collect(lb_stats_hists *sh, lb_snapshot *dst, uint64_t upto, int quiescent, int *barrier_done)
{
    int rc = 0;
    uint64_t p = atomic_load_explicit(&sh->taken, memory_order_relaxed);
    if (quiescent) {
        /* The thread has ended (its stores are visible: the caller
         * acquired its `finished` flag): its periods up to cur are final,
         * later ones empty. */
        uint64_t last = sh->cur, end = upto <= last ? upto : last + 1;
        int took = p < end;
        for (; p < end; p++)
            rc = rc ? rc : lb_stats_snapshot_take(dst, sh, p);
        if (upto > last)
            set_collected(sh, sh->live);
        else if (took)
            set_collected(sh, &sh->at_end[(end - 1) % LB_STATS_RING]);
        if (upto != UINT64_MAX && upto > p)
            p = upto;
        atomic_store_explicit(&sh->taken, p, memory_order_release);
        return rc;
    }
    while (p < upto) {
        uint64_t sealed = atomic_load_explicit(&sh->sealed, memory_order_acquire);
        if (p < sealed) {
            rc = rc ? rc : lb_stats_snapshot_take(dst, sh, p);
            set_collected(sh, &sh->at_end[p % LB_STATS_RING]);
            p++;
            continue;
        }
        if (!*barrier_done) {
            lb_stats_barrier();
            *barrier_done = 1;
            continue;
        }
        uint64_t s1 = wait_no_record(sh);
        if (atomic_load_explicit(&sh->sealed, memory_order_acquire) > p)
            continue;
        if (atomic_load_explicit(&sh->held, memory_order_relaxed))
            break; /* it still records into period p: taken when it moves on */
        /* In an event, past the cut: whatever it records next completes
         * after the cut and goes to a later period. */
        lb_stats live;
        if (read_live(sh, s1, &live) != 0)
            continue;
        rc = rc ? rc : lb_stats_snapshot_take(dst, sh, p);
        set_collected(sh, &live);
        p = upto;
    }
    atomic_store_explicit(&sh->taken, p, memory_order_release);
    return rc;
}
static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* Add a layer's counters: sums by position; codes by value, since each
 * worker claims its slots in its own order. */
static void add_ext(lb_stats_ext *dst, const lb_stats_ext *src)
{
    for (int i = 0; i < LB_STATS_EXT_SUMS; i++)
        dst->sums[i] += ld(&src->sums[i]);
    for (int i = 0; i < LB_STATS_EXT_CODES; i++) {
        uint64_t n = ld(&src->codes[i].count);
        if (n == 0)
            continue;
        int32_t code = __atomic_load_n(&src->codes[i].code, __ATOMIC_RELAXED);
        int j = 0;
        while (j < LB_STATS_EXT_CODES - 1 && dst->codes[j].count != 0 && dst->codes[j].code != code)
            j++;
        if (j == LB_STATS_EXT_CODES - 1)
            code = -1; /* no free slot: fold into "other codes" */
        dst->codes[j].code = code;
        dst->codes[j].count += n;
    }
}

void lb_stats_ext_init(lb_stats_ext *e)
{
    memset(e, 0, sizeof *e);
    e->codes[LB_STATS_EXT_CODES - 1].code = -1;
}

void lb_stats_count_code(lb_stats_ext *e, int32_t code)
{
    lb_code_count *c = e->codes;
    for (int i = 0; i < LB_STATS_EXT_CODES - 1; i++) {
        uint64_t n = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
        if (n == 0) {
            /* Slots fill in order, so the first free one means "new code".
             * Publish the code before the count makes the slot visible. */
            __atomic_store_n(&c[i].code, code, __ATOMIC_RELAXED);
            __atomic_store_n(&c[i].count, 1, __ATOMIC_RELEASE);
            return;
        }
        if (c[i].code == code) {
            lb_stats_bump(&c[i].count, 1);
            return;
        }
    }
    lb_code_count *other = &c[LB_STATS_EXT_CODES - 1];
    if (other->code != -1)
        __atomic_store_n(&other->code, -1, __ATOMIC_RELAXED);
    lb_stats_bump(&other->count, 1);
}

void lb_stats_add(lb_stats *dst, const lb_stats *src)
{
    /* lb_stats is a block of uint64_t counters except the code slots of
     * the layer block, whose codes are merged by value. */
    dst->events += ld(&src->events);
    dst->restarts += ld(&src->restarts);
    dst->failures += ld(&src->failures);
    dst->busy_ns += ld(&src->busy_ns);
    dst->io_reads += ld(&src->io_reads);
    dst->io_writes += ld(&src->io_writes);
    dst->io_fsyncs += ld(&src->io_fsyncs);
    dst->io_bytes_read += ld(&src->io_bytes_read);
    dst->io_bytes_written += ld(&src->io_bytes_written);
    dst->not_started += ld(&src->not_started);
    add_ext(&dst->ext, &src->ext);
    for (int t = 0; t < LB_MAX_TYPES; t++) {
        dst->types[t].events += ld(&src->types[t].events);
        dst->types[t].restarts += ld(&src->types[t].restarts);
        dst->types[t].rollbacks += ld(&src->types[t].rollbacks);
    }
}

void lb_stats_sub(lb_stats *dst, const lb_stats *a, const lb_stats *b)
{
    lb_stats out = *a;
    out.events -= b->events;
    out.restarts -= b->restarts;
    out.failures -= b->failures;
    out.busy_ns -= b->busy_ns;
    out.io_reads -= b->io_reads;
    out.io_writes -= b->io_writes;
    out.io_fsyncs -= b->io_fsyncs;
    out.io_bytes_read -= b->io_bytes_read;
    out.io_bytes_written -= b->io_bytes_written;
    out.not_started -= b->not_started;
    for (int i = 0; i < LB_STATS_EXT_SUMS; i++)
        out.ext.sums[i] -= b->ext.sums[i];
    for (int i = 0; i < LB_STATS_EXT_CODES; i++) {
        if (b->ext.codes[i].count == 0)
            continue;
        for (int j = 0; j < LB_STATS_EXT_CODES; j++)
            if (out.ext.codes[j].code == b->ext.codes[i].code && out.ext.codes[j].count >= b->ext.codes[i].count) {
                out.ext.codes[j].count -= b->ext.codes[i].count;
                break;
            }
    }
    for (int t = 0; t < LB_MAX_TYPES; t++) {
        out.types[t].events -= b->types[t].events;
        out.types[t].restarts -= b->types[t].restarts;
        out.types[t].rollbacks -= b->types[t].rollbacks;
    }
    *dst = out;
}

/* ---- on the wire ---------------------------------------------------------- */

_Static_assert(sizeof(lb_stats) % 8 == 0, "lb_stats is a block of 64-bit words");
_Static_assert(sizeof(lb_code_count) == 16 && offsetof(lb_code_count, count) == 8,
               "a code slot is a code word and a count word");

/* The word at byte `off` holds a code slot's int32 code (and its pad). */
static int is_code_word(size_t off)
{
    size_t base = offsetof(lb_stats, ext.codes);
    return off >= base && off < base + sizeof(((lb_stats *)0)->ext.codes) && (off - base) % sizeof(lb_code_count) == 0;
}

int64_t lb_stats_wire_size(void) { return (int64_t)sizeof(lb_stats); }

void lb_stats_to_wire(const lb_stats *s, void *out)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t off = 0; off < sizeof(lb_stats); off += 8) {
        uint64_t v;
        if (is_code_word(off)) {
            int32_t code;
            memcpy(&code, p + off, sizeof(code));
            v = (uint64_t)(int64_t)code;
        } else {
            memcpy(&v, p + off, sizeof(v));
        }
        lb_wire_put64(out, (int64_t)(off / 8), v);
    }
}

int lb_stats_from_wire(lb_stats *s, const void *in, int64_t len)
{
    if (len != (int64_t)sizeof(lb_stats))
        return -EINVAL;
    unsigned char *p = (unsigned char *)s;
    for (size_t off = 0; off < sizeof(lb_stats); off += 8) {
        uint64_t v = lb_wire_get64(in, (int64_t)(off / 8));
        if (is_code_word(off)) {
            int32_t code = (int32_t)(int64_t)v;
            memset(p + off, 0, 8);
            memcpy(p + off, &code, sizeof(code));
        } else {
            memcpy(p + off, &v, sizeof(v));
        }
    }
    return 0;
}

int lb_stats_snapshot_init(lb_snapshot *s, const lb_hist_config *cfg)
{
    memset(s, 0, sizeof(*s));
    s->lat = lb_hist_new(cfg);
    s->queue = lb_hist_new(cfg);
    if (!s->lat || !s->queue) {
        lb_stats_snapshot_free(s);
        return -ENOMEM;
    }
    return 0;
}

void lb_stats_snapshot_free(lb_snapshot *s)
{
    lb_hist_free(s->lat);
    lb_hist_free(s->queue);
    for (int t = 0; t < LB_MAX_TYPES; t++)
        lb_hist_free(s->type_lat[t]);
    memset(s, 0, sizeof(*s));
}

void lb_stats_snapshot_reset_hists(lb_snapshot *s)
{
    lb_hist_reset(s->lat);
    lb_hist_reset(s->queue);
    for (int t = 0; t < LB_MAX_TYPES; t++)
        if (s->type_lat[t])
            lb_hist_reset(s->type_lat[t]);
}

static int merge_type(lb_snapshot *dst, int t, const lb_hist *src)
{
    if (!src || lb_hist_count_all(src) == 0)
        return 0;
    if (!dst->type_lat[t] && !(dst->type_lat[t] = lb_hist_new(&src->cfg)))
        return -ENOMEM;
    return lb_hist_merge(dst->type_lat[t], src);
}

int lb_stats_snapshot_merge_hists(lb_snapshot *dst, const lb_snapshot *src)
{
    int rc = lb_hist_merge(dst->lat, src->lat);
    if (rc == 0)
        rc = lb_hist_merge(dst->queue, src->queue);
    for (int t = 0; rc == 0 && t < LB_MAX_TYPES; t++)
        rc = merge_type(dst, t, src->type_lat[t]);
    return rc;
}

int lb_stats_snapshot_take(lb_snapshot *dst, lb_stats_hists *sh, uint64_t p)
{
    int b = (int)(p % LB_STATS_RING);
    int rc = lb_hist_merge(dst->lat, sh->lat[b]);
    lb_hist_reset(sh->lat[b]);
    if (sh->queue[b]) {
        if (rc == 0)
            rc = lb_hist_merge(dst->queue, sh->queue[b]);
        lb_hist_reset(sh->queue[b]);
    }
    for (int t = 0; t < LB_MAX_TYPES; t++) {
        lb_hist *h = sh->type_lat[b][t];
        if (!h)
            continue;
        if (rc == 0)
            rc = merge_type(dst, t, h);
        lb_hist_reset(h);
    }
    return rc;
}
