/* pgbench 15's random numbers and integer arithmetic, for the pgbench
 * scenario's script language (scenarios/pgbench/expr.lua).
 *
 * A script run by lbench must draw the very values pgbench 15 draws with
 * the same --random-seed, so that a seeded run can be checked against
 * pgbench value by value.  Everything here therefore follows pgbench 15
 * and PostgreSQL 15's src/common/pg_prng.c to the bit:
 *
 *   generator     xoroshiro128** (128-bit state) seeded by two splitmix64
 *                 outputs; an all-zero state is replaced by a fixed one.
 *   seeding       one base sequence seeded with the run's seed; client i
 *                 (0-based) seeds its function state with the base's
 *                 draw i, the default_seed variable is draw n (n clients),
 *                 and pgbench's thread t seeds its script-choice state
 *                 with draw n + 1 + 3t (then two more for throttling and
 *                 sampling).  lbench gives each client the choice state of
 *                 the pgbench thread of the same number (pgbench -j = -c).
 *   distributions uniform (bitmask rejection), exponential (inversion),
 *                 gaussian (Box-Muller, redrawn outside +-param), zipfian
 *                 (Devroye's rejection, s > 1), as pgbench computes them.
 *   hashes        FNV-1a and MurmurHash2 over the value's 8 bytes, and
 *                 permute (six rounds of a seeded bijection).
 *
 * The integer functions return int64_t, which LuaJIT boxes: the script
 * language keeps its integers as int64_t cdata anyway (exact over the
 * whole range, as pgbench's are).  Checked operations write the result
 * through a pointer and return nonzero on overflow, so that the caller
 * can raise pgbench's error.  Nothing here allocates, prints or exits.
 */
#ifndef LB_PGBENCH_PGRAND_H
#define LB_PGBENCH_PGRAND_H

#include <stdint.h>

/* FFI BEGIN */
/* pgbench's generator state (pg_prng_state). */
typedef struct lb_pg_prng {
    uint64_t s0, s1;
} lb_pg_prng;

/* One client's states, derived from the run's seed (see above). */
typedef struct lb_pg_seeds {
    lb_pg_prng func;       /* random(), random_*() of the client's scripts */
    lb_pg_prng choose;     /* which script a transaction runs */
    lb_pg_prng throttle;   /* pgbench thread `client`'s --rate draws (unused here, kept for the order) */
    lb_pg_prng sample;     /* pgbench thread `client`'s --sampling-rate draws */
    int64_t default_seed;  /* the default_seed variable (same for every client) */
} lb_pg_seeds;

void lb_pg_prng_seed(lb_pg_prng *st, uint64_t seed);
uint64_t lb_pg_prng_u64(lb_pg_prng *st);
/* Uniform in [0, 1) with 52 random bits, as pg_prng_double. */
double lb_pg_prng_double(lb_pg_prng *st);

/* The states of client `client` of `nclients` for the run seed `seed`;
 * choose, throttle and sample are those of pgbench's thread `client`.
 * pgbench draws default_seed only when --define did not set it
 * (draw_default 0: the later draws move up by one, default_seed is 0). */
void lb_pg_client_seeds(uint64_t seed, int32_t nclients, int32_t client, int32_t draw_default, lb_pg_seeds *out);

/* --random-seed: "time" (microseconds of the wall clock), "rand" (the
 * kernel's random source) or an unsigned integer read as pgbench reads it
 * (sscanf "%lu": leading blanks and a sign are taken, "-1" wraps).
 * 0 with *out set, -1 when the text is none of these or no random bytes
 * could be had. */
int lb_pg_seed_parse(const char *s, uint64_t *out);

/* The distributions.  The range checks (min <= max, max - min + 1 fits
 * in int64) and the parameter checks are the caller's, made before the
 * call as pgbench makes them. */
int64_t lb_pg_random(lb_pg_prng *st, int64_t min, int64_t max);
int64_t lb_pg_random_exponential(lb_pg_prng *st, int64_t min, int64_t max, double param);
int64_t lb_pg_random_gaussian(lb_pg_prng *st, int64_t min, int64_t max, double param);
int64_t lb_pg_random_zipfian(lb_pg_prng *st, int64_t min, int64_t max, double param);

int64_t lb_pg_hash_fnv1a(int64_t val, int64_t seed);
int64_t lb_pg_hash_murmur2(int64_t val, int64_t seed);
/* size must be > 0 (the caller's check); size 1 gives 0. */
int64_t lb_pg_permute(int64_t val, int64_t size, int64_t seed);

/* Checked int64 arithmetic: 0 with *r set, 1 on overflow. */
int lb_pg_add(int64_t a, int64_t b, int64_t *r);
int lb_pg_sub(int64_t a, int64_t b, int64_t *r);
int lb_pg_mul(int64_t a, int64_t b, int64_t *r);
/* A double rounded to the nearest integer, ties to even (rint): 0 with
 * *r set, 1 when it is NaN or outside int64. */
int lb_pg_double_to_int(double d, int64_t *r);
/* rint(d) itself, for the error message of a failed conversion. */
double lb_pg_rint(double d);
/* d as pgbench prints a double ("%.15g"; NaN, Infinity, -Infinity as
 * PostgreSQL spells them): the length written into buf (cap >= 32). */
int lb_pg_format_double(double d, char *buf, int32_t cap);
/* v in decimal, as pgbench prints an integer: the length written into buf
 * (cap >= 21; no NUL). */
int lb_pg_format_int(int64_t v, char *buf, int32_t cap);
/* A statement's text with n integers written in: the literal pieces
 * lits[ends[k-1]..ends[k]) (ends[-1] taken as 0) before vals[k], for k in
 * 0..n, then the last piece; the length written into buf (no NUL), or
 * -1 when cap is too small (each integer counted at the 21 bytes the
 * longest takes; buf's content is then undefined).  One call per statement in
 * pgbench's simple mode, in place of one per piece. */
int32_t lb_pg_text_ints(const char *lits, const int32_t *ends, int32_t n, const int64_t *vals, char *buf,
                        int32_t cap);
/* Text to numbers as pgbench reads variables and constants: 0 with *out
 * set, 1 out of range, 2 not a number.  An integer: blanks around,
 * an optional sign, decimal digits; a double: what strtod takes, whole. */
int lb_pg_parse_int(const char *s, int64_t *out);
int lb_pg_parse_double(const char *s, double *out);
/* The C library's functions (LuaJIT computes some powers its own way,
 * which may differ from pgbench's in the last bit). */
double lb_pg_pow(double x, double y);
double lb_pg_exp(double x);
double lb_pg_ln(double x);
/* FFI END */

#endif
