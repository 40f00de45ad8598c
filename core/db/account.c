/* Accounting into lb_db_stats: the block's initialisation and the error
 * table (one slot per error code, claimed in order, last slot overflow). */
#include "account.h"

#include <string.h>

void lb_db_stats_init(lb_db_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    st->err[LB_DB_ERRSLOTS - 1].code = -1;
}

void lb__db_count_error(lb_db_stats *st, int code)
{
    if (!st)
        return;
    lb__db_st_add(&st->errors, 1);
    for (int i = 0; i < LB_DB_ERRSLOTS - 1; i++) {
        uint64_t n = __atomic_load_n(&st->err[i].count, __ATOMIC_RELAXED);
        if (n == 0) {
            /* Slots fill in order, so the first free one means "new code".
             * Publish the code before the count makes the slot visible. */
            __atomic_store_n(&st->err[i].code, code, __ATOMIC_RELAXED);
            __atomic_store_n(&st->err[i].count, 1, __ATOMIC_RELEASE);
            return;
        }
        if (st->err[i].code == code) {
            lb__db_st_add(&st->err[i].count, 1);
            return;
        }
    }
    if (st->err[LB_DB_ERRSLOTS - 1].code != -1)
        __atomic_store_n(&st->err[LB_DB_ERRSLOTS - 1].code, -1, __ATOMIC_RELAXED);
    lb__db_st_add(&st->err[LB_DB_ERRSLOTS - 1].count, 1);
}
