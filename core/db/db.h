/* lbench database driver layer.
 *
 * Two halves live behind this header:
 *
 *  - the driver-independent layer (the core): driver registry (driver.c),
 *    connections (conn.c), queries, results and bulk inserts (query.c),
 *    prepared statements (stmt.c) and their client-side emulation
 *    (emulate.c), the one state machine of every operation (op.c), errors (error.c),
 *    all accounting into lb_db_stats (account.c), SQL classification
 *    (sql.c) and the debug log (debug.c); internal.h holds the objects;
 *    the blocking calls are that state machine waited for (blocking.c);
 *  - drivers, each one `const lb_db_driver_ops` table that only talks to
 *    its client library and never touches statistics: mysql/ (Connector/C),
 *    pgsql/ (libpq), null.c.
 *
 * The Lua layer reaches everything here through the LuaJIT FFI, so the types
 * it must read or write (stats, binds, options, errors) are plain structs of
 * fixed-width fields without bitfields, and the hot paths (query, execute,
 * fetch) take no locks, do not allocate per call and copy nothing that the
 * client library already holds.
 *
 * Threading: a connection, its statements and results belong to one thread
 * at a time (its owner).  The only call allowed from another thread is
 * lb_db_conn_abort().  The stats block handed to lb_db_connect() is written
 * only by the owner and may be read concurrently by a reporter thread with
 * relaxed atomic loads.
 *
 * Return convention: 0 (or a documented non-negative value) on success, a
 * negative number on failure.  Where an error code is known the return value
 * is its negation (-1045, -2013, ...), so the caller can branch on the code
 * without a second call; details are in the connection's lb_db_error.
 */
#ifndef LB_DB_H
#define LB_DB_H

#include <stddef.h>
#include <stdint.h>

#include "../handle.h"
#include "../rowgen.h"
#include "../stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

/* FFI BEGIN */
/* Query classes, from the first SQL keyword (see lb_db_classify). */
enum { LB_DB_Q_SELECT, LB_DB_Q_INSERT, LB_DB_Q_UPDATE, LB_DB_Q_DELETE, LB_DB_Q_OTHER, LB_DB_Q_NTYPES };

enum { LB_DB_ERRSLOTS = LB_STATS_EXT_CODES };

/* Per-worker counters of the SQL layer.  They live in the worker's
 * neutral counter block (lb_stats.ext, core/stats.h), which this union
 * names: the core adds `sums` and merges `codes` without knowing them.
 * Single writer (the thread owning the connections that point at it), so
 * every update is a relaxed atomic store of value+1, never a
 * read-modify-write; readers use relaxed atomic loads.
 * queries[] counts successful queries/executes only; failed ones count in
 * `errors` and in err[] (so attempts = sum(queries) + errors).
 * err[] slots are claimed in order: a slot with count 0 is unused; a slot's
 * code is written before its count becomes non-zero.  The last slot holds
 * code -1 and counts every code that did not get a slot of its own.
 * Connections lost: `lost` counts the losses (a query or execute failing
 * with a lost-connection code, or a reconnect failing on a connection that
 * was up); the outage of each lasts until a reconnect succeeds or the
 * owner ends it (lb_db_conn_outage_end, a disconnect), and `outage_ns`
 * adds the outages that ended.  Reconnect attempts = reconnects +
 * reconnect_failed.  `gave_up` counts outages ended without a reconnect. */
typedef union lb_db_stats {
    lb_stats_ext ext;
    struct {
        uint64_t queries[LB_DB_Q_NTYPES];
        uint64_t errors;           /* all failed queries */
        uint64_t reconnects;       /* successful reconnects */
        uint64_t rows;             /* rows returned to the client */
        uint64_t writes_other;     /* writes of no known class, counted by a script (sysbench's SB_CNT_WRITE) */
        uint64_t reconnect_failed; /* reconnect attempts that failed */
        uint64_t lost;             /* connections lost (outages begun) */
        uint64_t outage_ns;        /* time of the outages ended, summed over connections */
        uint64_t gave_up;          /* outages ended without a reconnect */
        uint64_t spare[LB_STATS_EXT_SUMS - LB_DB_Q_NTYPES - 8];
        lb_code_count err[LB_DB_ERRSLOTS];
    };
} lb_db_stats;

