/* Driver registry of the database layer: the list of drivers, the check of
 * an ops table, process-wide and per-thread client-library set-up. */
#ifndef LB_DB_DRIVER_H
#define LB_DB_DRIVER_H

#include "db.h"

/* 1 if `d` has every required op and its optional groups are complete. */
int lb__db_driver_valid(const lb_db_driver_ops *d);

/* Initialise `d`'s client library, once per process (concurrent callers
 * wait for the first); 0, or -1 if it failed (and on every call after, until
 * lb_db_global_done). */
int lb__db_driver_init(const lb_db_driver_ops *d);

#endif
