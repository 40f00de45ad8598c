/* --db-debug messages: one reusable buffer per connection, grown on
 * demand (only reached when a sink is set, so it may allocate). */
#include "debug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void lb__db_debugf(lb_db_conn *c, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(c->dbg ? c->dbg : small, c->dbg ? c->dbgcap : sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t cap = c->dbg ? c->dbgcap : sizeof small;
    if ((size_t)n >= cap) {
        char *nb = realloc(c->dbg, (size_t)n + 1);
        if (nb) {
            c->dbg = nb;
            c->dbgcap = (size_t)n + 1;
            va_start(ap, fmt);
            vsnprintf(c->dbg, c->dbgcap, fmt, ap);
            va_end(ap);
        } else if (!c->dbg) {
            small[sizeof small - 1] = '\0';
        }
    }
    c->opts.debug(c->opts.debug_ud, c->dbg ? c->dbg : small);
}

void lb__db_debug_connect(lb_db_conn *c)
{
    if (c->opts.debug)
        lb__db_debugf(c, "connect: driver %s host %s port %d db %s", c->ops->name,
                      c->opts.host ? c->opts.host : "(default)", (int)c->opts.port,
                      c->opts.db ? c->opts.db : "(none)");
}

/* It must say what happens on the wire: a server-side prepare, or none at
 * all when the statement is emulated (its executes then show up as
 * "query:" lines with the values substituted). */
void lb__db_debug_prepare(lb_db_conn *c, const lb_db_stmt *s, int emulated)
{
    if (!emulated)
        lb__db_debugf(c, "prepare: %.*s", lb__db_dlen(s->len), s->sql);
    else
        lb__db_debugf(c, "no server-side prepare (%s), statement emulated client-side: %.*s",
                      c->opts.ps_mode == LB_DB_PS_DISABLE ? "--db-ps-mode=disable" : "driver without prepared statements",
                      lb__db_dlen(s->len), s->sql);
}
