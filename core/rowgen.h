/* Rows generated in C for bulk loads: text rows written straight into a
 * buffer the client library streams to the server (LOAD DATA LOCAL
 * INFILE's read callback, or the chunks of a COPY FROM STDIN).  The Lua
 * path builds each row as a string; this one writes the bytes in place,
 * which is what makes a load cost the client little next to the server.
 *
 * The format is the one both servers read by default: fields separated by
 * a tab, rows ended by a newline.  The generated values need no escaping
 * (digits, letters and '-'). */
#ifndef LB_ROWGEN_H
#define LB_ROWGEN_H

#include "rand.h"

#include <stddef.h>
#include <stdint.h>

/* FFI BEGIN */
/* A producer of bytes for a load: fill() writes up to `cap` bytes of whole
 * rows into `buf` and returns how many it wrote, 0 once it has no more.
 * `cap` is at least LB_ROWSRC_MIN_CAP. */
enum { LB_ROWSRC_MIN_CAP = 4096 };
typedef struct lb_rowsrc {
    size_t (*fill)(void *ud, char *buf, size_t cap);
    void *ud;
} lb_rowsrc;

/* What a long load reports to, handed down by its caller (the runtime's
 * lb_runtime_stop_flag and lb_runtime_progress_cb): a stop flag that ends
 * it early, and a count of units done.  Any field may be NULL. */
typedef struct lb_progress {
    const volatile int *stop;
    void (*add)(void *ud, uint64_t n);
    void *ud;
} lb_progress;

/* sysbench's sbtest rows: id, k, c, pad.  ids next..last in order; k drawn
 * from `dist` over [1, k_max]; c and pad from their templates ('#' a digit,
 * '@' a letter), as lbench.rand.string.  Every fill adds its rows to the
 * progress count, and a stop ends the rows early (the load then ends
 * normally with what was sent). */
typedef struct lb_rowgen_sbtest {
    lb_rowsrc src;            /* what a load reads: fill is lb_rowgen_sbtest_fill */
    lb_rand *r;
    lb_rand_dist dist;
    lb_progress progress;
    double next, last, k_max; /* integers (doubles, as everywhere in the FFI) */
    const char *c_tmpl, *pad_tmpl;
    size_t c_len, pad_len;
    double rows;              /* rows generated so far */
} lb_rowgen_sbtest;

/* Set `g` up (it keeps pointers to r, the progress target and the
 * templates: they must live as long as it is used; `progress` may be NULL).  0, or -1 when the templates do not fit in one
 * LB_ROWSRC_MIN_CAP buffer. */
int lb_rowgen_sbtest_init(lb_rowgen_sbtest *g, lb_rand *r, const lb_rand_dist *dist, const lb_progress *progress,
                          double first_id, double last_id, double k_max,
                          const char *c_tmpl, size_t c_len, const char *pad_tmpl, size_t pad_len);
size_t lb_rowgen_sbtest_fill(void *g, char *buf, size_t cap);
/* FFI END */

#endif
