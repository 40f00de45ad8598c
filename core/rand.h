/* lbench random numbers: per-thread PRNG and workload distributions.
 *
 * Summary
 * -------
 * One `lb_rand` per worker thread; nothing here touches global state, so
 * states never need locking and results are reproducible from (seed, stream).
 *
 *   generator     xoshiro256** (256-bit state), seeded by expanding
 *                 (seed, stream) with splitmix64.  `stream` is meant to be
 *                 the worker/thread index: every stream gets its own,
 *                 statistically independent sequence from the same seed.
 *   distributions the ones sysbench 1.0 scripts reach through
 *                 `sysbench.rand.*` (uniform, gaussian, special, pareto,
 *                 zipfian, unique, string, varstring) plus TPC-C NURand
 *                 and a general Zipf sampler with O(1) setup.
 *
 * Calling convention (why results are `double`)
 * ---------------------------------------------
 * These functions sit on the hot path of LuaJIT scripts (millions of calls
 * per second through the FFI).  LuaJIT numbers are doubles and a returned
 * int64_t would be boxed into a heap cdata, so every integer-valued result
 * is returned as a `double` that holds an exact integer.  Integer bounds are
 * likewise taken as doubles.  Bounds must be integer-valued with magnitude
 * at most 2^53 (every such integer is exact in a double); fractional bounds
 * are truncated toward zero, larger magnitudes are clamped to +-2^53 and a
 * NaN bound counts as 0.  For every range function a > b is accepted and
 * treated as [b, a].  (lb_rand_unique returns uint32_t: LuaJIT converts
 * 32-bit integers to numbers without boxing.)
 *
 * Nothing here prints, allocates or exits.  Parameters that a script could
 * get wrong on the hot path (bad pareto h, bad zipf theta, ...) are replaced
 * by documented fallbacks rather than reported, because there is nobody to
 * report to mid-benchmark; lb_zipf_init is the one validating entry point.
 *
 * sysbench defaults a binding should apply when a script omits arguments:
 * LB_RAND_GAUSSIAN_ITER, LB_RAND_SPECIAL_PCT, LB_RAND_SPECIAL_RES,
 * LB_RAND_PARETO_H, LB_RAND_ZIPF_THETA below.
 */
#ifndef LB_RAND_H
#define LB_RAND_H

#include <stddef.h>
#include <stdint.h>

/* sysbench 1.0 defaults (--rand-spec-iter, --rand-spec-pct,
 * --rand-spec-res, --rand-pareto-h, --rand-zipfian-exp). */
#define LB_RAND_GAUSSIAN_ITER 12
#define LB_RAND_SPECIAL_PCT   1.0
#define LB_RAND_SPECIAL_RES   75.0
#define LB_RAND_PARETO_H      0.2
#define LB_RAND_ZIPF_THETA    0.8

/* FFI BEGIN */
/* Precomputed Zipf sampler for P(k) proportional to k^-theta, k in [1, n].
 * Filled by lb_zipf_init; read-only afterwards, so one instance may be shared
 * by all threads (each passing its own lb_rand). */
typedef struct lb_zipf {
    double n, theta;   /* as accepted by lb_zipf_init (n already floored) */
    double h_x1;       /* Hint(1.5) - 1: upper end of the inversion interval */
    double h_n;        /* Hint(n + 0.5): lower end of the inversion interval */
    double squeeze;    /* accept k without evaluating Hint when k - x <= it */
} lb_zipf;

/* Per-thread generator state.  Plain data: may live in an FFI-allocated
 * buffer (copy this exact definition into ffi.cdef), must be seeded with
 * lb_rand_seed before any other use, must not be shared between threads. */
typedef struct lb_rand {
    uint64_t s[4];        /* xoshiro256** state, never all zero */
    uint32_t unique_ctr;  /* counter fed through the lb_rand_unique bijection */
    uint64_t unique_key;  /* key of that bijection, derived from seed/stream */
    double pareto_h;      /* cache: last pareto h and its exponent, so that */
    double pareto_pow;    /*   repeated calls do not pay for two log()s     */
    lb_zipf zipf;         /* cache for lb_rand_zipfian; zipf.n == 0: empty */
} lb_rand;

/* Seed `r`.  The same (seed, stream) always yields the same sequence (and
 * the same lb_rand_unique sequence); different streams yield independent
 * sequences, so give each worker thread the run seed plus its own index as
 * `stream`.  Resets all caches.  Any seed value is valid, including 0. */
