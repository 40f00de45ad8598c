/* Unit tests for lb_rand_special: sysbench 1.0.20's "special" law, checked
 * by chi-square against that law computed exactly (Irwin-Hall for the
 * gaussian part, interval lengths for the hot window), and the placement
 * of sysbench's hot rows.  Fixed seeds, 0.999 critical values, as in
 * test_rand.c. */
#include "check.h"
#include "chi2_support.h"
#include "rand.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SEED 0x1b3c5d7e9f2a4c6eULL

/* Irwin-Hall CDF: P(U1 + ... + Un <= x) for n uniforms on [0, 1). */
static double irwin_hall_cdf(int n, double x)
{
    if (x <= 0)
        return 0;
    if (x >= n)
        return 1;
    if (x > n / 2.0)
        return 1 - irwin_hall_cdf(n, n - x); /* the short sum has no cancellation */
    double sum = 0, binom = 1, fact = 1;
    for (int i = 2; i <= n; i++)
        fact *= i;
    for (int j = 0; j <= (int)x; j++) {
        sum += (j % 2 ? -1 : 1) * binom * pow(x - j, n);
        binom = binom * (n - j) / (j + 1);
    }
    return sum / fact;
}

/* sysbench 1.0.20's sb_rand_special over offsets 0..nv-1 (t = nv - 1), as
 * a law: u < q = 1 - res/100 gives floor(S t / iter), S the sum of `iter`
 * uniforms; u >= q gives floor(u (d + 1) + (t - d) / 2), d = t pct / 100. */
static void special_law(double *prob, int nv, double pct, double res, int iter)
{
    double t = nv - 1, q = 1 - res / 100, d = t * pct / 100, c = (t - d) / 2;
    for (int k = 0; k < nv; k++) {
        double g = irwin_hall_cdf(iter, (k + 1) * iter / t) - irwin_hall_cdf(iter, k * iter / t);
        double lo = fmax((k - c) / (d + 1), q), hi = fmin((k + 1 - c) / (d + 1), 1);
        prob[k] = q * g + (hi > lo ? hi - lo : 0);
    }
}


static void test_special(void)
{
    enum { NV = 1000, N = 1000000 };
    static uint64_t obs[NV];
    static double prob[NV];
    lb_rand r;
    lb_rand_seed(&r, SEED, 31);

    /* special: sysbench 1.0.20's law (see special_law) */
    const double cases[][3] = { { 1, 75, 12 }, { 5, 50, 12 }, { 20, 90, 3 }, { 0, 60, 1 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double pct = cases[c][0], res = cases[c][1];
        int iter = (int)cases[c][2];
        special_law(prob, NV, pct, res, iter);
        memset(obs, 0, sizeof obs);
        int inside = 1;
        for (int i = 0; i < N; i++) {
            double v = lb_rand_special(&r, -500, -500 + NV - 1, pct, res, iter);
            if (!(v >= -500 && v <= -500 + NV - 1 && is_int(v))) {
                inside = 0;
                continue;
            }
            obs[(int)v + 500]++;
        }
        char name[112];
        snprintf(name, sizeof name, "rand special: inside [a,b] (pct=%g res=%g iter=%d)", pct, res, iter);
        check(inside, name, "value outside");
        snprintf(name, sizeof name, "rand special: chi2 vs sysbench's law (pct=%g res=%g iter=%d)", pct, res,
                 iter);
        check_chi2(name, prob, obs, NV, N);
    }

    /* sysbench's defaults over [1, 10000]: its hot window is 4975..5051 */
    lb_rand_seed(&r, SEED, 21);
    int in_window = 0;
    for (int i = 0; i < 100000; i++) {
        double v = lb_rand_special(&r, 1, 10000, 1, 75, 12);
        in_window += v >= 4975 && v <= 5051;
    }
    check(in_window > 74000 && in_window < 77500, "rand special: the default hot rows are sysbench's",
          "%d of 100000 draws in 4975..5051", in_window);

    int ok = 1;
    const double t53 = 9007199254740992.0;
    for (int i = 0; i < 100000; i++) {
        double v = lb_rand_special(&r, 0, t53, 1, 75, 12);
        ok &= v >= 0 && v <= t53 && is_int(v);
        v = lb_rand_special(&r, 1, 10, 0, 75, 12); /* pct 0: the middle value */
        ok &= v >= 1 && v <= 10;
        v = lb_rand_special(&r, 1, 10, 200, 200, 0); /* clamped */
        ok &= v >= 1 && v <= 10;
        v = lb_rand_special(&r, 1, 10, NAN, NAN, -3);
        ok &= v >= 1 && v <= 10;
    }
    check(ok, "rand special: 2^53 range and clamped params stay inside", "value outside");
}

/* The law prepared once draws exactly what the per-call form draws, from
 * the same stream, for ordinary, clamped and out-of-range parameters and
 * bounds (the range conversion's fast path included). */
static void test_special_by(void)
{
    static const struct { double pct, res; int iter; } P[] = {
        { 1, 75, 12 }, { 0, 75, 12 }, { 50, 10, 3 }, { 200, 200, 0 }, { NAN, NAN, -3 }, { -1, -1, 1 },
    };
    static const double B[][2] = { { 1, 10000 }, { 10, 1 }, { -5.7, 5.7 }, { 0, 1e300 }, { NAN, 7 }, { -1e20, 3 } };
    int same = 1;
    for (size_t p = 0; p < sizeof P / sizeof P[0]; p++) {
        lb_rand_special_law law;
        lb_rand_special_law_init(&law, P[p].pct, P[p].res, P[p].iter);
        for (size_t b = 0; b < sizeof B / sizeof B[0]; b++) {
            lb_rand r1, r2;
            lb_rand_seed(&r1, SEED, 40 + p);
            lb_rand_seed(&r2, SEED, 40 + p);
            for (int i = 0; i < 2000; i++) {
                double x = lb_rand_special(&r1, B[b][0], B[b][1], P[p].pct, P[p].res, P[p].iter);
                double y = lb_rand_special_by(&r2, B[b][0], B[b][1], &law);
                same &= x == y;
            }
        }
    }
    check(same, "rand special: the prepared law draws what the per-call form draws", "a value differs");
}

int main(void)
{
    test_special();
    test_special_by();
    return check_exit();
}
