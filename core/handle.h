/* handle — what the core knows of a resource a script holds open through
 * a layer above it (a database connection, db/): how to abort it from
 * another thread and how to close it.  A worker tracks its handles so that
 * a stop can cut loose a worker stuck on a server that does not answer
 * (lb_worker_track, worker.h); the layer supplies one ops table per kind
 * of handle (lb_db_conn_handle, db.h). */
#ifndef LB_HANDLE_H
#define LB_HANDLE_H

#include <stddef.h>

/* FFI BEGIN */
typedef struct lb_handle_ops {
    void (*abort)(void *h);   /* thread-safe; must not free anything */
    void (*close)(void *h);   /* the owner's close: frees the handle */
    /* thread-safe: what an operation cut off by abort was waiting for, in
     * words, into buf (size n); "" when nothing was cut */
    void (*waiting)(void *h, char *buf, size_t n);
} lb_handle_ops;
/* FFI END */

#endif
