/* Unit tests of core/io: every engine on a small file, exact I/O counts,
 * sequential passes, verification (clean set, flipped byte, misplaced and
 * lost blocks), data points every N I/Os (with their latency percentiles),
 * and the steady-state rule on synthetic series.  No timing assertions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"

static char dir[256];
static char path[300], map_path[300];

enum { FSIZE = 1 << 20, VBS = 4096 };

static lb_io_job *make_job(const char *engine, int pattern, double read_pct, int depth, uint64_t max_ios,
                           uint32_t gen, int passes, int with_map, char *err)
{
    lb_io_params p;
    lb_io_params_init(&p);
    p.iodepth = depth;
    p.pattern = pattern;
    p.read_pct = read_pct;
    p.bs[0] = 4096;
    p.stamp = 1;
    p.vbs = VBS;
    p.generation = gen;
    p.seed = 42;
    p.max_ios = max_ios;
    p.passes = passes;
    lb_io_job *j = lb_io_job_new(engine, &p, err, 256);
    if (!j)
        return NULL;
    if (lb_io_job_add_file(j, path, FSIZE, LB_IO_F_CREATE) < 0 ||
        (with_map && lb_io_job_set_genmap(j, map_path) < 0) || lb_io_job_start(j) < 0) {
        snprintf(err, 256, "%s", lb_io_job_error(j));
        lb_io_job_free(j);
        return NULL;
    }
    return j;
}

/* Run a job to its end; returns the I/Os completed or a negative error. */
static long long drive(lb_io_job *j)
{
    long long n = 0;
    for (;;) {
        int rc = lb_io_job_step(j, NULL);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
        n += rc;
    }
    if (lb_io_job_finish(j, NULL) < 0)
        return -1;
    return n;
}

static int fill_set(uint32_t gen)
{
    char err[256];
    lb_io_job *j = make_job("sync", LB_IO_SEQ, 0, 1, 0, gen, 1, 1, err);
    if (!j)
        return -1;
    long long n = drive(j);
    lb_io_job_free(j);
    return n == FSIZE / 4096 ? 0 : -1;
}

static int verify(lb_io_verify_result *res, lb_io_bad_block *bad, int maxbad)
{
    char err[256];
    memset(res, 0, sizeof(*res));
    lb_io_genmap *g = lb_io_genmap_open(map_path, FSIZE / VBS, 0, err, sizeof(err));
    int rc = lb_io_verify_file(path, 0, FSIZE, VBS, g, 1, res, bad, maxbad, NULL, err, sizeof(err));
    lb_io_genmap_close(g);
    return rc;
}

static void poke(off_t off, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY);
    if (fd >= 0) {
        if (pwrite(fd, data, len, off) != (ssize_t)len)
            perror("pwrite");
        fsync(fd);
        close(fd);
    }
}

static void peek(off_t off, void *data, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        if (pread(fd, data, len, off) != (ssize_t)len)
            perror("pread");
        close(fd);
    }
}

