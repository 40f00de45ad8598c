/* hist.h - log-linear ("HDR-style") histogram of int64 values.
 *
 * Layout
 *   Let s = unit_magnitude = floor(log2(lowest)) (the resolution unit is 2^s,
 *   the largest power of two <= lowest), and S = sub_bucket_count = the
 *   smallest power of two >= 2 * 10^sig_digits, H = S / 2.  A value v
 *   (0 <= v <= highest) is scaled to u = v >> s and then:
 *     - u < S:   slot u                     (linear part, width 2^s each)
 *     - u >= S:  e = floor(log2 u) - log2 H, slot e*H + (u >> e)
 *   so every power-of-two range [2^k, 2^(k+1)) above S units is cut into H
 *   equal slots.  counts_len = index_of(highest) + 1; slots are ordered by
 *   value, which is what makes percentiles a single cumulative walk and
 *   merges a plain element-wise add.  Values < 0 go to `underflow`, values
 *   > highest to `overflow`; nothing is ever clamped into range.
 *
 * Error bound
 *   rel_error = 1 / sub_bucket_count  (<= 0.5 * 10^-sig_digits; 1/2048 ~=
 *   0.049% for the default 3 digits).  A percentile that lands in a bucket
 *   reports a value r with
 *       |r - exact| <= max(rel_error * exact, 2^unit_magnitude / 2)
 *   where exact is the recorded sample of that rank.  With lowest == 1 the
 *   second term is 0.5, i.e. values below sub_bucket_count are exact.
 *
 * Memory cost
 *   lb_hist_size(cfg) = sizeof(lb_hist) + 8 * counts_len, with
 *   counts_len ~= H * (log2(highest / (S * 2^s)) + 2).
 *   Default (lowest 1, highest 2^42-1 ns ~= 73 min, 3 digits):
 *   counts_len = 33792, 270448 bytes per histogram.  Only lb_hist_init
 *   touches all of it (lb_hist_new takes zeroed memory); reset, copy, merge
 *   and the percentile walks cover just the slots between the buckets of min
 *   and max.
 *
 * Concurrency: single writer per histogram, no locks or atomics; readers
 * must work on a quiescent histogram (e.g. one filled by lb_hist_copy).
 */
#ifndef LB_HIST_H
#define LB_HIST_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* FFI BEGIN */
typedef struct lb_hist_config {
    int64_t lowest;        /* resolution unit as given: values in [0, 2^unit_magnitude) share the first sub-bucket; rounded internally to the power of two <= lowest */
    int64_t highest;       /* largest trackable value; above -> overflow counter */
    int     sig_digits;    /* 1..5 */
    int32_t unit_magnitude, sub_bucket_count, sub_bucket_half_count, sub_bucket_half_count_magnitude;
    int32_t bucket_count;  /* exponent groups in use: 1 + e of `highest` */
    int32_t counts_len;    /* slots in lb_hist.counts */
    int64_t sub_bucket_mask; /* (sub_bucket_count - 1) << unit_magnitude */
    double  rel_error;     /* bound on |reported - exact| / exact for a percentile (see top) */
} lb_hist_config;
/* FFI END */

typedef struct lb_hist {
    lb_hist_config cfg;
    int64_t total;      /* in-range samples */
    int64_t underflow;  /* samples < 0 */
    int64_t overflow;   /* samples > highest */
    int64_t min, max;   /* exact min/max of in-range samples (INT64_MAX/INT64_MIN when empty) */
    double  sum;        /* sum of in-range samples for the mean; exact while it stays below 2^53 */
    int64_t counts[];   /* counts_len entries */
} lb_hist;

/* FFI BEGIN */
/* Lua sees lb_hist as opaque: only these functions touch it. */
typedef struct lb_hist lb_hist;

