/* Driver registry: one explicit array of ops tables, each checked before
 * use, and the once-per-process / per-thread client-library hooks. */
#include "driver.h"

#include <pthread.h>
#include <string.h>

static const lb_db_driver_ops *const registry[] = {
#ifndef LB_DB_NO_MYSQL
    &lb__db_mysql_ops,
#endif
    &lb__db_pgsql_ops,
    &lb__db_null_ops,
};
#define NREG (sizeof registry / sizeof registry[0])

/* A table is usable if every required op is present and the statement ops
 * are either all present or absent as a group (prepare_start NULL =
 * emulate). */
int lb__db_driver_valid(const lb_db_driver_ops *d)
{
    if (!d || !d->name || !d->connect_start || !d->cont || !d->fd || !d->timeout_ms ||
        !d->disconnect || !d->abort || !d->server_version || !d->query_start ||
        !d->next_result_start || !d->fetch || !d->free_result)
        return 0;
    if (d->prepare_start && (!d->stmt_bind || !d->stmt_execute_start || !d->stmt_fetch ||
                             !d->stmt_free_result || !d->stmt_close))
        return 0;
    int nload = !!d->load_start + !!d->load_data_start + !!d->load_end_start;
    return nload == 0 || nload == 3;
}

const lb_db_driver_ops *lb_db_driver_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->name && strcmp(registry[i]->name, name) == 0)
            return lb__db_driver_valid(registry[i]) ? registry[i] : NULL;
    return NULL;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_rc;

static void global_init_once(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (lb__db_driver_valid(registry[i]) && registry[i]->global_init &&
            registry[i]->global_init() != 0)
            global_rc = -1;
}

/* Once per process, and only when a connection is first made: a run that
 * never touches a database (fileio, a CPU-only script) does not pay for
 * the client library's start-up (Connector/C initialises OpenSSL and reads
 * its configuration: about a millisecond of CPU). */
int lb_db_global_init(void)
{
    pthread_once(&global_once, global_init_once);
    return global_rc;
}

void lb_db_global_done(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->global_done)
            registry[i]->global_done();
}

void lb_db_thread_done(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->thread_done)
            registry[i]->thread_done();
}
