/* hist.c - log-linear histogram; see hist.h for layout and error bound. */
#include "hist.h"
#include "wire.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout arithmetic ------------------------------------------------- */

/* Exponent group of an in-range v.  OR-ing in the mask makes every value of
 * the linear part look like it has its top bit at (unit + half_mag), which
 * yields e = 0 without a branch. */
static inline int group_of(const lb_hist_config *c, int64_t v)
{
    int top = 63 - __builtin_clzll((uint64_t)v | (uint64_t)c->sub_bucket_mask);
    return top - c->unit_magnitude - c->sub_bucket_half_count_magnitude;
}

static inline int32_t slot_of(const lb_hist_config *c, int64_t v)
{
    int e = group_of(c, v);
    return (int32_t)(((int64_t)e << c->sub_bucket_half_count_magnitude) +
                     (v >> (e + c->unit_magnitude)));
}

/* Inverse of slot_of: first value of slot i and the log2 of its width. */
static inline int64_t slot_lo(const lb_hist_config *c, int32_t i, int *width_log2)
{
    int e = (int)(i >> c->sub_bucket_half_count_magnitude) - 1;
    if (e < 0)
        e = 0;
    int64_t sub = (int64_t)i - ((int64_t)e << c->sub_bucket_half_count_magnitude);
    *width_log2 = e + c->unit_magnitude;
    return sub << *width_log2;
}

/* The midpoint minimises the worst-case error over the bucket; clamping to
 * the observed extremes can only move it closer to any recorded value. */
static int64_t slot_rep(const lb_hist *h, int32_t i)
{
    int wl = 0;
    int64_t lo = slot_lo(&h->cfg, i, &wl);
    int64_t rep = lo + ((((int64_t)1 << wl) - 1) >> 1);
    if (rep < h->min)
        rep = h->min;
    if (rep > h->max)
        rep = h->max;
    return rep;
}

/* ---- configuration ----------------------------------------------------- */

int lb_hist_config_init(lb_hist_config *cfg, int64_t lowest, int64_t highest, int sig_digits)
{
    if (!cfg || lowest < 1 || sig_digits < 1 || sig_digits > 5 || highest / 2 < lowest)
        return -EINVAL;

    int unit = 63 - __builtin_clzll((uint64_t)lowest);

    int64_t need = 2;
    for (int d = 0; d < sig_digits; d++)
        need *= 10;
    int sbc_mag = 0;
    while (((int64_t)1 << sbc_mag) < need)
        sbc_mag++;
    /* The mask trick in group_of needs the whole linear part below 2^63. */
    if (unit + sbc_mag > 63)
        return -EINVAL;

    memset(cfg, 0, sizeof *cfg);
    cfg->lowest = lowest;
    cfg->highest = highest;
    cfg->sig_digits = sig_digits;
    cfg->unit_magnitude = unit;
    cfg->sub_bucket_count = (int32_t)1 << sbc_mag;
    cfg->sub_bucket_half_count = (int32_t)1 << (sbc_mag - 1);
    cfg->sub_bucket_half_count_magnitude = sbc_mag - 1;
    cfg->sub_bucket_mask = (int64_t)(((uint64_t)1 << sbc_mag) - 1) << unit;
    cfg->bucket_count = group_of(cfg, highest) + 1;
    cfg->counts_len = slot_of(cfg, highest) + 1;
    cfg->rel_error = 1.0 / (double)cfg->sub_bucket_count;
    return 0;
}

int lb_hist_config_default(lb_hist_config *cfg)
{
    return lb_hist_config_init(cfg, 1, ((int64_t)1 << 42) - 1, 3);
}

bool lb_hist_config_same(const lb_hist_config *a, const lb_hist_config *b)
{
    if (!a || !b)
        return false;
    return a->unit_magnitude == b->unit_magnitude &&
           a->sub_bucket_half_count_magnitude == b->sub_bucket_half_count_magnitude &&
           a->highest == b->highest && a->counts_len == b->counts_len;
}

