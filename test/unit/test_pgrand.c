/* Unit tests for core/pgbench/pgrand.c: the values pgbench 15 itself
 * printed with debug() for a seeded run (pgbench -n -c 2 -j 2 -t 2
 * --random-seed=42, a script of \set lines drawing random(1, 1000),
 * random(-5000, 5000), random_exponential(1, 100000, 2.5),
 * random_gaussian(1, 100000, 3), random_zipfian(1, 100000, 1.5), then
 * hash(12345), hash_fnv1a(:a, 77), permute(:a, 1000) and
 * random(1, 9223372036854775806)), and the properties the script language
 * relies on (checked overflow, rounding, the seed syntax). */
#include "check.h"
#include "pgbench/pgrand.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* One transaction's draws of client `client` (the script's order). */
struct draws {
    int64_t a, b, c, d, e, hash, fnv, perm, big;
};

static struct draws draw(lb_pg_seeds *s)
{
    struct draws d;
    d.a = lb_pg_random(&s->func, 1, 1000);
    d.b = lb_pg_random(&s->func, -5000, 5000);
    d.c = lb_pg_random_exponential(&s->func, 1, 100000, 2.5);
    d.d = lb_pg_random_gaussian(&s->func, 1, 100000, 3.0);
    d.e = lb_pg_random_zipfian(&s->func, 1, 100000, 1.5);
    d.hash = lb_pg_hash_murmur2(12345, s->default_seed);
    d.fnv = lb_pg_hash_fnv1a(d.a, 77);
    d.perm = lb_pg_permute(d.a, 1000, s->default_seed);
    d.big = lb_pg_random(&s->func, 1, INT64_C(9223372036854775806));
    return d;
}

static int same(struct draws x, const int64_t *want)
{
    int64_t got[9] = { x.a, x.b, x.c, x.d, x.e, x.hash, x.fnv, x.perm, x.big };
    return memcmp(got, want, sizeof got) == 0;
}

static void pgbench_values(void)
{
    /* pgbench's output, client by client, transaction by transaction. */
    static const int64_t want[2][2][9] = {
        { { 653, -4040, 12623, 25977, 11, INT64_C(1331290825061477055), INT64_C(6501025114067971279), 512,
            INT64_C(9011465779480243826) },
          { 727, -3381, 31739, 26136, 1, INT64_C(1331290825061477055), INT64_C(-3005965046708406443), 649,
            INT64_C(1860541312662963265) } },
        { { 825, 4147, 12081, 3764, 467, INT64_C(1331290825061477055), INT64_C(-6058824597933949216), 907,
            INT64_C(7587873482055861171) },
          { 359, 3173, 17810, 67190, 1, INT64_C(1331290825061477055), INT64_C(4172692673313245204), 110,
            INT64_C(391504869716700092) } },
    };
    int ok = 1;
    int64_t dseed = 0;
    for (int c = 0; c < 2; c++) {
        lb_pg_seeds s;
        lb_pg_client_seeds(42, 2, c, 1, &s);
        dseed = s.default_seed;
        for (int tx = 0; tx < 2; tx++)
            ok &= same(draw(&s), want[c][tx]);
    }
    check(ok, "pgrand_pgbench_values", "draws differ from pgbench 15's for --random-seed=42");
    check(dseed == INT64_C(4482733528210176216), "pgrand_default_seed", "default_seed %" PRId64, dseed);
}

static void permute_is_a_bijection(void)
{
    int ok = 1;
    for (int64_t size = 1; size <= 70 && ok; size++) {
        unsigned char seen[70] = { 0 };
        for (int64_t v = 0; v < size; v++) {
            int64_t p = lb_pg_permute(v, size, 12345);
            if (p < 0 || p >= size || seen[p]++)
                ok = 0;
        }
    }
    check(ok, "pgrand_permute_bijection", "permute(v, size) is not a permutation of [0, size)");
}

