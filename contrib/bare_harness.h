/* bare_harness: what the bare point-select loops (bare_point_select.c on
 * Connector/C, bare_pg_point_select.c on libpq) share: the options, one
 * connection per thread, the measured interval between two barriers, the
 * CPU accounting and the report that contrib/bench.sh parses.  Each loop
 * brings only its client library's connect, prepare and execute, so the
 * two floors measure the same thing the same way.
 */
#ifndef BARE_HARNESS_H
#define BARE_HARNESS_H

#include <stdint.h>

/* The options (-h -P -S -u -p -d -t -T -n); port is kept as given. */
typedef struct bare_opts {
    const char *host, *port, *sock, *user, *pass, *dbname;
    int nthreads, seconds;
    long table_size;
} bare_opts;

typedef struct bare_client {
    const char *optstring;     /* getopt's: which of the options it takes */
    const char *usage_target;  /* usage text for the server's address */
    const char *default_port;
    int reject_operands;       /* refuse arguments after the options */
    /* Once before the threads start; non-zero (after saying why) ends the run. */
    int (*library_init)(void);
    void (*library_end)(void);    /* may be NULL */
    void (*thread_begin)(void);   /* in each thread; may be NULL */
    void (*thread_end)(void);     /* may be NULL */
    /* A connection with the statement prepared, or NULL (said on stderr). */
    void *(*open)(int idx, const bare_opts *o);
    /* One point select of row id; adds the rows fetched; non-zero on error
     * (said on stderr). */
    int (*query)(void *conn, int idx, long long id, uint64_t *rows);
    void (*close)(void *conn);    /* conn may be NULL */
} bare_client;

/* Parse the options, run the loop on every thread, print the report.
 * Returns the process's exit status: 0, 1 if a thread failed, 2 on usage. */
int bare_main(int argc, char **argv, const bare_client *client);

#endif
