/* The --db-debug query log of the database layer: every message a
 * connection hands to its debug sink is formatted here.  Callers test
 * c->opts.debug first, so a connection without a sink pays one branch. */
#ifndef LB_DB_DEBUG_H
#define LB_DB_DEBUG_H

#include "internal.h"

/* A length for "%.*s". */
static inline int lb__db_dlen(size_t len)
{
    return len > (size_t)0x7fffffff ? 0x7fffffff : (int)len;
}

/* Format a message into the connection's reusable buffer and hand it to
 * the sink (which must be set). */
__attribute__((format(printf, 2, 3)))
void lb__db_debugf(lb_db_conn *c, const char *fmt, ...);

/* The lines for a connect, and for a new statement (`emulated`: no
 * server-side prepare happens, and the line says why). */
void lb__db_debug_connect(lb_db_conn *c);
void lb__db_debug_prepare(lb_db_conn *c, const lb_db_stmt *s, int emulated);

#endif
