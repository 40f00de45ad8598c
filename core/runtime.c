#include "runtime.h"
#include "db/db.h"

#include <dlfcn.h>
#include <lauxlib.h>
#include <lua.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "luart.h"
#include "stats.h"

#ifndef LB_VERSION
#define LB_VERSION "0.1.0"
#endif
#ifndef LB_SHARE_DIR
#define LB_SHARE_DIR "/usr/local/share/lbench"
#endif

struct lb_runtime {
    lua_State *L;                 /* the main state: options, scenario, reporter */
    lb_output_fn out;
    void *out_ud;
    lb_interval_fn on_interval;
    void *iv_ud;
    char *result;
    char error[16384];
    volatile int stop;            /* set from signal handlers (an int: a sig_atomic_t on Linux) */
    lb_run_host host;             /* the runtime as the owner of its runs */
    lb_metrics_host metrics_host; /* ... and of a metrics endpoint */
    _Atomic uint64_t progress_done, progress_total; /* prepare progress, from every worker */
    _Atomic uint64_t connect_retries; /* transient connect failures retried, from every worker */
    _Atomic uint64_t counters[LB_RUNTIME_COUNTERS]; /* a scenario's own run-wide counts */
    _Atomic int sql_used;             /* some state of this runtime loaded the SQL API */
    _Atomic(lb_db_conn *) parked;     /* the main state's idle connection kept for its server probe */
    _Atomic int parked_dropped;       /* the parked connection was closed to free its slot */
    pthread_mutex_t types_mu;     /* event types are registered from every worker state */
    pthread_mutex_t out_mu;       /* workers and the reporter write output */
    int bar_shown;                /* a progress line without its newline is on screen (under out_mu) */
    int ntypes;
    char *types[LB_MAX_TYPES];
    pthread_mutex_t hists_mu;     /* workers merge their histograms in */
    lb_hist *hists[LB_RUNTIME_HISTS];
};

const char *lb_version(void) { return LB_VERSION; }

/* Text written while a progress line is shown first clears that line, so a
 * message never continues the bar; the reporter draws the bar again at its
 * next update. */
static void clear_bar_locked(lb_runtime *rt)
{
    if (rt->bar_shown) {
        rt->out(rt->out_ud, "\r\033[K", 4);
        rt->bar_shown = 0;
    }
}

void lb_runtime_write(lb_runtime *rt, const char *s, size_t len)
{
    if (!rt || !rt->out)
        return;
    pthread_mutex_lock(&rt->out_mu);
    clear_bar_locked(rt);
    rt->out(rt->out_ud, s, len);
    pthread_mutex_unlock(&rt->out_mu);
}


void lb_runtime_write_progress(lb_runtime *rt, const char *s, size_t len)
{
    if (!rt || !rt->out)
        return;
    pthread_mutex_lock(&rt->out_mu);
    rt->out(rt->out_ud, "\r", 1);
    rt->out(rt->out_ud, s, len);
    rt->bar_shown = 1;
    pthread_mutex_unlock(&rt->out_mu);
}

void lb_runtime_emit_interval(lb_runtime *rt, const lb_interval *iv)
{
    if (rt->on_interval)
        rt->on_interval(rt->iv_ud, iv);
}

void lb_runtime_set_result(lb_runtime *rt, const char *json, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, json, len);
    copy[len] = '\0';
    free(rt->result);
    rt->result = copy;
}

int lb_runtime_stop_requested(const lb_runtime *rt) { return rt && rt->stop; }
const volatile int *lb_runtime_stop_flag(const lb_runtime *rt) { return &rt->stop; }

static void host_out(void *owner, const char *s, size_t len) { lb_runtime_write(owner, s, len); }
static int host_stop_requested(const void *owner) { return lb_runtime_stop_requested(owner); }
const lb_run_host *lb_runtime_run_host(lb_runtime *rt) { return &rt->host; }

