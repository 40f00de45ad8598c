/* MySQL/MariaDB driver on MariaDB Connector/C (libmariadb): its ops table.
 *
 * Only protocol work lives in the driver; classification, accounting,
 * logging and statement bookkeeping are the core's (db.h).  Each blocking
 * op is one protocol step, and the non-blocking twins run the same steps.
 *  - mysql_conn.c: library set-up, connections, plain queries and results;
 *  - mysql_stmt.c: prepared statements, binds, statement results;
 *  - mysql_async.c: the non-blocking operations' state machine.
 */
#include "mysql_async.h"
#include "mysql_conn.h"
#include "mysql_stmt.h"

const lb_db_driver_ops lb__db_mysql_ops = {
    .name = "mysql",
    .global_init = lb__db_my_global_init,
    .global_done = lb__db_my_global_done,
    .thread_done = lb__db_my_thread_done,
    .connect = lb__db_my_connect,
    .disconnect = lb__db_my_disconnect,
    .abort = lb__db_my_abort,
    .server_version = lb__db_my_server_version,
    .query = lb__db_my_query,
    .next_result = lb__db_my_next_result,
    .fetch = lb__db_my_fetch,
    .free_result = lb__db_my_free_result,
    .affected_rows = lb__db_my_affected_rows,
    .insert_id = lb__db_my_insert_id,
    .escape = lb__db_my_escape,
    .prepare = lb__db_my_prepare,
    .stmt_bind = lb__db_my_stmt_bind,
    .stmt_execute = lb__db_my_stmt_execute,
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
};
