/* bare_point_select: the "floor" for lbench's point-select benchmark.
 *
 * The least client work that can run sysbench's point select: libmariadb
 * prepared statement "SELECT c FROM sbtest1 WHERE id=?", execute, store,
 * fetch, free, in a tight loop on T threads for N seconds.  No scripting,
 * no accounting, no latency histogram.  Whatever lbench (or sysbench)
 * spends above this, per query, is engine overhead.
 *
 * Prints queries, QPS and client CPU microseconds per query (getrusage of
 * the whole process over the measured interval, connection setup excluded).
 *
 * Build: gcc -std=c11 -O2 -D_GNU_SOURCE $(mariadb_config --cflags) \
 *          contrib/bare_point_select.c -o bare_point_select $(mariadb_config --libs) -lpthread
 * Usage: bare_point_select -h 127.0.0.1 -P 3306 -u sbtest -p sbtest -d sbtest
 *                          -t threads -T seconds -n table_size [-S socket]
 */
#include <mysql.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1", *user = "sbtest", *pass = "sbtest", *dbname = "sbtest", *sock;
static unsigned int port = 3306;
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

static void *run(void *p)
{
    worker *w = p;
    MYSQL *m = NULL;
    MYSQL_STMT *st = NULL;
    mysql_thread_init();
    m = mysql_init(NULL);
    if (!m || !mysql_real_connect(m, host, user, pass, dbname, port, sock, 0)) {
        fprintf(stderr, "thread %d: connect: %s\n", w->idx, m ? mysql_error(m) : "mysql_init failed");
        w->failed = 1;
        goto wait_start;
    }
    static const char sql[] = "SELECT c FROM sbtest1 WHERE id=?";
    st = mysql_stmt_init(m);
    if (!st || mysql_stmt_prepare(st, sql, sizeof sql - 1)) {
        fprintf(stderr, "thread %d: prepare: %s\n", w->idx, st ? mysql_stmt_error(st) : mysql_error(m));
        w->failed = 1;
        goto wait_start;
    }
    long long id = 0;
    MYSQL_BIND pb;
    memset(&pb, 0, sizeof pb);
    pb.buffer_type = MYSQL_TYPE_LONGLONG;
    pb.buffer = &id;
    char cbuf[256];
    unsigned long clen = 0;
    my_bool cnull = 0, cerr = 0;
    MYSQL_BIND rb;
    memset(&rb, 0, sizeof rb);
    rb.buffer_type = MYSQL_TYPE_STRING;
    rb.buffer = cbuf;
    rb.buffer_length = sizeof cbuf;
    rb.length = &clen;
    rb.is_null = &cnull;
    rb.error = &cerr;
    if (mysql_stmt_bind_param(st, &pb) || mysql_stmt_bind_result(st, &rb)) {
        fprintf(stderr, "thread %d: bind: %s\n", w->idx, mysql_stmt_error(st));
        w->failed = 1;
    }

wait_start:
    pthread_barrier_wait(&start_bar);
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->idx + 1);
    while (!w->failed && !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        id = (long long)(rng % (uint64_t)table_size) + 1;
        if (mysql_stmt_execute(st) || mysql_stmt_store_result(st)) {
            fprintf(stderr, "thread %d: execute: %s\n", w->idx, mysql_stmt_error(st));
            w->failed = 1;
            break;
        }
        while (mysql_stmt_fetch(st) == 0)
            w->rows++;
        mysql_stmt_free_result(st);
        w->queries++;
    }
    pthread_barrier_wait(&stop_bar);
    if (st)
        mysql_stmt_close(st);
    if (m)
        mysql_close(m);
    mysql_thread_end();
    return NULL;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-h host] [-P port] [-S socket] [-u user] [-p password] [-d db] "
                    "[-t threads] [-T seconds] [-n table_size]\n", argv0);
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = getopt(argc, argv, "h:P:S:u:p:d:t:T:n:")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'P': port = (unsigned int)atoi(optarg); break;
        case 'S': sock = optarg; break;
        case 'u': user = optarg; break;
        case 'p': pass = optarg; break;
        case 'd': dbname = optarg; break;
        case 't': nthreads = atoi(optarg); break;
        case 'T': seconds = atoi(optarg); break;
        case 'n': table_size = atol(optarg); break;
        default: usage(argv[0]); return 2;
        }
    }
    if (nthreads < 1 || seconds < 1 || table_size < 1) {
        usage(argv[0]);
        return 2;
    }
    if (mysql_library_init(0, NULL, NULL)) {
        fprintf(stderr, "mysql_library_init failed\n");
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
    mysql_library_end();
    return failed ? 1 : 0;
}