static void test_engines(void)
{
    const char *engines[] = { "sync", "libaio", "io_uring", "mmap", "null" };
    for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
        char err[256], name[128];
        if (lb_io_engine_probe(engines[e], err, sizeof(err)) != 0) {
            snprintf(name, sizeof(name), "engine_%s_unavailable_explained", engines[e]);
            check(strlen(err) > 10, name, "no reason given");
            continue;
        }
        int depths[] = { 1, 8 };
        for (int d = 0; d < 2; d++) {
            double mixes[] = { 100, 0, 60 };
            for (int m = 0; m < 3; m++) {
                lb_io_job *j = make_job(engines[e], LB_IO_RAND, mixes[m], depths[d], 1000, 2, 0, 1, err);
                snprintf(name, sizeof(name), "engine_%s_qd%d_read%g_exact_count", engines[e], depths[d], mixes[m]);
                if (!j) {
                    check(0, name, "job: %s", err);
                    continue;
                }
                long long n = drive(j);
                const lb_io_counters *c = lb_io_job_counters(j);
                int ok = n >= 1000 && c->reads + c->writes == 1000;
                if (mixes[m] == 100) ok = ok && c->writes == 0;
                if (mixes[m] == 0) ok = ok && c->reads == 0;
                if (mixes[m] == 60) ok = ok && c->reads > 400 && c->writes > 200;
                check(ok, name, "n=%lld reads=%llu writes=%llu fsyncs=%llu err=%s", n,
                      (unsigned long long)c->reads, (unsigned long long)c->writes,
                      (unsigned long long)c->fsyncs, lb_io_job_error(j));
                lb_io_job_free(j);
            }
        }
        if (strcmp(engines[e], "null") != 0) {
            lb_io_verify_result r;
            int rc = verify(&r, NULL, 0);
            snprintf(name, sizeof(name), "engine_%s_writes_verify", engines[e]);
            check(rc == 0 && r.ok == FSIZE / VBS, name, "rc=%d ok=%llu lost=%llu torn=%llu", rc,
                  (unsigned long long)r.ok, (unsigned long long)r.lost, (unsigned long long)r.torn);
        }
    }
}

static void test_seq_and_fsync(void)
{
    char err[256];
    /* Two sequential passes of 4 KiB reads over 1 MiB: exactly 512 I/Os. */
    lb_io_job *j = make_job("libaio", LB_IO_SEQ, 100, 4, 0, 2, 2, 0, err);
    long long n = j ? drive(j) : -1;
    check(n == 2 * FSIZE / 4096, "seq_two_passes_exact", "n=%lld %s", n, j ? lb_io_job_error(j) : err);
    lb_io_job_free(j);

    lb_io_params p;
    lb_io_params_init(&p);
    p.iodepth = 4;
    p.read_pct = 0;
    p.fsync_freq = 10;
    p.max_ios = 100;
    p.vbs = VBS;
    p.stamp = 1;
    p.generation = 2;
    j = lb_io_job_new("libaio", &p, err, sizeof(err));
    if (j && lb_io_job_add_file(j, path, FSIZE, 0) == 0 && lb_io_job_set_genmap(j, map_path) == 0) {
        n = drive(j);
        const lb_io_counters *c = lb_io_job_counters(j);
        check(n > 0 && c->writes == 100 && c->fsyncs == 10, "fsync_every_10_requests", "writes=%llu fsyncs=%llu",
              (unsigned long long)c->writes, (unsigned long long)c->fsyncs);
    } else {
        check(0, "fsync_every_10_requests", "%s", j ? lb_io_job_error(j) : err);
    }
    lb_io_job_free(j);

    /* Block sizes that are not multiples of the verify chunk are refused. */
    lb_io_params_init(&p);
    p.bs[0] = 1024;
    p.stamp = 1;
    p.vbs = 4096;
    j = lb_io_job_new("sync", &p, err, sizeof(err));
    check(j == NULL && strstr(err, "multiple"), "stamp_needs_chunk_multiple", "%s", j ? "accepted" : err);
    lb_io_job_free(j);
    j = lb_io_job_new("nosuch", &p, err, sizeof(err));
    check(j == NULL && strstr(err, "unknown I/O engine"), "unknown_engine", "%s", err);
}