/* Fill *cfg for the given range and precision.  A pure function of its
 * arguments (same inputs -> bit-identical struct, padding zeroed), so two
 * sides can agree on a layout by exchanging (lowest, highest, sig_digits).
 * Returns 0, or -EINVAL when cfg is NULL, lowest < 1, highest < 2*lowest,
 * sig_digits is outside 1..5, or 2^unit_magnitude * sub_bucket_count would
 * exceed 2^63 (the linear part would not fit in int64). */
int  lb_hist_config_init(lb_hist_config *cfg, int64_t lowest, int64_t highest, int sig_digits);

/* Latency in nanoseconds: lowest 1, highest 2^42-1 (~73 minutes, >= 1 hour),
 * 3 significant digits (rel_error = 1/2048 <= 0.1%).  Returns 0 or -EINVAL
 * (NULL cfg). */
int  lb_hist_config_default(lb_hist_config *cfg);

/* True when histograms built from a and b have the same bucket layout and
 * range, i.e. can be merged or copied exactly.  `lowest` values that round
 * to the same power of two count as equal. */
bool lb_hist_config_same(const lb_hist_config *a, const lb_hist_config *b);

/* Bytes lb_hist_new allocates (and lb_hist_init needs) for cfg; 0 if cfg is
 * NULL. */
size_t lb_hist_size(const lb_hist_config *cfg);

/* Allocate an empty histogram.  cfg must be exactly what lb_hist_config_init
 * produces for its (lowest, highest, sig_digits); a hand-edited config is
 * refused because the record path trusts it.  Returns NULL with errno set
 * to EINVAL (bad cfg) or ENOMEM. */
lb_hist *lb_hist_new(const lb_hist_config *cfg);

/* Make caller-provided memory of at least lb_hist_size(cfg) bytes an empty
 * histogram (e.g. shared memory or an FFI-owned buffer).  cfg must come from
 * lb_hist_config_init; does nothing if h or cfg is NULL. */
void lb_hist_init(lb_hist *h, const lb_hist_config *cfg);

/* Release a histogram from lb_hist_new; NULL is allowed. */
void lb_hist_free(lb_hist *h);

/* Hot path: O(1), one range branch, no division.  Returns true when v was
 * counted in a bucket; false when it was counted in underflow (v < 0) or
 * overflow (v > highest) instead. */
bool lb_hist_record(lb_hist *h, int64_t v);

/* Same as n calls of lb_hist_record(h, v) (sum may differ in the last bit
 * only once it exceeds 2^53).  n <= 0 records nothing and returns false. */
bool lb_hist_record_n(lb_hist *h, int64_t v, int64_t n);

/* Back to empty; the configuration is kept.  Cost: clears only the slots
 * between the buckets of min and max (nothing when no in-range sample was
 * recorded) -- every other slot is zero already -- so resetting a histogram
 * that saw a narrow range of values is cheap; lb_hist_init clears all. */
void lb_hist_reset(lb_hist *h);

/* dst += src, exactly: counts, totals, under/overflow, min, max, sum.
 * Cost: walks only src's slots between the buckets of its min and max
 * (none when src has no in-range sample).  Returns 0, or -EINVAL (leaving
 * dst untouched) when either is NULL or the configurations are not
 * lb_hist_config_same. */
int  lb_hist_merge(lb_hist *dst, const lb_hist *src);

/* dst = src (a quiescent snapshot for readers).  Returns 0, or -EINVAL
 * (leaving dst untouched) when either is NULL or the configurations are not
 * lb_hist_config_same -- dst's memory is only known to fit its own layout. */
int  lb_hist_copy(lb_hist *dst, const lb_hist *src);

/* total + underflow + overflow: every sample ever recorded (0 for NULL). */
int64_t lb_hist_count_all(const lb_hist *h);

/* Mean of the in-range samples from the running sum; 0 when empty or NULL. */
double  lb_hist_mean(const lb_hist *h);

/* Population standard deviation of the in-range samples around the exact
 * mean, using each bucket's representative value (see lb_hist_percentile),
 * so it is off by at most rel_error * rms(value) + 2^unit_magnitude / 2.
 * 0 when empty or NULL. */
