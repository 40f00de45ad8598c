/* Unit tests for core/hist.c: layout, error bound against exact order
 * statistics, merge/copy exactness, out-of-range accounting, iteration. */
#include "hist.h"
#include "check.h"
#include "hist_support.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Layout reference written as a loop instead of clz arithmetic: halve the
 * scaled value until it fits the linear part, counting the halvings. */
static int32_t ref_index(const lb_hist_config *c, int64_t v)
{
    int64_t u = v >> c->unit_magnitude;
    int32_t e = 0;
    while (u >= c->sub_bucket_count) {
        u >>= 1;
        e++;
    }
    return e * c->sub_bucket_half_count + (int32_t)u;
}

/* Largest error the header promises for a value whose exact answer is x. */
static double allowed_error(const lb_hist_config *c, int64_t x)
{
    double rel = c->rel_error * (double)x;
    double abs_floor = (double)((int64_t)1 << c->unit_magnitude) / 2.0;
    return rel > abs_floor ? rel : abs_floor;
}

/* ---- configuration ----------------------------------------------------- */

static void test_config(void)
{
    lb_hist_config c;
    int rc = lb_hist_config_default(&c);
    int32_t want_len = rc == 0 ? ref_index(&c, c.highest) + 1 : -1;
    size_t want_size = sizeof(lb_hist) + (size_t)want_len * sizeof(int64_t);
    check(rc == 0 && c.highest >= INT64_C(3600000000000) && c.lowest == 1 &&
              c.sig_digits == 3 && c.rel_error <= 0.001 && c.sub_bucket_count == 2048 &&
              c.counts_len == want_len && want_len == 33792 &&
              lb_hist_size(&c) == want_size,
          "config/default",
          "rc=%d highest=%" PRId64 " rel=%g sbc=%d counts_len=%d want %d size=%zu want %zu", rc,
          c.highest, c.rel_error, c.sub_bucket_count, c.counts_len, want_len, lb_hist_size(&c),
          want_size);

    /* Per digit count: smallest power of two >= 2*10^d, error bound follows. */
    int ok = 1;
    char why[200] = "";
    int64_t need = 2;
    for (int d = 1; d <= 5 && ok; d++) {
        need *= 10;
        rc = lb_hist_config_init(&c, 1, INT64_C(1) << 40, d);
        int32_t s = c.sub_bucket_count;
        if (rc != 0 || s < need || s / 2 >= need || (s & (s - 1)) != 0 ||
            c.rel_error > 0.5 * pow(10.0, -d) || c.rel_error != 1.0 / s ||
            c.sub_bucket_half_count * 2 != s ||
            (1 << c.sub_bucket_half_count_magnitude) != c.sub_bucket_half_count ||
            c.counts_len != ref_index(&c, c.highest) + 1) {
            ok = 0;
            snprintf(why, sizeof why, "digits %d: rc=%d sbc=%d rel=%g len=%d", d, rc, s,
                     c.rel_error, c.counts_len);
        }
    }
    check(ok, "config/digits", "%s", why);

    /* lowest is rounded down to a power of two. */
    rc = lb_hist_config_init(&c, 1000, 1000000000, 2);
    check(rc == 0 && c.unit_magnitude == 9 && c.sub_bucket_count == 256 &&
              c.sub_bucket_mask == (int64_t)255 << 9,
          "config/lowest-rounding", "rc=%d unit=%d sbc=%d", rc, c.unit_magnitude,
          c.sub_bucket_count);

    struct { int64_t lo, hi; int d; } bad[] = {
        {0, 100, 3},  {-1, 100, 3}, {10, 19, 3},          {10, 10, 3},
        {1, 1, 3},    {1, -5, 3},   {1, 1000, 0},         {1, 1000, 6},
        {1, 1000, -1}, {INT64_C(1) << 60, INT64_MAX, 3}, /* linear part beyond 2^63 */
    };
    ok = 1;
    why[0] = 0;
    for (int i = 0; i < NELEM(bad); i++) {
        rc = lb_hist_config_init(&c, bad[i].lo, bad[i].hi, bad[i].d);
        if (rc != -EINVAL) {
            ok = 0;
            snprintf(why, sizeof why, "(%" PRId64 ", %" PRId64 ", %d) gave %d", bad[i].lo,
                     bad[i].hi, bad[i].d, rc);
        }
    }
    if (lb_hist_config_init(NULL, 1, 1000, 3) != -EINVAL) {
        ok = 0;
        snprintf(why, sizeof why, "NULL cfg accepted");
    }
    if (lb_hist_config_init(&c, 10, 20, 3) != 0) { /* boundary: highest == 2*lowest */
        ok = 0;
        snprintf(why, sizeof why, "highest == 2*lowest rejected");
    }
    check(ok, "config/bad-args", "%s", why);

    /* Deterministic down to padding: fill with different garbage first. */
    lb_hist_config a, b;
    memset(&a, 0xAA, sizeof a);
    memset(&b, 0x55, sizeof b);
    int ra = lb_hist_config_init(&a, 777, 123456789012, 4);
    int rb = lb_hist_config_init(&b, 777, 123456789012, 4);
    check(ra == 0 && rb == 0 && memcmp(&a, &b, sizeof a) == 0 && lb_hist_config_same(&a, &b),
          "config/deterministic", "ra=%d rb=%d differ", ra, rb);

    /* lb_hist_new trusts nothing hand-edited. */
    lb_hist_config_default(&c);
    lb_hist_config t = c;
    t.counts_len += 1;
    errno = 0;
    lb_hist *h1 = lb_hist_new(&t);
    int e1 = errno;
    errno = 0;
    lb_hist *h2 = lb_hist_new(NULL);
    int e2 = errno;
    lb_hist *h3 = lb_hist_new(&c);
    check(!h1 && e1 == EINVAL && !h2 && e2 == EINVAL && h3 && h3->total == 0 &&
              h3->min == INT64_MAX && h3->max == INT64_MIN && h3->counts[0] == 0 &&
              h3->counts[c.counts_len - 1] == 0,
          "config/new-validates", "tampered=%p/%d null=%p/%d good=%p", (void *)h1, e1,
          (void *)h2, e2, (void *)h3);
    lb_hist_free(h1);
    lb_hist_free(h3);
    lb_hist_free(NULL);
}

