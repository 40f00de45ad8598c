/* Unit tests for core/pgbench/pglog.c, pgbench's per-transaction log
 * written from C: each line's fields as pgbench 15's doLog writes them
 * (with and without the lag and retries fields), lines written by the
 * caller kept in order among them, --sampling-rate's draws (the lines
 * kept are those pgbench's test keeps, from the same state), a file larger
 * than the buffer written whole, the buffer sent out once a line ends a
 * second after the last that did and on lb_pg_txlog_flush, and a failed
 * write returned by close (/dev/full), not lost. */
#include "check.h"
#include "pgbench/pglog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file at `path` (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *t = realloc(s, 2 * cap + 1);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[n] = 0;
    *len = n;
    return s;
}

static void temp_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/lbench-test-pglog-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
             name);
}

/* A new log at a temporary path named after `name` (written to `path`),
 * plain lines; NULL, reported as the failure of check `test`, when it
 * cannot be created. */
static lb_pg_txlog *open_temp(char *path, size_t cap, const char *name, const char *test)
{
    temp_path(path, cap, name);
    lb_pg_txlog *l = lb_pg_txlog_open(path, 0, 0, 0);
    if (!l)
        check(0, test, "cannot create %s: %s", path, strerror(errno));
    return l;
}

/* Times: the monotonic clock in ns, shifted to the epoch in us. */
static void line_fields(void)
{
    char path[256];
    temp_path(path, sizeof path, "fields");
    const int64_t shift = INT64_C(1700000000000000) - 5000;   /* us */
    int ok = 1;
    for (int lag = 0; lag <= 1; lag++) {
        for (int retries = 0; retries <= 1; retries++) {
            lb_pg_txlog *l = lb_pg_txlog_open(path, shift, lag, retries);
            if (!l) {
                check(0, "pglog_fields", "cannot create %s: %s", path, strerror(errno));
                return;
            }
            /* scheduled at 2.000999 ms, begun at 2.5 ms, ended at 7.000123 ms
             * after 3 tries: latency 7000 - 2000 us, lag 500 - 0, epoch time
             * 1700000000000000 - 5000 + 7000 us */
            ok &= lb_pg_txlog_txn(l, 3, 41, 1, 2000999, 2500000, 7000123, 3) == 0;
            ok &= lb_pg_txlog_write(l, "7 9 failed 0 1 2\n", 17) == 0;
            ok &= lb_pg_txlog_txn(l, 0, 1, 0, 1000, 1000, 999999, 1) == 0;
            ok &= lb_pg_txlog_close(l) == 0;
            char want[256];
            snprintf(want, sizeof want, "3 41 5000 1 1700000000 2000%s%s\n7 9 failed 0 1 2\n0 1 998 0 1699999999 995999%s%s\n",
                     lag ? " 500" : "", retries ? " 2" : "", lag ? " 0" : "", retries ? " 0" : "");
            size_t n = 0;
            char *got = slurp(path, &n);
            if (!got || strcmp(got, want) != 0) {
                check(0, "pglog_fields", "lag %d retries %d: wrote [%s], want [%s]", lag, retries, got ? got : "?",
                      want);
                free(got);
                unlink(path);
                return;
            }
            free(got);
        }
    }
    unlink(path);
    check(ok, "pglog_fields", "every call returned 0");
}

/* More than the 64 KiB buffer: every line, in order. */
static void many_lines(void)
{
    char path[256];
    lb_pg_txlog *l = open_temp(path, sizeof path, "many", "pglog_many_lines");
    if (!l)
        return;
    const int64_t lines = 20000;
    for (int64_t i = 1; i <= lines; i++) {
        lb_pg_txlog_txn(l, (int32_t)(i % 7), i, 0, 0, 0, i * 1000, 1);
        if (i % 5000 == 0)
            lb_pg_txlog_write(l, "x\n", 2);
    }
    int closed = lb_pg_txlog_close(l);
    size_t n = 0;
    char *got = slurp(path, &n);
    int ok = closed == 0 && got != NULL;
    int64_t next = 1, marks = 0;
    for (char *p = got; ok && p && *p; p = strchr(p, '\n') + 1) {
        if (p[0] == 'x') {
            ok &= next - 1 == (marks + 1) * 5000;
            marks++;
            continue;
        }
        int64_t c, cnt, lat, script, sec, usec;
        ok &= sscanf(p, "%" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64, &c, &cnt, &lat, &script,
                     &sec, &usec) == 6;
        ok &= c == next % 7 && cnt == next && lat == next && sec == next / 1000000 && usec == next % 1000000;
        next++;
    }
    ok &= next == lines + 1 && marks == 4 && n > 64 * 1024;
    check(ok, "pglog_many_lines", "%" PRId64 " lines, %" PRId64 " marks, %zu bytes read back (close: %d)", next - 1,
          marks, n, closed);
    free(got);
    unlink(path);
}

