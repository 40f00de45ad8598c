/* Unit tests for core/rand.c: determinism, ranges, and goodness of fit of
 * every distribution against its exact (or exactly enumerated) law.
 *
 * All seeds are fixed, so a statistical check either always passes or always
 * fails; each chi-square test is held to the 0.999 critical value, i.e. a
 * correct generator with an unlucky seed would fail one test in a thousand,
 * while the biases the tests target (wrong endpoints, modulo bias on small
 * ranges, wrong exponent, wrong hot-set size) give statistics many times the
 * critical value. */
#include "check.h"
#include "chi2_support.h"
#include "rand.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SEED 0x1b3c5d7e9f2a4c6eULL

/* ---- determinism -------------------------------------------------------- */

static void test_determinism(void)
{
    enum { N = 10000 };
    static uint64_t a[N], b[N];
    lb_rand r1, r2;

    lb_rand_seed(&r1, SEED, 3);
    lb_rand_seed(&r2, SEED, 3);
    int same = 1;
    for (int i = 0; i < N; i++) {
        a[i] = lb_rand_next(&r1);
        if (a[i] != lb_rand_next(&r2))
            same = 0;
    }
    check(same, "rand determinism: same seed+stream => same 10k outputs",
          "sequences diverged");

    /* different stream, different seed, and the "swapped" pair that a naive
     * seed+stream combination would collide on */
    const uint64_t other[][2] = { { SEED, 4 }, { SEED + 1, 3 }, { SEED + 1, 2 }, { 0, 0 } };
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
        lb_rand_seed(&r2, other[k][0], other[k][1]);
        int equal = 0;
        for (int i = 0; i < N; i++) {
            b[i] = lb_rand_next(&r2);
            equal += b[i] == a[i];
        }
        char name[96];
        snprintf(name, sizeof name, "rand determinism: (seed %#llx, stream %d) differs",
                 (unsigned long long)other[k][0], (int)other[k][1]);
        check(equal == 0, name, "%d of %d outputs equal", equal, N);
    }

    /* streams should also be uncorrelated, not merely different: compare
     * bit agreement between stream 0 and stream 1 (expected 1/2) */
    lb_rand_seed(&r1, SEED, 0);
    lb_rand_seed(&r2, SEED, 1);
    uint64_t agree = 0;
    for (int i = 0; i < N; i++)
        agree += (uint64_t)__builtin_popcountll(~(lb_rand_next(&r1) ^ lb_rand_next(&r2)));
    double frac = (double)agree / (64.0 * N);
    /* sd of frac = 0.5 / sqrt(640000) = 6.25e-4; allow 6 sd */
    check(fabs(frac - 0.5) < 6 * 6.25e-4, "rand determinism: streams 0/1 uncorrelated bits",
          "bit agreement %.5f", frac);

    lb_rand_seed(&r1, SEED, 0);
    int in = 1;
    double mn = 1, mx = 0;
    for (int i = 0; i < 1000000; i++) {
        double d = lb_rand_double(&r1);
        if (!(d >= 0.0 && d < 1.0) || d != ldexp(floor(ldexp(d, 53)), -53))
            in = 0;
        if (d < mn) mn = d;
        if (d > mx) mx = d;
    }
    check(in && mn < 1e-5 && mx > 1 - 1e-5, "rand double: in [0,1) on a 2^-53 grid",
          "in=%d min=%g max=%g", in, mn, mx);
}

/* ---- uniform ------------------------------------------------------------ */

