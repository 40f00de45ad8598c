/* Accounting of the database layer: every successful query/execute and
 * every failure is counted here into the owner's lb_db_stats, whatever the
 * driver, so all drivers are measured alike.  The success path is inline:
 * it runs once per query. */
#ifndef LB_DB_ACCOUNT_H
#define LB_DB_ACCOUNT_H

#include "internal.h"

/* Single-writer update: the owner is the only thread storing to the block,
 * so load+store is not a lost-update race, and the relaxed store keeps the
 * reporter's concurrent relaxed loads free of data races (and of the cost
 * of a locked RMW on the hot path). */
static inline void lb__db_st_add(uint64_t *p, uint64_t n)
{
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Count one failure with `code` (in `errors` and its err[] slot). */
void lb__db_count_error(lb_db_stats *st, int code);

/* Account a successful query/execute of class `type` (if `count_query`)
 * and its rows, and publish its result set in `target`. */
static inline void lb__db_succeed(lb_db_conn *c, int type, const lb__db_rs *rs, lb_db_result *target,
                                  lb__db_fetch_fn fetch, lb__db_free_fn freef, int count_query)
{
    lb_db_stats *st = c->st;
    if (st) {
        if (count_query)
            lb__db_st_add(&st->queries[type], 1);
        if (rs->h && rs->nrows > 0)
            lb__db_st_add(&st->rows, (uint64_t)rs->nrows);
    }
    if (rs->h) {
        target->h = rs->h;
        target->fetch = fetch;
        target->free = freef;
        target->nrows = rs->nrows;
        target->nfields = rs->nfields;
        c->cur = target;
    }
}

/* A query (plain, or an emulated statement's text) completed. */
static inline void lb__db_query_done(lb_db_conn *c, int type, const lb__db_rs *rs, lb_db_result *target)
{
    c->last_ds = NULL;
    lb__db_succeed(c, type, rs, target, c->ops->fetch, c->ops->free_result, 1);
}

/* A server-side statement's execute completed. */
static inline void lb__db_exec_done(lb_db_stmt *s, const lb__db_rs *rs)
{
    lb_db_conn *c = s->c;
    c->last_ds = s->drv;
    lb__db_succeed(c, s->type, rs, &s->result, c->ops->stmt_fetch, c->ops->stmt_free_result, 1);
}

#endif