void lb_rand_seed(lb_rand *r, uint64_t seed, uint64_t stream);

/* Next raw 64-bit output (xoshiro256**).  Not for Lua (uint64 boxes); the
 * building block for everything else and for C callers. */
uint64_t lb_rand_next(lb_rand *r);

/* Uniform double in [0, 1) with 53 random bits (all values k * 2^-53). */
double lb_rand_double(lb_rand *r);

/* Integer uniform in [a, b], inclusive at both ends, exactly unbiased
 * (Lemire's multiply-and-reject).  a == b returns a.  Works for any range
 * inside [-2^53, 2^53] (see the calling convention above).  sysbench:
 * rand.uniform / rand.default. */
double lb_rand_uniform(lb_rand *r, double a, double b);

/* sysbench "gaussian": the mean of `iter` independent integer uniform draws
 * over [a, b], rounded down (like sysbench's integer division), so the
 * result is always in [a, b], centred just below (a+b)/2 with variance
 * about ((b-a+1)^2 - 1) / (12 iter).  iter < 1 means LB_RAND_GAUSSIAN_ITER
 * (12).  Costs iter raw draws per call. */
double lb_rand_gaussian(lb_rand *r, double a, double b, int iter);

/* sysbench "special" over [a, b], sysbench 1.0.20's law (t = b - a):
 * with probability 1 - res/100 sysbench's gaussian (the mean of `iter`
 * uniforms scaled to t, as lb_rand_gaussian); otherwise a value of the
 * window of t * pct / 100 + 1 values centred in the range, placed by the
 * same uniform that chose the branch (so, as in sysbench, only the upper
 * res% of the window is reached).  With the defaults (pct 1, res 75,
 * iter 12) 75% of the draws fall on about 0.75% of the range around its
 * middle and the rest cluster around it with a standard deviation of
 * t / 12.  pct and res are clamped to [0, 100] (NaN: 0); iter < 1 means
 * LB_RAND_GAUSSIAN_ITER.  Defaults: pct = LB_RAND_SPECIAL_PCT (1), res =
 * LB_RAND_SPECIAL_RES (75). */
double lb_rand_special(lb_rand *r, double a, double b, double pct, double res, int iter);

/* The same law with its parameters checked once: lb_rand_special_law_init
 * clamps pct, res and iter as lb_rand_special does, and lb_rand_special_by
 * then draws exactly what lb_rand_special would with them.  For a caller
 * drawing many values with the same parameters (a script's
 * lbench.rand.special), which then pays only for the draw. */
typedef struct lb_rand_special_law {
    double cold; /* 1 - res/100: u below it takes the gaussian branch */
    double pct;  /* clamped to [0, 100] */
    int iter;    /* >= 1 */
} lb_rand_special_law;
void lb_rand_special_law_init(lb_rand_special_law *law, double pct, double res, int iter);
double lb_rand_special_by(lb_rand *r, double a, double b, const lb_rand_special_law *law);

/* sysbench "pareto": a + floor((b-a+1) * u^(log(h)/log(1-h))), u uniform in
 * [0,1), clamped into [a, b].  Small values are hot: h = 0.2 sends about
 * 80% of draws to the first 20% of the range.  h outside (0, 1) (or NaN)
 * means LB_RAND_PARETO_H (0.2).  The exponent for the last h is cached. */
double lb_rand_pareto(lb_rand *r, double a, double b, double h);

/* Prepare `z` for Zipf sampling over k in [1, n] with P(k) ~ k^-theta.
 * O(1) in n (rejection-inversion, Hoermann & Derflinger 1996), so n may be
 * as large as 2^53.  Any finite theta > 0 works, theta == 1 included.
 * n is floored.  Returns 0, or -EINVAL (z untouched) unless 1 <= n <= 2^53
 * and 0 < theta < inf. */
int lb_zipf_init(lb_zipf *z, double n, double theta);

/* One Zipf variate: an integer in [1, z->n].  `z` must come from a
 * successful lb_zipf_init.  Expected cost: about one exp+log per call;
 * rejections are rare (measured acceptance >= 98.6% for theta 0.01..100). */
double lb_rand_zipf(lb_rand *r, const lb_zipf *z);