double  lb_hist_stddev(const lb_hist *h);

/* Value at percentile p.  Ranks count ALL samples ordered as
 * underflow < buckets < overflow; rank = max(1, ceil(p/100 * count_all)),
 * computed so that decimal p such as 99.9 hits its exact rank despite
 * binary rounding.  p < 0 or NaN act as 0, p > 100 as 100.
 * A rank in the underflow part returns INT64_MIN, in the overflow part
 * INT64_MAX (the caller shows "< 0" / "> highest"); never a clamped number.
 * The first and last in-range ranks return the exact min and max.  Any
 * other rank returns the midpoint of the bucket holding it, clamped into
 * [min, max], within the bound stated at the top.
 * Empty histogram or NULL h: 0.  Note: when highest == INT64_MAX, INT64_MAX can also
 * be a genuine in-range answer. */
int64_t lb_hist_percentile(const lb_hist *h, double p);

/* out[i] = lb_hist_percentile(h, ps[i]) for i < n, with one pass over the
 * counts; ps may be in any order.  Does nothing if any pointer is NULL or
 * n <= 0. */
void    lb_hist_percentiles(const lb_hist *h, const double *ps, int n, int64_t *out);

/* Iterate non-empty buckets in increasing value order.  Start with
 * *idx = -1; each call advances *idx to the next non-empty slot and returns
 * true with its inclusive value range [*lo, *hi] (hi capped at highest) and
 * count; returns false when there are no more.  Any of lo/hi/count may be
 * NULL. */
bool lb_hist_next_bucket(const lb_hist *h, int32_t *idx, int64_t *lo, int64_t *hi, int64_t *count);

/* Slot index of v in a histogram with configuration cfg, for
 * 0 <= v <= highest; -1 for out-of-range v or NULL cfg.  Indexes are
 * comparable across histograms whose configs are lb_hist_config_same. */
int32_t lb_hist_index_of(const lb_hist_config *cfg, int64_t v);

/* The largest value in the slot of v (capped at highest): every value in
 * [v, lb_hist_slot_upper(cfg, v)] shares v's slot, and the next value
 * starts another.  A bound placed there splits no slot, so the counts
 * below and above it are exact (the metrics endpoint's histogram buckets).
 * -1 for out-of-range v or NULL cfg. */
int64_t lb_hist_slot_upper(const lb_hist_config *cfg, int64_t v);

/* Field accessors for FFI users, who see lb_hist as opaque. */
int64_t lb_hist_total(const lb_hist *h);
int64_t lb_hist_underflow(const lb_hist *h);
int64_t lb_hist_overflow(const lb_hist *h);
int64_t lb_hist_min(const lb_hist *h);
int64_t lb_hist_max(const lb_hist *h);
double  lb_hist_sum(const lb_hist *h);
const lb_hist_config *lb_hist_cfg(const lb_hist *h);

/* Sparse wire form of a histogram, for merging across processes (the
 * cluster layer): a header of 6 int64 (total, underflow, overflow, min,
 * max, sum as IEEE bits), then one (int64 slot, int64 count) pair per
 * non-empty slot, every word little-endian (wire.h): hosts of any byte
 * order read it alike.  Both sides must use lb_hist_config_same configs
 * (the cluster checks the binary is the same build).
 * lb_hist_packed_size: the bytes lb_hist_pack writes.  lb_hist_pack:
 * writes them to buf (cap bytes) and returns the length, or -ENOSPC. */
int64_t lb_hist_packed_size(const lb_hist *h);
int64_t lb_hist_pack(const lb_hist *h, void *buf, int64_t cap);
/* Merge a packed histogram into dst exactly (as lb_hist_merge would the
 * original); -EINVAL for a malformed buffer or a slot out of range. */
int lb_hist_merge_packed(lb_hist *dst, const void *buf, int64_t len);

/* FFI END */

#endif /* LB_HIST_H */