/* Zero a stats block and mark the overflow slot (code -1).  A block that is
 * merely zeroed also works: the overflow slot is marked on first use. */
void lb_db_stats_init(lb_db_stats *st);

/* Classify a SQL text by its first keyword, skipping whitespace, comments
 * (slash-star, "-- ", "#") and opening parentheses.  SELECT, TABLE, VALUES
 * and WITH ... SELECT are LB_DB_Q_SELECT; INSERT and REPLACE are
 * LB_DB_Q_INSERT; UPDATE, DELETE (also behind WITH) map to their class;
 * everything else (BEGIN, COMMIT, SET, DDL, ...) is LB_DB_Q_OTHER. */
int lb_db_classify(const char *sql, size_t len);

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/* Codes raised by this layer itself, outside the server (1000-4999) and
 * client library (2000-2999, 5000-5999) ranges so they never collide. */
enum {
    LB_DB_E_INVALID = 90001,   /* API misuse: bad argument, param count, unbound params, len > cap */
    LB_DB_E_NOMEM,             /* allocation failed */
    LB_DB_E_NOTCONN,           /* no live connection (after a failed reconnect) */
    LB_DB_E_UNSUPPORTED,       /* the driver lacks the operation */
    LB_DB_E_UNKNOWN            /* the driver failed without giving a code */
};

/* Last error of a connection (or of a failed connect).  `query` is the SQL
 * that failed, truncated to fit; empty for connect errors. */
typedef struct lb_db_error {
    int code;
    char sqlstate[6];
    char message[512];
    char query[256];
    /* The server's whole report as its client library words it
     * (PostgreSQL: "ERROR:  msg", then its DETAIL, HINT, CONTEXT and LINE
     * lines); "" where the library has none. */
    char report[768];
} lb_db_error;

/* True (1) when `code` means the connection is unusable and only a
 * reconnect can help (server gone/lost, connect failures, connection killed
 * or shut down, LB_DB_E_NOTCONN).  The Lua layer uses it to choose between
 * "retry on the same connection" and "reconnect". */
int lb_db_error_is_connection_lost(int code);

/* PostgreSQL reports SQLSTATEs, not numbers.  Its codes are
 * LB_DB_SQLSTATE_BASE plus the five characters read as a base-36 number,
 * so every driver's codes share one space (MySQL's are below 10000, this
 * layer's own 9xxxx).  lb_db_sqlstate_code: 0 unless `state` is five
 * digits or capital letters; lb_db_code_sqlstate writes the SQLSTATE of
 * such a code into out[6] and returns 1, else 0. */
enum { LB_DB_SQLSTATE_BASE = 100000000 };
int lb_db_sqlstate_code(const char *state);
int lb_db_code_sqlstate(int code, char *out);
/* FFI END */

/* The counters of an lb_db_stats block (`ext`) as Prometheus lines, for
 * the metrics endpoint (lb_metrics_host.ext_lines; prom.c). */
struct lb_loop_reply;
void lb_db_metrics_lines(void *owner, const void *ext, struct lb_loop_reply *rep);
/* FFI BEGIN */

/* ------------------------------------------------------------------------ */
/* Drivers                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct lb_db_driver_ops lb_db_driver_ops;
typedef struct lb_db_conn lb_db_conn;
typedef struct lb_db_stmt lb_db_stmt;
typedef struct lb_db_result lb_db_result;

/* Initialise every registered driver's client library, once per process
 * (mysql_library_init is not thread-safe; this is: concurrent callers wait
 * for the first).  A connection initialises its own driver's library
 * only, when it is the first through that driver; calling this earlier is
 * allowed.  Returns 0, or a negative value if some driver failed to
 * initialise. */
int lb_db_global_init(void);

/* Counterpart of lb_db_global_init(), after all threads have finished. */
void lb_db_global_done(void);

/* Release the calling thread's client-library state now (harmless if it
 * has none).  Threads need not call it: their state is released when they
 * exit; it is for a thread that goes on without the library. */
void lb_db_thread_done(void);

/* Look a driver up by name ("mysql", "null").  NULL when unknown or when the
 * table is incomplete (a required op is NULL). */