static void test_uniform(void)
{
    enum { CELLS = 100, N = 1000000 };
    static uint64_t obs[CELLS];
    static double prob[CELLS];
    lb_rand r;
    lb_rand_seed(&r, SEED, 10);

    /* one cell per value: [1, 100] */
    int inside = 1;
    for (int i = 0; i < N; i++) {
        double v = lb_rand_uniform(&r, 1, 100);
        if (!(v >= 1 && v <= 100 && is_int(v))) {
            inside = 0;
            continue;
        }
        obs[(int)v - 1]++;
    }
    for (int i = 0; i < CELLS; i++)
        prob[i] = 1.0 / CELLS;
    check(inside, "rand uniform: [1,100] integers in range", "value outside or fractional");
    check_chi2("rand uniform: chi2 [1,100] 100 cells 1M draws", prob, obs, CELLS, N);
    check(obs[0] > 0 && obs[CELLS - 1] > 0, "rand uniform: both endpoints reached",
          "count(a)=%llu count(b)=%llu", (unsigned long long)obs[0],
          (unsigned long long)obs[CELLS - 1]);

    /* a range that is neither small nor a power of two, binned into 100
     * cells whose exact integer counts give the expected probabilities */
    const uint64_t n = (1ULL << 40) + 12345;
    memset(obs, 0, sizeof obs);
    inside = 1;
    for (int i = 0; i < N; i++) {
        double v = lb_rand_uniform(&r, 0, (double)(n - 1));
        if (!(v >= 0 && v <= (double)(n - 1) && is_int(v))) {
            inside = 0;
            continue;
        }
        obs[(uint64_t)v * CELLS / n]++;
    }
    for (uint64_t j = 0; j < CELLS; j++) {
        /* #{v : floor(v*100/n) == j} = ceil((j+1)n/100) - ceil(jn/100) */
        uint64_t lo = (j * n + CELLS - 1) / CELLS, hi = ((j + 1) * n + CELLS - 1) / CELLS;
        prob[j] = (double)(hi - lo) / (double)n;
    }
    check(inside, "rand uniform: [0,2^40+12344] integers in range", "value outside");
    check_chi2("rand uniform: chi2 [0,2^40+12344] 100 bins 1M draws", prob, obs, CELLS, N);

    /* small signed range: endpoints and every value reached */
    int seen[11] = { 0 }, ok = 1;
    for (int i = 0; i < 10000; i++) {
        double v = lb_rand_uniform(&r, -5, 5);
        if (!(v >= -5 && v <= 5 && is_int(v)))
            ok = 0;
        else
            seen[(int)v + 5] = 1;
    }
    for (int i = 0; i < 11; i++)
        ok &= seen[i];
    check(ok, "rand uniform: [-5,5] covers all values incl. endpoints", "missing value");

    check(lb_rand_uniform(&r, 42, 42) == 42 && lb_rand_uniform(&r, -7, -7) == -7,
          "rand uniform: a == b returns a", "wrong value");

    /* a > b is treated as [b, a] */
    ok = 1;
    for (int i = 0; i < 1000; i++) {
        double v = lb_rand_uniform(&r, 10, 3);
        ok &= v >= 3 && v <= 10;
    }
    check(ok, "rand uniform: a > b swapped", "value outside [3,10]");

    /* ranges at the 2^53 limit: results exact integers inside the range */
    const double t53 = 9007199254740992.0;
    ok = 1;
    double hi_seen = 0, lo_seen = t53;
    for (int i = 0; i < 100000; i++) {
        double v = lb_rand_uniform(&r, t53 - 1000, t53);
        ok &= v >= t53 - 1000 && v <= t53 && is_int(v);
        double w = lb_rand_uniform(&r, 0, t53);
        ok &= w >= 0 && w <= t53 && is_int(w);
        double x = lb_rand_uniform(&r, -t53, t53);
        ok &= x >= -t53 && x <= t53 && is_int(x);
        if (w > hi_seen) hi_seen = w;
        if (w < lo_seen) lo_seen = w;
    }
    /* w spans 2^53: max of 1e5 draws should be in the top 0.1% */
    check(ok && hi_seen > t53 * 0.999 && lo_seen < t53 * 0.001,
          "rand uniform: ranges up to 2^53 give in-range integers",
          "ok=%d max=%.0f min=%.0f", ok, hi_seen, lo_seen);

    /* the big range is uniform too: mean of [0, 2^53] draws */
    double sum = 0;
    for (int i = 0; i < 100000; i++)
        sum += lb_rand_uniform(&r, 0, t53) / t53;
    /* mean 0.5, sd of mean = sqrt(1/12/1e5) = 9.1e-4 */
    check(fabs(sum / 100000 - 0.5) < 5 * 9.1e-4, "rand uniform: [0,2^53] mean",
          "mean/2^53 = %.5f", sum / 100000);
}