static int host_type_count(void *owner) { return lb_runtime_type_count(owner); }
static const char *host_type_name(void *owner, int t) { return lb_runtime_type_name(owner, t); }
const lb_metrics_host *lb_runtime_metrics_host(lb_runtime *rt) { return &rt->metrics_host; }
void lb_runtime_clear_stop(lb_runtime *rt) { rt->stop = 0; }
void lb_runtime_request_stop(lb_runtime *rt)
{
    if (rt)
        rt->stop = 1;
}

int lb_runtime_type_id(lb_runtime *rt, const char *name)
{
    int id = -1;
    pthread_mutex_lock(&rt->types_mu);
    for (int i = 0; i < rt->ntypes; i++)
        if (strcmp(rt->types[i], name) == 0)
            id = i;
    if (id < 0 && rt->ntypes < LB_MAX_TYPES && (rt->types[rt->ntypes] = strdup(name)))
        id = rt->ntypes++;
    pthread_mutex_unlock(&rt->types_mu);
    return id;
}

const char *lb_runtime_type_name(lb_runtime *rt, int id)
{
    pthread_mutex_lock(&rt->types_mu);
    const char *n = id >= 0 && id < rt->ntypes ? rt->types[id] : NULL;
    pthread_mutex_unlock(&rt->types_mu);
    return n;
}

int lb_runtime_type_count(lb_runtime *rt)
{
    pthread_mutex_lock(&rt->types_mu);
    int n = rt->ntypes;
    pthread_mutex_unlock(&rt->types_mu);
    return n;
}

void lb_runtime_set_error(lb_runtime *rt, const char *msg)
{
    snprintf(rt->error, sizeof(rt->error), "%s", msg ? msg : "");
}

void lb_runtime_progress_reset(lb_runtime *rt, uint64_t total)
{
    atomic_store(&rt->progress_done, 0);
    atomic_store(&rt->progress_total, total);
}

void lb_runtime_progress_add(lb_runtime *rt, uint64_t n) { atomic_fetch_add(&rt->progress_done, n); }
void lb_runtime_progress_cb(void *rt, uint64_t n) { lb_runtime_progress_add(rt, n); }
uint64_t lb_runtime_progress_done(lb_runtime *rt) { return atomic_load(&rt->progress_done); }
uint64_t lb_runtime_progress_total(lb_runtime *rt) { return atomic_load(&rt->progress_total); }

void lb_runtime_count_connect_retry(lb_runtime *rt) { atomic_fetch_add(&rt->connect_retries, 1); }
uint64_t lb_runtime_connect_retries(lb_runtime *rt) { return atomic_load(&rt->connect_retries); }

void lb_runtime_counter_set(lb_runtime *rt, int32_t i, uint64_t v)
{
    if (i >= 0 && i < LB_RUNTIME_COUNTERS)
        atomic_store(&rt->counters[i], v);
}

void lb_runtime_counter_add(lb_runtime *rt, int32_t i, uint64_t n)
{
    if (i >= 0 && i < LB_RUNTIME_COUNTERS)
        atomic_fetch_add(&rt->counters[i], n);
}

uint64_t lb_runtime_counter_get(lb_runtime *rt, int32_t i)
{
    return i >= 0 && i < LB_RUNTIME_COUNTERS ? atomic_load(&rt->counters[i]) : 0;
}
int lb_runtime_hist_merge(lb_runtime *rt, int32_t i, const lb_hist *h)
{
    if (i < 0 || i >= LB_RUNTIME_HISTS || !h)
        return -1;
    int rc = 0;
    pthread_mutex_lock(&rt->hists_mu);
    if (!rt->hists[i])
        rt->hists[i] = lb_hist_new(lb_hist_cfg(h));
    rc = rt->hists[i] ? lb_hist_merge(rt->hists[i], h) : -1;
    pthread_mutex_unlock(&rt->hists_mu);
    return rc;
}

const lb_hist *lb_runtime_hist(lb_runtime *rt, int32_t i)
{
    if (i < 0 || i >= LB_RUNTIME_HISTS)
        return NULL;
    pthread_mutex_lock(&rt->hists_mu);
    const lb_hist *h = rt->hists[i];
    pthread_mutex_unlock(&rt->hists_mu);
    return h;
}