/* Everything the hot path trusts must match what config_init derives. */
static bool config_valid(const lb_hist_config *c)
{
    lb_hist_config ref;
    if (!c || lb_hist_config_init(&ref, c->lowest, c->highest, c->sig_digits) != 0)
        return false;
    return c->unit_magnitude == ref.unit_magnitude &&
           c->sub_bucket_count == ref.sub_bucket_count &&
           c->sub_bucket_half_count == ref.sub_bucket_half_count &&
           c->sub_bucket_half_count_magnitude == ref.sub_bucket_half_count_magnitude &&
           c->bucket_count == ref.bucket_count && c->counts_len == ref.counts_len &&
           c->sub_bucket_mask == ref.sub_bucket_mask && c->rel_error == ref.rel_error;
}

/* ---- lifecycle --------------------------------------------------------- */

size_t lb_hist_size(const lb_hist_config *cfg)
{
    if (!cfg || cfg->counts_len < 0)
        return 0;
    return sizeof(lb_hist) + (size_t)cfg->counts_len * sizeof(int64_t);
}

static void set_empty_scalars(lb_hist *h)
{
    h->total = h->underflow = h->overflow = 0;
    h->min = INT64_MAX;
    h->max = INT64_MIN;
    h->sum = 0.0;
}

void lb_hist_init(lb_hist *h, const lb_hist_config *cfg)
{
    if (!h || !cfg)
        return;
    memset(h, 0, sizeof *h);
    h->cfg = *cfg;
    set_empty_scalars(h);
    memset(h->counts, 0, (size_t)h->cfg.counts_len * sizeof(int64_t));
}

lb_hist *lb_hist_new(const lb_hist_config *cfg)
{
    if (!config_valid(cfg)) {
        errno = EINVAL;
        return NULL;
    }
    /* calloc, not malloc + memset: a default histogram is 270 KB, which the
     * allocator takes from fresh zero pages, so only the pages a run records
     * into are ever touched (start-up CPU and RSS with many workers). */
    lb_hist *h = calloc(1, lb_hist_size(cfg));
    if (!h) {
        errno = ENOMEM;
        return NULL;
    }
    h->cfg = *cfg;
    set_empty_scalars(h);
    return h;
}

void lb_hist_free(lb_hist *h)
{
    free(h);
}

/* Invariant kept by every function that writes counts[] (all in this file):
 * a slot outside [slot_of(min), slot_of(max)] is zero, and when total == 0
 * every slot is zero.  record/record_n widen min/max to cover the slot they
 * bump; merge only adds src's range and widens dst's min/max to cover it;
 * copy takes counts and extremes together.  So reset and merge need only
 * touch that range: a few slots for a narrow window of latencies instead of
 * all counts_len (270 KB by default). */
void lb_hist_reset(lb_hist *h)
{
    if (!h)
        return;
    if (h->total > 0) {
        int32_t lo = slot_of(&h->cfg, h->min), hi = slot_of(&h->cfg, h->max);
        memset(&h->counts[lo], 0, (size_t)(hi - lo + 1) * sizeof(int64_t));
    }
    set_empty_scalars(h);
}

/* ---- recording --------------------------------------------------------- */

/* Kept out of line so the in-range path stays a straight run of code. */
static __attribute__((noinline, cold)) bool record_out_of_range(lb_hist *h, int64_t v, int64_t n)
{
    if (v < 0)
        h->underflow += n;
    else
        h->overflow += n;
    return false;
}

bool lb_hist_record(lb_hist *h, int64_t v)
{
    /* One unsigned compare catches both v < 0 and v > highest. */
    if (__builtin_expect((uint64_t)v > (uint64_t)h->cfg.highest, 0))
        return record_out_of_range(h, v, 1);
    h->counts[slot_of(&h->cfg, v)]++;
    h->total++;
    h->min = v < h->min ? v : h->min;
    h->max = v > h->max ? v : h->max;
    h->sum += (double)v;
    return true;
}