/* ---- gaussian ----------------------------------------------------------- */

static void test_gaussian(void)
{
    enum { NV = 1000, IT = 12, N = 1000000, SMAX = IT * (NV - 1) };
    static double dist[SMAX + 1], tmp[SMAX + 1], pref[SMAX + 2], prob[NV];
    static uint64_t obs[NV];
    lb_rand r;
    lb_rand_seed(&r, SEED, 20);

    /* Exact law of floor(S / 12), S = sum of 12 uniforms on [0, 999]:
     * convolve 12 times with the box, using prefix sums. */
    memset(dist, 0, sizeof dist);
    dist[0] = 1;
    int top = 0;
    for (int it = 0; it < IT; it++) {
        pref[0] = 0;
        for (int s = 0; s <= top; s++)
            pref[s + 1] = pref[s] + dist[s];
        int ntop = top + NV - 1;
        for (int s = 0; s <= ntop; s++) {
            int lo = s - (NV - 1) < 0 ? 0 : s - (NV - 1);
            int hi = s > top ? top : s;
            tmp[s] = (pref[hi + 1] - pref[lo]) / NV;
        }
        top = ntop;
        memcpy(dist, tmp, sizeof(double) * (size_t)(top + 1));
    }
    memset(prob, 0, sizeof prob);
    for (int s = 0; s <= SMAX; s++)
        prob[s / IT] += dist[s];
    double mu = 0, var = 0;
    for (int k = 0; k < NV; k++)
        mu += k * prob[k];
    for (int k = 0; k < NV; k++)
        var += (k - mu) * (k - mu) * prob[k];
    /* the textbook variance of the mean of 12 discrete uniforms; flooring
     * adds well under 1/12 to it */
    double var_theory = ((double)NV * NV - 1) / (12.0 * IT);
    check(fabs(var - var_theory) < 0.1 && fabs(mu - (NV - 1) / 2.0) < 0.5,
          "rand gaussian: exact law agrees with theory",
          "exact mean %.4f var %.4f, theory var %.4f", mu, var, var_theory);

    double sum = 0, sum2 = 0;
    int inside = 1;
    for (int i = 0; i < N; i++) {
        double v = lb_rand_gaussian(&r, 1, NV, IT);
        if (!(v >= 1 && v <= NV && is_int(v))) {
            inside = 0;
            continue;
        }
        double k = v - 1;
        obs[(int)k]++;
        sum += k;
        sum2 += k * k;
    }
    double m = sum / N, s2 = sum2 / N - m * m;
    double se_mean = sqrt(var / N);
    double se_var = var * sqrt(2.0 / N); /* near-normal law */
    check(inside, "rand gaussian: values inside [a,b]", "value outside");
    check(fabs(m - mu) < 5 * se_mean && fabs(s2 - var) < 5 * se_var,
          "rand gaussian: mean and variance within 5 sd of theory",
          "mean %.3f (exp %.3f +- %.3f), var %.2f (exp %.2f +- %.2f)", m, mu, se_mean, s2,
          var, se_var);
    check_chi2("rand gaussian: chi2 vs exact law (n=1000, iter=12)", prob, obs, NV, N);

    /* defaults and degenerate cases */
    int ok = 1;
    for (int i = 0; i < 10000; i++) {
        double v = lb_rand_gaussian(&r, -3, 3, 0); /* iter 0 -> 12 */
        ok &= v >= -3 && v <= 3 && is_int(v);
        v = lb_rand_gaussian(&r, 5, 5, 12);
        ok &= v == 5;
        const double t53 = 9007199254740992.0;
        v = lb_rand_gaussian(&r, -t53, t53, 3); /* quotient/remainder path */
        ok &= v >= -t53 && v <= t53 && is_int(v);
    }
    check(ok, "rand gaussian: default iter, a==b, 2^54-wide range", "value outside");
}

