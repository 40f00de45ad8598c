/* The lbench binary: a thin shell over the embeddable runtime. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbench.h"
#ifdef LB_MPI
#include "cluster/cluster.h"
#include "cluster/cluster_mpi.h"
#define PROG "lbench-mpi"
#else
#define PROG "lbench"
#endif

static lb_runtime *g_rt;
static volatile sig_atomic_t g_signal; /* the first signal received */

static void on_signal(int sig)
{
    /* First signal: stop gracefully (in-flight events finish, the final
     * report and result file are written).  A second one kills. */
    if (!g_signal)
        g_signal = sig;
    lb_runtime_request_stop(g_rt);
    signal(sig, SIG_DFL);
}

static void write_stdout(void *ud, const char *s, size_t len)
{
    (void)ud;
    fwrite(s, 1, len, stdout);
    /* Interval lines must appear as they happen, also through a pipe. */
    fflush(stdout);
}

#ifdef LB_MPI
/* Ranks other than 0 print nothing on stdout: rank 0 prints for the job. */
static void discard_stdout(void *ud, const char *s, size_t len)
{
    (void)ud, (void)s, (void)len;
}
#else
/* Started by an MPI launcher as one of several ranks?  (Open MPI, and the
 * PMI of MPICH and Slurm.)  Plain lbench would run that many independent
 * copies, each overwriting the others' result file. */
static int mpi_ranks(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1)
            return atoi(v);
    }
    return 1;
}
#endif

/* Started as `sysbench` (a symlink to lbench): lbench prints what sysbench
 * 1.0.20 prints, so that scripts and parsers written for it keep working. */
static int started_as(const char *argv0, const char *name)
{
    const char *base = argv0 ? strrchr(argv0, '/') : NULL;
    base = base ? base + 1 : argv0;
    return base && strcmp(base, name) == 0;
}

/* Given --pgbench-compat (lbench --pgbench-compat ARGS...)? */
static int pgbench_flag(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--pgbench-compat") == 0 || strcmp(argv[i], "--pgbench-compat=on") == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
#ifdef LB_MPI
    if (lb_cluster_mpi_init(&argc, &argv) != 0) {
        fprintf(stderr, PROG ": cannot initialise MPI\n");
        return 1;
    }
#else
    int ranks = mpi_ranks();
    if (ranks > 1) {
        fprintf(stderr, PROG ": started as one of %d MPI ranks: use lbench-mpi, which runs them as one job "
                        "(plain lbench would run %d independent copies)\n", ranks, ranks);
        return 1;
    }
#endif
    g_rt = lb_runtime_new();
    if (!g_rt) {
        fprintf(stderr, PROG ": cannot initialise the runtime (out of memory?)\n");
        return 1;
    }
#ifdef LB_MPI
    lb_runtime_set_output(g_rt, lb_cluster_rank() == 0 ? write_stdout : discard_stdout, NULL);
#else
    lb_runtime_set_output(g_rt, write_stdout, NULL);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A server that dies mid-write must surface as a connection error, not
     * kill the process. */
    signal(SIGPIPE, SIG_IGN);
    int sysbench = started_as(argv[0], "sysbench");
    if (sysbench)
        lb_runtime_set_option(g_rt, "sysbench-compat", "on");
    /* Started as `pgbench`: pgbench 15's command line and output; its
     * errors as "pgbench: error: ..." on standard error. */
    int pgbench = started_as(argv[0], "pgbench") || pgbench_flag(argc, argv);
    if (pgbench)
        lb_runtime_set_option(g_rt, "pgbench-compat", "on");
    int status = lb_runtime_main(g_rt, argc - 1, argv + 1);
    const char *err = lb_runtime_error(g_rt);
    if (status != 0 && err[0]) {
        if (sysbench) {
            /* in sysbench's log, on standard output, in its words, no program
             * name; a command the test does not implement on standard error */
            fflush(stdout);
            fprintf(strstr(err, "' test does not implement the '") ? stderr : stdout, "%s\n", err);
        } else if (pgbench) {
            fprintf(stderr, "pgbench: error: %s\n", err);
        } else {
            fprintf(stderr, PROG ": %s\n", err);
        }
    }
    lb_runtime_free(g_rt);
#ifdef LB_MPI
    lb_cluster_mpi_finish(status);
#endif
    /* A command cut short by a signal exits as shells expect of one killed
     * by it (130 for SIGINT, 143 for SIGTERM), after its report. */
    if (status != 0 && g_signal)
        return 128 + g_signal;
    return status;
}
