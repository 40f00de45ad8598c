/* The MySQL driver's operations: Connector/C's mysql_*_start /
 * mysql_*_cont calls run as a small state machine kept in the connection,
 * one operation at a time (the core waits, in poll() or an event loop). */
#ifndef LB_DB_MYSQL_ASYNC_H
#define LB_DB_MYSQL_ASYNC_H

#include "db.h"

int lb__db_my_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err);
int lb__db_my_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_next_result_start(void *dc, lb__db_async *out, lb_db_error *err);
int lb__db_my_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err);
int lb__db_my_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err);
int lb__db_my_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err);
int lb__db_my_fd(void *dc);
int lb__db_my_timeout_ms(void *dc);

#endif
