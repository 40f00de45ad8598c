/* sbcompat — sysbench 1.0.20's C surface, for scripts that reach it
 * through the FFI.
 *
 * sysbench's internal Lua modules (sysbench.lua, sysbench.rand.lua,
 * sysbench.histogram.lua, sysbench.cmdline.lua, sysbench.sql.lua) declare
 * part of its C core with ffi.cdef and call it; published scripts copy
 * those declarations and call the same functions (sb_counter_inc to count
 * their own queries, a thread_run of their own over sb_more_events /
 * sb_event_start / sb_event_stop, sb_rand_str, the histogram).  Every one
 * is a real symbol here with sysbench's meaning mapped onto lbench:
 *
 *  - counters and events belong to the calling thread's worker.  The
 *    `thread_id` argument is accepted and ignored: each Lua state binds its
 *    thread once (lb_sb_bind), so a call can never reach another thread's
 *    counters.  Outside a worker (the main state) counters and events are
 *    no-ops and sb_more_events() is false;
 *  - random numbers come from the bound state's own lb_rand stream (the one
 *    behind lbench.rand), with the run's --rand-* settings;
 *  - a histogram is an lb_hist (3 significant digits) over [min, max];
 *    sb_histogram_print writes sysbench's layout through the bound output.
 *
 * The SQL part (db_query, sql_connection, ...) is sbsql.h. */
#ifndef LB_SBCOMPAT_H
#define LB_SBCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rand.h"
#include "../worker.h"

/* FFI BEGIN */
/* sysbench's counter types, as its sysbench.sql.lua names them
 * (sb_counter.h calls index 3 SB_CNT_EVENT). */
typedef enum {
    SB_CNT_OTHER,
    SB_CNT_READ,
    SB_CNT_WRITE,
    SB_CNT_TRX,
    SB_CNT_ERROR,
    SB_CNT_RECONNECT,
    SB_CNT_MAX
} sb_counter_type;
typedef sb_counter_type sb_counter_type_t;
enum { SB_CNT_EVENT = SB_CNT_TRX };

/* sysbench's option types and test argument (sysbench.cmdline.lua). */
typedef enum {
    SB_ARG_TYPE_NULL,
    SB_ARG_TYPE_BOOL,
    SB_ARG_TYPE_INT,
    SB_ARG_TYPE_SIZE,
    SB_ARG_TYPE_DOUBLE,
    SB_ARG_TYPE_STRING,
    SB_ARG_TYPE_LIST,
    SB_ARG_TYPE_FILE,
    SB_ARG_TYPE_MAX
} sb_arg_type_t;
typedef bool sb_opt_validate_t(const char *, const char *);
typedef struct {
    const char *name;
    const char *desc;
    const char *value;
    sb_arg_type_t type;
    sb_opt_validate_t *validate;
} sb_arg_t;

typedef struct histogram sb_histogram_t;

/* The event loop (sysbench.c).  sb_more_events: false once the run must
 * stop (--time, --events, a signal, an error); under --rate it waits for
 * the next intended start.  sb_event_start / sb_event_stop time one event
 * and count it, as lbench's own loop does. */
bool sb_more_events(int thread_id) __asm__("lb_sb_sb_more_events");
void sb_event_start(int thread_id) __asm__("lb_sb_sb_event_start");
void sb_event_stop(int thread_id) __asm__("lb_sb_sb_event_stop");

/* Counters (sb_counter.h): READ/WRITE/OTHER count queries (writes of no
 * known class), TRX an event without a latency sample (sysbench counts its
 * events there), ERROR an ignored error (an event restart), RECONNECT a
 * reconnect.  sb_counter_val reads the same figure back. */
void sb_counter_inc(int thread_id, sb_counter_type type) __asm__("lb_sb_sb_counter_inc");
uint64_t sb_counter_val(int thread_id, sb_counter_type type) __asm__("lb_sb_sb_counter_val");