/* ---- layout ------------------------------------------------------------ */

static void test_index_layout(void)
{
    struct { int64_t lo, hi; int d; } cfgs[] = {
        {1, (INT64_C(1) << 42) - 1, 3}, {1000, 1000000000, 2}, {1, INT64_MAX, 1},
        {7, INT64_C(1000000000000000), 5}, {3, 1000000, 4}, {INT64_C(1) << 40, INT64_MAX, 1},
    };
    int ok = 1;
    char why[200] = "";
    rng_seed(42);
    for (int k = 0; k < NELEM(cfgs) && ok; k++) {
        lb_hist_config c;
        if (lb_hist_config_init(&c, cfgs[k].lo, cfgs[k].hi, cfgs[k].d) != 0) {
            ok = 0;
            snprintf(why, sizeof why, "cfg %d rejected", k);
            break;
        }
        int64_t probes = 0;
        for (int64_t i = 0; ok; i++) {
            int64_t v;
            if (i < 300000)
                v = i; /* dense low range */
            else if (i < 300000 + 63 * 3) {
                int j = (int)(i - 300000);
                v = (INT64_C(1) << (j / 3)) + (j % 3) - 1; /* 2^k - 1, 2^k, 2^k + 1 */
            } else if (i < 300000 + 63 * 3 + 200000) {
                /* log-uniform random up to highest */
                int sh = (int)(rng_u64() % 63);
                v = (int64_t)(rng_u64() >> 1) >> sh;
            } else
                break;
            if (v > c.highest)
                continue;
            probes++;
            int32_t got = lb_hist_index_of(&c, v), want = ref_index(&c, v);
            if (got != want || got < 0 || got >= c.counts_len) {
                ok = 0;
                snprintf(why, sizeof why, "cfg %d v=%" PRId64 ": index %d, reference %d, len %d", k,
                         v, got, want, c.counts_len);
            }
        }
        if (ok && (lb_hist_index_of(&c, c.highest) != c.counts_len - 1 ||
                   lb_hist_index_of(&c, -1) != -1 ||
                   (c.highest < INT64_MAX && lb_hist_index_of(&c, c.highest + 1) != -1) ||
                   probes < 1000)) {
            ok = 0;
            snprintf(why, sizeof why, "cfg %d: edge indexes wrong (probes %" PRId64 ")", k, probes);
        }
    }
    check(ok, "layout/index-vs-reference", "%s", why);
}

