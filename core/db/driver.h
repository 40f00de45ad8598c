/* Driver registry of the database layer: the list of drivers, the check of
 * an ops table, process-wide and per-thread client-library set-up. */
#ifndef LB_DB_DRIVER_H
#define LB_DB_DRIVER_H

#include "db.h"

/* 1 if `d` has every required op and its optional groups are complete. */
int lb__db_driver_valid(const lb_db_driver_ops *d);

#endif
