/* sbsql — sysbench 1.0.20's C SQL API (db_driver.h, as sysbench.sql.lua
 * declares it to the FFI) on lbench's DB layer, for scripts that call
 * ffi.C.db_query and friends themselves.
 *
 * The types are sysbench's public prefixes (a script reads con.error,
 * con.sql_errno, rs.nrows, row.values[i].ptr ...); each object is larger,
 * with lbench's handle behind that prefix.  What maps where:
 *  - db_create(NULL) is the run's --db-driver, with the connection options
 *    of the calling thread's Lua state (lb_sb_sql_bind: the first host and
 *    port of the rotation for this thread, credentials, SSL, ps-mode);
 *  - every query and execute counts in the calling worker's statistics as
 *    lbench's own do (by their first keyword); a failed one counts one
 *    SB_CNT_ERROR, and sets con->error to DB_ERROR_IGNORABLE when its
 *    code is in --db-ignore-errors (numbers; "all") or the connection was
 *    lost (then it is reconnected), DB_ERROR_FATAL otherwise;
 *  - db_query / db_execute return the result only for a result set, as
 *    sysbench does (NULL with error NONE for a statement without rows);
 *  - a statement's parameters are read from the caller's buffers at each
 *    db_execute (integers by their type's width, strings by *data_len);
 *    result binds (db_bind_result) are filled by each db_fetch_row of that
 *    statement's result, converted from the row's text.
 * Objects belong to the thread that made them, as in sysbench. */
#ifndef LB_SBSQL_H
#define LB_SBSQL_H

#include <stddef.h>
#include <stdint.h>

#include "sbcompat.h"
#include "../db/db.h"

/* FFI BEGIN */
typedef enum { DB_ERROR_NONE, DB_ERROR_IGNORABLE, DB_ERROR_FATAL } sql_error_t;

typedef struct {
    const char *sname;
    const char *lname;
} sql_driver;

typedef struct {
    uint32_t len;
    const char *ptr;
} sql_value;

typedef struct {
    void *ptr;
    sql_value *values;
} sql_row;

typedef struct {
    sql_error_t error;
    int sql_errno;
    const char *sql_state;
    const char *sql_errmsg;
    sql_driver *driver;
} sql_connection;

typedef struct {
    sql_connection *connection;
} sql_statement;

typedef struct {
    sb_counter_type counter;
    uint32_t nrows;
    uint32_t nfields;
    sql_statement *statement;
    void *ptr;
    sql_row row;
} sql_result;

typedef enum {
    SQL_TYPE_NONE,
    SQL_TYPE_TINYINT,
    SQL_TYPE_SMALLINT,
    SQL_TYPE_INT,
    SQL_TYPE_BIGINT,
    SQL_TYPE_FLOAT,
    SQL_TYPE_DOUBLE,
    SQL_TYPE_TIME,
    SQL_TYPE_DATE,
    SQL_TYPE_DATETIME,
    SQL_TYPE_TIMESTAMP,
    SQL_TYPE_CHAR,
    SQL_TYPE_VARCHAR
} sql_bind_type_t;

typedef struct {
    sql_bind_type_t type;
    void *buffer;
    unsigned long *data_len;
    unsigned long max_len;
    char *is_null;
} sql_bind;

sql_driver *db_create(const char *name) __asm__("lb_sb_db_create");
int db_destroy(sql_driver *drv) __asm__("lb_sb_db_destroy");

sql_connection *db_connection_create(sql_driver *drv) __asm__("lb_sb_db_connection_create");
int db_connection_close(sql_connection *con) __asm__("lb_sb_db_connection_close");
int db_connection_reconnect(sql_connection *con) __asm__("lb_sb_db_connection_reconnect");
void db_connection_free(sql_connection *con) __asm__("lb_sb_db_connection_free");

int db_bulk_insert_init(sql_connection *con, const char *query, size_t len) __asm__("lb_sb_db_bulk_insert_init");
int db_bulk_insert_next(sql_connection *con, const char *query, size_t len) __asm__("lb_sb_db_bulk_insert_next");
int db_bulk_insert_done(sql_connection *con) __asm__("lb_sb_db_bulk_insert_done");

sql_result *db_query(sql_connection *con, const char *query, size_t len) __asm__("lb_sb_db_query");
sql_row *db_fetch_row(sql_result *rs) __asm__("lb_sb_db_fetch_row");

sql_statement *db_prepare(sql_connection *con, const char *query, size_t len) __asm__("lb_sb_db_prepare");
int db_bind_param(sql_statement *stmt, sql_bind *params, size_t len) __asm__("lb_sb_db_bind_param");
int db_bind_result(sql_statement *stmt, sql_bind *results, size_t len) __asm__("lb_sb_db_bind_result");
sql_result *db_execute(sql_statement *stmt) __asm__("lb_sb_db_execute");
int db_close(sql_statement *stmt) __asm__("lb_sb_db_close");

int db_free_results(sql_result *rs) __asm__("lb_sb_db_free_results");

/* lbench's side: the calling thread's default driver (`name`, `ops`) and
 * connection options (copied; their strings must stay valid while the
 * thread may connect), and the error codes that are ignorable. */
void lb_sb_sql_bind(const char *name, const lb_db_driver_ops *ops, const lb_db_conn_opts *o,
                    const int32_t *ignore, int nignore, int ignore_all);
/* FFI END */

#endif
