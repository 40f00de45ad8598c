/* What lbench-mpi's ranks exchange reads the same on hosts of any byte
 * order (issue 28: one wire format): lb_stats and packed histograms are
 * little-endian 64-bit words, checked here byte by byte against known
 * values, and they round-trip exactly. */
#include "stats.h"
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int le_word_is(const unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        if (p[k] != (unsigned char)(v >> (8 * k)))
            return 0;
    return 1;
}

static void stats_wire(void)
{
    lb_stats s;
    memset(&s, 0, sizeof s);
    s.events = 0x0102030405060708ULL;
    s.io_bytes_written = 42;
    s.ext.sums[3] = 7;
    s.ext.codes[0].code = -1045;
    s.ext.codes[0].count = 3;
    s.types[5].rollbacks = 9;
    int64_t n = lb_stats_wire_size();
    unsigned char *w = malloc((size_t)n);
    lb_stats_to_wire(&s, w);
    size_t code_at = offsetof(lb_stats, ext.codes);
    check(le_word_is(w, 0x0102030405060708ULL) && le_word_is(w + offsetof(lb_stats, io_bytes_written), 42) &&
              le_word_is(w + code_at, (uint64_t)(int64_t)-1045) && le_word_is(w + code_at + 8, 3),
          "stats_wire_little_endian", "the words are not little-endian 64-bit values");
    lb_stats back;
    memset(&back, 0xff, sizeof back);
    int rc = lb_stats_from_wire(&back, w, n);
    check(rc == 0 && memcmp(&back, &s, sizeof s) == 0, "stats_wire_round_trip", "rc %d, or the counters differ", rc);
    check(lb_stats_from_wire(&back, w, n - 8) == -EINVAL, "stats_wire_other_build_refused",
          "a shorter block was taken");
    free(w);
}

static void hist_wire(void)
{
    lb_hist_config cfg;
    lb_hist_config_default(&cfg);
    lb_hist *h = lb_hist_new(&cfg), *back = lb_hist_new(&cfg);
    for (int64_t v = 1000; v <= 1000000; v += 997)
        lb_hist_record(h, v);
    int64_t n = lb_hist_packed_size(h);
    unsigned char *buf = malloc((size_t)n);
    int64_t wrote = lb_hist_pack(h, buf, n);
    check(wrote == n && le_word_is(buf, (uint64_t)lb_hist_total(h)) && le_word_is(buf + 24, (uint64_t)lb_hist_min(h)),
          "hist_wire_little_endian", "header words not little-endian");
    int rc = lb_hist_merge_packed(back, buf, n);
    check(rc == 0 && lb_hist_total(back) == lb_hist_total(h) && lb_hist_min(back) == lb_hist_min(h) &&
              lb_hist_max(back) == lb_hist_max(h) && lb_hist_sum(back) == lb_hist_sum(h) &&
              lb_hist_percentile(back, 99) == lb_hist_percentile(h, 99),
          "hist_wire_round_trip", "rc %d, totals %lld/%lld", rc, (long long)lb_hist_total(back),
          (long long)lb_hist_total(h));
    free(buf);
    lb_hist_free(h);
    lb_hist_free(back);
}

/* An interval's counters are the difference of two states of the same
 * workers: a - b added back to b gives a, codes matched by value even when
 * they sit in other slots. */
static void stats_sub(void)
{
    lb_stats b, a, d, back;
    memset(&b, 0, sizeof b);
    lb_stats_ext_init(&b.ext);
    b.events = 10;
    b.types[2].events = 4;
    lb_stats_count_code(&b.ext, 1213);
    a = b;
    a.events = 25;
    a.types[2].events = 9;
    a.types[3].restarts = 2;
    lb_stats_count_code(&a.ext, 1062);
    lb_stats_count_code(&a.ext, 1213);
    lb_stats_sub(&d, &a, &b);
    int codes_ok = 0;
    for (int i = 0; i < LB_STATS_EXT_CODES; i++) {
        if (d.ext.codes[i].code == 1213 && d.ext.codes[i].count == 1)
            codes_ok++;
        if (d.ext.codes[i].code == 1062 && d.ext.codes[i].count == 1)
            codes_ok++;
    }
    check(d.events == 15 && d.types[2].events == 5 && d.types[3].restarts == 2 && codes_ok == 2, "stats_sub_interval",
          "events %llu, type events %llu, codes %d", (unsigned long long)d.events,
          (unsigned long long)d.types[2].events, codes_ok);
    memset(&back, 0, sizeof back);
    lb_stats_ext_init(&back.ext);
    lb_stats_add(&back, &b);
    lb_stats_add(&back, &d);
    check(back.events == a.events && back.types[2].events == a.types[2].events, "stats_sub_adds_back",
          "%llu events against %llu", (unsigned long long)back.events, (unsigned long long)a.events);
}

int main(void)
{
    stats_sub();
    stats_wire();
    hist_wire();
    return check_exit();
}