/* Every value recorded once: buckets must tile [0, highest] exactly. */
static void test_tiling(void)
{
    lb_hist_config c;
    lb_hist_config_init(&c, 100, 1000000, 2);
    lb_hist *h = lb_hist_new(&c);
    for (int64_t v = 0; v <= c.highest; v++)
        lb_hist_record(h, v);
    int ok = 1;
    char why[200] = "";
    int32_t idx = -1, n = 0;
    int64_t lo, hi, cnt, expect_lo = 0;
    while (lb_hist_next_bucket(h, &idx, &lo, &hi, &cnt)) {
        n++;
        if (lo != expect_lo || hi < lo || cnt != hi - lo + 1 || lb_hist_index_of(&c, lo) != idx ||
            lb_hist_index_of(&c, hi) != idx) {
            ok = 0;
            snprintf(why, sizeof why,
                     "bucket %d: [%" PRId64 ", %" PRId64 "] count %" PRId64 ", expected lo %" PRId64,
                     idx, lo, hi, cnt, expect_lo);
            break;
        }
        expect_lo = hi + 1;
    }
    if (ok && (expect_lo != c.highest + 1 || n != c.counts_len)) {
        ok = 0;
        snprintf(why, sizeof why, "covered up to %" PRId64 " in %d buckets, want %" PRId64 " in %d",
                 expect_lo - 1, n, c.highest, c.counts_len);
    }
    check(ok, "iterate/tiles-range", "%s", why);
    lb_hist_free(h);
}

/* ---- percentiles against exact order statistics ------------------------ */