bool lb_hist_record_n(lb_hist *h, int64_t v, int64_t n)
{
    if (n <= 0)
        return false;
    if ((uint64_t)v > (uint64_t)h->cfg.highest)
        return record_out_of_range(h, v, n);
    h->counts[slot_of(&h->cfg, v)] += n;
    h->total += n;
    h->min = v < h->min ? v : h->min;
    h->max = v > h->max ? v : h->max;
    h->sum += (double)v * (double)n;
    return true;
}

/* ---- combining --------------------------------------------------------- */

int lb_hist_merge(lb_hist *dst, const lb_hist *src)
{
    if (!dst || !src || !lb_hist_config_same(&dst->cfg, &src->cfg))
        return -EINVAL;
    /* Every in-range sample of src lies in [slot_of(min), slot_of(max)]
     * (see the invariant above lb_hist_reset): the rest of src is zero. */
    if (src->total > 0) {
        int32_t last = slot_of(&src->cfg, src->max);
        for (int32_t i = slot_of(&src->cfg, src->min); i <= last; i++)
            dst->counts[i] += src->counts[i];
    }
    dst->total += src->total;
    dst->underflow += src->underflow;
    dst->overflow += src->overflow;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum += src->sum;
    return 0;
}

int lb_hist_copy(lb_hist *dst, const lb_hist *src)
{
    if (!dst || !src || !lb_hist_config_same(&dst->cfg, &src->cfg))
        return -EINVAL;
    if (dst == src)
        return 0;
    /* Clear dst's occupied range, then take src's header and range: by the
     * invariant above lb_hist_reset everything else is zero on both sides. */
    lb_hist_reset(dst);
    memcpy(dst, src, sizeof *dst);
    if (src->total > 0) {
        int32_t lo = slot_of(&src->cfg, src->min), hi = slot_of(&src->cfg, src->max);
        memcpy(&dst->counts[lo], &src->counts[lo], (size_t)(hi - lo + 1) * sizeof(int64_t));
    }
    return 0;
}

/* ---- statistics -------------------------------------------------------- */

int64_t lb_hist_count_all(const lb_hist *h)
{
    if (!h)
        return 0;
    return h->total + h->underflow + h->overflow;
}

double lb_hist_mean(const lb_hist *h)
{
    return h && h->total > 0 ? h->sum / (double)h->total : 0.0;
}

double lb_hist_stddev(const lb_hist *h)
{
    if (!h || h->total <= 0)
        return 0.0;
    double mean = lb_hist_mean(h), acc = 0.0;
    int32_t last = slot_of(&h->cfg, h->max);
    for (int32_t i = slot_of(&h->cfg, h->min); i <= last; i++) {
        if (h->counts[i] == 0)
            continue;
        double d = (double)slot_rep(h, i) - mean;
        acc += (double)h->counts[i] * d * d;
    }
    return sqrt(acc / (double)h->total);
}

/* 1-based rank among `n` samples.  p * n / 100 keeps exact products exact
 * more often than (p / 100) * n; the slack then absorbs the few ulps by
 * which a decimal p like 99.9 can push an exact integer over the edge. */
static int64_t rank_of(double p, int64_t n)
{
    if (!(p > 0.0))
        return 1;
    if (p >= 100.0)
        return n;
    double x = p * (double)n / 100.0;
    double c = ceil(x);
    if (x - (c - 1.0) <= x * 4.0 * DBL_EPSILON)
        c -= 1.0;
    if (c < 1.0)
        return 1;
    if (c >= (double)n)
        return n;
    return (int64_t)c;
}

/* Resolves ranks that need no bucket walk.  Returns true with *out set for
 * empty/underflow/overflow and the first/last in-range rank; otherwise false and *bucket_rank is the rank
 * within the in-range samples (1..total). */
