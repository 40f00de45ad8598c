/* sbcompat — sysbench 1.0.20's C functions on lbench's core (see the
 * header for the mapping). */
#include "sbcompat.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clock.h"
#include "../db/db.h"
#include "../run.h"

/* What one thread's sb_* calls reach: set by its Lua state (lb_sb_bind). */
typedef struct binding {
    lb_run_host out;      /* where sysbench's printing goes: the runtime's output */
    lb_worker *w;
    lb_rand *rand;
    lb_sb_rand_cfg cfg;
    char *help;
    sb_arg_t *args;
    int nargs;
} binding;

static _Thread_local binding tls;
/* A stream for a thread that never bound one (a C program calling sb_* on
 * its own thread): seeded from the clock on first use. */
static _Thread_local lb_rand fallback_rand;
static _Thread_local int fallback_seeded;

static void free_args(void)
{
    for (int i = 0; i < tls.nargs; i++) {
        free((char *)tls.args[i].name);
        free((char *)tls.args[i].desc);
        free((char *)tls.args[i].value);
    }
    free(tls.args);
    tls.args = NULL;
    tls.nargs = 0;
}

void lb_sb_bind(const lb_run_host *out, lb_worker *w, lb_rand *r, const lb_sb_rand_cfg *cfg)
{
    free_args();
    free(tls.help);
    tls.help = NULL;
    tls.out = out ? *out : (lb_run_host){ 0 };
    tls.w = w;
    tls.rand = r;
    if (cfg)
        tls.cfg = *cfg;
    else
        tls.cfg = (lb_sb_rand_cfg){ LB_SB_RAND_SPECIAL, LB_RAND_GAUSSIAN_ITER, LB_RAND_SPECIAL_PCT,
                                    LB_RAND_SPECIAL_RES, LB_RAND_PARETO_H, LB_RAND_ZIPF_THETA };
}

lb_worker *lb_sb_worker(void) { return tls.w; }

/* ---- events ------------------------------------------------------------ */

bool sb_more_events(int thread_id)
{
    (void)thread_id;
    /* 2 (wait for the intended start in an event loop) needs async mode,
     * where a thread_run of the script's own is refused. */
    return tls.w != NULL && lb_worker_ev_begin(tls.w) == 1;
}

void sb_event_start(int thread_id)
{
    (void)thread_id;
    if (tls.w)
        lb_worker_ev_start(tls.w);
}

void sb_event_stop(int thread_id)
{
    (void)thread_id;
    if (tls.w)
        lb_worker_ev_end(tls.w);
}

/* ---- counters ---------------------------------------------------------- */

/* The lbench counter behind a sysbench counter type, or NULL. */
static uint64_t *counter_of(lb_stats *st, sb_counter_type type)
{
    lb_db_stats *db = (lb_db_stats *)&st->ext;
    switch (type) {
    case SB_CNT_READ: return &db->queries[LB_DB_Q_SELECT];
    case SB_CNT_WRITE: return &db->writes_other;
    case SB_CNT_OTHER: return &db->queries[LB_DB_Q_OTHER];
    case SB_CNT_TRX: return &st->events;
    case SB_CNT_ERROR: return &st->restarts;
    case SB_CNT_RECONNECT: return &db->reconnects;
    default: return NULL;
    }
}

void sb_counter_inc(int thread_id, sb_counter_type type)
{
    (void)thread_id;
    if (!tls.w)
        return;
    if (type == SB_CNT_ERROR) {
        /* An ignored error restarts the event: counted as lbench counts
         * its own restarts (per type too). */
        lb_worker_ev_restart(tls.w);
        return;
    }
    uint64_t *p = counter_of(lb_worker_stats(tls.w), type);
    if (p)
        lb_stats_bump(p, 1);
}

uint64_t sb_counter_val(int thread_id, sb_counter_type type)
{
    (void)thread_id;
    if (!tls.w)
        return 0;
    lb_stats *st = lb_worker_stats(tls.w);
    if (type == SB_CNT_WRITE) {
        /* Every write the thread made: classified ones and counted ones. */
        lb_db_stats *db = (lb_db_stats *)&st->ext;
        return db->queries[LB_DB_Q_INSERT] + db->queries[LB_DB_Q_UPDATE] + db->queries[LB_DB_Q_DELETE] +
               db->writes_other;
    }
    uint64_t *p = counter_of(st, type);
    return p ? __atomic_load_n(p, __ATOMIC_RELAXED) : 0;
}

/* ---- random numbers ---------------------------------------------------- */

static lb_rand *stream(void)
{
    if (tls.rand)
        return tls.rand;
    if (!fallback_seeded) {
        lb_rand_seed(&fallback_rand, (uint64_t)lb_clock_ns(), 0);
        fallback_seeded = 1;
    }
    return &fallback_rand;
}

uint64_t sb_rand_uniform_uint64(void) { return lb_rand_next(stream()); }
double sb_rand_uniform_double(void) { return lb_rand_double(stream()); }
uint32_t sb_rand_uniform(uint32_t a, uint32_t b) { return (uint32_t)lb_rand_uniform(stream(), a, b); }
uint32_t sb_rand_unique(void) { return lb_rand_unique(stream()); }

uint32_t sb_rand_gaussian(uint32_t a, uint32_t b)
{
    return (uint32_t)lb_rand_gaussian(stream(), a, b, tls.rand ? tls.cfg.gaussian_iter : LB_RAND_GAUSSIAN_ITER);
}