/* --sampling-rate 0.3: transaction i is logged when draw i from the
 * state is not above 0.3, and the caller's own draws take their turn. */
static void sampled(void)
{
    char path[256];
    lb_pg_txlog *l = open_temp(path, sizeof path, "sampled", "pglog_sampled");
    if (!l)
        return;
    lb_pg_prng state, mirror;
    lb_pg_prng_seed(&state, 31);
    mirror = state;
    lb_pg_txlog_sample(l, &state, 0.3);
    char want[4096] = "";
    size_t wl = 0;
    for (int64_t i = 1; i <= 100; i++) {
        if (i % 10 == 0) {
            /* a line of the caller's (a failed transaction's), its draw first */
            if (lb_pg_prng_double(&state) <= 0.3)
                lb_pg_txlog_write(l, "f\n", 2);
            if (lb_pg_prng_double(&mirror) <= 0.3)
                wl += (size_t)snprintf(want + wl, sizeof want - wl, "f\n");
            continue;
        }
        lb_pg_txlog_txn(l, 0, i, 0, 0, 0, 0, 1);
        if (lb_pg_prng_double(&mirror) <= 0.3)
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "0 %" PRId64 " 0 0 0 0\n", i);
    }
    int closed = lb_pg_txlog_close(l);
    size_t n = 0;
    char *got = slurp(path, &n);
    int lines = 0;
    for (size_t k = 0; k < wl; k++)
        lines += want[k] == '\n';
    check(closed == 0 && got && strcmp(got, want) == 0 && lines > 10 && lines < 60, "pglog_sampled",
          "wrote [%.80s...], want %d lines [%.80s...]", got ? got : "?", lines, want);
    free(got);
    unlink(path);
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Lines ending 0.5 s apart (their own end times): in the file once one
 * ends a second after the one that last sent the buffer out. */
static void each_second(void)
{
    char path[256];
    lb_pg_txlog *l = open_temp(path, sizeof path, "second", "pglog_each_second");
    if (!l)
        return;
    const int64_t s = 1000000000;
    long long size[5];
    for (int i = 0; i < 5; i++) {
        lb_pg_txlog_txn(l, 0, i + 1, 0, 0, 0, 5 * s + i * s / 2, 1);
        size[i] = file_size(path);
    }
    /* "0 1 5000000 0 5 0\n" (18 bytes), "0 2 5500000 0 5 500000\n" (23), ...:
     * out with the line at 6 s, then with the one at 7 s */
    int ok = size[0] == 0 && size[1] == 0 && size[2] == 18 + 23 + 18 && size[3] == size[2] &&
             size[4] == size[2] + 23 + 18;
    lb_pg_txlog_write(l, "agg\n", 4);
    long long before = file_size(path);
    ok &= lb_pg_txlog_flush(l) == 0 && file_size(path) == before + 4 && before == size[4];
    ok &= lb_pg_txlog_close(l) == 0;
    check(ok, "pglog_each_second", "sizes after each line: %lld %lld %lld %lld %lld, then %lld and %lld", size[0],
          size[1], size[2], size[3], size[4], before, file_size(path));
    unlink(path);
}

/* A device that is full: the error comes back from close. */
static void failed_write(void)
{
    lb_pg_txlog *l = lb_pg_txlog_open("/dev/full", 0, 0, 0);
    if (!l) {
        check(0, "pglog_write_error", "cannot open /dev/full: %s", strerror(errno));
        return;
    }
    for (int64_t i = 1; i <= 5000; i++)
        lb_pg_txlog_txn(l, 0, i, 0, 0, 0, i * 1000, 1);
    int err = lb_pg_txlog_close(l);
    errno = 0;
    int bad = lb_pg_txlog_open("/nonexistent-dir/x", 0, 0, 0) == NULL && errno == ENOENT;
    check(err == ENOSPC && bad, "pglog_write_error", "close returned %d (want ENOSPC), missing directory refused: %d",
          err, bad);
}

int main(void)
{
    line_fields();
    many_lines();
    sampled();
    each_second();
    failed_write();
    return check_exit();
}