static bool resolve_outside(const lb_hist *h, double p, int64_t *out, int64_t *bucket_rank)
{
    int64_t all = lb_hist_count_all(h);
    if (all <= 0) {
        *out = 0;
        return true;
    }
    int64_t r = rank_of(p, all);
    if (r <= h->underflow) {
        *out = INT64_MIN;
        return true;
    }
    r -= h->underflow;
    if (r > h->total) {
        *out = INT64_MAX;
        return true;
    }
    /* The extreme in-range ranks are known exactly; no need to approximate. */
    if (r == 1 || r == h->total) {
        *out = r == 1 ? h->min : h->max;
        return true;
    }
    *bucket_rank = r;
    return false;
}

int64_t lb_hist_percentile(const lb_hist *h, double p)
{
    int64_t out, r;
    if (!h)
        return 0;
    if (resolve_outside(h, p, &out, &r))
        return out;
    int64_t cum = 0;
    int32_t last = slot_of(&h->cfg, h->max);
    for (int32_t i = slot_of(&h->cfg, h->min); i <= last; i++) {
        cum += h->counts[i];
        if (cum >= r)
            return slot_rep(h, i);
    }
    return h->max; /* only reachable if counts and total disagree */
}

struct want {
    int64_t rank;
    int slot;
};

static int want_cmp(const void *a, const void *b)
{
    const struct want *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

void lb_hist_percentiles(const lb_hist *h, const double *ps, int n, int64_t *out)
{
    if (!h || !ps || !out || n <= 0)
        return;

    struct want local[64], *w = local;
    if (n > (int)(sizeof local / sizeof local[0])) {
        w = malloc((size_t)n * sizeof *w);
        if (!w) {
            /* Correct answers beat the one-pass promise when memory is gone. */
            for (int k = 0; k < n; k++)
                out[k] = lb_hist_percentile(h, ps[k]);
            return;
        }
    }

    int m = 0;
    for (int k = 0; k < n; k++) {
        int64_t r;
        if (!resolve_outside(h, ps[k], &out[k], &r)) {
            w[m].rank = r;
            w[m].slot = k;
            m++;
        }
    }
    if (m > 0) {
        qsort(w, (size_t)m, sizeof *w, want_cmp);
        int j = 0;
        int64_t cum = 0;
        int32_t last = slot_of(&h->cfg, h->max);
        for (int32_t i = slot_of(&h->cfg, h->min); i <= last && j < m; i++) {
            if (h->counts[i] == 0)
                continue;
            cum += h->counts[i];
            if (w[j].rank > cum)
                continue;
            int64_t rep = slot_rep(h, i);
            while (j < m && w[j].rank <= cum)
                out[w[j++].slot] = rep;
        }
        while (j < m) /* only if counts and total disagree */
            out[w[j++].slot] = h->max;
    }
    if (w != local)
        free(w);
}

/* ---- inspection -------------------------------------------------------- */

bool lb_hist_next_bucket(const lb_hist *h, int32_t *idx, int64_t *lo, int64_t *hi, int64_t *count)
{
    if (!h || !idx)
        return false;
    int32_t i = *idx < 0 ? 0 : *idx + 1;
    while (i < h->cfg.counts_len && h->counts[i] == 0)
        i++;
    if (i >= h->cfg.counts_len) {
        *idx = h->cfg.counts_len;
        return false;
    }
    int wl = 0;
    int64_t l = slot_lo(&h->cfg, i, &wl);
    /* lo + (width - 1) cannot overflow even for the slot ending at 2^63 - 1. */
    int64_t u = l + (((int64_t)1 << wl) - 1);
    if (u > h->cfg.highest)
        u = h->cfg.highest;
    *idx = i;
    if (lo)
        *lo = l;
    if (hi)
        *hi = u;
    if (count)
        *count = h->counts[i];
    return true;
}

int32_t lb_hist_index_of(const lb_hist_config *cfg, int64_t v)
{
    if (!cfg || v < 0 || v > cfg->highest)
        return -1;
    return slot_of(cfg, v);
}

int64_t lb_hist_slot_upper(const lb_hist_config *cfg, int64_t v)
{
    if (!cfg || v < 0 || v > cfg->highest)
        return -1;
    int wl = 0;
    /* Two statements: the operands of + are unsequenced, and the width
     * must be read after slot_lo has set it. */
    int64_t lo = slot_lo(cfg, slot_of(cfg, v), &wl);
    int64_t u = lo + (((int64_t)1 << wl) - 1);
    return u > cfg->highest ? cfg->highest : u;
}

int64_t lb_hist_total(const lb_hist *h) { return h->total; }
int64_t lb_hist_underflow(const lb_hist *h) { return h->underflow; }
int64_t lb_hist_overflow(const lb_hist *h) { return h->overflow; }
int64_t lb_hist_min(const lb_hist *h) { return h->min; }
int64_t lb_hist_max(const lb_hist *h) { return h->max; }
double lb_hist_sum(const lb_hist *h) { return h->sum; }
const lb_hist_config *lb_hist_cfg(const lb_hist *h) { return &h->cfg; }

/* ---- packed (wire) form ---------------------------------------------------- */

enum { PACK_HEADER = 6 };

int64_t lb_hist_packed_size(const lb_hist *h)
{
    int64_t n = 0;
    if (h->total > 0) {
        int32_t last = slot_of(&h->cfg, h->max);
        for (int32_t i = slot_of(&h->cfg, h->min); i <= last; i++)
            n += h->counts[i] != 0;
    }
    return (int64_t)sizeof(int64_t) * (PACK_HEADER + 2 * n);
}

int64_t lb_hist_pack(const lb_hist *h, void *buf, int64_t cap)
{
    int64_t need = lb_hist_packed_size(h);
    if (cap < need)
        return -ENOSPC;
    uint64_t sum_bits;
    memcpy(&sum_bits, &h->sum, sizeof(sum_bits));
    int64_t head[PACK_HEADER] = {h->total, h->underflow, h->overflow, h->min, h->max, (int64_t)sum_bits};
    for (int k = 0; k < PACK_HEADER; k++)
        lb_wire_put64(buf, k, (uint64_t)head[k]);
    int64_t k = PACK_HEADER;
    if (h->total > 0) {
        int32_t last = slot_of(&h->cfg, h->max);
        for (int32_t i = slot_of(&h->cfg, h->min); i <= last; i++) {
            if (h->counts[i] == 0)
                continue;
            lb_wire_put64(buf, k++, (uint64_t)i);
            lb_wire_put64(buf, k++, (uint64_t)h->counts[i]);
        }
    }
    return need;
}

int lb_hist_merge_packed(lb_hist *dst, const void *buf, int64_t len)
{
    int64_t words = len / (int64_t)sizeof(int64_t);
    if (!dst || !buf || len % (int64_t)sizeof(int64_t) || words < PACK_HEADER || (words - PACK_HEADER) % 2)
        return -EINVAL;
#define IN(k) ((int64_t)lb_wire_get64(buf, (k)))
    /* Validate every slot before touching dst: a bad buffer merges nothing.
     * Unsigned compares take both bounds of a slot (and the sign of a count)
     * in one test: this loop runs over every rank's slots on rank 0. */
    uint64_t slots = (uint64_t)dst->cfg.counts_len;
    for (int64_t k = PACK_HEADER; k < words; k += 2)
        if (lb_wire_get64(buf, k) >= slots || lb_wire_get64(buf, k + 1) > (uint64_t)INT64_MAX)
            return -EINVAL;
    for (int64_t k = PACK_HEADER; k < words; k += 2)
        dst->counts[lb_wire_get64(buf, k)] += IN(k + 1);
    uint64_t sum_bits = lb_wire_get64(buf, 5);
    double sum;
    memcpy(&sum, &sum_bits, sizeof(sum));
    dst->total += IN(0);
    dst->underflow += IN(1);
    dst->overflow += IN(2);
    if (IN(0) > 0 && IN(3) < dst->min)
        dst->min = IN(3);
    if (IN(0) > 0 && IN(4) > dst->max)
        dst->max = IN(4);
    dst->sum += sum;
    return 0;
#undef IN
}
