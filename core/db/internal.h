/* Object layouts shared by the files of the driver-independent database
 * layer (conn.c, query.c, stmt.c, emulate.c, op.c, ...), and the few
 * helpers every one of them uses on the hot path, kept inline so the split
 * into files costs no call.  Not part of the API: db.h is the contract.
 *
 * Invariants kept by all files:
 *  - a connection has at most one live result (c->cur: its own query
 *    result or one of its statements'); every new query/execute releases
 *    it first;
 *  - a statement's driver handle (s->drv) is non-NULL only while the
 *    connection is live: dropping the server side closes them all;
 *  - c->drv is written by the owner under c->lock only (lb_db_conn_abort
 *    reads it from another thread).
 */
#ifndef LB_DB_INTERNAL_H
#define LB_DB_INTERNAL_H

#include "db.h"

#include <pthread.h>

typedef int (*lb__db_fetch_fn)(void *h, const char *const **v, const unsigned long **l, lb_db_error *err);
typedef void (*lb__db_free_fn)(void *h);

struct lb_db_result {
    lb_db_conn *c;
    void *h;                    /* driver handle, NULL = nothing to fetch */
    lb__db_fetch_fn fetch;
    lb__db_free_fn free;
    int64_t nrows;
    int nfields;
};

struct lb_db_stmt {
    lb_db_conn *c;
    lb_db_stmt *prev, *next;    /* connection's list, for re-prepare on reconnect */
    void *drv;                  /* driver statement; NULL if emulated or not (re)prepared */
    char *sql;                  /* own copy, NUL-terminated */
    size_t len;
    int type;                   /* LB_DB_Q_*, classified once */
    int emulated;               /* client-side parameter substitution */
    int nparams;
    int nbound;                 /* 0 until bind_param */
    lb_db_bind *params;         /* caller's array */
    size_t *ph;                 /* emulated: offsets of the '?' in sql */
    char *ebuf;                 /* emulated: SQL text of the last execute */
    size_t ecap;
    lb_db_result result;
};

struct lb_db_conn {
    const lb_db_driver_ops *ops;
    void *drv;                  /* written by the owner under `lock` only */
    lb_db_stats *st;
    lb_db_conn_opts opts;       /* strings point into `strs` */
    char *strs;
    lb_db_result result;        /* query results */
    lb_db_result *cur;          /* the live result, or NULL */
    void *last_ds;              /* driver stmt of the last execute, for affected rows */
    lb_db_stmt *stmts;
    pthread_mutex_t lock;
    int aborted;                /* under `lock` */
    char waiting[160];          /* under `lock`: what an aborted wait was for, in words (op.c) */
    /* bulk insert */
    char *bulk;
    size_t blen, bcap, bprefix;
    uint64_t brows;
    size_t bmax;
    int btype;
    int bactive;
    /* debug log */
    char *dbg;
    size_t dbgcap;
    lb_db_error err;
    /* the operation in progress (LB__DB_AOP_NONE: none; op.c) */
    int aop;
    int atype;                  /* query: LB_DB_Q_* */
    lb_db_result *atarget;      /* query: where the result goes */
    const char *asql;           /* query: the caller's SQL, for errors */
    size_t alen;
    lb_db_stmt *astmt;          /* prepare / execute */
    lb_db_stmt *aprepared;      /* last completed prepare */
    int afound;                 /* last next_result found a result */
    void *adrv;                 /* connect: the driver connection being set up */
    int64_t lost_ns;            /* when the connection was lost (0: it is not in an outage) */
};

/* Operations (c->aop). */
enum { LB__DB_AOP_NONE, LB__DB_AOP_CONNECT, LB__DB_AOP_RECONNECT, LB__DB_AOP_QUERY, LB__DB_AOP_NEXT,
       LB__DB_AOP_PREPARE, LB__DB_AOP_REPREPARE, LB__DB_AOP_EXECUTE,
       LB__DB_AOP_LOAD_START, LB__DB_AOP_LOAD_DATA, LB__DB_AOP_LOAD_END, LB__DB_AOP_LOAD_ROWS,
       LB__DB_AOP_PIPELINE };

/* Parameter types (lb_db_bind.type): valid, and carried as text. */
static inline int lb__db_bind_type_valid(int32_t t)
{
    return t >= LB_DB_T_TINYINT && t <= LB_DB_T_VARCHAR;
}

/* Temporal types travel as text too. */
static inline int lb__db_bind_is_text(int32_t t)
{
    return t >= LB_DB_T_TIME;
}

/* Forget the previous error before a driver call that may fill it. */
static inline void lb__db_clear_error(lb_db_conn *c)
{
    c->err.code = 0;
    c->err.message[0] = '\0';
}

/* Release the live result (query or statement); c->cur must be non-NULL. */
static inline void lb__db_release(lb_db_conn *c)
{
    lb_db_result *r = c->cur;
    c->cur = NULL;
    if (r->h) {
        r->free(r->h);
        r->h = NULL;
    }
}

#endif