const lb_db_driver_ops *lb_db_driver_find(const char *name);

/* ------------------------------------------------------------------------ */
/* Connections                                                              */
/* ------------------------------------------------------------------------ */

enum { LB_DB_SSL_DISABLED, LB_DB_SSL_PREFERRED, LB_DB_SSL_REQUIRED,
       LB_DB_SSL_VERIFY_CA, LB_DB_SSL_VERIFY_IDENTITY };
/* ps_mode: server-side prepared statements; client-side substitution;
 * or PostgreSQL's unnamed statement, parsed again at every execution
 * (pgbench's extended query mode; a driver without it prepares). */
enum { LB_DB_PS_AUTO, LB_DB_PS_DISABLE, LB_DB_PS_EXTENDED };

/* Debug sink (sysbench --db-debug): receives every query text and error as
 * a NUL-terminated message.  Called on the connection owner's thread. */
typedef void (*lb_db_debug_fn)(void *ud, const char *msg);

/* Connection options, filled by the Lua layer (sysbench option names).
 * Strings may be NULL (= driver default) and are copied by lb_db_connect,
 * so they need not outlive the call. */
typedef struct lb_db_conn_opts {
    const char *host;          /* NULL = localhost */
    const char *socket;        /* unix socket path, NULL = TCP/default */
    const char *user;
    const char *password;
    const char *db;
    const char *ssl_key;
    const char *ssl_cert;
    const char *ssl_ca;
    const char *ssl_cipher;
    const char *conninfo;      /* pgsql: a libpq connection string, the whole spec when set */
    const char *app_name;      /* pgsql: application_name, NULL = "lbench" */
    int32_t port;              /* 0 = the driver's default (3306, 5432) */
    int32_t ssl_mode;          /* LB_DB_SSL_* */
    int32_t compression;       /* bool: protocol compression */
    int32_t connect_timeout;   /* seconds, 0 = library default */
    int32_t read_timeout;      /* seconds, 0 = library default */
    int32_t write_timeout;     /* seconds, 0 = library default */
    int32_t ps_mode;           /* LB_DB_PS_AUTO, LB_DB_PS_DISABLE (client-side emulation) or LB_DB_PS_EXTENDED */
    int32_t blocking;          /* bool: the connection's owner is a thread that waits for each operation
                                * (not a virtual user): a driver may then run its library's blocking calls */
    uint64_t bulk_max;         /* bulk-insert flush threshold in bytes, 0 = 512 KiB */
    lb_db_debug_fn debug;      /* NULL = no query log */
    void *debug_ud;
} lb_db_conn_opts;

/* Zero the options and set the defaults (ssl disabled, ps_mode auto). */
void lb_db_conn_opts_init(lb_db_conn_opts *o);

/* Parse sysbench spellings of --mysql-ssl ("disabled", "preferred",
 * "required", "verify_ca", "verify_identity", case-insensitive; also
 * "on"/"off") and --db-ps-mode ("auto", "disable").  -1 if unrecognised. */
int lb_db_ssl_mode_parse(const char *s);
int lb_db_ps_mode_parse(const char *s);

/* Open a connection with driver `drv`.  `st` is the owning worker's stats
 * block (NULL = not counted).  On failure returns NULL and, if `err` is not
 * NULL, fills it (e.g. 1045 with the server's message, 2002/2003 for an
 * unreachable server).  Uses the calling thread's client-library state. */
lb_db_conn *lb_db_connect(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                          lb_db_stats *st, lb_db_error *err);

/* Drop the current server connection (if any) and open a new one with the
 * same options; on success counts one reconnect.  lb_db_stmt handles held
 * by the caller stay valid: each is prepared again (its parameters bound
 * again) by its next execute.  Clears a pending abort: calling it is the
 * owner's decision to continue.  0 ok, <0 error in lb_db_conn_error(c). */
int lb_db_reconnect(lb_db_conn *c);

/* Close the connection and free it together with its statements and
 * results; every handle derived from `c` is invalid afterwards.  Works on a
 * connection whose server side is already gone or aborted; NULL is a no-op. */
void lb_db_disconnect(lb_db_conn *c);