void lb_runtime_hists_clear(lb_runtime *rt)
{
    pthread_mutex_lock(&rt->hists_mu);
    for (int i = 0; i < LB_RUNTIME_HISTS; i++) {
        lb_hist_free(rt->hists[i]);
        rt->hists[i] = NULL;
    }
    pthread_mutex_unlock(&rt->hists_mu);
}

void lb_runtime_mark_sql(lb_runtime *rt) { atomic_store(&rt->sql_used, 1); }

int lb_runtime_sql_used(lb_runtime *rt) { return atomic_load(&rt->sql_used); }

int lb_runtime_park_conn(lb_runtime *rt, lb_db_conn *c)
{
    lb_db_conn *none = NULL;
    if (!atomic_compare_exchange_strong(&rt->parked, &none, c))
        return 0;
    atomic_store(&rt->parked_dropped, 0);
    return 1;
}

lb_db_conn *lb_runtime_take_parked(lb_runtime *rt) { return atomic_exchange(&rt->parked, NULL); }

int lb_runtime_drop_parked(lb_runtime *rt)
{
    /* The flag is up before the exchange: a worker refused at the same
     * moment finds either the connection or the flag. */
    if (atomic_load(&rt->parked) != NULL)
        atomic_store(&rt->parked_dropped, 1);
    lb_db_conn *c = atomic_exchange(&rt->parked, NULL);
    if (c)
        lb_db_disconnect(c);
    return c != NULL || atomic_load(&rt->parked_dropped);
}

int lb_runtime_files_limit(uint64_t need, uint64_t *soft, uint64_t *hard)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        struct rlimit up = rl;
        up.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) ? need : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    *soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
    *hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max;
    return *soft >= need ? 0 : -1;
}

int lb_runtime_pid(void) { return (int)getpid(); }

int lb_runtime_isatty(void) { return isatty(STDOUT_FILENO); }

const char *lb_runtime_share_dir(void) { return LB_SHARE_DIR; }

static char exe_dir[PATH_MAX];
static pthread_once_t exe_dir_once = PTHREAD_ONCE_INIT;

static void find_exe_dir(void)
{
    ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof(exe_dir) - 1);
    if (n <= 0) {
        exe_dir[0] = '\0';
        return;
    }
    exe_dir[n] = '\0';
    char *slash = strrchr(exe_dir, '/');
    if (slash)
        *slash = '\0';
}

const char *lb_runtime_exe_dir(void)
{
    /* Lets a binary run from its build tree find scenarios/ beside it.
     * Every worker state asks; compute it once. */
    pthread_once(&exe_dir_once, find_exe_dir);
    return exe_dir;
}

static char lib_dir[PATH_MAX];
static pthread_once_t lib_dir_once = PTHREAD_ONCE_INIT;

static void find_lib_dir(void)
{
    /* The file this very function was loaded from: liblbench.so when the
     * program links the shared library, else the program itself.  Its
     * real path, so that a symbolic link to the library (lib/liblbench.so
     * -> liblbench.so.0) or a relative LD_LIBRARY_PATH still names the
     * directory the installation put it in. */
    Dl_info info;
    lib_dir[0] = '\0';
    if (dladdr((void *)(uintptr_t)find_lib_dir, &info) == 0 || !info.dli_fname || !info.dli_fname[0])
        return;
    char *real = realpath(info.dli_fname, NULL);
    snprintf(lib_dir, sizeof(lib_dir), "%s", real ? real : info.dli_fname);
    free(real);
    char *slash = strrchr(lib_dir, '/');
    if (slash)
        *slash = '\0';
    else
        lib_dir[0] = '\0';
}

const char *lb_runtime_lib_dir(void)
{
    pthread_once(&lib_dir_once, find_lib_dir);
    return lib_dir;
}

/* ---- entering the main state ---------------------------------------- */

/* require("lbench.runtime")[fn](rt, args...), args strings: every public
 * entry into the runtime's Lua half; the number it returns (if any) goes
 * to *ret.  Returns 0 or -1 (rt->error set).  A command may finish (report
 * written) yet fail: it then returns a non-zero status and has set
 * rt->error through lb_runtime_set_error. */