/* ---- pareto ------------------------------------------------------------- */


static void test_pareto(void)
{
    enum { NV = 1000, N = 1000000 };
    static uint64_t obs[NV];
    static double prob[NV];
    lb_rand r;
    lb_rand_seed(&r, SEED, 30);

    const double hs[] = { 0.2, 0.1, 0.5 };
    for (size_t t = 0; t < sizeof hs / sizeof hs[0]; t++) {
        double h = hs[t];
        double p = log(h) / log(1 - h);
        /* P(off <= k) = P(u^p < (k+1)/n) = ((k+1)/n)^(1/p) */
        for (int k = 0; k < NV; k++)
            prob[k] = pow((k + 1.0) / NV, 1 / p) - pow((double)k / NV, 1 / p);
        memset(obs, 0, sizeof obs);
        int inside = 1;
        for (int i = 0; i < N; i++) {
            double v = lb_rand_pareto(&r, 101, 100 + NV, h);
            if (!(v >= 101 && v <= 100 + NV && is_int(v))) {
                inside = 0;
                continue;
            }
            obs[(int)v - 101]++;
        }
        char name[96];
        snprintf(name, sizeof name, "rand pareto: inside [a,b] (h=%.1f)", h);
        check(inside, name, "value outside");
        snprintf(name, sizeof name, "rand pareto: chi2 vs exact law (n=1000, h=%.1f)", h);
        check_chi2(name, prob, obs, NV, N);
    }

    int ok = 1;
    const double t53 = 9007199254740992.0;
    for (int i = 0; i < 100000; i++) {
        double v = lb_rand_pareto(&r, 0, t53, 0.2);
        ok &= v >= 0 && v <= t53 && is_int(v);
        v = lb_rand_pareto(&r, 1, 10, 0.0); /* bad h -> 0.2 */
        ok &= v >= 1 && v <= 10 && is_int(v);
        v = lb_rand_pareto(&r, 7, 7, 0.3);
        ok &= v == 7;
    }
    check(ok, "rand pareto: 2^53 range, bad h, a==b stay inside", "value outside");
}

/* ---- zipf --------------------------------------------------------------- */

static void zipf_fit(lb_rand *r, double theta)
{
    enum { NV = 1000, HEAD = 50, N = 1000000 };
    static uint64_t obs[HEAD + 1];
    static double prob[HEAD + 1];
    lb_zipf z;
    char name[96];

    int rc = lb_zipf_init(&z, NV, theta);
    snprintf(name, sizeof name, "rand zipf: init n=1000 theta=%g", theta);
    check(rc == 0, name, "rc=%d", rc);
    if (rc)
        return;

    /* exact normaliser by summation (smallest terms first for accuracy) */
    double H = 0;
    for (int k = NV; k >= 1; k--)
        H += pow(k, -theta);
    double tail = 1;
    for (int k = 1; k <= HEAD; k++) {
        prob[k - 1] = pow(k, -theta) / H;
        tail -= prob[k - 1];
    }
    prob[HEAD] = tail;

    memset(obs, 0, sizeof obs);
    int inside = 1;
    for (int i = 0; i < N; i++) {
        double k = lb_rand_zipf(r, &z);
        if (!(k >= 1 && k <= NV && is_int(k))) {
            inside = 0;
            continue;
        }
        obs[k <= HEAD ? (int)k - 1 : HEAD]++;
    }
    snprintf(name, sizeof name, "rand zipf: inside [1,1000] (theta=%g)", theta);
    check(inside, name, "value outside");
    snprintf(name, sizeof name, "rand zipf: chi2 ranks 1..50 + tail (n=1000 theta=%g)", theta);
    check_chi2(name, prob, obs, HEAD + 1, N);
}

