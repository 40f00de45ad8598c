/* bare_pg_point_select: the "floor" for lbench's point-select benchmark on
 * PostgreSQL, the libpq twin of bare_point_select.c.
 *
 * The least client work that can run sysbench's point select on libpq:
 * "SELECT c FROM sbtest1 WHERE id=$1" prepared once per connection
 * (PQprepare), then PQexecPrepared with one text parameter, a check of the
 * result status, PQntuples, PQclear, in a tight loop on T threads (one
 * connection each) for N seconds.  No scripting, no accounting, no latency
 * histogram.  Whatever lbench (or sysbench) spends above this, per query,
 * is engine overhead.
 *
 * Prints queries, QPS and client CPU microseconds per query with the
 * user/sys split (getrusage of the whole process over the measured
 * interval, connection setup excluded) and the mean latency.
 *
 * Build: make build/bare_pg_point_select, or
 *        gcc -std=c11 -O2 -D_GNU_SOURCE $(pkg-config --cflags libpq) \
 *          contrib/bare_pg_point_select.c -o bare_pg_point_select $(pkg-config --libs libpq) -lpthread
 * Usage: bare_pg_point_select -h 127.0.0.1 -P 5432 -u sbtest -p sbtest -d sbtest
 *                             -t threads -T seconds -n table_size
 *        (-h may name the directory of the server's unix socket, as in libpq)
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1", *port = "5432", *user = "sbtest", *pass = "sbtest", *dbname = "sbtest";
static int nthreads = 1, seconds = 10;
static long table_size = 10000;

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

/* connect_prepare: one connection with the statement "ps" prepared, or NULL
 * (reported on stderr). */
static PGconn *connect_prepare(int idx)
{
    const char *keys[] = { "host", "port", "user", "password", "dbname", "application_name", NULL };
    const char *vals[] = { host, port, user, pass, dbname, "bare_pg_point_select", NULL };
    PGconn *c = PQconnectdbParams(keys, vals, 0);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "thread %d: connect: %s", idx, c ? PQerrorMessage(c) : "out of memory\n");
        PQfinish(c);
        return NULL;
    }
    PGresult *r = PQprepare(c, "ps", "SELECT c FROM sbtest1 WHERE id=$1", 1, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "thread %d: prepare: %s", idx, PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        return NULL;
    }
    PQclear(r);
    return c;
}

static void *run(void *p)
{
    worker *w = p;
    PGconn *c = connect_prepare(w->idx);
    if (!c)
        w->failed = 1;
    char buf[24];
    const char *params[1] = { buf };

    pthread_barrier_wait(&start_bar);
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->idx + 1);
    while (!w->failed && !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        snprintf(buf, sizeof buf, "%lld", (long long)(rng % (uint64_t)table_size) + 1);
        PGresult *r = PQexecPrepared(c, "ps", 1, params, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            fprintf(stderr, "thread %d: execute: %s", w->idx, PQerrorMessage(c));
            PQclear(r);
            w->failed = 1;
            break;
        }
        w->rows += (uint64_t)PQntuples(r);
        PQclear(r);
        w->queries++;
    }
    pthread_barrier_wait(&stop_bar);
    PQfinish(c);
    return NULL;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-h host|socket_dir] [-P port] [-u user] [-p password] [-d db] "
                    "[-t threads] [-T seconds] [-n table_size]\n", argv0);
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "h:P:u:p:d:t:T:n:")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'P': port = optarg; break;
        case 'u': user = optarg; break;
        case 'p': pass = optarg; break;
        case 'd': dbname = optarg; break;
        case 't': nthreads = atoi(optarg); break;
        case 'T': seconds = atoi(optarg); break;
        case 'n': table_size = atol(optarg); break;
        default: usage(argv[0]); return 2;
        }
    }
    if (optind != argc || nthreads < 1 || seconds < 1 || table_size < 1) {
        usage(argv[0]);
        return 2;
    }
    if (!PQisthreadsafe()) {
        fprintf(stderr, "libpq is not thread-safe\n");
        return 1;
    }
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
    pthread_barrier_wait(&start_bar);   /* all connected and prepared */
    double u0, s0, u1, s1;
    double t0 = now_s();
    cpu_s(&u0, &s0);
    struct timespec ts = { seconds, 0 };
    while (nanosleep(&ts, &ts) != 0)
        ;
    __atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
    pthread_barrier_wait(&stop_bar);    /* all loops ended, before teardown */
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
    double el = t1 - t0, usr = u1 - u0, sys = s1 - s0, cpu = usr + sys;
    double perq = queries ? 1e6 / (double)queries : 0.0;
    printf("threads: %d\nseconds: %.3f\nqueries: %llu\nrows: %llu\nqps: %.1f\n"
           "client cpu: %.3f s (user %.3f, sys %.3f)\n"
           "client cpu us/query: %.3f (user %.3f, sys %.3f)\nmean latency ms: %.4f\n",
           nthreads, el, (unsigned long long)queries, (unsigned long long)rows,
           queries / el, cpu, usr, sys, cpu * perq, usr * perq, sys * perq,
           queries ? el * nthreads * 1e3 / (double)queries : 0.0);
    free(w);
    return failed ? 1 : 0;
}