/* Thread-safe: make a call of the owner blocked on the server return
 * promptly with a connection-lost error (shuts the socket down; the next
 * call fails the same way if none is blocked).  Also applies to a reconnect
 * in progress, once its connect step returns (bounded by connect_timeout).
 * The owner then sees the error and may reconnect or stop.  Never frees
 * anything; the caller must ensure `c` is not being disconnected meanwhile
 * (e.g. the engine aborts only connections it knows are still open). */
void lb_db_conn_abort(lb_db_conn *c);

/* Thread-safe: what the operation cut off by lb_db_conn_abort was waiting
 * for, in words ("query: SELECT ..."), into buf; "" when none was. */
void lb_db_conn_waiting(lb_db_conn *c, char *buf, size_t n);

/* A connection as a worker tracks it (core/handle.h): abort is
 * lb_db_conn_abort, close is lb_db_disconnect. */
extern const lb_handle_ops lb_db_conn_handle;

/* Last error recorded on the connection; meaningful after a call returned
 * a negative value.  Never NULL for a non-NULL `c`. */
const lb_db_error *lb_db_conn_error(lb_db_conn *c);

/* The owner gives up on a lost connection (the run ends before a
 * reconnect succeeded): its outage ends now, counted in outage_ns and
 * gave_up.  Nothing when the connection is not in an outage.  Returns
 * the outage's length in ns (0: none). */
int64_t lb_db_conn_outage_end(lb_db_conn *c);

/* Driver name ("mysql", "null"). */
const char *lb_db_driver_name(lb_db_conn *c);

/* Server version string ("10.11.19-MariaDB-..."); "" when not connected. */
const char *lb_db_server_version(lb_db_conn *c);

/* Is the connection inside a transaction block the client opened (1), or
 * idle (0)?  -1: the driver cannot tell, or the connection is gone.
 * (pgbench aborts a client whose script ends inside one.) */
int lb_db_in_transaction(lb_db_conn *c);

/* Rows affected and AUTO_INCREMENT id of the last query or execute on the
 * connection (client library semantics; 0 when unknown). */
uint64_t lb_db_affected_rows(lb_db_conn *c);
uint64_t lb_db_insert_id(lb_db_conn *c);

/* ------------------------------------------------------------------------ */
/* Queries and results                                                      */
/* ------------------------------------------------------------------------ */

/* Run `sql` (`len` bytes, need not be NUL-terminated; several statements
 * separated by ';' are allowed).  Any previous result of the connection is
 * freed first.  The first result set, if any, is stored client-side and
 * available from lb_db_conn_result(c).  0 ok, -code on error. */
int lb_db_query(lb_db_conn *c, const char *sql, size_t len);

/* The connection's current query result, or NULL if the last query
 * produced no result set (INSERT, SET, ...) or it was freed/superseded. */
lb_db_result *lb_db_conn_result(lb_db_conn *c);

/* Advance to the next result set of a multi-statement query: 1 when there
 * is one (now in lb_db_conn_result, which may be NULL for a statement
 * without rows), 0 when none is left, -code when that statement failed.
 * Unread result sets are discarded automatically by the next query. */
int lb_db_next_result(lb_db_conn *c);

/* Number of rows / columns of a result (0 for NULL). */
int64_t lb_db_result_nrows(lb_db_result *r);
int lb_db_result_nfields(lb_db_result *r);
/* The name the server gives column i (0-based) of a result, valid as long
 * as the result; NULL past the last column or when the driver cannot
 * tell (pgbench's \gset names its variables after them). */
const char *lb_db_result_field_name(lb_db_result *r, int i);

/* Fetch the next row: 1 with *values / *lengths pointing at arrays of
 * nfields entries owned by the result (valid until the next fetch or free;
 * values are NUL-terminated, SQL NULL is a NULL pointer), 0 at the end,
 * -code on error. */
int lb_db_result_fetch(lb_db_result *r, const char *const **values,
                       const unsigned long **lengths);

/* Release a result early (otherwise the next query/execute does it).
 * Idempotent; the pointer stays safe to pass but yields no rows. */
void lb_db_result_free(lb_db_result *r);

/* ------------------------------------------------------------------------ */
/* Prepared statements                                                      */
/* ------------------------------------------------------------------------ */

