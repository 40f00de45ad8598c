/* pgbench 15's random numbers and integer arithmetic: see pgrand.h. */
#include "pgbench/pgrand.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* The seed expander: each call advances a Weyl sequence and mixes it. */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t step(lb_pg_prng *st)
{
    uint64_t s0 = st->s0, sx = st->s1 ^ s0;
    uint64_t out = rotl64(s0 * 5, 7) * 9;
    st->s0 = rotl64(s0, 24) ^ sx ^ (sx << 16);
    st->s1 = rotl64(sx, 37);
    return out;
}

void lb_pg_prng_seed(lb_pg_prng *st, uint64_t seed)
{
    st->s0 = splitmix(&seed);
    st->s1 = splitmix(&seed);
    /* The generator would stay at zero forever: pgbench puts Knuth's
     * LCG constants there instead. */
    if (st->s0 == 0 && st->s1 == 0) {
        st->s0 = 0x5851F42D4C957F2DULL;
        st->s1 = 0x14057B7EF767814FULL;
    }
}

uint64_t lb_pg_prng_u64(lb_pg_prng *st) { return step(st); }

double lb_pg_prng_double(lb_pg_prng *st)
{
    return ldexp((double)(step(st) >> 12), -52);
}

/* A uniform offset in [0, range]: draws shifted down to the bit length of
 * range, redrawn while above it. */
static uint64_t below_or_equal(lb_pg_prng *st, uint64_t range)
{
    if (range == 0)
        return 0;
    int shift = __builtin_clzll(range);
    uint64_t v;
    do
        v = step(st) >> shift;
    while (v > range);
    return v;
}

void lb_pg_client_seeds(uint64_t seed, int32_t nclients, int32_t client, int32_t draw_default, lb_pg_seeds *out)
{
    lb_pg_prng base;
    lb_pg_prng_seed(&base, seed);
    for (int32_t i = 0; i < nclients; i++) {
        uint64_t v = step(&base);
        if (i == client)
            lb_pg_prng_seed(&out->func, v);
    }
    out->default_seed = draw_default ? (int64_t)step(&base) : 0;
    /* Each pgbench thread takes three draws (choice, throttle, sample). */
    for (int32_t t = 0; t < client; t++) {
        step(&base);
        step(&base);
        step(&base);
    }
    lb_pg_prng_seed(&out->choose, step(&base));
    lb_pg_prng_seed(&out->throttle, step(&base));
    lb_pg_prng_seed(&out->sample, step(&base));
}

int lb_pg_seed_parse(const char *s, uint64_t *out)
{
    if (strcmp(s, "time") == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        *out = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
        return 0;
    }
    if (strcmp(s, "rand") == 0)
        return getrandom(out, sizeof *out, 0) == (ssize_t)sizeof *out ? 0 : -1;
    unsigned long v;
    char extra;
    if (sscanf(s, "%lu%c", &v, &extra) != 1)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* ---- distributions ------------------------------------------------------- */

int64_t lb_pg_random(lb_pg_prng *st, int64_t min, int64_t max)
{
    return min + (int64_t)below_or_equal(st, (uint64_t)max - (uint64_t)min);
}

/* Scale r in [0, 1) onto [min, max]. */
static int64_t scale(int64_t min, int64_t max, double r)
{
    return min + (int64_t)((double)(max - min + 1) * r);
}

int64_t lb_pg_random_exponential(lb_pg_prng *st, int64_t min, int64_t max, double param)
{
    double cut = exp(-param);
    double u = 1.0 - lb_pg_prng_double(st);   /* (0, 1] */
    return scale(min, max, -log(cut + (1.0 - cut) * u) / param);
}

int64_t lb_pg_random_gaussian(lb_pg_prng *st, int64_t min, int64_t max, double param)
{
    double z;
    do {
        /* Box-Muller wants both uniforms in (0, 1]. */
        double u1 = 1.0 - lb_pg_prng_double(st);
        double u2 = 1.0 - lb_pg_prng_double(st);
        z = sqrt(-2.0 * log(u1)) * sin(2.0 * M_PI * u2);
    } while (z < -param || z >= param);
    return scale(min, max, (z + param) / (param * 2.0));
}

int64_t lb_pg_random_zipfian(lb_pg_prng *st, int64_t min, int64_t max, double param)
{
    int64_t n = max - min + 1;
    if (n <= 1)
        return min;
    double b = pow(2.0, param - 1.0), x;
    for (;;) {
        double u = lb_pg_prng_double(st);
        double v = lb_pg_prng_double(st);
        x = floor(pow(u, -1.0 / (param - 1.0)));
        double t = pow(1.0 + 1.0 / x, param - 1.0);
        if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= (double)n)
            break;
    }
    return min - 1 + (int64_t)x;
}

/* ---- hashes and permute -------------------------------------------------- */

int64_t lb_pg_hash_fnv1a(int64_t val, int64_t seed)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)seed, v = (uint64_t)val;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        h *= 0x100000001b3ULL;
        v >>= 8;
    }
    return (int64_t)h;
}

