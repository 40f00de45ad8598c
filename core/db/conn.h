/* Connections of the database layer: options, the connection object, the
 * server connection's life (connect, reconnect, disconnect, abort) and the
 * halves of the connect operation (op.c). */
#ifndef LB_DB_CONN_H
#define LB_DB_CONN_H

#include "internal.h"

/* Drop the server connection and the driver side of every statement (the
 * live result first).  Statements keep their SQL and binds for re-prepare. */
void lb__db_close_server(lb_db_conn *c);

/* The first half of every reconnect: drop the server connection, clear a
 * pending abort (reconnecting is the owner's decision to continue), log. */
void lb__db_reconnect_begin(lb_db_conn *c);

/* A connect finished with driver connection `d`: install it (aborting it
 * at once if lb_db_conn_abort came meanwhile) and, for a reconnect, count
 * it. */
void lb__db_conn_attach(lb_db_conn *c, void *d, int reconnect);

/* A connect failed (reason in c->err): record it, uncounted; -code.  A
 * failed reconnect counts in reconnect_failed and begins an outage. */
int lb__db_connect_failed(lb_db_conn *c, int reconnect);

/* Free what an operation still in progress holds (a connect's driver
 * connection, a new statement's prepare); for lb_db_disconnect, after the
 * server connection was dropped, and for an operation the driver left
 * hanging (blocking.c). */
void lb__db_op_abandon(lb_db_conn *c);

/* The connection is lost (a failure with a lost-connection code): its
 * outage begins, unless one is under way. */
void lb__db_outage_begin(lb_db_conn *c);

#endif
