/* Prepared statements of the database layer: the statement object, its
 * parameter binds, server-side (re-)prepare with the fallback to
 * emulation, and the second half of the prepare operation (op.c, which
 * also holds the execute's checks: they run once per statement). */
#ifndef LB_DB_STMT_H
#define LB_DB_STMT_H

#include "internal.h"

/* A new statement for `sql` on live connection `c` (checked here, with
 * its --db-debug line; `emulate`: no server-side prepare will be made).
 * NULL with the failure recorded and counted. */
lb_db_stmt *lb__db_stmt_new(lb_db_conn *c, const char *sql, size_t len, int emulate);

/* The end of a new statement's prepare: with `rc` 0 it
 * joins the connection's list (which a reconnect walks), otherwise the
 * failure is recorded and the statement freed.  Returns 0 or -code. */
int lb__db_stmt_adopt(lb_db_stmt *s, int rc);

/* Free a statement's memory (nothing on the driver side, not unlinked). */
void lb__db_stmt_free(lb_db_stmt *s);

/* The second half of a prepare: `ds` is the driver
 * statement with `np` parameters, or NULL after a failure (reason in
 * c->err).  Falls back to emulation when the server refuses this kind of
 * statement; re-binds the parameters the caller had bound.  0 or -code
 * (error in c->err, not yet recorded). */
int lb__db_stmt_after_prepare(lb_db_stmt *s, void *ds, int np);

#endif
