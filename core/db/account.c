/* Accounting into lb_db_stats: the block's initialisation and the error
 * count (its table of codes is the core's, core/stats.h). */
#include "account.h"

#include <string.h>

void lb_db_stats_init(lb_db_stats *st)
{
    if (st)
        lb_stats_ext_init(&st->ext);
}

void lb__db_count_error(lb_db_stats *st, int code)
{
    if (!st)
        return;
    lb__db_st_add(&st->errors, 1);
    lb_stats_count_code(&st->ext, code);
}