/* Parameter types, numbered like sysbench.sql.type. */
enum { LB_DB_T_TINYINT = 1, LB_DB_T_SMALLINT, LB_DB_T_INT, LB_DB_T_BIGINT,
       LB_DB_T_FLOAT, LB_DB_T_DOUBLE, LB_DB_T_TIME, LB_DB_T_DATE,
       LB_DB_T_DATETIME, LB_DB_T_TIMESTAMP, LB_DB_T_CHAR, LB_DB_T_VARCHAR };

/* One parameter, written by the caller before each execute.  Integer types
 * use `i`, FLOAT/DOUBLE use `d`, CHAR/VARCHAR and the temporal types use
 * buf/len (temporal values as text, e.g. "2024-01-31 12:00:00"); `cap` is
 * the size of buf and len must not exceed it.  is_null != 0 sends NULL. */
typedef struct lb_db_bind {
    int32_t type;
    char is_null;
    char pad[3];
    int64_t i;
    double d;
    char *buf;
    uint64_t cap;
    uint64_t len;
} lb_db_bind;

/* Prepare `sql` (with '?' placeholders).  Server-side with ps_mode auto
 * (falling back to emulation if the server refuses to prepare it),
 * emulated client-side with ps_mode disable.  The statement is classified
 * once here.  NULL on error (details in lb_db_conn_error(c); the failure is
 * counted as an error). */
lb_db_stmt *lb_db_prepare(lb_db_conn *c, const char *sql, size_t len);

/* Number of '?' placeholders. */
int lb_db_stmt_param_count(lb_db_stmt *s);

/* Attach the caller's parameter array (n must equal the placeholder count).
 * The statement keeps pointing at `params`: the caller updates the structs
 * in place and calls execute, with no further binding.  Changing `buf` or
 * `type` of an entry is detected at execute.  0 ok, -code on error. */
int lb_db_stmt_bind_param(lb_db_stmt *s, lb_db_bind *params, int n);

/* Execute with the current parameter values.  A result set is stored
 * client-side (so the connection is immediately usable again), its rows
 * counted, and exposed through lb_db_stmt_result(s) with values as text.
 * Frees the connection's previous result.  0 ok, -code on error. */
int lb_db_stmt_execute(lb_db_stmt *s);

/* lb_db_stmt_execute and then whether a result set came back, in one call
 * (a script's execute, the OLTP hot path): 1 when lb_db_stmt_result(s) now
 * returns it, 0 when the statement returned none, -code on error. */
int lb_db_stmt_run(lb_db_stmt *s);

/* Result of the last execute, or NULL if it had none or it was freed or
 * superseded by another query/execute on the connection. */
lb_db_result *lb_db_stmt_result(lb_db_stmt *s);

/* Close and free the statement; NULL is a no-op. */
void lb_db_stmt_close(lb_db_stmt *s);

/* ------------------------------------------------------------------------ */
/* Bulk insert (sysbench con:bulk_insert_init/next/done)                     */
/* ------------------------------------------------------------------------ */

/* Start a bulk insert: `prefix` is e.g. "INSERT INTO sbtest1(k,c,pad) VALUES".
 * A previous unfinished bulk insert is discarded.  0 ok, -code on error. */
int lb_db_bulk_insert_init(lb_db_conn *c, const char *prefix, size_t len);

/* Append one row tuple, e.g. "(1,'abc','def')".  When the statement would
 * grow beyond the connection's bulk_max, the rows gathered so far are first
 * sent as one query (counted as one insert; a single tuple larger than
 * bulk_max is still sent, alone).  0 ok, -code if that flush failed: the
 * flushed rows are lost (not retried), this tuple is kept for the next. */
int lb_db_bulk_insert_next(lb_db_conn *c, const char *values, size_t len);

/* Send the remaining rows, if any, and end the bulk insert.  (Bulk
 * inserts always wait in poll(): they run in prepare, not in events.) */
int lb_db_bulk_insert_done(lb_db_conn *c);

/* ------------------------------------------------------------------------ */
/* Operations, non-blocking (async workers) or waited for (lb_db_wait)      */
/* ------------------------------------------------------------------------ */

