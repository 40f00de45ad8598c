/* SQL text scanning for the database layer: the query class of a statement
 * (lb_db_classify, in db.h) and the '?' placeholders of an emulated one. */
#ifndef LB_DB_SQL_H
#define LB_DB_SQL_H

#include <stddef.h>

/* Walk the placeholders outside quotes and comments; store their offsets
 * in `out` (room for all of them) if not NULL.  Returns their number. */
int lb__db_scan_placeholders(const char *s, size_t n, size_t *out);

#endif
