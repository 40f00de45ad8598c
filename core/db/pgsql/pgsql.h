/* The PostgreSQL driver's objects (pg_conn, pg_stmt, pg_result), shared by
 * its two files: pgsql.c (the ops table, connection set-up, results,
 * errors, statement binds) and pgsql_op.c (the operations on libpq's
 * asynchronous calls). */
#ifndef LB_DB_PGSQL_H
#define LB_DB_PGSQL_H

#include "../db.h"

#include <libpq-fe.h>

typedef struct pg_stmt pg_stmt;

/* A result set handed to the core: libpq's PGresult and the row arrays
 * fetch fills (values point into the PGresult: no copy). */
typedef struct pg_result {
    PGresult *r;
    int row, nrows, nf;
    int cap;
    const char **vals;
    unsigned long *lens;
} pg_result;

typedef struct pg_conn {
    PGconn *pg;
    int fd;                 /* cached at connect for abort(): never touch PGconn from another thread */
    int op;                 /* PG_OP_* in progress */
    int flushing;           /* the request is not all sent yet */
    int64_t deadline_ns;    /* connect: when connect_timeout runs out (0: none) */
    pg_stmt *ast;           /* prepare / execute in progress */
    int describing;         /* prepare: the Describe after the Parse is in progress */
    PGresult *first;        /* the operation's first result, while collecting */
    PGresult **more;        /* later results of a multi-statement query, for next_result */
    int nmore, capmore, nextmore;
    pg_result res;          /* query results */
    char *sql;              /* NUL-terminated copy of the SQL text sent */
    size_t sqlcap;
    uint64_t affected;      /* rows of the last plain query (PQcmdTuples) */
    unsigned long nstmts;   /* statement names: lb1, lb2, ... */
    int unnamed;            /* ps_mode extended: statements are the unnamed one, sent with their text */
    pg_stmt *stmts;         /* live statements, detached at disconnect */
    int copying;            /* a COPY FROM STDIN waits for data */
    const char *lbuf;       /* load: the chunk not yet queued in libpq */
    size_t llen;
    int end_pending;        /* load: the end message not yet queued */
    const lb_rowsrc *lsrc;  /* load of generated rows: where they come from */
    char *rowbuf;           /* ... and the chunk they are generated into */
    int pipeline;           /* in libpq's pipeline mode */
    int syncs;              /* pipeline: syncs sent whose PGRES_PIPELINE_SYNC is not read yet */
    PGresult *pfail;        /* pipeline: its first error, reported at its end */
} pg_conn;

struct pg_stmt {
    pg_conn *pc;            /* NULL once the connection is gone */
    pg_stmt *next;
    char name[24];          /* "" for the unnamed statement (ps_mode extended) */
    char *sql;              /* the unnamed statement's text ($n placeholders), sent at each execute */
    int np;
    lb_db_bind *params;
    const char **values;    /* per parameter: its text or binary value, or NULL for SQL NULL */
    char **text;
    size_t *textcap;
    Oid *ptypes;            /* the server's type of each parameter (the Describe) */
    int *lengths, *formats; /* per parameter: bytes and format (1: binary) */
    pg_result res;
    uint64_t affected;
};

enum { PG_OP_NONE, PG_OP_CONNECT, PG_OP_QUERY, PG_OP_PREPARE, PG_OP_EXECUTE,
       PG_OP_LOAD_START, PG_OP_LOAD_DATA, PG_OP_LOAD_END, PG_OP_LOAD_ROWS,
       PG_OP_PIPE_SEND,     /* pipeline: a sync being sent */
       PG_OP_PIPE_END };    /* pipeline: its results being read up to the last sync */

/* The error of result `r` (NULL: of the connection) into `err`, with its
 * SQLSTATE as the code (lb_db_sqlstate_code); a lost connection without a
 * SQLSTATE is 08006. */
void lb__db_pg_error(lb_db_error *err, PGconn *pg, const PGresult *r);
/* A finished operation's first result as the core's result set `out`
 * (into `pr`, whose arrays grow to its width), with the command's row
 * count in *affected.  0, or -1 when the result is an error. */
int lb__db_pg_result_out(PGconn *pg, PGresult *r, pg_result *pr, lb__db_rs *out, uint64_t *affected,
                         lb_db_error *err);
/* Drop every result the connection still holds (a multi-statement
 * query's unread ones, one being collected). */
void lb__db_pg_drop_results(pg_conn *pc);
/* A new connection object for `o` with libpq's connect started; NULL with
 * `err` filled. */
pg_conn *lb__db_pg_conn_start(const lb_db_conn_opts *o, lb_db_error *err);
/* Free a statement's memory (nothing on the server). */
void lb__db_pg_stmt_free(pg_stmt *ps);
/* The text of every parameter for an execute; 0 or -1 (out of memory). */
int lb__db_pg_fill_params(pg_stmt *ps, lb_db_error *err);

/* The operations (pgsql_op.c). */
int lb__db_pg_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err);
int lb__db_pg_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_pg_next_result_start(void *dc, lb__db_async *out, lb_db_error *err);
int lb__db_pg_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_pg_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err);
int lb__db_pg_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err);
int lb__db_pg_load_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_pg_load_data_start(void *dc, const char *buf, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_pg_load_end_start(void *dc, lb__db_async *out, lb_db_error *err);
int lb__db_pg_load_rows_start(void *dc, const char *sql, size_t len, const lb_rowsrc *src, lb__db_async *out,
                              lb_db_error *err);
int lb__db_pg_pipeline_start(void *dc, int what, lb__db_async *out, lb_db_error *err);
int lb__db_pg_fd(void *dc);
int lb__db_pg_timeout_ms(void *dc);

#endif