/* What a non-blocking operation waits for: the same bits as MariaDB's
 * MYSQL_WAIT_* and lb_loop's LB_LOOP_*. */
enum { LB_DB_WAIT_READ = 1, LB_DB_WAIT_WRITE = 2, LB_DB_WAIT_EXCEPT = 4, LB_DB_WAIT_TIMEOUT = 8 };

/* The *_start calls begin an operation and return 0 when it completed, a
 * negative value (-code, details in lb_db_conn_error) when it failed, or a
 * positive LB_DB_WAIT_* mask: the caller waits until lb_db_conn_fd(c) is
 * ready for that (and/or lb_db_conn_timeout_ms(c) passed, with
 * LB_DB_WAIT_TIMEOUT) and calls lb_db_cont(c, what_happened), which has the
 * same return convention.  Until the operation completes no other call may
 * be made on the connection, except lb_db_conn_fd/timeout_ms and
 * lb_db_conn_abort.  The blocking calls are these operations driven by
 * lb_db_wait, so accounting, results and errors are the same in both
 * modes.  A driver with nothing to wait for (null) completes every
 * operation at once.  Pointers passed to a *_start (SQL text) must stay
 * valid until the operation completes. */

/* A connection object with these options, not yet connected (the driver
 * allocates nothing until lb_db_connect_start).  NULL with `err` filled on
 * bad options or out of memory.  Free with lb_db_disconnect. */
lb_db_conn *lb_db_conn_new(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                           lb_db_stats *st, lb_db_error *err);
/* Connect a connection from lb_db_conn_new (connect errors are not counted
 * as query errors, as with lb_db_connect). */
int lb_db_connect_start(lb_db_conn *c);
/* lb_db_reconnect, non-blocking. */
int lb_db_reconnect_start(lb_db_conn *c);
/* lb_db_query, non-blocking. */
int lb_db_query_start(lb_db_conn *c, const char *sql, size_t len);
/* lb_db_next_result, non-blocking; once it completed,
 * lb_db_next_result_found(c) is 1 when there was a next result. */
int lb_db_next_result_start(lb_db_conn *c);
int lb_db_next_result_found(lb_db_conn *c);
/* lb_db_prepare, non-blocking; once it completed, lb_db_prepared(c)
 * returns the statement (NULL after a failure). */
int lb_db_prepare_start(lb_db_conn *c, const char *sql, size_t len);
lb_db_stmt *lb_db_prepared(lb_db_conn *c);
/* lb_db_stmt_execute, non-blocking (prepares the statement first when a
 * reconnect left it unprepared). */
int lb_db_stmt_execute_start(lb_db_stmt *s);
/* Continue the operation in progress; `ready` is what happened
 * (LB_DB_WAIT_READ/WRITE/TIMEOUT bits). */
int lb_db_cont(lb_db_conn *c, int ready);
/* The socket to wait on (-1 if none) and the timeout to wait for when the
 * last wait mask had LB_DB_WAIT_TIMEOUT (ms). */
int lb_db_conn_fd(lb_db_conn *c);
int lb_db_conn_timeout_ms(lb_db_conn *c);
/* Bulk load (prepare's fast path): lb_db_load_start runs `sql`
 * (PostgreSQL: "COPY t (cols) FROM STDIN"; MySQL: "LOAD DATA LOCAL INFILE
 * 'name' INTO TABLE t (cols)", the rows buffered and sent as one or more
 * such statements), lb_db_load_data_start sends a
 * chunk of rows in the statement's format, lb_db_load_end_start ends it;
 * the load counts as one insert query, lb_db_affected_rows gives the rows
 * loaded.  Each returns like the other *_start calls.  A driver without it
 * fails lb_db_load_start with LB_DB_E_UNSUPPORTED, uncounted:
 * lb_db_load_supported tells beforehand. */
int lb_db_load_supported(lb_db_conn *c);
int lb_db_load_start(lb_db_conn *c, const char *sql, size_t len);
int lb_db_load_data_start(lb_db_conn *c, const char *buf, size_t len);
int lb_db_load_end_start(lb_db_conn *c);
/* A whole bulk load of generated rows in one operation: `sql` is the
 * statement (PostgreSQL "COPY t (cols) FROM STDIN", MySQL "LOAD DATA LOCAL
 * INFILE 'name' INTO TABLE t (cols)"), the rows come from `src` (it stays
 * valid until the operation completes) until its fill returns 0.  Counts
 * as one insert query; lb_db_affected_rows gives the rows loaded. */