static void check_distribution(const char *name, const lb_hist_config *c, const int64_t *samples,
                               int64_t n)
{
    char cname[96], why[300] = "";
    lb_hist *h = lb_hist_new(c);
    int64_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (!h || !sorted) {
        check(0, name, "out of memory");
        free(sorted);
        lb_hist_free(h);
        return;
    }
    int64_t in = 0, isum = 0, mn = INT64_MAX, mx = INT64_MIN, recorded_ok = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = samples[i];
        bool r = lb_hist_record(h, v);
        sorted[i] = v;
        if (v >= 0 && v <= c->highest) {
            in++;
            isum += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            recorded_ok += r;
        }
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_i64);

    /* 1. each percentile within the stated bound of the exact sample */
    int ok = recorded_ok == in && lb_hist_count_all(h) == n && h->total == in;
    if (!ok)
        snprintf(why, sizeof why, "counts: in=%" PRId64 " total=%" PRId64 " all=%" PRId64, in,
                 h->total, lb_hist_count_all(h));
    double worst = 0.0; /* largest error as a fraction of the allowed error */
    int64_t single[NELEM(PP)];
    for (int k = 0; k < NELEM(PP); k++) {
        int64_t exact = sorted[oracle_rank(PP[k], n) - 1];
        int64_t got = lb_hist_percentile(h, (double)PP[k] / 100.0);
        single[k] = got;
        int good;
        double err = 0;
        if (exact < 0)
            good = got == INT64_MIN;
        else if (exact > c->highest)
            good = got == INT64_MAX;
        else {
            err = fabs((double)got - (double)exact);
            good = got != INT64_MIN && got != INT64_MAX && err <= allowed_error(c, exact);
            if (err / allowed_error(c, exact) > worst)
                worst = err / allowed_error(c, exact);
        }
        if (!good && ok) {
            ok = 0;
            snprintf(why, sizeof why,
                     "p%.2f: got %" PRId64 ", exact %" PRId64 ", allowed error %.1f", PP[k] / 100.0,
                     got, exact, allowed_error(c, exact));
        }
    }
    snprintf(cname, sizeof cname, "percentile/%s", name);
    check(ok, cname, "%s", why);

    /* 2. batch == single, with a scrambled order and duplicates */
    double ps[2 * NELEM(PP)];
    int map[2 * NELEM(PP)];
    int m = 0;
    for (int k = NELEM(PP) - 1; k >= 0; k -= 2)
        map[m++] = k;
    for (int k = 0; k < NELEM(PP); k += 2)
        map[m++] = k;
    for (int k = 0; k < NELEM(PP); k++)
        map[m++] = (k * 7) % NELEM(PP);
    for (int k = 0; k < m; k++)
        ps[k] = (double)PP[map[k]] / 100.0;
    int64_t batch[2 * NELEM(PP)];
    lb_hist_percentiles(h, ps, m, batch);
    ok = 1;
    for (int k = 0; k < m && ok; k++)
        if (batch[k] != single[map[k]]) {
            ok = 0;
            snprintf(why, sizeof why, "p%g: batch %" PRId64 " single %" PRId64, ps[k], batch[k],
                     single[map[k]]);
        }
    snprintf(cname, sizeof cname, "percentiles-batch/%s", name);
    check(ok, cname, "%s", why);

    /* 3. min/max/mean exact (test data keeps the sum below 2^53) */
    double want_mean = in ? (double)isum / (double)in : 0.0;
    snprintf(cname, sizeof cname, "min-max-mean/%s", name);
    int extremes_ok = in != n || (lb_hist_percentile(h, 0) == mn && lb_hist_percentile(h, 100) == mx);
    check(h->min == mn && h->max == mx && isum < (INT64_C(1) << 53) &&
              lb_hist_mean(h) == want_mean && extremes_ok,
          cname, "min %" PRId64 "/%" PRId64 " max %" PRId64 "/%" PRId64 " mean %.6f/%.6f p0/p100 %d",
          h->min, mn, h->max, mx, lb_hist_mean(h), want_mean, extremes_ok);

    /* 4. stddev within rel_error * rms + resolution/2 of the exact one */
    long double m1 = (long double)isum / (in ? in : 1), var = 0, sq = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = samples[i];
        if (v < 0 || v > c->highest)
            continue;
        long double d = (long double)v - m1;
        var += d * d;
        sq += (long double)v * v;
    }
    double sd = in ? (double)sqrtl(var / in) : 0.0;
    double rms = in ? (double)sqrtl(sq / in) : 0.0;
    double bound = c->rel_error * rms + allowed_error(c, 0) + 1e-9 * sd;
    double got_sd = lb_hist_stddev(h);
    snprintf(cname, sizeof cname, "stddev/%s", name);
    check(fabs(got_sd - sd) <= bound, cname, "stddev %.3f exact %.3f bound %.3f", got_sd, sd,
          bound);

    printf("     %-22s n=%-7" PRId64 " worst percentile error = %.2f of allowed\n", name, n,
           worst);
    free(sorted);
    lb_hist_free(h);
}

enum dist { UNIFORM, EXPONENTIAL, LOGNORMAL, BIMODAL, CONSTANT, SMALLINT, MIXED_RANGE };