static void test_zipf(void)
{
    lb_rand r;
    lb_rand_seed(&r, SEED, 40);
    zipf_fit(&r, 0.8);
    zipf_fit(&r, 1.2);
    zipf_fit(&r, 1.0);  /* the log case of the integral */
    zipf_fit(&r, 0.05); /* nearly uniform */

    /* huge n: range only, plus rank 1 frequency against the known limit */
    lb_zipf z;
    int ok = lb_zipf_init(&z, 1e9, 0.8) == 0;
    double mx = 0;
    for (int i = 0; ok && i < 200000; i++) {
        double k = lb_rand_zipf(&r, &z);
        ok &= k >= 1 && k <= 1e9 && is_int(k);
        if (k > mx) mx = k;
    }
    /* theta 0.8 over 1e9 is very heavy-tailed: large ranks must appear */
    check(ok && mx > 1e8, "rand zipf: n=1e9 theta=0.8 inside [1,n]", "ok=%d max=%.0f", ok, mx);
    ok = lb_zipf_init(&z, 9007199254740992.0, 1.2) == 0;
    for (int i = 0; ok && i < 100000; i++) {
        double k = lb_rand_zipf(&r, &z);
        ok &= k >= 1 && k <= 9007199254740992.0 && is_int(k);
    }
    check(ok, "rand zipf: n=2^53 theta=1.2 inside [1,n]", "value outside");

    ok = lb_zipf_init(&z, 1, 0.8) == 0 && lb_rand_zipf(&r, &z) == 1;
    check(ok, "rand zipf: n=1 always 1", "wrong");

    check(lb_zipf_init(&z, 0, 0.8) == -EINVAL && lb_zipf_init(&z, NAN, 0.8) == -EINVAL &&
              lb_zipf_init(&z, INFINITY, 0.8) == -EINVAL && lb_zipf_init(&z, 1e17, 0.8) == -EINVAL &&
              lb_zipf_init(&z, 10, 0) == -EINVAL && lb_zipf_init(&z, 10, -1) == -EINVAL &&
              lb_zipf_init(&z, 10, NAN) == -EINVAL && lb_zipf_init(&z, 10, INFINITY) == -EINVAL,
          "rand zipf: init rejects bad n/theta with -EINVAL", "accepted a bad argument");

    /* convenience wrapper: offset range, cache switching between params */
    enum { NV = 10, N = 400000 };
    uint64_t obs[NV] = { 0 }, obs2[NV] = { 0 };
    double prob[NV], prob2[NV], H = 0, H2 = 0;
    for (int k = 1; k <= NV; k++) {
        H += pow(k, -0.8);
        H2 += pow(k, -1.5);
    }
    for (int k = 1; k <= NV; k++) {
        prob[k - 1] = pow(k, -0.8) / H;
        prob2[k - 1] = pow(k, -1.5) / H2;
    }
    ok = 1;
    for (int i = 0; i < N; i++) {
        double v = lb_rand_zipfian(&r, 10, 19, 0.8);
        double w = lb_rand_zipfian(&r, 10, 19, 1.5);
        if (!(v >= 10 && v <= 19 && w >= 10 && w <= 19)) {
            ok = 0;
            continue;
        }
        obs[(int)v - 10]++;
        obs2[(int)w - 10]++;
    }
    check(ok, "rand zipfian: [10,19] inside", "value outside");
    check_chi2("rand zipfian: chi2 [10,19] theta=0.8 (alternating cache)", prob, obs, NV, N);
    check_chi2("rand zipfian: chi2 [10,19] theta=1.5 (alternating cache)", prob2, obs2, NV, N);
    ok = 1;
    for (int i = 0; i < 10000; i++) {
        double v = lb_rand_zipfian(&r, 1, 5, 0); /* theta 0 -> uniform */
        ok &= v >= 1 && v <= 5;
        v = lb_rand_zipfian(&r, -3, -3, 0.8);
        ok &= v == -3;
    }
    check(ok, "rand zipfian: theta<=0 uniform, a==b", "value outside");
}

