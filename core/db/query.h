/* Queries and result sets of the database layer: running SQL text on a
 * connection (plain queries, emulated statements, bulk inserts), the
 * halves of the query operation (op.c), and fetching. */
#ifndef LB_DB_QUERY_H
#define LB_DB_QUERY_H

#include "internal.h"

/* What a query does before it reaches the driver:
 * release the live result, check the connection, log, clear the error.
 * 0 to go on, or -code (recorded and counted). */
int lb__db_query_prologue(lb_db_conn *c, const char *sql, size_t len);

/* The return of lb_db_query / lb_db_query_start for a NULL connection or
 * SQL text. */
int lb__db_query_invalid(lb_db_conn *c);

#endif
