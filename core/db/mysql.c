/* MySQL/MariaDB driver on MariaDB Connector/C (libmariadb): its ops table.
 *
 * Only protocol work lives in the driver; classification, accounting,
 * logging, waiting and statement bookkeeping are the core's (db.h).
 *  - mysql_conn.c: library set-up, the connection handle, results;
 *  - mysql_stmt.c: prepared statements, binds, statement results;
 *  - mysql_async.c: the operations, one state machine on Connector/C's
 *    non-blocking *_start / *_cont calls;
 *  - mysql_load.c: bulk loads, LOAD DATA LOCAL INFILE fed from memory.
 */
#include "mysql_async.h"
#include "mysql_conn.h"
#include "mysql_stmt.h"

const lb_db_driver_ops lb__db_mysql_ops = {
    .name = "mysql",
    .global_init = lb__db_my_global_init,
    .global_done = lb__db_my_global_done,
    .thread_done = lb__db_my_thread_done,
    .disconnect = lb__db_my_disconnect,
    .abort = lb__db_my_abort,
    .server_version = lb__db_my_server_version,
    .next_result_start = lb__db_my_next_result_start,
    .fetch = lb__db_my_fetch,
    .free_result = lb__db_my_free_result,
    .affected_rows = lb__db_my_affected_rows,
    .insert_id = lb__db_my_insert_id,
    .escape = lb__db_my_escape,
    .stmt_bind = lb__db_my_stmt_bind,
    .stmt_fetch = lb__db_my_stmt_fetch,
    .stmt_free_result = lb__db_my_stmt_free_result,
    .stmt_close = lb__db_my_stmt_close,
    .connect_start = lb__db_my_connect_start,
    .query_start = lb__db_my_query_start,
    .prepare_start = lb__db_my_prepare_start,
    .stmt_execute_start = lb__db_my_stmt_execute_start,
    .cont = lb__db_my_cont,
    .fd = lb__db_my_fd,
    .timeout_ms = lb__db_my_timeout_ms,
    .load_start = lb__db_my_load_start,
    .load_data_start = lb__db_my_load_data_start,
    .load_end_start = lb__db_my_load_end_start,
    .load_rows_start = lb__db_my_load_rows_start,
};