static int64_t draw(enum dist d)
{
    switch (d) {
    case UNIFORM: return (int64_t)(rng_unit() * 1e10);
    case EXPONENTIAL: return (int64_t)(-2e5 * log1p(-rng_unit()));
    case LOGNORMAL: return (int64_t)exp(log(1e5) + 2.5 * rng_normal());
    case BIMODAL: {
        double v = rng_unit() < 0.8 ? 1e5 + 1e4 * rng_normal() : 5e7 + 5e6 * rng_normal();
        return v < 0 ? 0 : (int64_t)v;
    }
    case CONSTANT: return 12345;
    case SMALLINT: return (int64_t)(rng_u64() % 101);
    case MIXED_RANGE: /* for (1000, 1e9, 2): some negatives, some above highest */
        if (rng_unit() < 0.005)
            return -1 - (int64_t)(rng_u64() % 1000);
        return (int64_t)exp(log(1e6) + 2.0 * rng_normal());
    }
    return 0;
}

static void test_distributions(void)
{
    static const struct { const char *name; enum dist d; int64_t n; int nondefault; } cases[] = {
        {"uniform-0..1e10", UNIFORM, 250000, 0},      {"exponential", EXPONENTIAL, 200003, 0},
        {"lognormal-heavy", LOGNORMAL, 250000, 0},    {"bimodal", BIMODAL, 200003, 0},
        {"constant", CONSTANT, 200000, 0},            {"smallint-0..100", SMALLINT, 200003, 0},
        {"lowest1000-2digits", MIXED_RANGE, 250000, 1},
    };
    lb_hist_config def, alt;
    lb_hist_config_default(&def);
    lb_hist_config_init(&alt, 1000, 1000000000, 2);
    for (int k = 0; k < NELEM(cases); k++) {
        int64_t *s = malloc((size_t)cases[k].n * sizeof *s);
        if (!s) {
            check(0, cases[k].name, "out of memory");
            continue;
        }
        rng_seed(0x1234 + (uint64_t)k);
        for (int64_t i = 0; i < cases[k].n; i++)
            s[i] = draw(cases[k].d);
        check_distribution(cases[k].name, cases[k].nondefault ? &alt : &def, s, cases[k].n);
        free(s);
    }
}

/* ---- merge / copy ------------------------------------------------------ */

