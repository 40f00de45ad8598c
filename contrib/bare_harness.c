/* bare_harness: options, threads, timing and the report of the bare
 * point-select loops (see bare_harness.h). */
#include "bare_harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const bare_client *client;
static bare_opts opts = { "127.0.0.1", NULL, NULL, "sbtest", "sbtest", "sbtest", 1, 10, 10000 };

static pthread_barrier_t start_bar, stop_bar;
static int stop_flag;

typedef struct worker {
    int idx;
    uint64_t queries;
    uint64_t rows;
    int failed;
    pthread_t tid;
} worker;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Process CPU time (all threads), split into user and system seconds. */
static void cpu_s(double *usr, double *sys)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *usr = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    *sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* A thread that failed to connect still meets the others at both barriers,
 * so the run's start and end stay the same for all. */
static void *run(void *p)
{
    worker *w = p;
    if (client->thread_begin)
        client->thread_begin();
    void *conn = client->open(w->idx, &opts);
    if (!conn)
        w->failed = 1;

    pthread_barrier_wait(&start_bar);
    /* xorshift64, seeded per thread: the same ids on every run, no lock. */
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->idx + 1);
    while (!w->failed && !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        long long id = (long long)(rng % (uint64_t)opts.table_size) + 1;
        if (client->query(conn, w->idx, id, &w->rows) != 0) {
            w->failed = 1;
            break;
        }
        w->queries++;
    }
    pthread_barrier_wait(&stop_bar);
    client->close(conn);
    if (client->thread_end)
        client->thread_end();
    return NULL;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s %s [-u user] [-p password] [-d db] "
                    "[-t threads] [-T seconds] [-n table_size]\n", argv0, client->usage_target);
}

/* parse_opts: 0, or 2 after the usage line. */
static int parse_opts(int argc, char **argv)
{
    int opt;
    opts.port = client->default_port;
    while ((opt = getopt(argc, argv, client->optstring)) != -1) {
        switch (opt) {
        case 'h': opts.host = optarg; break;
        case 'P': opts.port = optarg; break;
        case 'S': opts.sock = optarg; break;
        case 'u': opts.user = optarg; break;
        case 'p': opts.pass = optarg; break;
        case 'd': opts.dbname = optarg; break;
        case 't': opts.nthreads = atoi(optarg); break;
        case 'T': opts.seconds = atoi(optarg); break;
        case 'n': opts.table_size = atol(optarg); break;
        default: usage(argv[0]); return 2;
        }
    }
    if ((client->reject_operands && optind != argc) || opts.nthreads < 1 || opts.seconds < 1
        || opts.table_size < 1) {
        usage(argv[0]);
        return 2;
    }
    return 0;
}

static void report(double el, double usr, double sys, uint64_t queries, uint64_t rows)
{
    double cpu = usr + sys;
    double perq = queries ? 1e6 / (double)queries : 0.0;
    printf("threads: %d\nseconds: %.3f\nqueries: %llu\nrows: %llu\nqps: %.1f\n"
           "client cpu: %.3f s (user %.3f, sys %.3f)\n"
           "client cpu us/query: %.3f (user %.3f, sys %.3f)\nmean latency ms: %.4f\n",
           opts.nthreads, el, (unsigned long long)queries, (unsigned long long)rows,
           queries / el, cpu, usr, sys, cpu * perq, usr * perq, sys * perq,
           queries ? el * opts.nthreads * 1e3 / (double)queries : 0.0);
}

int bare_main(int argc, char **argv, const bare_client *c)
{
    client = c;
    int rc = parse_opts(argc, argv);
    if (rc != 0)
        return rc;
    if (client->library_init() != 0)
        return 1;
    int nthreads = opts.nthreads;
    worker *w = calloc((size_t)nthreads, sizeof *w);
    if (!w)
        return 1;
    pthread_barrier_init(&start_bar, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&stop_bar, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++) {
        w[i].idx = i;
        if (pthread_create(&w[i].tid, NULL, run, &w[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    /* Measured from all connected and prepared to all loops ended, before
     * any teardown: connection setup and close are not the floor's. */
    pthread_barrier_wait(&start_bar);
    double u0, s0, u1, s1;
    double t0 = now_s();
    cpu_s(&u0, &s0);
    struct timespec ts = { opts.seconds, 0 };
    while (nanosleep(&ts, &ts) != 0)
        ;
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
    pthread_barrier_wait(&stop_bar);
    double t1 = now_s();
    cpu_s(&u1, &s1);
    uint64_t queries = 0, rows = 0;
    int failed = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(w[i].tid, NULL);
        queries += w[i].queries;
        rows += w[i].rows;
        failed |= w[i].failed;
    }
    report(t1 - t0, u1 - u0, s1 - s0, queries, rows);
    free(w);
    if (client->library_end)
        client->library_end();
    return failed ? 1 : 0;
}
