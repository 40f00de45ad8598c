/* Driver registry: one explicit array of ops tables, each checked before
 * use, and the once-per-process / per-thread client-library hooks. */
#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>
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

/* Each driver's client library starts once per process, when the first
 * connection through that driver is made: a run that never touches a
 * database (fileio, a CPU-only script) does not pay for any, and a
 * PostgreSQL run not for MariaDB Connector/C's (it initialises OpenSSL
 * and looks its plugins up: about a millisecond of CPU). */
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int init_state[NREG];   /* 0: not yet; 1: done; -1: failed */

int lb__db_driver_init(const lb_db_driver_ops *d)
{
    for (size_t i = 0; i < NREG; i++) {
        if (registry[i] != d)
            continue;
        int state = atomic_load(&init_state[i]);
        if (state == 0) {
            pthread_mutex_lock(&init_mu);
            state = atomic_load(&init_state[i]);
            if (state == 0) {
                state = !d->global_init || d->global_init() == 0 ? 1 : -1;
                atomic_store(&init_state[i], state);
            }
            pthread_mutex_unlock(&init_mu);
        }
        return state > 0 ? 0 : -1;
    }
    return 0;   /* not a registered driver: nothing of its own to start */
}

int lb_db_global_init(void)
{
    int rc = 0;
    for (size_t i = 0; i < NREG; i++)
        if (lb__db_driver_valid(registry[i]) && lb__db_driver_init(registry[i]) != 0)
            rc = -1;
    return rc;
}

void lb_db_global_done(void)
{
    pthread_mutex_lock(&init_mu);
    for (size_t i = 0; i < NREG; i++) {
        if (atomic_load(&init_state[i]) > 0 && registry[i]->global_done)
            registry[i]->global_done();
        atomic_store(&init_state[i], 0);
    }
    pthread_mutex_unlock(&init_mu);
}

void lb_db_thread_done(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->thread_done)
            registry[i]->thread_done();
}