static void test_merge(void)
{
    lb_hist_config c;
    lb_hist_config_default(&c);
    lb_hist *h1 = lb_hist_new(&c), *h2 = lb_hist_new(&c), *all = lb_hist_new(&c);
    lb_hist *empty = lb_hist_new(&c), *e2 = lb_hist_new(&c);
    rng_seed(99);
    for (int i = 0; i < 100000; i++) {
        int64_t v = draw(LOGNORMAL) + 1;
        if (i % 5000 == 0)
            v = -v - 1;
        else if (i % 5000 == 1)
            v = c.highest + 1 + v;
        lb_hist_record(h1, v);
        lb_hist_record(all, v);
    }
    /* Both sides carry under/overflow; the global min (0) and max (highest)
     * come from the source so the merge must take them over. */
    for (int i = 0; i < 80000; i++) {
        int64_t v = draw(EXPONENTIAL) + 7;
        if (i % 4000 == 0)
            v = c.highest + v;
        else if (i % 4000 == 1)
            v = -v;
        else if (i == 2)
            v = 0;
        else if (i == 3)
            v = c.highest;
        lb_hist_record(h2, v);
        lb_hist_record(all, v);
    }
    int64_t min_before = h1->min, max_before = h1->max;
    int r1 = lb_hist_merge(h1, h2);
    check(r1 == 0 && same_state(h1, all) && h1->underflow == 40 && h1->overflow == 40 &&
              min_before > 0 && max_before < c.highest && h1->min == 0 && h1->max == c.highest,
          "merge/equals-union", "rc=%d total %" PRId64 "/%" PRId64 " min %" PRId64 "/%" PRId64
          " max %" PRId64 "/%" PRId64 " under %" PRId64 " over %" PRId64,
          r1, h1->total, all->total, h1->min, all->min, h1->max, all->max, h1->underflow,
          h1->overflow);

    /* Empty on either side keeps the sentinels right. */
    int r2 = lb_hist_merge(empty, all);
    int r3 = lb_hist_merge(all, e2);
    check(r2 == 0 && r3 == 0 && same_state(empty, all) && e2->min == INT64_MAX &&
              e2->max == INT64_MIN,
          "merge/empty", "rc=%d/%d", r2, r3);

    /* Different configs, including one with the same counts_len. */
    lb_hist_config o1, o2;
    lb_hist_config_init(&o1, 1, 1000000, 3);
    lb_hist_config_init(&o2, 1, c.highest - 1000, 3);
    lb_hist *x1 = lb_hist_new(&o1), *x2 = lb_hist_new(&o2);
    lb_hist_record(x1, 5);
    lb_hist_record(x2, 5);
    lb_hist *snap = malloc(lb_hist_size(&c));
    memcpy(snap, h1, lb_hist_size(&c));
    int r4 = lb_hist_merge(h1, x1), r5 = lb_hist_merge(h1, x2), r6 = lb_hist_merge(NULL, h1);
    check(o2.counts_len == c.counts_len && r4 == -EINVAL && r5 == -EINVAL && r6 == -EINVAL &&
              memcmp(snap, h1, lb_hist_size(&c)) == 0,
          "merge/config-mismatch", "rc=%d/%d/%d same_len=%d", r4, r5, r6,
          o2.counts_len == c.counts_len);

    /* copy: exact snapshot, refuses mismatched layouts */
    lb_hist *cp = lb_hist_new(&c);
    lb_hist_record(cp, 1);
    int r7 = lb_hist_copy(cp, h1);
    memcpy(snap, cp, lb_hist_size(&c));
    int r8 = lb_hist_copy(cp, x2);
    check(r7 == 0 && same_state(cp, h1) && r8 == -EINVAL &&
              memcmp(snap, cp, lb_hist_size(&c)) == 0 &&
              lb_hist_percentile(cp, 50) == lb_hist_percentile(h1, 50),
          "copy", "rc=%d/%d", r7, r8);

    free(snap);
    lb_hist_free(cp);
    lb_hist_free(x1);
    lb_hist_free(x2);
    lb_hist_free(h1);
    lb_hist_free(h2);
    lb_hist_free(all);
    lb_hist_free(empty);
    lb_hist_free(e2);
}

/* ---- out of range ------------------------------------------------------ */