int lb_db_load_rows_start(lb_db_conn *c, const char *sql, size_t len, const lb_rowsrc *src);
/* Pipelines (libpq's pipeline mode, pgbench's \startpipeline): after
 * LB_DB_PIPE_ENTER, each statement execute only queues its statement and
 * completes with no result; LB_DB_PIPE_SYNC sends a sync point and
 * completes once it is sent, its results still unread; LB_DB_PIPE_END
 * sends a last sync, reads and drops every result up to it and leaves
 * pipeline mode: it fails with the first statement's error, if any (the
 * connection is then out of pipeline mode too).  Only prepared or
 * extended-mode statements go into a pipeline; a server-side prepare and
 * a plain query fail there.  A driver without pipelines fails with
 * LB_DB_E_UNSUPPORTED, uncounted: lb_db_pipeline_supported tells
 * beforehand.  Each returns like the other *_start calls. */
enum { LB_DB_PIPE_ENTER = 1, LB_DB_PIPE_SYNC = 2, LB_DB_PIPE_END = 3 };
int lb_db_pipeline_supported(lb_db_conn *c);
int lb_db_pipeline_start(lb_db_conn *c, int what);
/* Drive the operation in progress to its end: `rc` is what its *_start
 * returned; while it is a wait mask, poll() the connection's socket (and
 * timeout) and continue.  Returns the operation's result (0 or -code).
 * lb_db_wait(c, lb_db_query_start(c, sql, len)) is lb_db_query. */
int lb_db_wait(lb_db_conn *c, int rc);

/* FFI END */

/* ------------------------------------------------------------------------ */
/* Driver interface (internal: the core and the drivers, not the Lua layer)  */
/* ------------------------------------------------------------------------ */

/* A result set as a driver reports it: `h` is the driver's handle for
 * fetch/free (NULL = statement produced no result set). */
typedef struct lb__db_rs {
    void *h;
    int64_t nrows;
    int nfields;
} lb__db_rs;

/* What an operation produced when it completed. */
typedef struct lb__db_async {
    lb__db_rs rs;       /* query / next result / execute */
    void *ds;           /* prepare: the driver statement */
    int nparams;        /* prepare */
    int found;          /* next result: there was one (in rs) */
} lb__db_async;

/* The ops of one driver.  `dc` is driver connection state, `ds` driver
 * statement state.  Every op that can fail fills `err` and returns
 * non-zero/NULL; the core does the classification, counting, waiting and
 * debug log.
 *
 * Operations that talk to the server are non-blocking, one state machine
 * each: *_start begins the operation and returns 0 when it completed, <0
 * on error (err filled), or >0, an LB_DB_WAIT_* mask: the core waits (in
 * poll() or in an async worker's event loop) until fd(dc) is ready for it,
 * or timeout_ms(dc) passed with LB_DB_WAIT_TIMEOUT, and calls `cont` with
 * what happened, which returns the same way.  Results go to *out when the
 * operation completes.  connect_start sets *dc at once (also while
 * waiting); after a failed connect the core calls disconnect(*dc).  A
 * library that offers send / consume-input / is-busy calls (libpq) maps
 * onto this directly; one with coroutine-style start/cont calls
 * (Connector/C) too.  The remaining ops work on data already received
 * (fetch) or are short client-side steps (bind, close) and do not wait.
 *
 * Required: name, connect_start, cont, fd, timeout_ms, disconnect, abort,
 * server_version, query_start, next_result_start, fetch, free_result.
 * Statement ops are optional as a group (prepare_start NULL => statements
 * are always emulated client-side). */
struct lb_db_driver_ops {
    const char *name;
    int  (*global_init)(void);                     /* optional */
    void (*global_done)(void);                     /* optional */
    void (*thread_done)(void);                     /* optional */