int64_t lb_pg_hash_murmur2(int64_t val, int64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    uint64_t h = (uint64_t)seed ^ (m * 8), k = (uint64_t)val;
    k *= m;
    k ^= k >> 47;
    k *= m;
    h ^= k;
    h *= m;
    h ^= h >> 47;
    h *= m;
    h ^= h >> 47;
    return (int64_t)h;
}

/* One keyed round on the low `bits` bits (x <= mask): an odd multiplier,
 * an xor, and a rotation by one that brings the top bit down. */
static uint64_t mix_low(uint64_t x, uint64_t m, uint64_t r, uint64_t mask, int bits)
{
    x = ((x * m) ^ r) & mask;
    return ((x << 1) & mask) | (x >> (bits - 1));
}

int64_t lb_pg_permute(int64_t val, int64_t isize, int64_t seed)
{
    if (isize < 2)
        return 0;
    lb_pg_prng st;
    lb_pg_prng_seed(&st, (uint64_t)seed);
    uint64_t size = (uint64_t)isize, v = (uint64_t)val % size;
    int bits = 63 - __builtin_clzll(size);
    uint64_t mask = (1ULL << bits) - 1;
    for (int round = 0; round < 6; round++) {
        /* The multiplier and key are drawn whether or not they are used,
         * so that the sequence of draws never depends on the value. */
        uint64_t m = (step(&st) & mask) | 1, r = step(&st) & mask;
        if (v <= mask)
            v = mix_low(v, m, r, mask, bits);
        m = (step(&st) & mask) | 1;
        r = step(&st) & mask;
        uint64_t t = size - 1 - v;
        if (t <= mask)
            v = size - 1 - mix_low(t, m, r, mask, bits);
        v = (v + below_or_equal(&st, size - 1)) % size;
    }
    return (int64_t)v;
}

/* ---- arithmetic ------------------------------------------------------------ */

int lb_pg_add(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
int lb_pg_sub(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
int lb_pg_mul(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

double lb_pg_rint(double d) { return rint(d); }

int lb_pg_double_to_int(double d, int64_t *r)
{
    double v = rint(d);
    /* -2^63 is exact in a double and fits; 2^63 does not. */
    if (isnan(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
        return 1;
    *r = (int64_t)v;
    return 0;
}

int lb_pg_format_double(double d, char *buf, int32_t cap)
{
    /* pgbench prints through PostgreSQL's own snprintf, which spells the
     * special values as SQL does, whatever the C library would write. */
    const char *special = isnan(d) ? "NaN" : isinf(d) ? (d > 0 ? "Infinity" : "-Infinity") : NULL;
    int n = special ? snprintf(buf, (size_t)cap, "%s", special) : snprintf(buf, (size_t)cap, "%.15g", d);
    return n < cap ? n : cap - 1;
}

int lb_pg_format_int(int64_t v, char *buf, int32_t cap)
{
    /* Digits backwards from the magnitude as unsigned (-2^63 has no
     * positive twin in int64_t), two at a time from a table: half the
     * divisions of a digit loop, on every parameter of every statement. */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char tmp[24];
    char *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    while (u >= 100) {
        unsigned d = (unsigned)(u % 100) * 2;
        u /= 100;
        *--p = pairs[d + 1];
        *--p = pairs[d];
    }
    if (u >= 10) {
        *--p = pairs[u * 2 + 1];
        *--p = pairs[u * 2];
    } else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        *--p = '-';
    int n = (int)(tmp + sizeof tmp - p);
    if (n > cap)
        return 0;
    memcpy(buf, p, (size_t)n);
    return n;
}

int32_t lb_pg_text_ints(const char *lits, const int32_t *ends, int32_t n, const int64_t *vals, char *buf,
                        int32_t cap)
{
    int32_t len = 0, from = 0;
    for (int32_t k = 0; k <= n; k++) {
        int32_t piece = ends[k] - from;
        /* 21: the longest integer, "-9223372036854775808" and one spare */
        if (piece > cap - len - (k < n ? 21 : 0))
            return -1;
        memcpy(buf + len, lits + from, (size_t)piece);
        len += piece;
        from = ends[k];
        if (k < n)
            len += lb_pg_format_int(vals[k], buf + len, cap - len);
    }
    return len;
}

/* ---- text to numbers ------------------------------------------------------- */

int lb_pg_parse_int(const char *s, int64_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && isspace(*p))
        p++;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit(*p))
        return 2;
    /* Accumulated negative: -2^63 has no positive twin. */
    int64_t v = 0;
    for (; isdigit(*p); p++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, *p - '0', &v))
            return 1;
    while (*p && isspace(*p))
        p++;
    if (*p)
        return 2;
    if (!neg) {
        if (v == INT64_MIN)
            return 1;
        v = -v;
    }
    *out = v;
    return 0;
}

int lb_pg_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (errno != 0)
        return 1;
    return end == s || *end != '\0' ? 2 : 0;
}

double lb_pg_pow(double x, double y) { return pow(x, y); }
double lb_pg_exp(double x) { return exp(x); }
double lb_pg_ln(double x) { return log(x); }