static void test_out_of_range(void)
{
    lb_hist_config c;
    lb_hist_config_init(&c, 1, 1000000, 3);
    lb_hist *h = lb_hist_new(&c);
    int returned_false = 0, returned_true = 0;
    /* 10 below, 80 inside (including both edges), 10 above */
    int64_t below[] = {-1, -2, -1000, INT64_MIN, -5, -6, -7, -8, -9, -10};
    int64_t above[] = {1000001, INT64_MAX, 2000000, 1000002, 1 << 30, 5000000, 7000000,
                       8000000, 9000000, 1000003};
    for (int i = 0; i < 10; i++)
        returned_false += !lb_hist_record(h, below[i]);
    for (int i = 0; i < 10; i++)
        returned_false += !lb_hist_record(h, above[i]);
    for (int i = 0; i < 78; i++)
        returned_true += lb_hist_record(h, 1000 + i * 1000);
    returned_true += lb_hist_record(h, 0);
    returned_true += lb_hist_record(h, 1000000);

    int64_t bucket_sum = 0;
    for (int32_t i = 0; i < c.counts_len; i++)
        bucket_sum += h->counts[i];
    check(returned_false == 20 && returned_true == 80 && h->underflow == 10 &&
              h->overflow == 10 && h->total == 80 && bucket_sum == 80 &&
              lb_hist_count_all(h) == 100 && h->min == 0 && h->max == 1000000,
          "range/counted-not-bucketed",
          "false=%d true=%d under=%" PRId64 " over=%" PRId64 " total=%" PRId64
          " buckets=%" PRId64 " min=%" PRId64 " max=%" PRId64,
          returned_false, returned_true, h->underflow, h->overflow, h->total, bucket_sum, h->min,
          h->max);

    /* ranks 1..10 underflow, 11..90 buckets, 91..100 overflow */
    int64_t p0 = lb_hist_percentile(h, 0), p10 = lb_hist_percentile(h, 10);
    int64_t p105 = lb_hist_percentile(h, 10.5), p90 = lb_hist_percentile(h, 90);
    int64_t p905 = lb_hist_percentile(h, 90.5), p100 = lb_hist_percentile(h, 100);
    check(p0 == INT64_MIN && p10 == INT64_MIN && p105 == 0 && p90 == 1000000 &&
              p905 == INT64_MAX && p100 == INT64_MAX,
          "range/percentile-sentinels",
          "p0=%" PRId64 " p10=%" PRId64 " p10.5=%" PRId64 " p90=%" PRId64 " p90.5=%" PRId64
          " p100=%" PRId64,
          p0, p10, p105, p90, p905, p100);

    /* Edge of int64: a config reaching INT64_MAX must not overflow anywhere. */
    lb_hist_config w;
    lb_hist_config_init(&w, 1, INT64_MAX, 1);
    lb_hist *hw = lb_hist_new(&w);
    bool in1 = lb_hist_record(hw, INT64_MAX), in2 = lb_hist_record(hw, 0);
    bool in3 = lb_hist_record(hw, INT64_MIN);
    int32_t idx = -1;
    int64_t lo = 0, hi = 0, cnt = 0, last_hi = 0;
    int nb = 0;
    while (lb_hist_next_bucket(hw, &idx, &lo, &hi, &cnt)) {
        nb++;
        last_hi = hi;
    }
    check(in1 && in2 && !in3 && hw->underflow == 1 && nb == 2 && last_hi == INT64_MAX &&
              lb_hist_percentile(hw, 100) == INT64_MAX && lb_hist_percentile(hw, 50) == 0 &&
              lb_hist_percentile(hw, 1) == INT64_MIN,
          "range/int64-edges", "in=%d%d%d buckets=%d last_hi=%" PRId64, in1, in2, in3, nb,
          last_hi);
    lb_hist_free(hw);
    lb_hist_free(h);
}

/* ---- iteration --------------------------------------------------------- */

static void test_iteration(void)
{
    lb_hist_config c;
    lb_hist_config_default(&c);
    lb_hist *h = lb_hist_new(&c);
    enum { N = 100000 };
    static int64_t vals[N];
    rng_seed(7);
    for (int i = 0; i < N; i++) {
        vals[i] = draw(i % 2 ? LOGNORMAL : SMALLINT);
        lb_hist_record(h, vals[i]);
    }
    /* Remember each visited bucket's range by index. */
    int64_t *blo = calloc((size_t)c.counts_len, sizeof *blo);
    int64_t *bhi = calloc((size_t)c.counts_len, sizeof *bhi);
    int ok = blo && bhi;
    char why[240] = "";
    int64_t sum = 0, prev_hi = -1;
    int32_t idx = -1, prev_idx = -1;
    int64_t lo, hi, cnt;
    int64_t min_lo_checked = (int64_t)c.sub_bucket_count * c.lowest;
    int width_checked = 0;
    while (ok && lb_hist_next_bucket(h, &idx, &lo, &hi, &cnt)) {
        sum += cnt;
        blo[idx] = lo;
        bhi[idx] = hi;
        if (idx <= prev_idx || lo <= prev_hi || hi < lo || cnt <= 0 || cnt != h->counts[idx]) {
            ok = 0;
            snprintf(why, sizeof why, "bucket %d [%" PRId64 ", %" PRId64 "] after %d ending %" PRId64,
                     idx, lo, hi, prev_idx, prev_hi);
        }
        if (lo >= min_lo_checked) {
            width_checked++;
            if ((double)(hi - lo + 1) / (double)lo > 2.0 * c.rel_error) {
                ok = 0;
                snprintf(why, sizeof why, "bucket [%" PRId64 ", %" PRId64 "] too wide for rel %g", lo,
                         hi, c.rel_error);
            }
        }
        prev_idx = idx;
        prev_hi = hi;
    }
    if (ok && (sum != h->total || width_checked < 100)) {
        ok = 0;
        snprintf(why, sizeof why, "bucket sum %" PRId64 " total %" PRId64 " width-checked %d", sum,
                 h->total, width_checked);
    }
    check(ok, "iterate/ordered-and-narrow", "%s", why);

    ok = blo && bhi;
    for (int i = 0; i < N && ok; i++) {
        int32_t k = lb_hist_index_of(&c, vals[i]);
        if (k < 0 || h->counts[k] == 0 || vals[i] < blo[k] || vals[i] > bhi[k]) {
            ok = 0;
            snprintf(why, sizeof why, "value %" PRId64 " -> index %d not in its bucket", vals[i], k);
        }
    }
    check(ok, "iterate/values-in-named-bucket", "%s", why);

    lb_hist *e = lb_hist_new(&c);
    idx = -1;
    check(!lb_hist_next_bucket(e, &idx, &lo, &hi, &cnt) && lb_hist_percentile(e, 50) == 0 &&
              lb_hist_mean(e) == 0.0 && lb_hist_stddev(e) == 0.0 && lb_hist_count_all(e) == 0,
          "iterate/empty", "empty histogram yielded data");
    free(blo);
    free(bhi);
    lb_hist_free(e);
    lb_hist_free(h);
}