    int  (*connect_start)(const lb_db_conn_opts *o, void **dc, lb_db_error *err);
    int  (*cont)(void *dc, int ready, lb__db_async *out, lb_db_error *err);
    int  (*fd)(void *dc);
    int  (*timeout_ms)(void *dc);
    /* Close and free `dc`.  Statements of dc may still be open: their
     * stmt_close is called afterwards and must then only free memory. */
    void (*disconnect)(void *dc);
    /* Thread-safe socket shutdown; the core guarantees dc stays alive. */
    void (*abort)(void *dc);
    const char *(*server_version)(void *dc);
    /* Discards leftover result sets of an earlier multi-statement query. */
    int  (*query_start)(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
    /* The next result of a multi-statement query: out->found 0 when none
     * is left (not an error). */
    int  (*next_result_start)(void *dc, lb__db_async *out, lb_db_error *err);
    int  (*fetch)(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err);
    void (*free_result)(void *h);
    uint64_t (*affected_rows)(void *dc, void *ds);  /* optional; ds = last executed stmt or NULL */
    uint64_t (*insert_id)(void *dc, void *ds);      /* optional */
    /* Escape `len` bytes into `to` (room for 2*len+1); returns the escaped
     * length or -1.  Optional: the core falls back to backslash escaping. */
    long (*escape)(void *dc, char *to, const char *from, size_t len);

    /* out->ds, out->nparams; a server that cannot prepare this kind of
     * statement fails with LB_DB_E_UNSUPPORTED (the core then emulates). */
    int  (*prepare_start)(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
    int  (*stmt_bind)(void *ds, lb_db_bind *params, int n, lb_db_error *err);
    int  (*stmt_execute_start)(void *ds, lb__db_async *out, lb_db_error *err);
    /* Optional: the same execute run to its end with the client library's
     * blocking calls (0 or -1, never a wait mask), for lb_db_stmt_execute
     * on a thread.  A driver whose non-blocking form costs measurably more
     * CPU per query has it; abort must still end its wait. */
    int  (*stmt_execute_blocking)(void *ds, lb__db_async *out, lb_db_error *err);
    int  (*stmt_fetch)(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err);
    void (*stmt_free_result)(void *h);
    void (*stmt_close)(void *ds);

    /* Bulk load, optional as a group (lb_db_load_*): load_start runs the
     * statement (PostgreSQL: COPY ... FROM STDIN) until the server waits
     * for data; load_data_start sends one chunk (the buffer stays valid
     * until the operation completes); load_end_start ends the data and
     * completes with the statement's result (affected rows = rows
     * loaded); load_rows_start runs a whole load of rows read from a
     * source. */
    int  (*load_start)(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
    int  (*load_data_start)(void *dc, const char *buf, size_t len, lb__db_async *out, lb_db_error *err);
    int  (*load_end_start)(void *dc, lb__db_async *out, lb_db_error *err);
    int  (*load_rows_start)(void *dc, const char *sql, size_t len, const lb_rowsrc *src, lb__db_async *out,
                            lb_db_error *err);

    /* Pipeline mode, optional (lb_db_pipeline_start): `what` is
     * LB_DB_PIPE_ENTER, _SYNC or _END; while in it, stmt_execute_start
     * only sends. */
    int  (*pipeline_start)(void *dc, int what, lb__db_async *out, lb_db_error *err);

    /* Column names, optional: of a query's result (h as for fetch) and of
     * an executed statement's (h as for stmt_fetch); NULL when unknown. */
    const char *(*field_name)(void *h, int i);
    const char *(*stmt_field_name)(void *h, int i);

    /* Transaction state, optional (lb_db_in_transaction): 1 inside a
     * block (failed or not), 0 idle, -1 unknown. */
    int  (*in_transaction)(void *dc);
};

/* Fill an error record (message truncated to fit; sqlstate NULL = "HY000"). */
void lb__db_error_set(lb_db_error *err, int code, const char *sqlstate, const char *msg);

/* Count '?' placeholders outside quotes, backquotes and comments. */
int lb__db_count_placeholders(const char *sql, size_t len);

extern const lb_db_driver_ops lb__db_null_ops;
#ifndef LB_DB_NO_MYSQL
extern const lb_db_driver_ops lb__db_mysql_ops;
#endif
extern const lb_db_driver_ops lb__db_pgsql_ops;

#ifdef __cplusplus
}
#endif

#endif