/* sysbench "zipfian": Zipf over the range, value a + k - 1 with k ~ Zipf(
 * n = b - a + 1, theta), so a is the hottest value.  The sampler for the
 * last (n, theta) is cached in `r`, so repeated calls with the same
 * arguments are O(1); alternating parameters re-runs the O(1) setup.
 * Ranges wider than 2^53 values are cut to the first 2^53.  theta <= 0 or
 * NaN (the theta -> 0 limit) gives uniform.  Default theta:
 * LB_RAND_ZIPF_THETA (0.8). */
double lb_rand_zipfian(lb_rand *r, double a, double b, double theta);

/* TPC-C 2.1.6 NURand(A, x, y) with run constant C:
 *   (((uniform(0, A) | uniform(x, y)) + C) % (y - x + 1)) + x
 * TPC-C uses A = 255 (C_LAST), 1023 (C_ID), 8191 (OL_I_ID) and requires
 * 0 <= C <= A.  Result in [x, y] (x > y is swapped; A < 0 is taken as 0;
 * the modulo is taken non-negative so any C is safe). */
double lb_rand_nurand(lb_rand *r, int A, int x, int y, int C);

/* sysbench rand.unique(): a 32-bit value that does not repeat within this
 * state's stream for 2^32 consecutive calls.  It is a keyed bijection of
 * [0, 2^32) (lb_rand_permute with unique_key) applied to a counter that
 * starts at a seed-derived offset; the key comes from (seed, stream), so
 * threads see different orders.  Values from different streams can
 * coincide: uniqueness is per stream (sysbench has the same property);
 * make keys globally unique by combining with the thread id if needed. */
uint32_t lb_rand_unique(lb_rand *r);

/* sysbench 0.5's sb_rand_uniq(a, b): a value of [a, b] cut to [0, 2^32)
 * (the values rand.unique() can give) that does not repeat within this
 * stream for b - a + 1 consecutive calls with the same bounds; bounds in
 * either order.  -1 when the cut range is empty (sysbench loops forever). */
double lb_rand_unique_range(lb_rand *r, double a, double b);

/* Keyed pseudo-random permutation of [0, 2^bits): a 4-round balanced
 * Feistel network, hence a bijection for every key by construction.
 * bits is forced even and into [2, 32]; bits of x at or above `bits` are
 * ignored.  Used by lb_rand_unique (bits = 32); exposed so tests can check
 * the bijection exhaustively on small widths and so scripts can scatter
 * sequential ids. */
uint32_t lb_rand_permute(uint64_t key, uint32_t x, unsigned bits);

/* sysbench rand.string(): write len bytes to out, copying tmpl[0..len) but
 * replacing each '#' by a random digit and each '@' by a random lowercase
 * letter (all outcomes equally likely).  tmpl must hold len bytes (NUL is
 * copied like any other byte); out may be tmpl itself (in-place); no NUL is
 * appended. */
void lb_rand_string(lb_rand *r, const char *tmpl, size_t len, char *out);

/* sysbench rand.varstring(): pick a length uniformly in [min, max] (swapped
 * if min > max), fill out with that many uniform characters from
 * [0-9a-zA-Z] and return the length.  out must hold max bytes; no NUL. */
size_t lb_rand_varstring(lb_rand *r, size_t min, size_t max, char *out);

/* Fill out with len random bytes (incompressible payloads for storage
 * tests): 8 bytes per generator step, any alignment and length. */
void lb_rand_bytes(lb_rand *r, void *out, size_t len);

/* A distribution chosen at run time (--rand-type and its parameters), for
 * C code that draws on a script's behalf (lb_rowgen).  lb_rand_dist_draw
 * calls the function of `kind` with the parameters: the same numbers the
 * script's lbench.rand.default(a, b) would draw. */
enum { LB_RAND_DIST_UNIFORM, LB_RAND_DIST_GAUSSIAN, LB_RAND_DIST_SPECIAL, LB_RAND_DIST_PARETO,
       LB_RAND_DIST_ZIPFIAN };
typedef struct lb_rand_dist {
    int kind;             /* LB_RAND_DIST_* */
    int iter;             /* gaussian */
    double pct, res;      /* special */
    double h;             /* pareto */
    double theta;         /* zipfian */
} lb_rand_dist;
double lb_rand_dist_draw(lb_rand *r, const lb_rand_dist *d, double a, double b);

/* FFI END */

#endif