static void test_verify(void)
{
    lb_io_verify_result r;
    lb_io_bad_block bad[8];
    check(fill_set(5) == 0, "verify_fill", "fill failed");
    int rc = verify(&r, bad, 8);
    check(rc == 0 && r.ok == FSIZE / VBS && r.nbad == 0, "verify_clean", "rc=%d ok=%llu", rc, (unsigned long long)r.ok);

    /* A flipped byte in the body of chunk 10. */
    unsigned char b;
    off_t off = 10 * VBS + 1000;
    peek(off, &b, 1);
    b ^= 0x40;
    poke(off, &b, 1);
    rc = verify(&r, bad, 8);
    check(rc == 0 && r.torn == 1 && r.nbad == 1 && bad[0].kind == LB_IO_BAD_TORN && bad[0].offset == 10 * VBS,
          "verify_flipped_byte", "rc=%d torn=%llu nbad=%d off=%llu", rc, (unsigned long long)r.torn, r.nbad,
          r.nbad ? (unsigned long long)bad[0].offset : 0ULL);
    b ^= 0x40;
    poke(off, &b, 1);

    /* A flipped header byte is caught too. */
    peek(20 * VBS + 20, &b, 1);
    b ^= 1;
    poke(20 * VBS + 20, &b, 1);
    rc = verify(&r, bad, 8);
    check(rc == 0 && r.torn == 1 && bad[0].offset == 20 * VBS, "verify_flipped_header_byte", "torn=%llu",
          (unsigned long long)r.torn);
    b ^= 1;
    poke(20 * VBS + 20, &b, 1);

    /* Chunk 3's content written at chunk 7: misplaced. */
    static unsigned char chunk[VBS], saved[VBS];
    peek(3 * VBS, chunk, VBS);
    peek(7 * VBS, saved, VBS);
    poke(7 * VBS, chunk, VBS);
    rc = verify(&r, bad, 8);
    check(rc == 0 && r.misplaced == 1 && bad[0].kind == LB_IO_BAD_MISPLACED && bad[0].found_offset == 3 * VBS,
          "verify_misplaced", "misplaced=%llu", (unsigned long long)r.misplaced);
    poke(7 * VBS, saved, VBS);

    /* A newer generation is written over everything; putting back chunk 7
     * of the old generation simulates a lost write. */
    check(fill_set(6) == 0, "verify_refill", "fill failed");
    poke(7 * VBS, saved, VBS);
    rc = verify(&r, bad, 8);
    check(rc == 0 && r.lost == 1 && bad[0].kind == LB_IO_BAD_LOST && bad[0].found_gen == 5,
          "verify_lost_write", "lost=%llu gen=%u", (unsigned long long)r.lost, r.nbad ? bad[0].found_gen : 0);
    /* Zeros where a block should be: lost, no header. */
    memset(chunk, 0, sizeof(chunk));
    poke(9 * VBS, chunk, VBS);
    rc = verify(&r, bad, 8);
    check(rc == 0 && r.lost == 2, "verify_zeroed_block_lost", "lost=%llu", (unsigned long long)r.lost);
}

/* p50 <= p95 <= p99 <= p99.9 <= max, all >= 0, max >= the window's mean
 * (max is exact) and, when want_max, max > 0. */
static int pcts_ok(const double *v, double avg, int want_max, char *why, size_t whylen)
{
    int ok = v[LB_IO_PCT_P50] >= 0 && v[LB_IO_PCT_P95] >= v[LB_IO_PCT_P50] && v[LB_IO_PCT_P99] >= v[LB_IO_PCT_P95] &&
             v[LB_IO_PCT_P99_9] >= v[LB_IO_PCT_P99] && v[LB_IO_PCT_MAX] >= v[LB_IO_PCT_P99_9] &&
             v[LB_IO_PCT_MAX] >= avg && (!want_max || v[LB_IO_PCT_MAX] > 0);
    if (!ok)
        snprintf(why, whylen, "p50 %g p95 %g p99 %g p99.9 %g max %g avg %g", v[0], v[1], v[2], v[3], v[4], avg);
    return ok;
}