/* ---- nurand ------------------------------------------------------------- */

static void test_nurand(void)
{
    enum { A = 255, X = 0, Y = 999, C = 123, NV = Y - X + 1, N = 1000000 };
    static double prob[NV];
    static uint64_t obs[NV];
    lb_rand r;
    lb_rand_seed(&r, SEED, 50);

    /* exact law by enumerating every (u1, u2) pair */
    const double w = 1.0 / ((double)(A + 1) * NV);
    for (int u1 = 0; u1 <= A; u1++)
        for (int u2 = X; u2 <= Y; u2++)
            prob[(((u1 | u2) + C) % NV)] += w;

    int inside = 1;
    for (int i = 0; i < N; i++) {
        double v = lb_rand_nurand(&r, A, X, Y, C);
        if (!(v >= X && v <= Y && is_int(v))) {
            inside = 0;
            continue;
        }
        obs[(int)v - X]++;
    }
    check(inside, "rand nurand: values in [x,y]", "value outside");
    check_chi2("rand nurand: chi2 vs enumerated law (A=255 x=0 y=999 C=123)", prob, obs, NV, N);

    int ok = 1;
    for (int i = 0; i < 100000; i++) {
        double v = lb_rand_nurand(&r, 1023, 1, 3000, 259);
        ok &= v >= 1 && v <= 3000 && is_int(v);
        v = lb_rand_nurand(&r, 8191, 1, 100000, 7911);
        ok &= v >= 1 && v <= 100000;
    }
    check(ok, "rand nurand: C_ID and OL_I_ID shapes in range", "value outside");
}

/* ---- unique ------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_unique(void)
{
    enum { N = 2000000 };
    uint32_t *v = malloc(sizeof(uint32_t) * N);
    uint64_t top[256] = { 0 };
    double prob[256];
    lb_rand r, r2;
    if (!v) {
        check(0, "rand unique: allocate", "malloc failed");
        return;
    }
    lb_rand_seed(&r, SEED, 60);
    for (int i = 0; i < N; i++) {
        v[i] = lb_rand_unique(&r);
        top[v[i] >> 24]++;
    }
    /* consecutive counters must not give related values: the high byte of
     * 2M outputs should be uniform */
    for (int i = 0; i < 256; i++)
        prob[i] = 1.0 / 256;
    check_chi2("rand unique: high byte uniform over 2M draws", prob, top, 256, N);

    lb_rand_seed(&r2, SEED, 61);
    int diff = 0;
    for (int i = 0; i < 1000; i++)
        diff += lb_rand_unique(&r2) != v[i];
    check(diff > 990, "rand unique: two streams differ", "%d of 1000 differ", diff);

    qsort(v, N, sizeof v[0], cmp_u32);
    int dup = 0;
    for (int i = 1; i < N; i++)
        dup += v[i] == v[i - 1];
    check(dup == 0, "rand unique: 2M draws without duplicates", "%d duplicates", dup);
    free(v);

    /* The Feistel construction is a bijection for any width and key; verify
     * exhaustively for every even width up to 20 bits and a few keys. */
    int bij = 1;
    unsigned char *seen = malloc(1u << 20);
    if (!seen) {
        check(0, "rand unique: allocate", "malloc failed");
        return;
    }
    const uint64_t keys[] = { 0, 1, SEED, ~0ULL };
    for (unsigned bits = 2; bits <= 20 && bij; bits += 2) {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            uint32_t size = 1u << bits;
            memset(seen, 0, size);
            for (uint32_t x = 0; x < size; x++) {
                uint32_t y = lb_rand_permute(keys[k], x, bits);
                if (y >= size || seen[y]) {
                    bij = 0;
                    break;
                }
                seen[y] = 1;
            }
        }
    }
    free(seen);
    check(bij, "rand unique: permute is a bijection on 2..20-bit domains (exhaustive)",
          "collision or out-of-domain value");

    /* the unique sequence is exactly the 32-bit permutation of a counter */
    lb_rand_seed(&r, SEED, 60);
    uint32_t c = r.unique_ctr;
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= lb_rand_unique(&r) == lb_rand_permute(r.unique_key, c + (uint32_t)i, 32);
    check(same, "rand unique: equals permute(key, counter, 32)", "mismatch");
}