/* Random numbers (sb_rand.h).  sb_rand_str writes strlen(fmt) bytes,
 * '#' a digit, '@' a lowercase letter, anything else copied; no NUL. */
uint64_t sb_rand_uniform_uint64(void) __asm__("lb_sb_sb_rand_uniform_uint64");
uint32_t sb_rand_default(uint32_t a, uint32_t b) __asm__("lb_sb_sb_rand_default");
uint32_t sb_rand_uniform(uint32_t a, uint32_t b) __asm__("lb_sb_sb_rand_uniform");
uint32_t sb_rand_gaussian(uint32_t a, uint32_t b) __asm__("lb_sb_sb_rand_gaussian");
uint32_t sb_rand_special(uint32_t a, uint32_t b) __asm__("lb_sb_sb_rand_special");
uint32_t sb_rand_pareto(uint32_t a, uint32_t b) __asm__("lb_sb_sb_rand_pareto");
uint32_t sb_rand_unique(void) __asm__("lb_sb_sb_rand_unique");
void sb_rand_str(const char *fmt, char *buf) __asm__("lb_sb_sb_rand_str");
double sb_rand_uniform_double(void) __asm__("lb_sb_sb_rand_uniform_double");

/* Histograms (sb_histogram.h).  NULL on a bad range or no memory.  Updates
 * from several threads are serialised (a mutex per histogram). */
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max) __asm__("lb_sb_sb_histogram_new");
void sb_histogram_delete(sb_histogram_t *h) __asm__("lb_sb_sb_histogram_delete");
void sb_histogram_update(sb_histogram_t *h, double value) __asm__("lb_sb_sb_histogram_update");
void sb_histogram_print(sb_histogram_t *h) __asm__("lb_sb_sb_histogram_print");

/* Options (sb_lua.c, sysbench.c).  sb_lua_set_test_args keeps a copy of
 * the declarations for the binding's Lua state to read back
 * (lb_sb_test_arg); sb_print_test_options prints the help text the Lua
 * side registered (lb_sb_set_help). */
int sb_lua_set_test_args(sb_arg_t *args, size_t len) __asm__("lb_sb_sb_lua_set_test_args");
void sb_print_test_options(void) __asm__("lb_sb_sb_print_test_options");

/* lbench's side: the settings behind sb_rand_default and friends. */
enum { LB_SB_RAND_UNIFORM, LB_SB_RAND_GAUSSIAN, LB_SB_RAND_SPECIAL, LB_SB_RAND_PARETO, LB_SB_RAND_ZIPFIAN };
typedef struct lb_sb_rand_cfg {
    int32_t type;            /* LB_SB_RAND_*: --rand-type */
    int32_t gaussian_iter;   /* --rand-spec-iter */
    double special_pct;      /* --rand-spec-pct */
    double special_res;      /* --rand-spec-res */
    double pareto_h;         /* --rand-pareto-h */
    double zipf_exp;         /* --rand-zipfian-exp */
} lb_sb_rand_cfg;

/* Bind the calling thread: its output (the runtime's, lb_runtime_run_host;
 * NULL: none), its worker (NULL in the main state), the random stream and
 * settings of its Lua state.  Each pointer must outlive the thread's use
 * of the sb_* calls; a new bind replaces the old one (and drops its test
 * arguments and help text). */
void lb_sb_bind(const lb_run_host *out, lb_worker *w, lb_rand *r, const lb_sb_rand_cfg *cfg);
/* The help text sb_print_test_options prints (copied; NULL clears). */
void lb_sb_set_help(const char *text);
/* Test arguments kept by sb_lua_set_test_args: how many, and the i-th
 * (NULL past the end). */
int lb_sb_test_arg_count(void);
const sb_arg_t *lb_sb_test_arg(int i);
/* FFI END */

/* The worker bound to the calling thread (NULL outside a worker), for the
 * SQL half of the surface (sbsql.c). */
lb_worker *lb_sb_worker(void);

#endif
