/* Database operations (op.c): the one state machine behind both the
 * blocking calls and the non-blocking lb_db_*_start / lb_db_cont pairs. */
#ifndef LB_DB_OP_H
#define LB_DB_OP_H

#include "internal.h"

/* Begin running `sql` on `c`, counted as class `type`, its result into
 * `target` (a plain query, an emulated statement's text, a bulk insert).
 * The return convention of the *_start calls. */
int lb__db_query_begin(lb_db_conn *c, const char *sql, size_t len, int type, lb_db_result *target);

/* lb_db_stmt_execute_start for a caller that waits in lb_db_wait: the
 * driver's blocking execute where it has one. */
int lb__db_stmt_execute_begin(lb_db_stmt *s);

/* An operation of `c` that failed in its start call, which blocks on a
 * blocking connection (lb_db_conn_opts.blocking), or in a thread's
 * blocking execute: if a watchdog's lb_db_conn_abort cut it, note what it
 * was doing (lb_db_conn_waiting), as lb_db_wait does for an operation cut
 * while it waits.  Call while the operation is still in progress (c->aop
 * set). */
void lb__db_note_cut(lb_db_conn *c);

#endif