uint32_t sb_rand_special(uint32_t a, uint32_t b)
{
    if (!tls.rand)
        return (uint32_t)lb_rand_special(stream(), a, b, LB_RAND_SPECIAL_PCT, LB_RAND_SPECIAL_RES,
                                         LB_RAND_GAUSSIAN_ITER);
    return (uint32_t)lb_rand_special(stream(), a, b, tls.cfg.special_pct, tls.cfg.special_res,
                                     tls.cfg.gaussian_iter);
}

uint32_t sb_rand_pareto(uint32_t a, uint32_t b)
{
    return (uint32_t)lb_rand_pareto(stream(), a, b, tls.rand ? tls.cfg.pareto_h : LB_RAND_PARETO_H);
}

uint32_t sb_rand_default(uint32_t a, uint32_t b)
{
    switch (tls.rand ? tls.cfg.type : LB_SB_RAND_SPECIAL) {
    case LB_SB_RAND_UNIFORM: return sb_rand_uniform(a, b);
    case LB_SB_RAND_GAUSSIAN: return sb_rand_gaussian(a, b);
    case LB_SB_RAND_PARETO: return sb_rand_pareto(a, b);
    case LB_SB_RAND_ZIPFIAN: return (uint32_t)lb_rand_zipfian(stream(), a, b, tls.cfg.zipf_exp);
    default: return sb_rand_special(a, b);
    }
}

void sb_rand_str(const char *fmt, char *buf)
{
    lb_rand_string(stream(), fmt, strlen(fmt), buf);
}

/* ---- histograms -------------------------------------------------------- */

/* sysbench's bounded histogram: `size` buckets, logarithmic between min
 * and max (bucket i holds values near exp(i / mult + log(min))); values
 * outside fall into the first or last bucket. */
struct histogram {
    pthread_mutex_t mu;
    size_t size;
    double log_min, mult;
    uint64_t *count;
};

sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max)
{
    if (size < 2 || !(range_min > 0) || !(range_max > range_min))
        return NULL;
    sb_histogram_t *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->count = calloc(size, sizeof(uint64_t));
    if (!h->count) {
        free(h);
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    h->size = size;
    h->log_min = log(range_min);
    h->mult = (double)(size - 1) / (log(range_max) - h->log_min);
    return h;
}

void sb_histogram_delete(sb_histogram_t *h)
{
    if (!h)
        return;
    pthread_mutex_destroy(&h->mu);
    free(h->count);
    free(h);
}

void sb_histogram_update(sb_histogram_t *h, double value)
{
    double x = value > 0 ? floor((log(value) - h->log_min) * h->mult + 0.5) : 0;
    size_t i = x < 0 || x != x ? 0 : x >= (double)h->size ? h->size - 1 : (size_t)x;
    pthread_mutex_lock(&h->mu);
    h->count[i]++;
    pthread_mutex_unlock(&h->mu);
}

void sb_histogram_print(sb_histogram_t *h)
{
    static const char stars[] = "****************************************";
    pthread_mutex_lock(&h->mu);
    uint64_t maxcnt = 0;
    for (size_t i = 0; i < h->size; i++)
        if (h->count[i] > maxcnt)
            maxcnt = h->count[i];
    if (maxcnt > 0 && tls.out.out) {
        char line[128];
        int n = snprintf(line, sizeof(line), "       value  ------------- distribution ------------- count\n");
        tls.out.out(tls.out.owner, line, (size_t)n);
        for (size_t i = 0; i < h->size; i++) {
            if (!h->count[i])
                continue;
            int width = (int)floor((double)h->count[i] * 40 / (double)maxcnt + 0.5);
            n = snprintf(line, sizeof(line), "%12.3f |%-40.*s %llu\n", exp((double)i / h->mult + h->log_min), width,
                         stars, (unsigned long long)h->count[i]);
            tls.out.out(tls.out.owner, line, (size_t)n);
        }
    }
    pthread_mutex_unlock(&h->mu);
}

/* ---- options ----------------------------------------------------------- */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int sb_lua_set_test_args(sb_arg_t *args, size_t len)
{
    free_args();
    if (len == 0)
        return 0;
    tls.args = calloc(len, sizeof(sb_arg_t));
    if (!tls.args)
        return 1;
    for (size_t i = 0; i < len; i++) {
        sb_arg_t *a = &tls.args[i];
        a->name = dup_or_null(args[i].name);
        a->desc = dup_or_null(args[i].desc);
        a->value = dup_or_null(args[i].value);
        a->type = args[i].type;
        a->validate = args[i].validate;
        tls.nargs = (int)i + 1;
        if ((args[i].name && !a->name) || (args[i].desc && !a->desc) || (args[i].value && !a->value))
            return 1;
    }
    return 0;
}

int lb_sb_test_arg_count(void) { return tls.nargs; }

const sb_arg_t *lb_sb_test_arg(int i) { return i >= 0 && i < tls.nargs ? &tls.args[i] : NULL; }

void lb_sb_set_help(const char *text)
{
    free(tls.help);
    tls.help = dup_or_null(text);
}

void sb_print_test_options(void)
{
    if (tls.help && tls.out.out)
        tls.out.out(tls.out.owner, tls.help, strlen(tls.help));
}
