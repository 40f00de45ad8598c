/* The MySQL driver's statement (my_stmt) and its ops, shared by the
 * driver's files (mysql.c lists the ops; mysql_async.c runs the same
 * steps without blocking). */
#ifndef LB_DB_MYSQL_STMT_H
#define LB_DB_MYSQL_STMT_H

#include "mysql_conn.h"

struct my_stmt {
    my_conn *mc;        /* only dereferenced while the connection is live */
    MYSQL_STMT *st;
    /* parameters */
    int np;
    MYSQL_BIND *pb;
    lb_db_bind *params;
    int32_t *ptype;     /* type/buf as bound, to detect caller changes */
    char **pbuf;
    /* result columns, as text */
    int nf;
    MYSQL_BIND *rb;
    char **rbuf;
    unsigned long *rcap;
    unsigned long *rlen;
    my_bool *rnull;
    my_bool *rerr;
    const char **rval;
};

/* The statement's last error into `err`; for a failed prepare, with the
 * server's "cannot prepare this kind" mapped to LB_DB_E_UNSUPPORTED. */
void lb__db_my_stmt_error(lb_db_error *err, MYSQL_STMT *st);
void lb__db_my_prepare_error(lb_db_error *err, MYSQL_STMT *st);

/* A statement handle on `mc`, not prepared.  NULL with err filled. */
my_stmt *lb__db_my_stmt_new(my_conn *mc, lb_db_error *err);

/* After a successful mysql_stmt_prepare: parameter count, result binds,
 * the statement into *out.  0 or -1. */
int lb__db_my_stmt_prepared_ok(my_stmt *ms, lb__db_async *out, lb_db_error *err);

/* Before an execute: bind again if the caller swapped a buffer or type. */
int lb__db_my_rebind_if_changed(my_stmt *ms, lb_db_error *err);

/* After a successful mysql_stmt_execute: 0 when it has no result set
 * (*out empty), 1 when its result set is to be stored (result binds set
 * up for its shape), -1 on error. */
int lb__db_my_exec_shape(my_stmt *ms, lb__db_rs *out, lb_db_error *err);

/* After mysql_stmt_store_result returned ms->mc->iret: *out, or -1. */
int lb__db_my_stmt_executed(my_stmt *ms, lb__db_rs *out, lb_db_error *err);

/* The ops of lb__db_mysql_ops that live in mysql_stmt.c. */
int  lb__db_my_stmt_bind(void *ds, lb_db_bind *params, int n, lb_db_error *err);
int  lb__db_my_stmt_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err);
void lb__db_my_stmt_free_result(void *h);
void lb__db_my_stmt_close(void *ds);

#endif
