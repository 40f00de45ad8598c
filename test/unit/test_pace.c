/* Pacing: constant schedules are exact; Poisson gaps are exponential with
 * the right mean (Kolmogorov-Smirnov against the exponential CDF). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "pace.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    lb_pace p;
    lb_pace_init(&p, 1000.0, 0, 5000, 1, 1);
    int exact = 1;
    for (int i = 0; i < 10000; i++)
        if (lb_pace_next(&p) != 5000 + (int64_t)i * 1000000)
            exact = 0;
    check(exact, "pace_constant_exact", "constant schedule drifted");

    enum { N = 200000 };
    double *gaps = malloc(sizeof(double) * N);
    lb_pace_init(&p, 250.0, 1, 0, 42, 7);
    int64_t prev = lb_pace_next(&p);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        int64_t t = lb_pace_next(&p);
        gaps[i] = (double)(t - prev);
        sum += gaps[i];
        prev = t;
    }
    double mean = sum / N, want = 1e9 / 250.0;
    /* Standard error of the mean of N exponentials: want/sqrt(N) ~ 0.22%. */
    check(fabs(mean - want) / want < 0.01, "pace_poisson_mean", "mean gap %.0f ns, want %.0f", mean, want);
    qsort(gaps, N, sizeof(double), cmp_double);
    double d = 0;
    for (int i = 0; i < N; i++) {
        double f = 1.0 - exp(-gaps[i] / want);
        double lo = fabs(f - (double)i / N), hi = fabs((double)(i + 1) / N - f);
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    /* KS critical value at alpha = 0.001: 1.95 / sqrt(N). */
    check(d < 1.95 / sqrt((double)N), "pace_poisson_exponential", "KS distance %.5f", d);

    lb_pace a, b;
    lb_pace_init(&a, 100.0, 1, 0, 9, 3);
    lb_pace_init(&b, 100.0, 1, 0, 9, 3);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        if (lb_pace_next(&a) != lb_pace_next(&b))
            same = 0;
    check(same, "pace_reproducible", "same seed gave different schedules");

    /* The backlog at the deadline: the starts before it, one by one while
     * few (the same as lb_pace_next would give), by expectation beyond. */
    lb_pace_init(&a, 1000.0, 0, 0, 1, 1);
    check(lb_pace_skip_until(&a, 10500000) == 11 && lb_pace_next(&a) == 11000000, "pace_skip_exact",
          "constant 1000/s from 0: 11 starts before 10.5 ms");
    lb_pace_init(&a, 2e9, 1, 0, 1, 1);
    uint64_t n = lb_pace_skip_until(&a, 10 * 1000000000LL);
    check(n > 19000000000ULL && n < 21000000000ULL && lb_pace_next(&a) >= 10 * 1000000000LL, "pace_skip_huge_backlog",
          "2e9/s over 10 s: %llu", (unsigned long long)n);
    lb_rate_seg segs[2] = { { 1.0, 1e9, 1e9 }, { 1.0, 1e9, 3e9 } };
    lb_pace_init(&a, 1e9, 1, 0, 1, 1);
    lb_pace_schedule(&a, segs, 2, 1.0);
    lb_pace_start(&a, 0, 0, 0);
    n = lb_pace_skip_until(&a, 2 * 1000000000LL);
    check(n > 2900000000ULL && n < 3100000000ULL, "pace_skip_schedule", "1e9/s then a ramp to 3e9/s: %llu", (unsigned long long)n);
    free(gaps);
    return check_exit();
}
