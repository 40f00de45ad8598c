/* Non-blocking operations of the database layer (async workers): what
 * lb_db_*_start began, continued by lb_db_cont and finished with the
 * accounting of the blocking twin. */
#ifndef LB_DB_ASYNC_H
#define LB_DB_ASYNC_H

#include "internal.h"

/* Free what an operation still in progress holds (a connect's driver
 * connection, a new statement's prepare); for lb_db_disconnect, after the
 * server connection was dropped. */
void lb__db_async_abandon(lb_db_conn *c);

#endif
