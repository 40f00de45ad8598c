/* The MySQL/MariaDB driver's private header, shared by its files:
 *  - mysql.c: the ops table, library set-up, the connection handle, results;
 *  - mysql_stmt.c: prepared statements, binds, statement results;
 *  - mysql_op.c: the operations, one state machine on Connector/C's
 *    non-blocking *_start / *_cont calls;
 *  - mysql_load.c: bulk loads, LOAD DATA LOCAL INFILE fed from memory.
 * Only protocol work lives in the driver; classification, accounting,
 * logging, waiting and statement bookkeeping are the core's (db.h). */
#ifndef LB_DB_MYSQL_DRIVER_H
#define LB_DB_MYSQL_DRIVER_H
#include "../db.h"

/* ---- the connection (mysql.c) ------------------------------------------- */
#include <mysql.h>

/* MYSQL_BIND.length is unsigned long *; lb_db_bind.len is uint64_t. */
_Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "LP64 required for in-place length binding");
_Static_assert(sizeof(my_bool) == sizeof(char), "my_bool must alias lb_db_bind.is_null");

/* Multi statements as in sysbench: scenarios may send "a; b". */
#define LB__DB_MY_CONNECT_FLAGS (CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS)

typedef struct my_stmt my_stmt;

typedef struct my_conn {
    MYSQL m;
    int fd;             /* cached socket for abort(): never touch MYSQL from another thread */
    /* the non-blocking operation in progress (mysql_op.c) */
    int op;             /* OP_* */
    int step;           /* ST_*: the step to run, or the call waited for */
    int pending;        /* the call of `step` returned a wait status: continue it */
    int ssl_required;
    int blocking;       /* opened for a thread: every operation with the blocking calls */
    const char *sql;
    unsigned long len;
    my_stmt *ast;       /* prepare / execute */
    int iret;
    my_bool bret;
    MYSQL *cret;
    MYSQL_RES *res;
    /* bulk load (mysql_load.c) */
    int loading;            /* between load_start and load_end */
    char *lsql;             /* the load's LOAD DATA statement (NUL-terminated copy) */
    size_t lsql_len, lsql_cap;
    char *lbuf;             /* rows buffered by load_data, not yet sent */
    size_t llen, lcap, lpos;
    lb_rowsrc bufsrc;       /* lbuf read as a row source */
    const lb_rowsrc *lsrc;  /* what the LOAD DATA running reads (NULL: refuse) */
    int lend;               /* that statement ends the load */
    uint64_t ltotal;        /* rows this load's statements loaded */
    int64_t load_affected;  /* rows of the load that just ended, else -1 */
} my_conn;

enum { OP_NONE, OP_CONNECT, OP_QUERY, OP_NEXT, OP_PREPARE, OP_EXECUTE, OP_LOAD };

/* Run the load's LOAD DATA statement now, its rows read from mc->lsrc
 * (mysql_op.c); like the other starts. */
int lb__db_my_load_run(my_conn *mc, lb__db_async *out, lb_db_error *err);
/* The statement finished (rc 0: it loaded `rows`): the load's bookkeeping. */
int lb__db_my_load_ran(my_conn *mc, int rc, uint64_t rows);
/* The local-infile callbacks, installed on every connection so that a
 * server can never make the client read a file (mysql_load.c). */
void lb__db_my_infile_install(my_conn *mc);
/* Bulk load ops (mysql_load.c). */
int lb__db_my_load_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_load_data_start(void *dc, const char *buf, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_load_end_start(void *dc, lb__db_async *out, lb_db_error *err);
int lb__db_my_load_rows_start(void *dc, const char *sql, size_t len, const lb_rowsrc *src, lb__db_async *out,
                              lb_db_error *err);
void lb__db_my_load_free(my_conn *mc);

/* mysql_thread_init on a thread's first use of the library. */
void lb__db_my_thread_init(void);

/* The connection's last error into `err`. */
void lb__db_my_conn_error(lb_db_error *err, MYSQL *m);

/* Allocate and set up a MYSQL handle with the options (no I/O). */
my_conn *lb__db_my_conn_init(const lb_db_conn_opts *o, lb_db_error *err);

/* After the handshake: check the TLS the options require, cache the
 * socket.  0 or -1 (err filled). */
int lb__db_my_connected(my_conn *mc, lb_db_error *err);


/* A stored result set (or none) as the driver interface reports it. */
void lb__db_my_result_out(MYSQL_RES *r, lb__db_rs *out);

/* The ops of lb__db_mysql_ops that live in mysql.c. */
int  lb__db_my_global_init(void);
void lb__db_my_global_done(void);
void lb__db_my_thread_done(void);
void lb__db_my_disconnect(void *dc);
void lb__db_my_abort(void *dc);
const char *lb__db_my_server_version(void *dc);
int  lb__db_my_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err);
const char *lb__db_my_field_name(void *h, int i);
void lb__db_my_free_result(void *h);
uint64_t lb__db_my_affected_rows(void *dc, void *ds);
uint64_t lb__db_my_insert_id(void *dc, void *ds);
long lb__db_my_escape(void *dc, char *to, const char *from, size_t len);

/* ---- statements (mysql_stmt.c) ----------------------------------------- */
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
const char *lb__db_my_stmt_field_name(void *h, int i);
void lb__db_my_stmt_free_result(void *h);
void lb__db_my_stmt_close(void *ds);

/* ---- operations (mysql_op.c) ------------------------------------------- */
int lb__db_my_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err);
int lb__db_my_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_next_result_start(void *dc, lb__db_async *out, lb_db_error *err);
int lb__db_my_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err);
int lb__db_my_stmt_execute_blocking(void *ds, lb__db_async *out, lb_db_error *err);
int lb__db_my_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err);
int lb__db_my_fd(void *dc);
int lb__db_my_timeout_ms(void *dc);

#endif
