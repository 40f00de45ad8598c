/* Client-side statement emulation (--db-ps-mode=disable, drivers without
 * prepared statements, statements the server cannot prepare): the '?'
 * offsets of a statement and the SQL text of one execute, values
 * substituted as literals. */
#ifndef LB_DB_EMULATE_H
#define LB_DB_EMULATE_H

#include "internal.h"

/* Make `s` an emulated statement (find its placeholders).  0, or
 * -LB_DB_E_NOMEM with the error in c->err (not recorded). */
int lb__db_stmt_emulate(lb_db_stmt *s);

/* Build the SQL text of an execute of emulated `s` with its current
 * parameters into s->ebuf; its length in *out_len.  0, or -code with the
 * failure recorded and counted. */
int lb__db_emu_build(lb_db_stmt *s, size_t *out_len);

#endif