static void test_points(void)
{
    char err[256];
    lb_io_shared *sh = lb_io_shared_open("test-points", 1000);
    check(sh && lb_io_shared_lookup("test-points") == sh, "points_registry", "lookup failed");
    int total_ok = 1;
    for (int t = 0; t < 2; t++) {
        lb_io_params p;
        lb_io_params_init(&p);
        p.iodepth = 4;
        p.max_ios = 5000;
        p.tid = t;
        lb_io_job *j = lb_io_job_new("null", &p, err, sizeof(err));
        if (!j || lb_io_job_add_file(j, path, FSIZE, 0) < 0) {
            total_ok = 0;
            lb_io_job_free(j);
            continue;
        }
        lb_io_job_set_shared(j, sh);
        if (drive(j) != 5000)
            total_ok = 0;
        lb_io_job_free(j);
    }
    int n = lb_io_shared_npoints(sh);
    lb_io_point pt;
    int mono = 1, pct_ok = 1, exact = 1;
    uint64_t prev = 0;
    char why[200] = "";
    for (int i = 0; i < n; i++) {
        lb_io_shared_point(sh, i, &pt);
        /* One point per multiple of 1000 crossed, at the I/Os done when
         * the job flushed: past its multiple (a job's step ends on a time
         * budget, so under load a flush can land anywhere), the last one
         * at the total. */
        if (pt.ios <= prev || pt.ios < (uint64_t)(i + 1) * 1000 || pt.reads == 0 ||
            (i == n - 1 && pt.ios != 10000))
            mono = 0;
        /* a point's I/Os are exactly the step of its ios label */
        if (pt.ios - prev != pt.reads + pt.writes)
            exact = 0;
        prev = pt.ios;
        if (pct_ok && !pcts_ok(pt.read_lat_ms, pt.read_lat_avg_ms, 1, why, sizeof(why)))
            pct_ok = 0;
        for (int k = 0; k < LB_IO_NPCT && pct_ok; k++)
            if (pt.write_lat_ms[k] != 0) {
                pct_ok = 0;
                snprintf(why, sizeof(why), "point %d: write percentile %d = %g without writes", i, k, pt.write_lat_ms[k]);
            }
    }
    check(total_ok && n == 10, "points_every_1000_of_10000", "points=%d", n);
    check(mono, "points_ios_past_each_multiple", "a point's ios is not past its multiple of 1000, or the last is not 10000");
    check(exact, "points_ios_step_is_reads_plus_writes", "a point's reads + writes differ from its ios step");
    check(pct_ok, "points_read_percentiles_ordered_writes_zero", "%s", why);
    lb_io_shared_close(sh);
    check(lb_io_shared_lookup("test-points") == NULL, "points_closed", "still registered");
}

/* Several boundaries crossed by one flush (every 10 I/Os, flushes of a
 * whole step's batch): those points share the window's percentiles; reads
 * and writes are kept apart; a series set after lb_io_job_start works. */
static void test_points_percentiles(void)
{
    char err[256];
    lb_io_shared *sh = lb_io_shared_open("test-points-pct", 10);
    lb_io_params p;
    lb_io_params_init(&p);
    p.iodepth = 4;
    p.read_pct = 50;
    p.max_ios = 20000;
    lb_io_job *j = lb_io_job_new("null", &p, err, sizeof(err));
    int ok = sh && j && lb_io_job_add_file(j, path, FSIZE, 0) == 0 && lb_io_job_start(j) == 0;
    if (ok) {
        lb_io_job_set_shared(j, sh);   /* after start: the window histograms come now */
        ok = drive(j) == 20000;
    }
    int n = lb_io_shared_npoints(sh);
    check(ok && n == 2000, "points_pct_every_10", "ok=%d points=%d", ok, n);
    int pct_ok = 1, shared_pairs = 0, mixed = 0;
    char why[200] = "";
    lb_io_point a, b;
    for (int i = 0; i < n && pct_ok; i++) {
        lb_io_shared_point(sh, i, &b);
        if (b.reads && !pcts_ok(b.read_lat_ms, b.read_lat_avg_ms, 1, why, sizeof(why)))
            pct_ok = 0;
        if (b.writes && !pcts_ok(b.write_lat_ms, b.write_lat_avg_ms, 1, why, sizeof(why)))
            pct_ok = 0;
        if (b.reads && b.writes)
            mixed++;
        /* Points of one flush share secs (the window split evenly). */
        if (i > 0 && b.secs == a.secs && b.time_s > a.time_s) {
            if (memcmp(a.read_lat_ms, b.read_lat_ms, sizeof(a.read_lat_ms)) ||
                memcmp(a.write_lat_ms, b.write_lat_ms, sizeof(a.write_lat_ms)) ||
                a.read_lat_avg_ms != b.read_lat_avg_ms) {
                pct_ok = 0;
                snprintf(why, sizeof(why), "points %d and %d of one flush differ", i - 1, i);
            }
            shared_pairs++;
        }
        a = b;
    }
    check(pct_ok && shared_pairs > 0 && mixed > 0, "points_pct_shared_by_one_flush", "%s (pairs %d, mixed %d)", why,
          shared_pairs, mixed);
    lb_io_job_free(j);
    lb_io_shared_close(sh);
}

