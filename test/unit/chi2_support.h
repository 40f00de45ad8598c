/* Goodness-of-fit helpers for the random-number unit tests (test_rand*.c):
 * a chi-square test with merged cells held to the 0.999 critical value. */
#ifndef LB_TEST_CHI2_SUPPORT_H
#define LB_TEST_CHI2_SUPPORT_H

#include "check.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Standard normal quantile by bisection on the CDF 0.5*erfc(-z/sqrt2):
 * slow but exact to double precision, and only called a few times. */
static inline double norm_quantile(double p)
{
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(-mid / sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Chi-square critical value by Wilson-Hilferty: (X/df)^(1/3) is nearly
 * normal with mean 1 - 2/(9df) and variance 2/(9df).  Good to a fraction of
 * a percent for df >= 3, which is all we use. */
static inline double chi2_crit(double df, double p)
{
    double v = 2.0 / (9.0 * df);
    double c = 1.0 - v + norm_quantile(p) * sqrt(v);
    return df * c * c * c;
}

/* Chi-square statistic of observed counts against cell probabilities, after
 * merging consecutive cells until each group expects at least `min_exp`
 * draws (a short final group is folded into the previous one).  Cells are
 * ordered so that merging neighbours is meaningful (values or ranks).
 * Returns the statistic; *df gets groups - 1. */
static inline double chi2_merged(const double *prob, const uint64_t *obs, size_t cells,
                          uint64_t total, double min_exp, int *df)
{
    double stat = 0, e = 0, o = 0; /* open group */
    double ge = 0, go = 0;         /* last closed group, not yet added */
    int groups = 0;
    for (size_t i = 0; i < cells; i++) {
        e += prob[i] * (double)total;
        o += (double)obs[i];
        if (e >= min_exp) {
            if (groups > 0)
                stat += (go - ge) * (go - ge) / ge;
            ge = e;
            go = o;
            groups++;
            e = o = 0;
        }
    }
    /* a short tail joins the last closed group */
    ge += e;
    go += o;
    if (ge > 0)
        stat += (go - ge) * (go - ge) / ge;
    *df = groups > 0 ? groups - 1 : 0;
    return stat;
}

/* Run a chi-square test and report it as one named check. */
static inline void check_chi2(const char *name, const double *prob, const uint64_t *obs,
                       size_t cells, uint64_t total)
{
    int df;
    double stat = chi2_merged(prob, obs, cells, total, 20.0, &df);
    double crit = df > 0 ? chi2_crit(df, 0.999) : 0;
    check(df > 0 && stat < crit, name, "chi2 = %.1f, df = %d, 0.999 critical = %.1f",
          stat, df, crit);
}

static inline int is_int(double v) { return v == floor(v); }

#endif