/* sb_rand_uniq(a, b): inside the bounds, no repeat over a whole range. */
static void test_unique_range(void)
{
    lb_rand r;
    lb_rand_seed(&r, SEED, 62);
    static unsigned char seen[1000];
    int inside = 1, dup = 0;
    for (int i = 0; i < 1000; i++) {
        double v = lb_rand_unique_range(&r, 5000, 5999);
        if (v < 5000 || v > 5999 || v != (double)(uint32_t)v) {
            inside = 0;
            break;
        }
        dup += seen[(int)v - 5000]++ != 0;
    }
    check(inside, "rand unique range: [5000, 5999] only", "a value outside");
    check(dup == 0, "rand unique range: 1000 draws of a 1000-wide range cover it once", "%d repeats", dup);

    int ok = 1;
    for (int i = 0; i < 100000 && ok; i++) {
        double v = lb_rand_unique_range(&r, 1, 1000000000);
        ok = v >= 1 && v <= 1000000000;
    }
    check(ok, "rand unique range: [1, 1e9] (sysbench issue #96)", "a value outside");
    double one = lb_rand_unique_range(&r, 7, 7), rev = lb_rand_unique_range(&r, 9, 8);
    check(one == 7 && (rev == 8 || rev == 9), "rand unique range: one value; bounds reversed",
          "got %g and %g", one, rev);
    double cut = lb_rand_unique_range(&r, -10, 2);
    check(cut >= 0 && cut <= 2, "rand unique range: cut to the unsigned 32-bit values", "got %g", cut);
    check(lb_rand_unique_range(&r, -10, -1) == -1 && lb_rand_unique_range(&r, 5e9, 6e9) == -1,
          "rand unique range: no 32-bit value in range gives -1", "not -1");
}

/* ---- strings ------------------------------------------------------------ */