/* ---- reset / record_n / caller memory ---------------------------------- */

static void test_reset_record_n(void)
{
    lb_hist_config c;
    lb_hist_config_init(&c, 1000, 1000000000, 2);
    lb_hist *h = lb_hist_new(&c), *fresh = lb_hist_new(&c);
    rng_seed(3);
    for (int i = 0; i < 10000; i++)
        lb_hist_record(h, draw(MIXED_RANGE));
    int had = h->total > 0 && h->underflow > 0 && h->overflow > 0;
    lb_hist_reset(h);
    check(had && same_state(h, fresh) && lb_hist_count_all(h) == 0 &&
              lb_hist_percentile(h, 99) == 0 && h->cfg.counts_len == c.counts_len,
          "reset", "had=%d total=%" PRId64 " min=%" PRId64, had, h->total, h->min);

    lb_hist *a = lb_hist_new(&c), *b = lb_hist_new(&c);
    struct { int64_t v, n; } rn[] = {
        {5, 3}, {123456, 1000}, {999999999, 2}, {-4, 7}, {1000000001, 5}, {77777, 1}, {0, 9},
    };
    int rets_match = 1;
    for (int i = 0; i < NELEM(rn); i++) {
        bool ra = lb_hist_record_n(a, rn[i].v, rn[i].n), rb = false;
        for (int64_t j = 0; j < rn[i].n; j++)
            rb = lb_hist_record(b, rn[i].v);
        rets_match &= ra == rb;
    }
    bool z = lb_hist_record_n(a, 42, 0), neg = lb_hist_record_n(a, 42, -3);
    check(rets_match && !z && !neg && same_state(a, b) && a->total == 1015 &&
              a->underflow == 7 && a->overflow == 5,
          "record_n", "rets=%d zero=%d neg=%d total=%" PRId64, rets_match, z, neg, a->total);

    /* Caller-provided memory behaves like lb_hist_new. */
    lb_hist *m = malloc(lb_hist_size(&c));
    memset(m, 0xEE, lb_hist_size(&c));
    lb_hist_init(m, &c);
    for (int i = 0; i < NELEM(rn); i++)
        lb_hist_record_n(m, rn[i].v, rn[i].n);
    check(same_state(m, a), "init-caller-memory", "differs from lb_hist_new");

    free(m);
    lb_hist_free(a);
    lb_hist_free(b);
    lb_hist_free(h);
    lb_hist_free(fresh);
}

int main(void)
{
    test_config();
    test_index_layout();
    test_tiling();
    test_distributions();
    test_merge();
    test_out_of_range();
    test_iteration();
    test_reset_record_n();
    return check_exit();
}
