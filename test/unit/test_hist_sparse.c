/* Unit tests for core/hist.c, continued: percentile rank rounding, and
 * sparse reset and merge against a full copy. */
#include "hist.h"
#include "check.h"
#include "hist_support.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Same buckets (via lb_hist_next_bucket), totals, extremes and percentiles. */
static int same_view(const lb_hist *a, const lb_hist *b, char *why, size_t whylen)
{
    int32_t ia = -1, ib = -1;
    int64_t la, ha, ca, lb, hb, cb;
    for (;;) {
        bool na = lb_hist_next_bucket(a, &ia, &la, &ha, &ca);
        bool nb = lb_hist_next_bucket(b, &ib, &lb, &hb, &cb);
        if (na != nb || (na && (ia != ib || la != lb || ha != hb || ca != cb))) {
            snprintf(why, whylen, "bucket %d/%d: [%" PRId64 ",%" PRId64 "]x%" PRId64 " vs [%" PRId64
                     ",%" PRId64 "]x%" PRId64, ia, ib, la, ha, ca, lb, hb, cb);
            return 0;
        }
        if (!na)
            break;
    }
    static const double ps[] = { 0, 50, 90, 95, 99, 99.9, 100 };
    for (int k = 0; k < NELEM(ps); k++)
        if (lb_hist_percentile(a, ps[k]) != lb_hist_percentile(b, ps[k])) {
            snprintf(why, whylen, "p%g: %" PRId64 " vs %" PRId64, ps[k], lb_hist_percentile(a, ps[k]),
                     lb_hist_percentile(b, ps[k]));
            return 0;
        }
    if (!same_state(a, b)) {
        snprintf(why, whylen, "state differs (total %" PRId64 "/%" PRId64 ")", a->total, b->total);
        return 0;
    }
    return 1;
}

/* reset and merge touch only the slots between the min and max buckets:
 * after sparse use (windows of narrow, shifting ranges, as the fileio data
 * points do) they must leave exactly what a freshly built histogram holds. */
static void test_sparse_reset_merge(void)
{
    lb_hist_config cfgs[2];
    lb_hist_config_default(&cfgs[0]);
    lb_hist_config_init(&cfgs[1], 1000, 1000000000, 2);   /* unit_magnitude > 0 */
    for (int ci = 0; ci < 2; ci++) {
        const lb_hist_config *c = &cfgs[ci];
        lb_hist *win = lb_hist_new(c), *acc = lb_hist_new(c), *ref_acc = lb_hist_new(c);
        lb_hist *ref_win = lb_hist_new(c), *fresh = lb_hist_new(c);
        char name[64], why[200] = "";
        int ok_win = 1, ok_acc = 1, ok_reset = 1;
        rng_seed(17 + (uint64_t)ci);
        /* Windows at very different scales, some touching slot 0 or the last
         * slot, some only out of range, some empty. */
        int64_t centers[] = { 50, 3000000, 7, 0, c->highest, 900000, -1, 123456789, 2 };
        for (int w = 0; w < NELEM(centers) && ok_win && ok_acc && ok_reset; w++) {
            int64_t ctr = centers[w];
            int n = w == 3 ? 0 : 1 + (int)(rng_u64() % 2000);
            for (int i = 0; i < n; i++) {
                int64_t v;
                if (ctr < 0)
                    v = i % 2 ? -1 - (int64_t)(rng_u64() % 100) : c->highest + 1 + (int64_t)(rng_u64() % 100);
                else if (ctr == c->highest)
                    v = c->highest - (int64_t)(rng_u64() % 1000);
                else
                    v = ctr + (int64_t)(rng_u64() % (uint64_t)(ctr / 10 + 3));
                lb_hist_record(win, v);
                lb_hist_record(ref_win, v);
                lb_hist_record(ref_acc, v);
            }
            if (ok_win && !same_view(win, ref_win, why, sizeof why))
                ok_win = 0;
            if (lb_hist_merge(acc, win) != 0 || !same_view(acc, ref_acc, why, sizeof why))
                ok_acc = 0;
            lb_hist_reset(win);
            lb_hist_reset(ref_win);
            if (ok_acc && ok_win && (!same_view(win, fresh, why, sizeof why) || !same_view(ref_win, fresh, why, sizeof why)))
                ok_reset = 0;
        }
        snprintf(name, sizeof name, "sparse/window-equals-fresh-build/%d", ci);
        check(ok_win, name, "%s", why);
        snprintf(name, sizeof name, "sparse/merge-equals-union/%d", ci);
        check(ok_acc, name, "%s", why);
        snprintf(name, sizeof name, "sparse/reset-equals-fresh/%d", ci);
        check(ok_reset, name, "%s", why);
        /* The wide accumulator resets to fresh too, and can be reused. */
        lb_hist_reset(acc);
        int ok = same_view(acc, fresh, why, sizeof why);
        lb_hist_record(acc, 5000);
        lb_hist_record(fresh, 5000);
        ok = ok && same_view(acc, fresh, why, sizeof why);
        snprintf(name, sizeof name, "sparse/reset-wide-then-reuse/%d", ci);
        check(ok, name, "%s", why);
        lb_hist_free(win);
        lb_hist_free(acc);
        lb_hist_free(ref_acc);
        lb_hist_free(ref_win);
        lb_hist_free(fresh);
    }
}

/* Decimal percentiles on counts where p*N/100 is an exact integer. */
static void test_rank_rounding(void)
{
    lb_hist_config c;
    lb_hist_config_default(&c);
    lb_hist *h = lb_hist_new(&c);
    for (int64_t v = 1; v <= 1000; v++) /* values below 2048 are stored exactly */
        lb_hist_record(h, v);
    int ok = 1;
    char why[160] = "";
    for (int64_t pp = 0; pp <= 10000 && ok; pp++) {
        int64_t want = oracle_rank(pp, 1000), got = lb_hist_percentile(h, (double)pp / 100.0);
        if (got != want) {
            ok = 0;
            snprintf(why, sizeof why, "p%.2f: got %" PRId64 " want %" PRId64, pp / 100.0, got, want);
        }
    }
    int64_t lo = lb_hist_percentile(h, -5), hi = lb_hist_percentile(h, 150),
            nan_ = lb_hist_percentile(h, NAN);
    check(ok && lo == 1 && hi == 1000 && nan_ == 1, "percentile/rank-rounding",
          "%s (p-5=%" PRId64 " p150=%" PRId64 " nan=%" PRId64 ")", why, lo, hi, nan_);

    /* Many percentiles at once takes the heap path. */
    double ps[500];
    int64_t out[500];
    ok = 1;
    for (int i = 0; i < 500; i++)
        ps[i] = (double)((i * 37) % 500) / 5.0;
    lb_hist_percentiles(h, ps, 500, out);
    for (int i = 0; i < 500 && ok; i++)
        if (out[i] != lb_hist_percentile(h, ps[i])) {
            ok = 0;
            snprintf(why, sizeof why, "p%g: batch %" PRId64 " single %" PRId64, ps[i], out[i],
                     lb_hist_percentile(h, ps[i]));
        }
    check(ok, "percentiles-batch/many", "%s", why);
    lb_hist_free(h);
}

int main(void)
{
    test_rank_rounding();
    test_sparse_reset_merge();
    return check_exit();
}