static void test_string(void)
{
    lb_rand r;
    lb_rand_seed(&r, SEED, 70);
    const char tmpl[] = "###-@@@@ x#@ ..##########@@@@@@@@@@@";
    const size_t len = sizeof tmpl - 1;
    char out[sizeof tmpl + 1], prev[sizeof tmpl];
    uint64_t dig[10] = { 0 }, let[26] = { 0 };
    int ok = 1, differs = 0;
    memset(prev, 0, sizeof prev);
    for (int it = 0; it < 20000; it++) {
        out[len] = 'Z'; /* must stay untouched: no NUL, no overrun */
        lb_rand_string(&r, tmpl, len, out);
        ok &= out[len] == 'Z';
        for (size_t i = 0; i < len; i++) {
            if (tmpl[i] == '#') {
                ok &= out[i] >= '0' && out[i] <= '9';
                if (out[i] >= '0' && out[i] <= '9') dig[out[i] - '0']++;
            } else if (tmpl[i] == '@') {
                ok &= out[i] >= 'a' && out[i] <= 'z';
                if (out[i] >= 'a' && out[i] <= 'z') let[out[i] - 'a']++;
            } else {
                ok &= out[i] == tmpl[i];
            }
        }
        if (it > 0 && memcmp(out, prev, len) != 0)
            differs++;
        memcpy(prev, out, len);
    }
    check(ok, "rand string: '#' digits, '@' a-z, others kept, no overrun", "bad char");
    check(differs == 19999, "rand string: output differs across calls", "%d differ", differs);
    double pd[10], pl[26];
    uint64_t nd = 0, nl = 0;
    for (int i = 0; i < 10; i++) { pd[i] = 0.1; nd += dig[i]; }
    for (int i = 0; i < 26; i++) { pl[i] = 1.0 / 26; nl += let[i]; }
    check_chi2("rand string: digits uniform", pd, dig, 10, nd);
    check_chi2("rand string: letters uniform", pl, let, 26, nl);

    /* in-place use */
    char buf[] = "a#b@";
    lb_rand_string(&r, buf, 4, buf);
    check(buf[0] == 'a' && buf[1] >= '0' && buf[1] <= '9' && buf[2] == 'b' && buf[3] >= 'a' &&
              buf[3] <= 'z',
          "rand string: in-place", "got %.4s", buf);

    /* varstring */
    char vs[64];
    uint64_t lens[64] = { 0 }, chars[62] = { 0 };
    uint64_t nchars = 0;
    ok = 1;
    for (int it = 0; it < 50000; it++) {
        memset(vs, '!', sizeof vs);
        size_t l = lb_rand_varstring(&r, 5, 20, vs);
        ok &= l >= 5 && l <= 20 && vs[l] == '!';
        if (l > 20)
            continue;
        lens[l]++;
        for (size_t i = 0; i < l; i++) {
            char c = vs[i];
            int idx = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'z' ? 10 + c - 'a'
                    : c >= 'A' && c <= 'Z' ? 36 + c - 'A' : -1;
            if (idx < 0) {
                ok = 0;
                continue;
            }
            chars[idx]++;
            nchars++;
        }
    }
    check(ok, "rand varstring: length in [min,max], alphanumeric, no overrun", "bad output");
    check(lens[5] > 0 && lens[20] > 0, "rand varstring: both length bounds reached",
          "len5=%llu len20=%llu", (unsigned long long)lens[5], (unsigned long long)lens[20]);
    double pc[62];
    for (int i = 0; i < 62; i++) pc[i] = 1.0 / 62;
    check_chi2("rand varstring: characters uniform over [0-9a-zA-Z]", pc, chars, 62, nchars);
    check(lb_rand_varstring(&r, 7, 7, vs) == 7 && lb_rand_varstring(&r, 0, 0, vs) == 0 &&
              lb_rand_varstring(&r, 9, 3, vs) >= 3,
          "rand varstring: fixed, empty and swapped bounds", "wrong length");

    /* bytes: every length 0..40 at odd offsets, guard bytes intact */
    unsigned char bb[64];
    uint64_t bytecount[256] = { 0 }, nb = 0;
    ok = 1;
    for (int it = 0; it < 2000; it++) {
        for (size_t l = 0; l <= 40; l++) {
            memset(bb, 0xA5, sizeof bb);
            lb_rand_bytes(&r, bb + 3, l);
            ok &= bb[2] == 0xA5 && bb[3 + l] == 0xA5;
            for (size_t i = 0; i < l; i++) {
                bytecount[bb[3 + i]]++;
                nb++;
            }
        }
    }
    double pb[256];
    for (int i = 0; i < 256; i++) pb[i] = 1.0 / 256;
    check(ok, "rand bytes: exact length at any alignment", "wrote outside the buffer");
    check_chi2("rand bytes: byte values uniform", pb, bytecount, 256, nb);
}

int main(void)
{
    test_determinism();
    test_uniform();
    test_gaussian();
    test_pareto();
    test_zipf();
    test_nurand();
    test_unique();
    test_unique_range();
    test_string();
    return check_exit();
}
