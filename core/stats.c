#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lb_stats_hists_init(lb_stats_hists *sh, const lb_hist_config *cfg, const lb_stats *live)
{
    memset(sh, 0, sizeof(*sh));
    sh->cfg = cfg;
    sh->live = live;
    for (int b = 0; b < 2; b++) {
        sh->lat[b] = lb_hist_new(cfg);
        sh->queue[b] = lb_hist_new(cfg);
        if (!sh->lat[b] || !sh->queue[b]) {
            lb_stats_hists_free(sh);
            return -ENOMEM;
        }
    }
    return 0;
}

void lb_stats_hists_free(lb_stats_hists *sh)
{
    for (int b = 0; b < 2; b++) {
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
    lb_hist *h = sh->type_lat[sh->cur][type];
    if (!h) {
        /* Only the buffer this worker owns: the reporter may be reading
         * the other one's slot right now (a data race TSan reported when
         * both were allocated here).  The release store in
         * lb_stats_hists_poll publishes the pointer with the buffer. */
        h = sh->type_lat[sh->cur][type] = lb_hist_new(sh->cfg);
    }
    return h;
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
    add_ext(&dst->ext, &src->ext);
    for (int t = 0; t < LB_MAX_TYPES; t++) {
        dst->types[t].events += ld(&src->types[t].events);
        dst->types[t].restarts += ld(&src->types[t].restarts);
        dst->types[t].rollbacks += ld(&src->types[t].rollbacks);
    }
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

int lb_stats_snapshot_take(lb_snapshot *dst, lb_stats_hists *sh, int b)
{
    int rc = lb_hist_merge(dst->lat, sh->lat[b]);
    if (rc == 0)
        rc = lb_hist_merge(dst->queue, sh->queue[b]);
    lb_hist_reset(sh->lat[b]);
    lb_hist_reset(sh->queue[b]);
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
