/* The lbench binary: a thin shell over the embeddable runtime. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lbench.h"

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

int main(int argc, char **argv)
{
    g_rt = lb_runtime_new();
    if (!g_rt) {
        fprintf(stderr, "lbench: cannot initialise the runtime (out of memory?)\n");
        return 1;
    }
    lb_runtime_set_output(g_rt, write_stdout, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A server that dies mid-write must surface as a connection error, not
     * kill the process. */
    signal(SIGPIPE, SIG_IGN);
    int status = lb_runtime_main(g_rt, argc - 1, argv + 1);
    const char *err = lb_runtime_error(g_rt);
    if (status != 0 && err[0])
        fprintf(stderr, "lbench: %s\n", err);
    lb_runtime_free(g_rt);
    /* A command cut short by a signal exits as shells expect of one killed
     * by it (130 for SIGINT, 143 for SIGTERM), after its report. */
    if (status != 0 && g_signal)
        return 128 + g_signal;
    return status;
}