static int call_rt(lb_runtime *rt, const char *fn, int nargs, const char *const *args, int *ret)
{
    lb__luart_arg *a = malloc(sizeof(*a) * (size_t)(nargs + 1));
    if (!a) {
        snprintf(rt->error, sizeof(rt->error), "out of memory");
        return -1;
    }
    a[0] = (lb__luart_arg){ rt, NULL };
    for (int i = 0; i < nargs; i++)
        a[i + 1] = (lb__luart_arg){ NULL, args[i] }; /* NULL: nil (a missing value) */
    rt->error[0] = '\0';
    int rc = lb__luart_call(rt->L, "lbench.runtime", fn, a, nargs + 1, ret, rt->error, sizeof(rt->error));
    free(a);
    return rc;
}

/* One line per message under one hold of out_mu: workers log at the same
 * time, and three separate writes would interleave their lines. */
void lb_runtime_debug_sink(void *ud, const char *msg)
{
    lb_runtime *rt = ud;
    if (!rt || !rt->out)
        return;
    pthread_mutex_lock(&rt->out_mu);
    clear_bar_locked(rt);
    rt->out(rt->out_ud, "debug: ", 7);
    rt->out(rt->out_ud, msg, strlen(msg));
    rt->out(rt->out_ud, "\n", 1);
    pthread_mutex_unlock(&rt->out_mu);
}

lb_runtime *lb_runtime_new(void)
{
    lb_runtime *rt = calloc(1, sizeof(*rt));
    if (!rt)
        return NULL;
    pthread_mutex_init(&rt->types_mu, NULL);
    pthread_mutex_init(&rt->out_mu, NULL);
    pthread_mutex_init(&rt->hists_mu, NULL);
    rt->host = (lb_run_host){ rt, host_out, host_stop_requested };
    rt->metrics_host = (lb_metrics_host){ rt, host_type_count, host_type_name, lb_db_metrics_lines };
    char err[1024];
    rt->L = lb__luart_new(rt, host_out, err, sizeof(err));
    if (!rt->L) {
        lb_runtime_free(rt);
        return NULL;
    }
    return rt;
}

void lb_runtime_free(lb_runtime *rt)
{
    if (!rt)
        return;
    /* before the main state, which owns the connection's stats block */
    lb_runtime_drop_parked(rt);
    lb__luart_close(rt->L);
    for (int i = 0; i < rt->ntypes; i++)
        free(rt->types[i]);
    free(rt->result);
    lb_runtime_hists_clear(rt);
    pthread_mutex_destroy(&rt->hists_mu);
    pthread_mutex_destroy(&rt->types_mu);
    pthread_mutex_destroy(&rt->out_mu);
    free(rt);
}

void lb_runtime_set_output(lb_runtime *rt, lb_output_fn fn, void *ud)
{
    rt->out = fn;
    rt->out_ud = ud;
}

void lb_runtime_set_interval_callback(lb_runtime *rt, lb_interval_fn fn, void *ud)
{
    rt->on_interval = fn;
    rt->iv_ud = ud;
}

int lb_runtime_set_option(lb_runtime *rt, const char *name, const char *value)
{
    const char *args[2] = {name, value};
    return call_rt(rt, "set_option", 2, args, NULL);
}

int lb_runtime_load(lb_runtime *rt, const char *scenario)
{
    return call_rt(rt, "load", 1, &scenario, NULL);
}

int lb_runtime_command(lb_runtime *rt, const char *command)
{
    int status = 0;
    if (call_rt(rt, "command", 1, &command, &status) != 0)
        return -1;
    return status == 0 ? 0 : -1;
}

int lb_runtime_main(lb_runtime *rt, int argc, char **argv)
{
    int status = 1;
    if (call_rt(rt, "main", argc, (const char *const *)argv, &status) != 0)
        return 1;
    return status;
}

const char *lb_runtime_result_json(const lb_runtime *rt) { return rt->result; }
const char *lb_runtime_error(const lb_runtime *rt) { return rt->error; }