static void arithmetic(void)
{
    int64_t r = 0;
    check(lb_pg_add(INT64_MAX, 1, &r) && !lb_pg_add(INT64_MAX - 1, 1, &r) && r == INT64_MAX,
          "pgrand_add_overflow", "add");
    check(lb_pg_sub(INT64_MIN, 1, &r) && !lb_pg_sub(-1, INT64_MAX, &r) && r == INT64_MIN,
          "pgrand_sub_overflow", "sub");
    check(lb_pg_mul(INT64_C(4294967296), INT64_C(4294967296), &r) && !lb_pg_mul(-4, 5, &r) && r == -20,
          "pgrand_mul_overflow", "mul");
    int ok = !lb_pg_double_to_int(2.5, &r) && r == 2 && !lb_pg_double_to_int(3.5, &r) && r == 4 &&
             !lb_pg_double_to_int(-9223372036854775808.0, &r) && r == INT64_MIN &&
             lb_pg_double_to_int(9223372036854775808.0, &r) && lb_pg_double_to_int(NAN, &r);
    check(ok, "pgrand_double_to_int", "rint to even and the int64 range");
    char buf[32];
    lb_pg_format_double(M_PI * 1e10, buf, sizeof buf);
    int fmt = strcmp(buf, "31415926535.8979") == 0;
    lb_pg_format_double(NAN, buf, sizeof buf);
    fmt &= strcmp(buf, "NaN") == 0;
    lb_pg_format_double(-INFINITY, buf, sizeof buf);
    fmt &= strcmp(buf, "-Infinity") == 0;
    check(fmt, "pgrand_format_double", "last: %s", buf);
    /* Integers as pgbench prints them, the int64 ends included; no NUL. */
    static const int64_t ints[] = { 0, 7, -7, 1234567890123, INT64_MAX, INT64_MIN };
    static const char *const texts[] = { "0", "7", "-7", "1234567890123", "9223372036854775807",
                                         "-9223372036854775808" };
    int ints_ok = 1;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        int n = lb_pg_format_int(ints[i], buf, sizeof buf);
        ints_ok &= n == (int)strlen(texts[i]) && memcmp(buf, texts[i], (size_t)n) == 0;
    }
    ints_ok &= lb_pg_format_int(INT64_MIN, buf, 5) == 0;
    check(ints_ok, "pgrand_format_int", "decimal, the int64 ends, 0 when it does not fit");
}

/* A statement's text with integers written in, as simple mode sends it:
 * the pieces around each value, values at the int64 ends, a statement
 * without values, and -1 (nothing promised in buf) when it does not fit. */
static void text_with_ints(void)
{
    /* "UPDATE t SET v = v + " | " WHERE id = " | ";" */
    const char lits[] = "UPDATE t SET v = v +  WHERE id = ;";
    const int32_t ends[] = { 21, 33, 34 };
    const int64_t vals[] = { -5000, INT64_MIN };
    const char *want = "UPDATE t SET v = v + -5000 WHERE id = -9223372036854775808;";
    char buf[128];
    int32_t n = lb_pg_text_ints(lits, ends, 2, vals, buf, sizeof buf);
    int ok = n == (int32_t)strlen(want) && memcmp(buf, want, (size_t)n) == 0;
    const int32_t whole[] = { 5 };
    n = lb_pg_text_ints("BEGIN", whole, 0, NULL, buf, sizeof buf);
    ok &= n == 5 && memcmp(buf, "BEGIN", 5) == 0;
    /* room for each piece and the 21 bytes the longest integer takes */
    const int64_t small[] = { 7, 8 };
    n = lb_pg_text_ints(lits, ends, 2, small, buf, 21 + 21 + 12 + 21);
    ok &= n == 21 + 1 + 12 + 1 + 1 && memcmp(buf, "UPDATE t SET v = v + 7 WHERE id = 8;", (size_t)n) == 0;
    ok &= lb_pg_text_ints(lits, ends, 2, small, buf, 21 + 20) == -1;
    ok &= lb_pg_text_ints("BEGIN", whole, 0, NULL, buf, 4) == -1;
    check(ok, "pgrand_text_ints", "literal pieces and integers in order, the int64 ends, -1 when it does not fit");
}

static void seeds(void)
{
    uint64_t v = 0;
    int ok = lb_pg_seed_parse("42", &v) == 0 && v == 42 && lb_pg_seed_parse("-1", &v) == 0 && v == UINT64_MAX &&
             lb_pg_seed_parse("12x", &v) != 0 && lb_pg_seed_parse("", &v) != 0 &&
             lb_pg_seed_parse("time", &v) == 0 && v > 0 && lb_pg_seed_parse("rand", &v) == 0;
    check(ok, "pgrand_seed_parse", "numbers as pgbench reads them, time, rand, and garbage refused");
}

int main(void)
{
    pgbench_values();
    permute_is_a_bijection();
    arithmetic();
    text_with_ints();
    seeds();
    return check_exit();
}
