/* Unit tests for the cross-process merge: core/hist.c's packed form (a
 * histogram packed, then merged into another, equals lb_hist_merge of the
 * original; malformed buffers are refused without touching the target),
 * and core/cluster/cluster.c's single-process default and ops registration. */
#include "cluster/cluster.h"
#include "hist.h"
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 12345;
static int64_t next_value(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    /* Spread over several decades, with some out of range. */
    int64_t v = (int64_t)((rng >> 20) % 10000000);
    return (rng >> 60) == 0 ? v * 1000000 : v;
}

static int same_hist(const lb_hist *a, const lb_hist *b)
{
    if (lb_hist_total(a) != lb_hist_total(b) || lb_hist_min(a) != lb_hist_min(b) || lb_hist_max(a) != lb_hist_max(b) ||
        lb_hist_sum(a) != lb_hist_sum(b) || lb_hist_underflow(a) != lb_hist_underflow(b) ||
        lb_hist_overflow(a) != lb_hist_overflow(b))
        return 0;
    return memcmp(a->counts, b->counts, sizeof(int64_t) * (size_t)a->cfg.counts_len) == 0;
}

static void test_pack_merge(void)
{
    lb_hist_config cfg;
    lb_hist_config_default(&cfg);
    lb_hist *a = lb_hist_new(&cfg), *b = lb_hist_new(&cfg), *direct = lb_hist_new(&cfg), *packed = lb_hist_new(&cfg);
    for (int i = 0; i < 20000; i++) {
        lb_hist_record(a, next_value());
        lb_hist_record(b, next_value());
    }
    lb_hist_record(a, -5); /* underflow */
    lb_hist_merge(direct, a);
    lb_hist_merge(direct, b);

    int ok = 1;
    const lb_hist *parts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        int64_t n = lb_hist_packed_size(parts[k]);
        char *buf = malloc((size_t)n);
        ok &= lb_hist_pack(parts[k], buf, n) == n;
        ok &= lb_hist_pack(parts[k], buf, n - 1) == -ENOSPC;
        ok &= lb_hist_merge_packed(packed, buf, n) == 0;
        free(buf);
    }
    check(ok && same_hist(direct, packed), "hist_packed_merge_equals_merge", "packed merge differs from lb_hist_merge");
    check(lb_hist_percentile(direct, 99.9) == lb_hist_percentile(packed, 99.9) &&
              lb_hist_percentile(direct, 50) == lb_hist_percentile(packed, 50),
          "hist_packed_percentiles", "percentiles differ");

    /* An empty histogram packs to its header and merges as nothing. */
    lb_hist *empty = lb_hist_new(&cfg), *copy = lb_hist_new(&cfg);
    lb_hist_merge(copy, packed);
    int64_t n = lb_hist_packed_size(empty);
    char head[64];
    check(n == 48 && lb_hist_pack(empty, head, sizeof(head)) == 48 && lb_hist_merge_packed(copy, head, n) == 0 &&
              same_hist(copy, packed),
          "hist_packed_empty", "empty histogram: size %lld", (long long)n);

    /* Malformed: odd length, a slot out of range (past the end, or
     * negative: the check compares unsigned), a negative count; a bad pair
     * after good ones merges nothing either. */
    int64_t bad[10] = {1, 0, 0, 5, 5, 0, cfg.counts_len, 1};
    int r1 = lb_hist_merge_packed(copy, bad, 7 * 8);
    int r2 = lb_hist_merge_packed(copy, bad, 8 * 8);
    bad[6] = 3, bad[7] = -1;
    int r3 = lb_hist_merge_packed(copy, bad, 8 * 8);
    bad[6] = 3, bad[7] = 1, bad[8] = -1, bad[9] = 1;
    int r4 = lb_hist_merge_packed(copy, bad, 10 * 8);
    check(r1 == -EINVAL && r2 == -EINVAL && r3 == -EINVAL && r4 == -EINVAL && same_hist(copy, packed),
          "hist_packed_malformed", "results %d %d %d %d", r1, r2, r3, r4);
    lb_hist_free(a), lb_hist_free(b), lb_hist_free(direct), lb_hist_free(packed), lb_hist_free(empty), lb_hist_free(copy);
}

static int fake_rank(void) { return 3; }

static void test_single_default(void)
{
    int64_t v = 42, lens[1];
    char missing[1] = {1}, out[4];
    int ok = lb_cluster_rank() == 0 && lb_cluster_size() == 1 && strcmp(lb_cluster_name(), "single") == 0;
    ok &= lb_cluster_min(&v) == 0 && v == 42 && lb_cluster_max(&v) == 0 && v == 42;
    ok &= lb_cluster_bcast(&v, 8, 0) == 0 && lb_cluster_bcast(&v, 8, 1) == -EINVAL;
    ok &= lb_cluster_gather_lens(3, lens, missing, 0) == 0 && lens[0] == 3 && missing[0] == 0;
    ok &= lb_cluster_gather_data("abc", 3, out, lens, missing, 0) == 0 && memcmp(out, "abc", 3) == 0;
    ok &= lb_cluster_notify_stop() == 0 && lb_cluster_poll_stop() == 0 && lb_cluster_in_flight() == 0 && !lb_cluster_abort_requested();
    check(ok, "cluster_single_default", "the single-process default is not one rank of one");
    int64_t off[1] = {7}, rtt[1] = {7};
    check(lb_cluster_clock_offsets(4, off, rtt) == 0 && off[0] == 0 && rtt[0] == 0 &&
              lb_cluster_clock_offsets(0, off, rtt) == -EINVAL,
          "cluster_single_clock_offsets", "one process: offset %lld, rtt %lld", (long long)off[0], (long long)rtt[0]);

    lb_cluster_ops partial = {.name = "partial", .rank = fake_rank};
    check(lb_cluster_register(&partial) == -EINVAL && lb_cluster_rank() == 0, "cluster_register_checks_ops",
          "an incomplete ops table was accepted");
}

int main(void)
{
    test_pack_merge();
    test_single_default();
    return check_exit();
}
