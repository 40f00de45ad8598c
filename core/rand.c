/* lbench random numbers: see rand.h for the contract. */
#include "rand.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define TWO53 9007199254740992.0 /* 2^53: largest range where doubles are exact integers */

/* ---- generator ---------------------------------------------------------- */

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* splitmix64 finaliser: a bijective 64-bit mixer (Stafford's variant 13). */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* splitmix64: Weyl sequence + finaliser.  Used only to expand seeds, which
 * is what the xoshiro authors recommend (it never outputs a run of zero
 * states and decorrelates nearby seeds). */
static inline uint64_t splitmix64(uint64_t *x)
{
    *x += 0x9E3779B97F4A7C15ULL;
    return mix64(*x);
}

/* xoshiro256** step.  Kept static inline so the distributions below do not
 * pay a call per draw; lb_rand_next is the exported wrapper. */
static inline uint64_t next(lb_rand *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

void lb_rand_seed(lb_rand *r, uint64_t seed, uint64_t stream)
{
    /* Fold the stream into the splitmix start point through a bijective
     * mixer: consecutive stream numbers land on unrelated points of the
     * 2^64-periodic splitmix sequence, so their four-word expansions do not
     * overlap (overlap would need two random 64-bit points within a few
     * steps of each other). */
    uint64_t x = seed ^ mix64(stream + 0x6A09E667F3BCC909ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1; /* the one state xoshiro cannot leave */
    r->unique_key = splitmix64(&x);
    r->unique_ctr = (uint32_t)(splitmix64(&x) >> 32);
    r->pareto_h = LB_RAND_PARETO_H;
    r->pareto_pow = log(LB_RAND_PARETO_H) / log(1.0 - LB_RAND_PARETO_H);
    memset(&r->zipf, 0, sizeof r->zipf); /* n == 0 never matches: cache empty */
}

uint64_t lb_rand_next(lb_rand *r) { return next(r); }

static inline double next_double(lb_rand *r)
{
    return (double)(next(r) >> 11) * 0x1.0p-53;
}

double lb_rand_double(lb_rand *r) { return next_double(r); }

/* ---- integer helpers ---------------------------------------------------- */

/* 64x64 -> 128 multiply; returns the high word, stores the low word. */
static inline uint64_t mul128(uint64_t a, uint64_t b, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__) && !defined(LB_RAND_NO_INT128)
    __extension__ typedef unsigned __int128 u128; /* quiet under -Wpedantic */
    u128 p = (u128)a * b;
    *lo = (uint64_t)p;
    return (uint64_t)(p >> 64);
#else
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (mid << 32) | (ll & 0xFFFFFFFFu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* Uniform integer in [0, n), n >= 1, exactly unbiased: Lemire's
 * multiply-shift with rejection of the (n - 2^64 mod n)-sized sliver.  The
 * division computing the threshold only runs when the cheap test fails,
 * i.e. with probability n / 2^64. */
static inline uint64_t below(lb_rand *r, uint64_t n)
{
    uint64_t lo, hi = mul128(next(r), n, &lo);
    if (lo < n) {
        uint64_t t = (0 - n) % n; /* 2^64 mod n */
        while (lo < t)
            hi = mul128(next(r), n, &lo);
    }
    return hi;
}

/* Double bound -> int64 per the header's convention: truncate, clamp to
 * +-2^53, NaN -> 0.  Clamping first keeps the conversion defined. */
static inline int64_t to_int(double v)
{
    if (fabs(v) <= TWO53) /* the common case in one test: false for NaN too */
        return (int64_t)v;
    if (v != v)
        return 0;
    return v < 0 ? -(int64_t)TWO53 : (int64_t)TWO53;
}

/* Normalised integer range: lo <= hi and n = hi - lo + 1 (at most 2^54+1,
 * which fits easily in 64 bits). */
typedef struct { int64_t lo; uint64_t n; } range;

static inline range mkrange(double a, double b)
{
    int64_t ia = to_int(a), ib = to_int(b);
    if (ia > ib) {
        int64_t t = ia;
        ia = ib;
        ib = t;
    }
    range g = { ia, (uint64_t)(ib - ia) + 1 };
    return g;
}

static inline double at(range g, uint64_t off) { return (double)(g.lo + (int64_t)off); }

/* ---- sysbench distributions --------------------------------------------- */

double lb_rand_uniform(lb_rand *r, double a, double b)
{
    range g = mkrange(a, b);
    return at(g, below(r, g.n));
}

double lb_rand_gaussian(lb_rand *r, double a, double b, int iter)
{
    range g = mkrange(a, b);
    if (iter < 1)
        iter = LB_RAND_GAUSSIAN_ITER;
    uint64_t k = (uint64_t)iter, q;
    if (g.n <= (1ULL << 32)) {
        /* each draw < 2^32 and k < 2^31: the plain sum cannot overflow */
        uint64_t sum = 0;
        for (uint64_t i = 0; i < k; i++)
            sum += below(r, g.n);
        q = sum / k;
    } else {
        /* huge range: keep the sum as quotient + remainder by k so that it
         * cannot overflow; floor(sum/k) == q at the end since rem < k */
        uint64_t rem = 0;
        q = 0;
        for (uint64_t i = 0; i < k; i++) {
            uint64_t u = below(r, g.n);
            q += u / k;
            rem += u % k;
            if (rem >= k) {
                q++;
                rem -= k;
            }
        }
    }
    return at(g, q);
}

/* sysbench 1.0's law (sb_rand_special), with t = b - a: one uniform u
 * both chooses and places the draw.  u < 1 - res/100 gives sysbench's
 * gaussian (a fresh mean of `iter` uniforms, scaled to t); otherwise the
 * value is u * (d + 1) + (t - d) / 2 with d = t * pct / 100, a window of
 * d + 1 values centred in the range, of which only the part u can still
 * reach is hit.  The same arithmetic as sysbench, so the same rows are hot
 * and a table is touched in the same places as by sysbench. */
void lb_rand_special_law_init(lb_rand_special_law *law, double pct, double res, int iter)
{
    if (iter < 1)
        iter = LB_RAND_GAUSSIAN_ITER;
    if (!(pct >= 0.0))
        pct = 0.0; /* NaN too */
    if (pct > 100.0)
        pct = 100.0;
    if (!(res >= 0.0))
        res = 0.0;
    if (res > 100.0)
        res = 100.0;
    law->cold = 1.0 - res / 100.0;
    law->pct = pct;
    law->iter = iter;
}

double lb_rand_special_by(lb_rand *r, double a, double b, const lb_rand_special_law *law)
{
    range g = mkrange(a, b);
    double t = (double)(g.n - 1);
    double u = next_double(r), off;
    if (u < law->cold) {
        int iter = law->iter;
        double sum = 0.0;
        for (int i = 0; i < iter; i++)
            sum += next_double(r);
        off = sum * t / iter;
    } else {
        double d = t * law->pct / 100.0;
        off = u * (d + 1.0) + t / 2.0 - d / 2.0;
    }
    /* both forms stay below t + 1 in exact arithmetic; rounding of a huge
     * t can reach it */
    if (!(off < t))
        return at(g, g.n - 1);
    return at(g, (uint64_t)off);
}

double lb_rand_special(lb_rand *r, double a, double b, double pct, double res, int iter)
{
    lb_rand_special_law law;
    lb_rand_special_law_init(&law, pct, res, iter);
    return lb_rand_special_by(r, a, b, &law);
}

double lb_rand_pareto(lb_rand *r, double a, double b, double h)
{
    range g = mkrange(a, b);
    if (!(h > 0.0 && h < 1.0))
        h = LB_RAND_PARETO_H;
    if (h != r->pareto_h) {
        r->pareto_h = h;
        r->pareto_pow = log(h) / log(1.0 - h); /* > 0: both logs negative */
    }
    double nd = (double)g.n;
    double off = floor(nd * pow(next_double(r), r->pareto_pow));
    /* u < 1 gives off <= n - 1 mathematically; rounding of n * u^p can
     * still reach n for large n */
    if (off > nd - 1.0)
        off = nd - 1.0;
    uint64_t o = (uint64_t)off;
    if (o > g.n - 1)
        o = g.n - 1; /* nd - 1 itself may round up for n > 2^53 */
    return at(g, o);
}

/* ---- Zipf: rejection-inversion (Hoermann & Derflinger 1996) -------------
 *
 * With h(x) = x^-theta and Hint its antiderivative, the method draws u
 * uniformly on [Hint(1.5) - 1, Hint(n + 0.5)] (an interval whose length is
 * about the normalising constant, so no O(n) sum is needed), inverts
 * x = Hint^-1(u), rounds to k, and accepts k when u lies in the part of the
 * interval that belongs to k exactly (u >= Hint(k + 0.5) - h(k)).  The
 * squeeze avoids that test for most draws.  Hint is written through
 * log1p/expm1 helpers so theta = 1 (log case) and theta near 1 are exact
 * without a special branch. */

/* log1p(x) / x, continuous at 0 */
static inline double helper1(double x)
{
    if (fabs(x) > 1e-8)
        return log1p(x) / x;
    return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x) / x, continuous at 0 */
static inline double helper2(double x)
{
    if (fabs(x) > 1e-8)
        return expm1(x) / x;
    return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}

/* Hint(x) = (x^(1-theta) - 1) / (1 - theta), or log(x) when theta == 1 */
static inline double hint(double x, double theta)
{
    double lx = log(x);
    return helper2((1.0 - theta) * lx) * lx;
}

/* inverse of hint */
static inline double hint_inv(double y, double theta)
{
    double t = y * (1.0 - theta);
    if (t < -1.0)
        t = -1.0; /* guards rounding just past the pole of log1p */
    return exp(helper1(t) * y);
}

static inline double hfun(double x, double theta) { return exp(-theta * log(x)); }

int lb_zipf_init(lb_zipf *z, double n, double theta)
{
    if (!(n >= 1.0 && n <= TWO53) || !(theta > 0.0 && theta < INFINITY))
        return -EINVAL;
    n = floor(n);
    z->n = n;
    z->theta = theta;
    z->h_x1 = hint(1.5, theta) - 1.0;
    z->h_n = hint(n + 0.5, theta);
    z->squeeze = 2.0 - hint_inv(hint(2.5, theta) - hfun(2.0, theta), theta);
    return 0;
}

static inline double zipf_draw(lb_rand *r, const lb_zipf *z)
{
    for (;;) {
        double u = z->h_n + next_double(r) * (z->h_x1 - z->h_n);
        double x = hint_inv(u, z->theta);
        double k = floor(x + 0.5);
        if (!(k >= 1.0)) /* also catches NaN */
            k = 1.0;
        else if (k > z->n)
            k = z->n;
        if (k - x <= z->squeeze || u >= hint(k + 0.5, z->theta) - hfun(k, z->theta))
            return k;
    }
}

double lb_rand_zipf(lb_rand *r, const lb_zipf *z) { return zipf_draw(r, z); }

double lb_rand_zipfian(lb_rand *r, double a, double b, double theta)
{
    range g = mkrange(a, b);
    double n = g.n > (1ULL << 53) ? TWO53 : (double)g.n;
    if (r->zipf.n != n || r->zipf.theta != theta) {
        if (lb_zipf_init(&r->zipf, n, theta) != 0)
            return at(g, below(r, g.n)); /* theta <= 0 / NaN: uniform */
    }
    return at(g, (uint64_t)zipf_draw(r, &r->zipf) - 1);
}

/* ---- TPC-C ---------------------------------------------------------------- */

double lb_rand_nurand(lb_rand *r, int A, int x, int y, int C)
{
    int64_t lo = x, hi = y;
    if (lo > hi) {
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    uint64_t m = (uint64_t)(hi - lo) + 1;
    int64_t u1 = (int64_t)below(r, A > 0 ? (uint64_t)A + 1 : 1);
    int64_t u2 = lo + (int64_t)below(r, m);
    int64_t v = ((u1 | u2) + C) % (int64_t)m;
    if (v < 0)
        v += (int64_t)m;
    return (double)(lo + v);
}

/* ---- unique: Feistel permutation ------------------------------------------ */

#define FEISTEL_ROUNDS 4

/* Round function: any function keeps the network bijective; this one only
 * has to mix well enough that consecutive counters give unrelated outputs.
 * Key and half-block are combined, multiplied and folded (splitmix-style),
 * then the top `hb` bits are used since they depend on all input bits. */
static inline uint32_t feistel_f(uint32_t v, uint64_t k, unsigned hb)
{
    uint64_t z = ((uint64_t)v + k) * 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 31;
    z *= 0x94D049BB133111EBULL;
    return (uint32_t)(z >> (64 - hb));
}

static inline uint32_t feistel(uint64_t key, uint32_t x, unsigned bits)
{
    unsigned hb = bits / 2;
    uint32_t mask = (uint32_t)((1ULL << hb) - 1);
    uint32_t l = (x >> hb) & mask, rr = x & mask;
    for (unsigned i = 0; i < FEISTEL_ROUNDS; i++) {
        /* distinct round keys from one key: Weyl steps then mixing */
        uint32_t t = l ^ feistel_f(rr, mix64(key + (i + 1) * 0x9E3779B97F4A7C15ULL), hb);
        l = rr;
        rr = t;
    }
    return (l << hb) | rr;
}

uint32_t lb_rand_permute(uint64_t key, uint32_t x, unsigned bits)
{
    bits &= ~1u;
    if (bits < 2)
        bits = 2;
    if (bits > 32)
        bits = 32;
    return feistel(key, x, bits);
}

uint32_t lb_rand_unique(lb_rand *r)
{
    return feistel(r->unique_key, r->unique_ctr++, 32);
}

double lb_rand_unique_range(lb_rand *r, double a, double b)
{
    /* Only values that rand.unique() can return count (sysbench draws from
     * it until one falls inside), so the range is cut to [0, 2^32). */
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    if (!(a > 0))
        a = 0;
    if (b > 4294967295.0)
        b = 4294967295.0;
    if (a > b)
        return -1;
    uint64_t lo = (uint64_t)a, n = (uint64_t)b - lo + 1;
    unsigned bits = 2;
    while ((1ULL << bits) < n)
        bits += 2;
    /* Walk the counter through a permutation of the smallest even width
     * that holds the range and skip what falls outside: each value of the
     * range comes once in every 2^bits counters, so n calls in a row never
     * repeat, and at most 4 tries are expected instead of sysbench's
     * 2^32 / n. */
    for (;;) {
        uint32_t x = feistel(r->unique_key, r->unique_ctr++, bits);
        if (x < n)
            return (double)(lo + x);
    }
}

/* ---- strings and bytes ---------------------------------------------------- */

/* Byte pool: one 64-bit draw yields 8 bytes.  Characters come from
 * rejection on single bytes (accept below the largest multiple of the
 * alphabet size), which keeps every character exactly equiprobable while
 * usually spending one byte per character. */
typedef struct { uint64_t w; unsigned left; } pool;

static inline unsigned pool_byte(lb_rand *r, pool *p)
{
    if (p->left == 0) {
        p->w = next(r);
        p->left = 8;
    }
    unsigned b = (unsigned)(p->w & 0xFF);
    p->w >>= 8;
    p->left--;
    return b;
}

static inline char pick(lb_rand *r, pool *p, const char *alpha, unsigned size, unsigned limit)
{
    unsigned b;
    do
        b = pool_byte(r, p);
    while (b >= limit);
    return alpha[b % size];
}

static const char DIGITS[] = "0123456789";
static const char LOWER[] = "abcdefghijklmnopqrstuvwxyz";
static const char ALNUM[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

void lb_rand_string(lb_rand *r, const char *tmpl, size_t len, char *out)
{
    pool p = { 0, 0 };
    for (size_t i = 0; i < len; i++) {
        char c = tmpl[i];
        if (c == '#')
            c = pick(r, &p, DIGITS, 10, 250);
        else if (c == '@')
            c = pick(r, &p, LOWER, 26, 234);
        out[i] = c;
    }
}

size_t lb_rand_varstring(lb_rand *r, size_t min, size_t max, char *out)
{
    if (min > max) {
        size_t t = min;
        min = max;
        max = t;
    }
    size_t len = min + (size_t)below(r, (uint64_t)(max - min) + 1);
    pool p = { 0, 0 };
    for (size_t i = 0; i < len; i++)
        out[i] = pick(r, &p, ALNUM, 62, 248);
    return len;
}

void lb_rand_bytes(lb_rand *r, void *out, size_t len)
{
    unsigned char *o = out;
    while (len >= 8) {
        uint64_t w = next(r);
        memcpy(o, &w, 8);
        o += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = next(r);
        memcpy(o, &w, len);
    }
}

double lb_rand_dist_draw(lb_rand *r, const lb_rand_dist *d, double a, double b)
{
    switch (d->kind) {
    case LB_RAND_DIST_GAUSSIAN:
        return lb_rand_gaussian(r, a, b, d->iter);
    case LB_RAND_DIST_SPECIAL:
        return lb_rand_special(r, a, b, d->pct, d->res, d->iter);
    case LB_RAND_DIST_PARETO:
        return lb_rand_pareto(r, a, b, d->h);
    case LB_RAND_DIST_ZIPFIAN:
        return lb_rand_zipfian(r, a, b, d->theta);
    default:
        return lb_rand_uniform(r, a, b);
    }
}