/* /proc/diskstats: the first device's counters as the file has them; a
 * name that is not there, or none, is -1. */
static void test_diskstats(void)
{
    FILE *f = fopen("/proc/diskstats", "r");
    char line[512] = "", name[64] = "";
    unsigned long long v[11] = { 0 };
    int ok = f && fgets(line, sizeof(line), f) &&
             sscanf(line, "%*u %*u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", name, &v[0], &v[1], &v[2],
                    &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) == 11;
    if (f)
        fclose(f);
    lb_diskstats d;
    memset(&d, 0, sizeof(d));
    /* Counters only grow: read after the test's own read, each is >=. */
    int rc = ok ? lb_diskstats_read(name, &d) : -1;
    check(ok && rc == 0 && d.reads >= v[0] && d.sectors_read >= v[2] && d.read_ms >= v[3] && d.writes >= v[4] &&
              d.sectors_written >= v[6] && d.write_ms >= v[7] && d.busy_ms >= v[9] && d.reads < v[0] + 1000000,
          "diskstats_first_device", "%s rc=%d reads %llu/%llu", name, rc, (unsigned long long)d.reads, v[0]);
    check(lb_diskstats_read("no-such-device-xyz", &d) == -1 && lb_diskstats_read("", &d) == -1 &&
              lb_diskstats_read(NULL, &d) == -1, "diskstats_unknown_device", "found a device that is not there");
    /* A series watching no readable device refuses it and carries none. */
    lb_io_shared *sh = lb_io_shared_open("test-dev-watch", 10);
    check(sh && lb_io_shared_watch_device(sh, "no-such-device-xyz") == -1 && !lb_io_shared_device_watched(sh) &&
              (!ok || (lb_io_shared_watch_device(sh, name) == 0 && lb_io_shared_device_watched(sh))),
          "series_watch_device", "watch of '%s'", name);
    lb_io_shared_close(sh);
}

static void test_steady(void)
{
    lb_io_steady s;
    memset(&s, 0, sizeof(s));
    double flat[] = { 50, 80, 100, 101, 99, 100.5, 99.5 };     /* settles after a ramp */
    int v = lb_io_steady_state(flat, 7, 5, 20, 10, &s);
    check(v == 1 && s.range_pct < 3, "steady_flat", "range %.2f excursion %.2f",
          s.range_pct, s.excursion_pct);
    double trend[] = { 100, 104, 108, 112, 116 };   /* range 15 % ok, excursion 14.8 % too much */
    v = lb_io_steady_state(trend, 5, 5, 20, 10, &s);
    check(v == 0 && s.range_pct <= 20 && s.excursion_pct > 10,
          "steady_trending", "range %.2f excursion %.2f", s.range_pct, s.excursion_pct);
    double noisy[] = { 100, 125, 95, 124, 98 };     /* no trend, range 27 % */
    v = lb_io_steady_state(noisy, 5, 5, 20, 10, &s);
    check(v == 0 && s.range_pct > 20 && s.excursion_pct < 10,
          "steady_noisy", "range %.2f excursion %.2f", s.range_pct, s.excursion_pct);
    check(lb_io_steady_state(flat, 4, 5, 20, 10, &s) == 0, "steady_needs_window", "steady with 4 rounds");
    /* Exact arithmetic: y = 10 + 2x over 5 rounds: avg 14, slope 2, excursion 8/14. */
    double line[] = { 10, 12, 14, 16, 18 };
    lb_io_steady_state(line, 5, 5, 100, 100, &s);
    check(s.avg == 14 && s.slope > 1.999999 && s.slope < 2.000001 && s.excursion_pct > 57.14 && s.excursion_pct < 57.15 &&
          s.range_pct > 57.14 && s.range_pct < 57.15, "steady_arithmetic", "avg %g slope %g exc %g range %g", s.avg,
          s.slope, s.excursion_pct, s.range_pct);
}

static void test_space(void)
{
    lb_io_space sp;
    int rc = lb_io_space_of(dir, &sp);
    check(rc == 0 && sp.total > 0 && sp.avail <= sp.total && !sp.is_blockdev, "space_statvfs", "rc=%d", rc);
    check(lb_io_path_kind(dir) == LB_IO_PATH_DIR && lb_io_path_kind(path) == LB_IO_PATH_FILE &&
          lb_io_path_kind("/nonexistent/x") == LB_IO_PATH_NONE, "path_kinds", "wrong kinds");
    char sub[400];
    snprintf(sub, sizeof(sub), "%s/a/b/c", dir);
    check(lb_io_mkdir_p(sub) == 0 && lb_io_path_kind(sub) == LB_IO_PATH_DIR, "mkdir_p", "failed");
    rmdir(sub);
    snprintf(sub, sizeof(sub), "%s/a/b", dir);
    rmdir(sub);
    snprintf(sub, sizeof(sub), "%s/a", dir);
    rmdir(sub);
}

/* Pages of `fd` (npages long) in the page cache. */
static int resident_pages(int fd, int npages)
{
    void *p = mmap(NULL, (size_t)npages * 4096, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    unsigned char vec[64];
    int n = -1;
    if (npages <= 64 && mincore(p, (size_t)npages * 4096, vec) == 0) {
        n = 0;
        for (int i = 0; i < npages; i++)
            n += vec[i] & 1;
    }
    munmap(p, (size_t)npages * 4096);
    return n;
}

/* Invalidation empties the page cache of a file written through it (dirty
 * pages included).  tmpfs keeps its pages (they are the file): there the
 * test uses the working directory (the source tree) instead. */
static void test_invalidate(void)
{
    enum { NP = 64 };
    char f[320];
    struct statfs sf;
    const char *base = statfs(dir, &sf) == 0 && sf.f_type == 0x01021994 /* TMPFS_MAGIC */ ? "." : dir;
    snprintf(f, sizeof(f), "%s/lbench-test-invalidate.%d", base, (int)getpid());
    int fd = open(f, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    static char page[4096];
    memset(page, 'x', sizeof(page));
    int ok = fd >= 0;
    for (int i = 0; ok && i < NP; i++)
        ok = write(fd, page, sizeof(page)) == (ssize_t)sizeof(page);
    int before = ok ? resident_pages(fd, NP) : -1;
    int rc = ok ? lb_io_invalidate(f) : -1;
    int after = ok ? resident_pages(fd, NP) : -1;
    check(ok && before == NP && rc == 0 && after == 0, "invalidate_drops_pages",
          "in %s: %d of %d pages cached before, %d after (rc %d)", base, before, NP, after, rc);
    if (fd >= 0)
        close(fd);
    unlink(f);
    check(lb_io_invalidate("/nonexistent/lbench") == -ENOENT, "invalidate_missing", "expected -ENOENT");
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/lbench-test-io.XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/f0", dir);
    snprintf(map_path, sizeof(map_path), "%s/map", dir);
    char err[256];
    lb_io_genmap *g = lb_io_genmap_open(map_path, FSIZE / VBS, 1, err, sizeof(err));
    check(g != NULL, "genmap_create", "%s", err);
    lb_io_genmap_close(g);
    check(fill_set(1) == 0, "prepare_file", "fill failed");

    test_engines();
    test_seq_and_fsync();
    test_verify();
    test_points();
    test_points_percentiles();
    test_diskstats();
    test_steady();
    test_space();
    test_invalidate();

    unlink(path);
    unlink(map_path);
    rmdir(dir);
    return check_exit();
}
