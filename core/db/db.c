/* Driver-independent database layer: registry, connections, statements,
 * results, errors and accounting.  See db.h for the contracts.
 *
 * Design notes:
 *  - Drivers never see lb_db_stats; every driver call goes through a wrapper
 *    here that classifies, counts and (optionally) logs, so all drivers are
 *    accounted identically and the null driver measures exactly this layer.
 *  - A connection has at most one live result (from a query or from one of
 *    its statements).  Any new query/execute releases it first; this keeps
 *    the client library in sync without the caller having to free results.
 *  - Hot paths (lb_db_query, lb_db_stmt_execute, fetch) take no lock and do
 *    not allocate; the mutex only orders connection teardown/creation
 *    against lb_db_conn_abort() from the watchdog thread.
 */
#include "db.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BULK_DEFAULT_MAX (512u * 1024u)

struct lb_db_result {
    lb_db_conn *c;
    void *h;                    /* driver handle, NULL = nothing to fetch */
    int (*fetch)(void *h, const char *const **v, const unsigned long **l, lb_db_error *err);
    void (*free)(void *h);
    int64_t nrows;
    int nfields;
};

struct lb_db_stmt {
    lb_db_conn *c;
    lb_db_stmt *prev, *next;    /* connection's list, for re-prepare on reconnect */
    void *drv;                  /* driver statement; NULL if emulated or not (re)prepared */
    char *sql;                  /* own copy, NUL-terminated */
    size_t len;
    int type;                   /* LB_DB_Q_*, classified once */
    int emulated;               /* client-side parameter substitution */
    int nparams;
    int nbound;                 /* 0 until bind_param */
    lb_db_bind *params;         /* caller's array */
    size_t *ph;                 /* emulated: offsets of the '?' in sql */
    char *ebuf;                 /* emulated: SQL text of the last execute */
    size_t ecap;
    lb_db_result result;
};

struct lb_db_conn {
    const lb_db_driver_ops *ops;
    void *drv;                  /* written by the owner under `lock` only */
    lb_db_stats *st;
    lb_db_conn_opts opts;       /* strings point into `strs` */
    char *strs;
    lb_db_result result;        /* query results */
    lb_db_result *cur;          /* the live result, or NULL */
    void *last_ds;              /* driver stmt of the last execute, for affected rows */
    lb_db_stmt *stmts;
    pthread_mutex_t lock;
    int aborted;                /* under `lock` */
    /* bulk insert */
    char *bulk;
    size_t blen, bcap, bprefix;
    uint64_t brows;
    size_t bmax;
    int btype;
    int bactive;
    /* debug log */
    char *dbg;
    size_t dbgcap;
    lb_db_error err;
    /* the non-blocking operation in progress (AOP_NONE: none) */
    int aop;
    int atype;                  /* query: LB_DB_Q_* */
    lb_db_result *atarget;      /* query: where the result goes */
    const char *asql;           /* query: the caller's SQL, for errors */
    size_t alen;
    lb_db_stmt *astmt;          /* prepare / execute */
    lb_db_stmt *aprepared;      /* last completed prepare */
    void *adrv;                 /* connect: the driver connection being set up */
};

enum { AOP_NONE, AOP_CONNECT, AOP_RECONNECT, AOP_QUERY, AOP_PREPARE, AOP_REPREPARE, AOP_EXECUTE };

/* ------------------------------------------------------------------------ */
/* Registry                                                                 */
/* ------------------------------------------------------------------------ */

static const lb_db_driver_ops *const registry[] = {
#ifndef LB_DB_NO_MYSQL
    &lb__db_mysql_ops,
#endif
    &lb__db_null_ops,
};
#define NREG (sizeof registry / sizeof registry[0])

/* A table is usable if every required op is present and the statement ops
 * are either all present or absent as a group (prepare NULL = emulate). */
static int driver_valid(const lb_db_driver_ops *d)
{
    if (!d || !d->name || !d->connect || !d->disconnect || !d->abort ||
        !d->server_version || !d->query || !d->next_result || !d->fetch ||
        !d->free_result)
        return 0;
    if (d->prepare && (!d->stmt_bind || !d->stmt_execute || !d->stmt_fetch ||
                       !d->stmt_free_result || !d->stmt_close))
        return 0;
    /* Non-blocking ops: all or none. */
    int na = !!d->connect_start + !!d->query_start + !!d->cont + !!d->fd + !!d->timeout_ms;
    if (na != 0 && na != 5)
        return 0;
    if (na && d->prepare && (!d->prepare_start || !d->stmt_execute_start))
        return 0;
    return 1;
}

static int has_async(const lb_db_driver_ops *d)
{
    return d->connect_start != NULL;
}

const lb_db_driver_ops *lb_db_driver_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->name && strcmp(registry[i]->name, name) == 0)
            return driver_valid(registry[i]) ? registry[i] : NULL;
    return NULL;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_rc;

static void global_init_once(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (driver_valid(registry[i]) && registry[i]->global_init &&
            registry[i]->global_init() != 0)
            global_rc = -1;
}

/* Once per process, and only when a connection is first made: a run that
 * never touches a database (fileio, a CPU-only script) does not pay for
 * the client library's start-up (Connector/C initialises OpenSSL and reads
 * its configuration: about a millisecond of CPU). */
int lb_db_global_init(void)
{
    pthread_once(&global_once, global_init_once);
    return global_rc;
}

void lb_db_global_done(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->global_done)
            registry[i]->global_done();
}

void lb_db_thread_done(void)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i]->thread_done)
            registry[i]->thread_done();
}

/* ------------------------------------------------------------------------ */
/* Stats                                                                    */
/* ------------------------------------------------------------------------ */

/* Single-writer update: the owner is the only thread storing to the block,
 * so load+store is not a lost-update race, and the relaxed store keeps the
 * reporter's concurrent relaxed loads free of data races (and of the cost
 * of a locked RMW on the hot path). */
static inline void st_add(uint64_t *p, uint64_t n)
{
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

void lb_db_stats_init(lb_db_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    st->err[LB_DB_ERRSLOTS - 1].code = -1;
}

static void count_error(lb_db_stats *st, int code)
{
    if (!st)
        return;
    st_add(&st->errors, 1);
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
            st_add(&st->err[i].count, 1);
            return;
        }
    }
    if (st->err[LB_DB_ERRSLOTS - 1].code != -1)
        __atomic_store_n(&st->err[LB_DB_ERRSLOTS - 1].code, -1, __ATOMIC_RELAXED);
    st_add(&st->err[LB_DB_ERRSLOTS - 1].count, 1);
}

/* ------------------------------------------------------------------------ */
/* SQL scanning: classification and placeholders                            */
/* ------------------------------------------------------------------------ */

static int is_space(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static int is_ident(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9') || ch == '_' || ch == '$' || ch >= 0x80;
}

/* If a comment starts at i, return the index after it, else i.  MySQL's
 * "--" only opens a comment when followed by whitespace/control or end. */
static size_t skip_comment(const char *s, size_t n, size_t i)
{
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
        size_t j = i + 2;
        while (j + 1 < n && !(s[j] == '*' && s[j + 1] == '/'))
            j++;
        return j + 1 < n ? j + 2 : n;
    }
    if ((i + 1 < n && s[i] == '-' && s[i + 1] == '-' &&
         (i + 2 >= n || (unsigned char)s[i + 2] <= ' ')) || (i < n && s[i] == '#')) {
        while (i < n && s[i] != '\n')
            i++;
        return i;
    }
    return i;
}

/* Skip whitespace and comments (and '(' if `parens`). */
static size_t skip_junk(const char *s, size_t n, size_t i, int parens)
{
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        if (is_space(ch) || (parens && ch == '(')) {
            i++;
            continue;
        }
        size_t j = skip_comment(s, n, i);
        if (j == i)
            break;
        i = j;
    }
    return i;
}

/* s[i] is a quote char: return the index after the closing quote.  Inside
 * '...' and "..." a backslash escapes the next byte; a doubled quote is
 * simply a close followed by a new open, which this handles naturally. */
static size_t skip_quoted(const char *s, size_t n, size_t i)
{
    char q = s[i++];
    while (i < n) {
        if (s[i] == '\\' && q != '`') {
            i += 2;
            continue;
        }
        if (s[i] == q)
            return i + 1;
        i++;
    }
    return n;
}

/* s[i] == '(': return the index after the matching ')'. */
static size_t skip_parens(const char *s, size_t n, size_t i)
{
    int depth = 0;
    while (i < n) {
        char ch = s[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            i = skip_quoted(s, n, i);
            continue;
        }
        size_t j = skip_comment(s, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        i++;
        if (ch == '(')
            depth++;
        else if (ch == ')' && --depth == 0)
            return i;
    }
    return n;
}

static size_t word_at(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && is_ident((unsigned char)s[j]))
        j++;
    return j - i;
}

static int word_is(const char *s, size_t wl, const char *kw)
{
    return strlen(kw) == wl && strncasecmp(s, kw, wl) == 0;
}

static int classify_at(const char *s, size_t n, size_t i, int depth);

/* After "WITH": skip "[RECURSIVE] name [(cols)] AS (...) [, ...]" and
 * classify the statement that follows; anything unexpected is a SELECT,
 * the overwhelmingly common case. */
static int classify_with(const char *s, size_t n, size_t i, int depth)
{
    i = skip_junk(s, n, i, 0);
    size_t wl = word_at(s, n, i);
    if (word_is(s + i, wl, "recursive"))
        i += wl;
    for (;;) {
        i = skip_junk(s, n, i, 0);
        if (i < n && s[i] == '`')
            i = skip_quoted(s, n, i);
        else if ((wl = word_at(s, n, i)) > 0)
            i += wl;
        else
            return LB_DB_Q_SELECT;
        i = skip_junk(s, n, i, 0);
        if (i < n && s[i] == '(') {
            i = skip_parens(s, n, i);
            i = skip_junk(s, n, i, 0);
        }
        wl = word_at(s, n, i);
        if (!word_is(s + i, wl, "as"))
            return LB_DB_Q_SELECT;
        i = skip_junk(s, n, i + wl, 0);
        if (i >= n || s[i] != '(')
            return LB_DB_Q_SELECT;
        i = skip_junk(s, n, skip_parens(s, n, i), 0);
        if (i < n && s[i] == ',') {
            i++;
            continue;
        }
        break;
    }
    int t = classify_at(s, n, i, depth + 1);
    return t == LB_DB_Q_OTHER ? LB_DB_Q_SELECT : t;
}

static int classify_at(const char *s, size_t n, size_t i, int depth)
{
    i = skip_junk(s, n, i, 1);
    size_t wl = word_at(s, n, i);
    const char *w = s + i;
    if (wl < 4 || wl > 9)
        return LB_DB_Q_OTHER;
    switch (w[0] | 0x20) {
    case 's':
        if (word_is(w, wl, "select")) return LB_DB_Q_SELECT;
        break;
    case 'i':
        if (word_is(w, wl, "insert")) return LB_DB_Q_INSERT;
        break;
    case 'r':
        if (word_is(w, wl, "replace")) return LB_DB_Q_INSERT;
        break;
    case 'u':
        if (word_is(w, wl, "update")) return LB_DB_Q_UPDATE;
        break;
    case 'd':
        if (word_is(w, wl, "delete")) return LB_DB_Q_DELETE;
        break;
    case 't':
        if (word_is(w, wl, "table")) return LB_DB_Q_SELECT;
        break;
    case 'v':
        if (word_is(w, wl, "values")) return LB_DB_Q_SELECT;
        break;
    case 'w':
        if (word_is(w, wl, "with"))
            return depth < 8 ? classify_with(s, n, i + wl, depth) : LB_DB_Q_SELECT;
        break;
    }
    return LB_DB_Q_OTHER;
}

int lb_db_classify(const char *sql, size_t len)
{
    if (!sql)
        return LB_DB_Q_OTHER;
    return classify_at(sql, len, 0, 0);
}

/* Walk the placeholders; store their offsets in `out` if not NULL. */
static int scan_placeholders(const char *s, size_t n, size_t *out)
{
    int count = 0;
    size_t i = 0;
    while (i < n) {
        char ch = s[i];
        if (ch == '\'' || ch == '"' || ch == '`') {
            i = skip_quoted(s, n, i);
            continue;
        }
        size_t j = skip_comment(s, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (ch == '?') {
            if (out)
                out[count] = i;
            count++;
        }
        i++;
    }
    return count;
}

int lb__db_count_placeholders(const char *sql, size_t len)
{
    return sql ? scan_placeholders(sql, len, NULL) : 0;
}

/* ------------------------------------------------------------------------ */
/* Errors and debug log                                                     */
/* ------------------------------------------------------------------------ */

void lb__db_error_set(lb_db_error *err, int code, const char *sqlstate, const char *msg)
{
    if (!err)
        return;
    err->code = code;
    snprintf(err->sqlstate, sizeof err->sqlstate, "%s", sqlstate && *sqlstate ? sqlstate : "HY000");
    snprintf(err->message, sizeof err->message, "%s", msg ? msg : "");
    err->query[0] = '\0';
}

int lb_db_error_is_connection_lost(int code)
{
    switch (code) {
    case 1053: /* ER_SERVER_SHUTDOWN */
    case 1927: /* ER_CONNECTION_KILLED (MariaDB) */
    case 2001: /* CR_SOCKET_CREATE_ERROR */
    case 2002: /* CR_CONNECTION_ERROR */
    case 2003: /* CR_CONN_HOST_ERROR */
    case 2005: /* CR_UNKNOWN_HOST */
    case 2006: /* CR_SERVER_GONE_ERROR */
    case 2011: /* CR_TCP_CONNECTION */
    case 2013: /* CR_SERVER_LOST */
    case 2026: /* CR_SSL_CONNECTION_ERROR */
    case 2055: /* CR_SERVER_LOST_EXTENDED */
    case 4031: /* ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8) */
    case 5013: /* CR_ERR_NET_READ (MariaDB C/C) */
    case 5014: /* CR_ERR_NET_WRITE (MariaDB C/C) */
    case LB_DB_E_NOTCONN:
        return 1;
    default:
        return 0;
    }
}

/* Format a debug message into the connection's reusable buffer and hand it
 * to the sink.  Only reached when a sink is set, so it may allocate. */
__attribute__((format(printf, 2, 3)))
static void dbgf(lb_db_conn *c, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(c->dbg ? c->dbg : small, c->dbg ? c->dbgcap : sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t cap = c->dbg ? c->dbgcap : sizeof small;
    if ((size_t)n >= cap) {
        char *nb = realloc(c->dbg, (size_t)n + 1);
        if (nb) {
            c->dbg = nb;
            c->dbgcap = (size_t)n + 1;
            va_start(ap, fmt);
            vsnprintf(c->dbg, c->dbgcap, fmt, ap);
            va_end(ap);
        } else if (!c->dbg) {
            small[sizeof small - 1] = '\0';
        }
    }
    c->opts.debug(c->opts.debug_ud, c->dbg ? c->dbg : small);
}

static int dlen(size_t len)
{
    return len > (size_t)0x7fffffff ? 0x7fffffff : (int)len;
}

/* Record a failure of the current operation: fill in the query, count it,
 * log it; returns the value the API call returns (-code). */
static int fail(lb_db_conn *c, const char *sql, size_t len, int counted)
{
    lb_db_error *e = &c->err;
    if (e->code <= 0) {
        e->code = LB_DB_E_UNKNOWN;
        if (!e->message[0])
            snprintf(e->message, sizeof e->message, "driver reported an error without a code");
    }
    if (!e->sqlstate[0])
        memcpy(e->sqlstate, "HY000", 6);
    size_t q = len < sizeof e->query - 1 ? len : sizeof e->query - 1;
    if (q)
        memcpy(e->query, sql, q);
    e->query[q] = '\0';
    if (counted)
        count_error(c->st, e->code);
    if (c->opts.debug)
        dbgf(c, "error %d (%s): %s; query: %.*s", e->code, e->sqlstate, e->message, dlen(len), sql ? sql : "");
    return -e->code;
}

static int fail_code(lb_db_conn *c, int code, const char *msg, const char *sql, size_t len, int counted)
{
    lb__db_error_set(&c->err, code, "HY000", msg);
    return fail(c, sql, len, counted);
}

/* ------------------------------------------------------------------------ */
/* Connections                                                              */
/* ------------------------------------------------------------------------ */

void lb_db_conn_opts_init(lb_db_conn_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->ssl_mode = LB_DB_SSL_DISABLED;
    o->ps_mode = LB_DB_PS_AUTO;
}

int lb_db_ssl_mode_parse(const char *s)
{
    static const struct { const char *n; int v; } t[] = {
        {"disabled", LB_DB_SSL_DISABLED}, {"off", LB_DB_SSL_DISABLED},
        {"preferred", LB_DB_SSL_PREFERRED}, {"required", LB_DB_SSL_REQUIRED},
        {"on", LB_DB_SSL_REQUIRED}, {"verify_ca", LB_DB_SSL_VERIFY_CA},
        {"verify_identity", LB_DB_SSL_VERIFY_IDENTITY},
    };
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcasecmp(s, t[i].n) == 0)
            return t[i].v;
    return -1;
}

int lb_db_ps_mode_parse(const char *s)
{
    if (!s)
        return -1;
    if (strcasecmp(s, "auto") == 0)
        return LB_DB_PS_AUTO;
    if (strcasecmp(s, "disable") == 0)
        return LB_DB_PS_DISABLE;
    return -1;
}

/* Deep-copy the option strings into one block so reconnect can reuse them
 * after the caller's (Lua) strings are gone. */
static int copy_opts(lb_db_conn *c, const lb_db_conn_opts *o)
{
    c->opts = *o;
    const char **f[] = { &c->opts.host, &c->opts.socket, &c->opts.user, &c->opts.password,
                         &c->opts.db, &c->opts.ssl_key, &c->opts.ssl_cert, &c->opts.ssl_ca,
                         &c->opts.ssl_cipher };
    size_t total = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (*f[i])
            total += strlen(*f[i]) + 1;
    if (total == 0)
        return 0;
    c->strs = malloc(total);
    if (!c->strs)
        return -1;
    char *p = c->strs;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (*f[i]) {
            size_t l = strlen(*f[i]) + 1;
            memcpy(p, *f[i], l);
            *f[i] = p;
            p += l;
        }
    return 0;
}

/* A connection object with its options, not connected. */
static lb_db_conn *conn_alloc(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                              lb_db_stats *st, lb_db_error *err)
{
    if (!driver_valid(drv) || !o) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", !o ? "no connection options" : "invalid or incomplete driver");
        return NULL;
    }
    if (o->ssl_mode < LB_DB_SSL_DISABLED || o->ssl_mode > LB_DB_SSL_VERIFY_IDENTITY ||
        (o->ps_mode != LB_DB_PS_AUTO && o->ps_mode != LB_DB_PS_DISABLE) || o->port < 0) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "invalid ssl_mode, ps_mode or port");
        return NULL;
    }
    (void)lb_db_global_init();   /* a failure shows as the connect's own error */
    lb_db_conn *c = calloc(1, sizeof *c);
    if (!c || copy_opts(c, o) != 0) {
        free(c);
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    c->ops = drv;
    c->st = st;
    c->bmax = o->bulk_max ? (size_t)o->bulk_max : BULK_DEFAULT_MAX;
    c->result.c = c;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void conn_free(lb_db_conn *c)
{
    pthread_mutex_destroy(&c->lock);
    free(c->bulk);
    free(c->strs);
    free(c->dbg);
    free(c);
}

static void debug_connect(lb_db_conn *c)
{
    if (c->opts.debug)
        dbgf(c, "connect: driver %s host %s port %d db %s", c->ops->name,
             c->opts.host ? c->opts.host : "(default)", (int)c->opts.port,
             c->opts.db ? c->opts.db : "(none)");
}

lb_db_conn *lb_db_connect(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                          lb_db_stats *st, lb_db_error *err)
{
    lb_db_conn *c = conn_alloc(drv, o, st, err);
    if (!c)
        return NULL;
    debug_connect(c);
    lb_db_error e;
    memset(&e, 0, sizeof e);
    void *d = drv->connect(&c->opts, &e);
    if (!d) {
        if (e.code <= 0)
            lb__db_error_set(&e, LB_DB_E_UNKNOWN, "HY000", "connect failed");
        if (c->opts.debug)
            dbgf(c, "error %d (%s): %s", e.code, e.sqlstate, e.message);
        if (err)
            *err = e;
        conn_free(c);
        return NULL;
    }
    c->drv = d;
    return c;
}

lb_db_conn *lb_db_conn_new(const lb_db_driver_ops *drv, const lb_db_conn_opts *o,
                           lb_db_stats *st, lb_db_error *err)
{
    return conn_alloc(drv, o, st, err);
}

/* Release the live result (query or statement), if any. */
static inline void release(lb_db_conn *c)
{
    lb_db_result *r = c->cur;
    c->cur = NULL;
    if (r->h) {
        r->free(r->h);
        r->h = NULL;
    }
}

/* Drop the server connection and the driver side of every statement.
 * Statements keep their SQL and binds for re-prepare. */
static void close_server(lb_db_conn *c)
{
    if (c->cur)
        release(c);
    pthread_mutex_lock(&c->lock);
    void *d = c->drv;
    c->drv = NULL;
    pthread_mutex_unlock(&c->lock);
    if (d)
        c->ops->disconnect(d);
    for (lb_db_stmt *s = c->stmts; s; s = s->next)
        if (s->drv) {
            c->ops->stmt_close(s->drv);
            s->drv = NULL;
        }
    c->last_ds = NULL;
}

static int stmt_setup_emulation(lb_db_stmt *s)
{
    s->emulated = 1;
    s->drv = NULL;
    int n = scan_placeholders(s->sql, s->len, NULL);
    free(s->ph);
    s->ph = NULL;
    if (n > 0) {
        s->ph = malloc((size_t)n * sizeof *s->ph);
        if (!s->ph)
            return -1;
        scan_placeholders(s->sql, s->len, s->ph);
    }
    s->nparams = n;
    return 0;
}

/* A statement whose prepare failed: not linked yet, nothing refers to it. */
static void stmt_discard(lb_db_stmt *s)
{
    free(s->ph);
    free(s->sql);
    free(s);
}

/* A prepared statement joins the connection's list, which a reconnect
 * walks to prepare every statement again. */
static void stmt_link(lb_db_conn *c, lb_db_stmt *s)
{
    s->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = s;
    c->stmts = s;
}

/* Server-side prepare of s on the live connection (first time or after a
 * reconnect), falling back to emulation when the server refuses this kind
 * of statement.  Re-binds parameters the caller had bound.  0 or -code
 * (error in c->err, not yet counted). */
static int stmt_after_prepare(lb_db_stmt *s, void *ds, int np);

static int stmt_prepare_native(lb_db_stmt *s)
{
    lb_db_conn *c = s->c;
    int np = 0;
    c->err.code = 0;
    c->err.message[0] = '\0';
    void *ds = c->ops->prepare(c->drv, s->sql, s->len, &np, &c->err);
    return stmt_after_prepare(s, ds, np);
}

/* The second half of a prepare (blocking or not): `ds` is the driver
 * statement or NULL after a failure (reason in c->err). */
static int stmt_after_prepare(lb_db_stmt *s, void *ds, int np)
{
    lb_db_conn *c = s->c;
    s->drv = ds;
    if (!s->drv) {
        if (c->err.code == LB_DB_E_UNSUPPORTED) {
            if (c->opts.debug)
                dbgf(c, "server cannot prepare it (%s), statement emulated client-side: %.*s",
                     c->err.message, dlen(s->len), s->sql);
            if (stmt_setup_emulation(s) != 0) {
                lb__db_error_set(&c->err, LB_DB_E_NOMEM, "HY001", "out of memory");
                return -LB_DB_E_NOMEM;
            }
            return 0;
        }
        return -(c->err.code > 0 ? c->err.code : LB_DB_E_UNKNOWN);
    }
    if (s->nbound && np != s->nbound) {
        c->ops->stmt_close(s->drv);
        s->drv = NULL;
        lb__db_error_set(&c->err, LB_DB_E_INVALID, "HY000", "placeholder count changed on re-prepare");
        return -LB_DB_E_INVALID;
    }
    s->nparams = np;
    if (s->nbound && c->ops->stmt_bind(s->drv, s->params, s->nbound, &c->err) != 0) {
        c->ops->stmt_close(s->drv);
        s->drv = NULL;
        return -(c->err.code > 0 ? c->err.code : LB_DB_E_UNKNOWN);
    }
    return 0;
}

int lb_db_reconnect(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    close_server(c);
    pthread_mutex_lock(&c->lock);
    c->aborted = 0;
    pthread_mutex_unlock(&c->lock);
    if (c->opts.debug)
        dbgf(c, "reconnect");
    c->err.code = 0;
    void *d = c->ops->connect(&c->opts, &c->err);
    if (!d)
        return fail(c, NULL, 0, 0);
    pthread_mutex_lock(&c->lock);
    c->drv = d;
    if (c->aborted)         /* aborted while we were connecting */
        c->ops->abort(d);
    pthread_mutex_unlock(&c->lock);
    if (c->st)
        st_add(&c->st->reconnects, 1);
    for (lb_db_stmt *s = c->stmts; s; s = s->next)
        if (!s->emulated && stmt_prepare_native(s) != 0)
            return fail(c, s->sql, s->len, 1);
    return 0;
}

void lb_db_disconnect(lb_db_conn *c)
{
    if (!c)
        return;
    if (c->opts.debug)
        dbgf(c, "disconnect");
    close_server(c);
    if (c->adrv) {
        /* A connect that never completed. */
        c->ops->disconnect(c->adrv);
        c->adrv = NULL;
    }
    lb_db_stmt *s = c->stmts;
    while (s) {
        lb_db_stmt *n = s->next;
        free(s->sql);
        free(s->ph);
        free(s->ebuf);
        free(s);
        s = n;
    }
    if (c->aop == AOP_PREPARE && c->astmt) {
        /* A new statement whose prepare never completed (not yet listed). */
        free(c->astmt->sql);
        free(c->astmt);
    }
    conn_free(c);
}

void lb_db_conn_abort(lb_db_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->aborted = 1;
    if (c->drv)
        c->ops->abort(c->drv);
    pthread_mutex_unlock(&c->lock);
}

const lb_db_error *lb_db_conn_error(lb_db_conn *c)
{
    static const lb_db_error none = { LB_DB_E_INVALID, "HY000", "no connection", "" };
    return c ? &c->err : &none;
}

const char *lb_db_driver_name(lb_db_conn *c)
{
    return c ? c->ops->name : "";
}

const char *lb_db_server_version(lb_db_conn *c)
{
    if (!c || !c->drv)
        return "";
    const char *v = c->ops->server_version(c->drv);
    return v ? v : "";
}

uint64_t lb_db_affected_rows(lb_db_conn *c)
{
    if (!c || !c->drv || !c->ops->affected_rows)
        return 0;
    return c->ops->affected_rows(c->drv, c->last_ds);
}

uint64_t lb_db_insert_id(lb_db_conn *c)
{
    if (!c || !c->drv || !c->ops->insert_id)
        return 0;
    return c->ops->insert_id(c->drv, c->last_ds);
}

/* ------------------------------------------------------------------------ */
/* Queries and results                                                      */
/* ------------------------------------------------------------------------ */

/* Account a successful query/execute and publish its result set. */
static inline void succeed(lb_db_conn *c, int type, const lb__db_rs *rs, lb_db_result *target,
                           int (*fetch)(void *, const char *const **, const unsigned long **, lb_db_error *),
                           void (*freef)(void *), int count_query)
{
    lb_db_stats *st = c->st;
    if (st) {
        if (count_query)
            st_add(&st->queries[type], 1);
        if (rs->h && rs->nrows > 0)
            st_add(&st->rows, (uint64_t)rs->nrows);
    }
    if (rs->h) {
        target->h = rs->h;
        target->fetch = fetch;
        target->free = freef;
        target->nrows = rs->nrows;
        target->nfields = rs->nfields;
        c->cur = target;
    }
}

static int run_query(lb_db_conn *c, const char *sql, size_t len, int type, lb_db_result *target)
{
    if (c->cur)
        release(c);
    if (!c->drv)
        return fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
    if (c->opts.debug)
        dbgf(c, "query: %.*s", dlen(len), sql);
    lb__db_rs rs = { NULL, 0, 0 };
    c->err.code = 0;
    if (c->ops->query(c->drv, sql, len, &rs, &c->err) != 0)
        return fail(c, sql, len, 1);
    c->last_ds = NULL;
    succeed(c, type, &rs, target, c->ops->fetch, c->ops->free_result, 1);
    return 0;
}

int lb_db_query(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c || !sql)
        return c ? fail_code(c, LB_DB_E_INVALID, "NULL query", NULL, 0, 1) : -LB_DB_E_INVALID;
    return run_query(c, sql, len, lb_db_classify(sql, len), &c->result);
}

lb_db_result *lb_db_conn_result(lb_db_conn *c)
{
    return c && c->cur == &c->result ? &c->result : NULL;
}

int lb_db_next_result(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (c->cur)
        release(c);
    if (!c->drv)
        return 0;
    lb__db_rs rs = { NULL, 0, 0 };
    c->err.code = 0;
    int rc = c->ops->next_result(c->drv, &rs, &c->err);
    if (rc < 0)
        return fail(c, NULL, 0, 1);
    if (rc == 0)
        return 0;
    succeed(c, LB_DB_Q_OTHER, &rs, &c->result, c->ops->fetch, c->ops->free_result, 0);
    return 1;
}

int64_t lb_db_result_nrows(lb_db_result *r)
{
    return r && r->h ? r->nrows : 0;
}

int lb_db_result_nfields(lb_db_result *r)
{
    return r && r->h ? r->nfields : 0;
}

int lb_db_result_fetch(lb_db_result *r, const char *const **values, const unsigned long **lengths)
{
    if (!r || !r->h)
        return 0;
    lb_db_conn *c = r->c;
    c->err.code = 0;
    int rc = r->fetch(r->h, values, lengths, &c->err);
    if (rc < 0)
        return fail(c, NULL, 0, 0);
    return rc;
}

void lb_db_result_free(lb_db_result *r)
{
    if (!r)
        return;
    if (r->c->cur == r)
        release(r->c);
}

/* ------------------------------------------------------------------------ */
/* Prepared statements                                                      */
/* ------------------------------------------------------------------------ */

/* A statement object holding its own copy of the SQL, classified once
 * (blocking and non-blocking prepare share it).  NULL on ENOMEM, with the
 * error recorded on the connection. */
static lb_db_stmt *stmt_alloc(lb_db_conn *c, const char *sql, size_t len)
{
    lb_db_stmt *s = calloc(1, sizeof *s);
    char *copy = malloc(len + 1);
    if (!s || !copy) {
        free(s);
        free(copy);
        fail_code(c, LB_DB_E_NOMEM, "out of memory", sql, len, 1);
        return NULL;
    }
    memcpy(copy, sql, len);
    copy[len] = '\0';
    s->c = c;
    s->sql = copy;
    s->len = len;
    s->type = lb_db_classify(sql, len);
    s->result.c = c;
    return s;
}

/* --db-debug line for a new statement.  It must say what happens on the
 * wire: a server-side prepare, or none at all when the statement is
 * emulated (its executes then show up as "query:" lines with the values
 * substituted). */
static void debug_prepare(lb_db_conn *c, const lb_db_stmt *s, int emulated)
{
    if (!emulated)
        dbgf(c, "prepare: %.*s", dlen(s->len), s->sql);
    else
        dbgf(c, "no server-side prepare (%s), statement emulated client-side: %.*s",
             c->opts.ps_mode == LB_DB_PS_DISABLE ? "--db-ps-mode=disable" : "driver without prepared statements",
             dlen(s->len), s->sql);
}

lb_db_stmt *lb_db_prepare(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c)
        return NULL;
    if (!sql) {
        fail_code(c, LB_DB_E_INVALID, "NULL statement", NULL, 0, 1);
        return NULL;
    }
    if (!c->drv) {
        fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
        return NULL;
    }
    lb_db_stmt *s = stmt_alloc(c, sql, len);
    if (!s)
        return NULL;
    int rc, emulate = c->opts.ps_mode == LB_DB_PS_DISABLE || !c->ops->prepare;
    if (c->opts.debug)
        debug_prepare(c, s, emulate);
    if (emulate) {
        rc = stmt_setup_emulation(s);
        if (rc != 0)
            lb__db_error_set(&c->err, LB_DB_E_NOMEM, "HY001", "out of memory");
    } else {
        rc = stmt_prepare_native(s);
    }
    if (rc != 0) {
        fail(c, sql, len, 1);
        stmt_discard(s);
        return NULL;
    }
    stmt_link(c, s);
    return s;
}

int lb_db_stmt_param_count(lb_db_stmt *s)
{
    return s ? s->nparams : 0;
}

static int valid_type(int32_t t)
{
    return t >= LB_DB_T_TINYINT && t <= LB_DB_T_VARCHAR;
}

static int is_text_type(int32_t t)
{
    return t >= LB_DB_T_TIME;   /* temporal types travel as text too */
}

int lb_db_stmt_bind_param(lb_db_stmt *s, lb_db_bind *params, int n)
{
    if (!s)
        return -LB_DB_E_INVALID;
    lb_db_conn *c = s->c;
    if (n != s->nparams || (n > 0 && !params))
        return fail_code(c, LB_DB_E_INVALID, "parameter count does not match the placeholders", s->sql, s->len, 0);
    for (int i = 0; i < n; i++)
        if (!valid_type(params[i].type))
            return fail_code(c, LB_DB_E_INVALID, "invalid parameter type", s->sql, s->len, 0);
    s->params = params;
    s->nbound = n;
    if (!s->emulated && s->drv && n > 0) {
        c->err.code = 0;
        if (c->ops->stmt_bind(s->drv, params, n, &c->err) != 0)
            return fail(c, s->sql, s->len, 0);
    }
    return 0;
}

static size_t escape_default(char *to, const char *from, size_t len)
{
    char *p = to;
    for (size_t i = 0; i < len; i++) {
        char ch = from[i], e = 0;
        switch (ch) {
        case '\0': e = '0'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\032': e = 'Z'; break;
        case '\\': e = '\\'; break;
        case '\'': e = '\''; break;
        case '"': e = '"'; break;
        }
        if (e) {
            *p++ = '\\';
            *p++ = e;
        } else {
            *p++ = ch;
        }
    }
    return (size_t)(p - to);
}

/* Shortest "%.*g" that reads back as the same double, so emulated and
 * native statements send the same value. */
static int format_double(char *buf, size_t cap, double d)
{
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return n;
}

/* Build the SQL text of an emulated statement into s->ebuf. */
static int emu_build(lb_db_stmt *s, size_t *out_len)
{
    lb_db_conn *c = s->c;
    size_t need = s->len + 1;
    for (int i = 0; i < s->nparams; i++) {
        const lb_db_bind *p = &s->params[i];
        if (p->is_null)
            need += 4;
        else if (is_text_type(p->type))
            need += 2 * (size_t)p->len + 2;
        else
            need += 32;
    }
    if (need > s->ecap) {
        size_t cap = s->ecap ? s->ecap : 256;
        while (cap < need)
            cap *= 2;
        char *nb = realloc(s->ebuf, cap);
        if (!nb) {
            lb__db_error_set(&c->err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
        s->ebuf = nb;
        s->ecap = cap;
    }
    char *o = s->ebuf;
    size_t from = 0;
    for (int i = 0; i < s->nparams; i++) {
        const lb_db_bind *p = &s->params[i];
        memcpy(o, s->sql + from, s->ph[i] - from);
        o += s->ph[i] - from;
        from = s->ph[i] + 1;
        if (p->is_null) {
            memcpy(o, "NULL", 4);
            o += 4;
            continue;
        }
        switch (p->type) {
        case LB_DB_T_TINYINT: case LB_DB_T_SMALLINT: case LB_DB_T_INT: case LB_DB_T_BIGINT:
            o += snprintf(o, 32, "%" PRId64, p->i);
            break;
        case LB_DB_T_FLOAT: case LB_DB_T_DOUBLE:
            if (!isfinite(p->d)) {
                lb__db_error_set(&c->err, LB_DB_E_INVALID, "HY000", "non-finite double has no SQL literal");
                return -1;
            }
            o += format_double(o, 32, p->d);
            break;
        default: {
            *o++ = '\'';
            long n = -1;
            if (c->ops->escape)
                n = c->ops->escape(c->drv, o, p->buf, (size_t)p->len);
            o += n >= 0 ? (size_t)n : escape_default(o, p->buf, (size_t)p->len);
            *o++ = '\'';
            break;
        }
        }
    }
    memcpy(o, s->sql + from, s->len - from);
    o += s->len - from;
    *o = '\0';
    *out_len = (size_t)(o - s->ebuf);
    return 0;
}

/* Parameters come from the caller before every execute (blocking or not):
 * check that they are bound and that text lengths fit their buffers,
 * rather than trusting them blindly. */
static int check_params(lb_db_stmt *s)
{
    lb_db_conn *c = s->c;
    if (s->nparams == 0)
        return 0;
    if (!s->nbound)
        return fail_code(c, LB_DB_E_INVALID, "parameters not bound", s->sql, s->len, 1);
    const lb_db_bind *p = s->params;
    for (int i = 0; i < s->nparams; i++)
        if (!p[i].is_null && (!valid_type(p[i].type) ||
                              (is_text_type(p[i].type) && (p[i].len > p[i].cap || (!p[i].buf && p[i].len)))))
            return fail_code(c, LB_DB_E_INVALID, "invalid parameter (type, or len > cap)", s->sql, s->len, 1);
    return 0;
}

int lb_db_stmt_execute(lb_db_stmt *s)
{
    if (!s)
        return -LB_DB_E_INVALID;
    lb_db_conn *c = s->c;
    if (c->cur)
        release(c);
    int prc = check_params(s);
    if (prc != 0)
        return prc;
    if (s->emulated) {
        if (!c->drv)
            return fail_code(c, LB_DB_E_NOTCONN, "not connected", s->sql, s->len, 1);
        size_t n;
        if (emu_build(s, &n) != 0)
            return fail(c, s->sql, s->len, 1);
        return run_query(c, s->ebuf, n, s->type, &s->result);
    }
    if (!s->drv) {
        /* The last reconnect could not re-prepare it: try again now. */
        if (!c->drv)
            return fail_code(c, LB_DB_E_NOTCONN, "not connected", s->sql, s->len, 1);
        if (stmt_prepare_native(s) != 0)
            return fail(c, s->sql, s->len, 1);
        if (s->emulated)
            return lb_db_stmt_execute(s);
    }
    if (c->opts.debug)
        dbgf(c, "execute: %.*s", dlen(s->len), s->sql);
    lb__db_rs rs = { NULL, 0, 0 };
    c->err.code = 0;
    if (c->ops->stmt_execute(s->drv, &rs, &c->err) != 0)
        return fail(c, s->sql, s->len, 1);
    c->last_ds = s->drv;
    succeed(c, s->type, &rs, &s->result, c->ops->stmt_fetch, c->ops->stmt_free_result, 1);
    return 0;
}

lb_db_result *lb_db_stmt_result(lb_db_stmt *s)
{
    return s && s->c->cur == &s->result ? &s->result : NULL;
}

void lb_db_stmt_close(lb_db_stmt *s)
{
    if (!s)
        return;
    lb_db_conn *c = s->c;
    if (c->cur == &s->result)
        release(c);
    if (s->drv) {
        if (c->last_ds == s->drv)
            c->last_ds = NULL;
        c->ops->stmt_close(s->drv);
    }
    if (s->prev)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free(s->sql);
    free(s->ph);
    free(s->ebuf);
    free(s);
}

/* ------------------------------------------------------------------------ */
/* Bulk insert                                                              */
/* ------------------------------------------------------------------------ */

static int bulk_reserve(lb_db_conn *c, size_t need)
{
    if (need <= c->bcap)
        return 0;
    size_t cap = c->bcap ? c->bcap : 4096;
    while (cap < need)
        cap *= 2;
    char *nb = realloc(c->bulk, cap);
    if (!nb)
        return -1;
    c->bulk = nb;
    c->bcap = cap;
    return 0;
}

/* Send the accumulated rows as one statement and restart after the prefix
 * (also on failure: those rows are reported lost, not retried). */
static int bulk_flush(lb_db_conn *c)
{
    if (c->brows == 0)
        return 0;
    size_t len = c->blen;
    c->blen = c->bprefix;
    c->brows = 0;
    return run_query(c, c->bulk, len, c->btype, &c->result);
}

int lb_db_bulk_insert_init(lb_db_conn *c, const char *prefix, size_t len)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!prefix || !len)
        return fail_code(c, LB_DB_E_INVALID, "empty bulk insert prefix", NULL, 0, 0);
    if (bulk_reserve(c, len + 1) != 0)
        return fail_code(c, LB_DB_E_NOMEM, "out of memory", prefix, len, 0);
    memcpy(c->bulk, prefix, len);
    c->bprefix = c->blen = len;
    c->brows = 0;
    c->btype = lb_db_classify(prefix, len);
    c->bactive = 1;
    return 0;
}

int lb_db_bulk_insert_next(lb_db_conn *c, const char *values, size_t len)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->bactive || !values)
        return fail_code(c, LB_DB_E_INVALID, "bulk insert not started", NULL, 0, 0);
    int rc = 0;
    if (c->brows > 0 && c->blen + 1 + len > c->bmax)
        rc = bulk_flush(c);
    if (bulk_reserve(c, c->blen + 1 + len) != 0)
        return fail_code(c, LB_DB_E_NOMEM, "out of memory", NULL, 0, 0);
    if (c->brows > 0)
        c->bulk[c->blen++] = ',';
    memcpy(c->bulk + c->blen, values, len);
    c->blen += len;
    c->brows++;
    return rc;
}

int lb_db_bulk_insert_done(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->bactive)
        return 0;
    int rc = bulk_flush(c);
    c->bactive = 0;
    c->blen = c->bprefix = 0;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Non-blocking operations                                                  */
/* ------------------------------------------------------------------------ */

/* Each *_start records what is in progress in c->aop; async_done finishes
 * it when the driver reports completion (at once or from lb_db_cont) with
 * the same accounting as the blocking twin.  Drivers without non-blocking
 * ops run the blocking op inside *_start, so callers need one code path. */

static int async_done(lb_db_conn *c, int rc, lb__db_async *out);

static int busy(lb_db_conn *c)
{
    return fail_code(c, LB_DB_E_INVALID, "another operation is in progress on this connection", NULL, 0, 0);
}

static int connect_begin(lb_db_conn *c, int op)
{
    c->err.code = 0;
    c->err.message[0] = '\0';
    c->aop = op;
    if (!has_async(c->ops)) {
        c->adrv = c->ops->connect(&c->opts, &c->err);
        return async_done(c, c->adrv ? 0 : -1, NULL);
    }
    void *d = NULL;
    int rc = c->ops->connect_start(&c->opts, &d, &c->err);
    c->adrv = d;
    return rc > 0 ? rc : async_done(c, rc, NULL);
}

int lb_db_connect_start(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (c->aop)
        return busy(c);
    if (c->drv)
        return 0;
    debug_connect(c);
    return connect_begin(c, AOP_CONNECT);
}

int lb_db_reconnect_start(lb_db_conn *c)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (c->aop)
        return busy(c);
    close_server(c);
    pthread_mutex_lock(&c->lock);
    c->aborted = 0;
    pthread_mutex_unlock(&c->lock);
    if (c->opts.debug)
        dbgf(c, "reconnect");
    return connect_begin(c, AOP_RECONNECT);
}

static int query_begin(lb_db_conn *c, const char *sql, size_t len, int type, lb_db_result *target)
{
    if (c->cur)
        release(c);
    if (!c->drv)
        return fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
    if (c->opts.debug)
        dbgf(c, "query: %.*s", dlen(len), sql);
    c->err.code = 0;
    c->aop = AOP_QUERY;
    c->atype = type;
    c->atarget = target;
    c->asql = sql;
    c->alen = len;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    int rc = c->ops->query_start(c->drv, sql, len, &out, &c->err);
    return rc > 0 ? rc : async_done(c, rc, &out);
}

int lb_db_query_start(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c || !sql)
        return c ? fail_code(c, LB_DB_E_INVALID, "NULL query", NULL, 0, 1) : -LB_DB_E_INVALID;
    if (c->aop)
        return busy(c);
    if (!has_async(c->ops))
        return lb_db_query(c, sql, len);
    return query_begin(c, sql, len, lb_db_classify(sql, len), &c->result);
}

int lb_db_prepare_start(lb_db_conn *c, const char *sql, size_t len)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (c->aop)
        return busy(c);
    c->aprepared = NULL;
    if (!has_async(c->ops) || c->opts.ps_mode == LB_DB_PS_DISABLE || !c->ops->prepare) {
        /* Nothing to wait for: emulated statements only parse the SQL. */
        c->aprepared = lb_db_prepare(c, sql, len);
        return c->aprepared ? 0 : -(c->err.code > 0 ? c->err.code : LB_DB_E_UNKNOWN);
    }
    if (!sql)
        return fail_code(c, LB_DB_E_INVALID, "NULL statement", NULL, 0, 1);
    if (!c->drv)
        return fail_code(c, LB_DB_E_NOTCONN, "not connected", sql, len, 1);
    lb_db_stmt *s = stmt_alloc(c, sql, len);
    if (!s)
        return -LB_DB_E_NOMEM;
    if (c->opts.debug)
        debug_prepare(c, s, 0);
    c->err.code = 0;
    c->err.message[0] = '\0';
    c->aop = AOP_PREPARE;
    c->astmt = s;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    int rc = c->ops->prepare_start(c->drv, s->sql, s->len, &out, &c->err);
    return rc > 0 ? rc : async_done(c, rc, &out);
}

lb_db_stmt *lb_db_prepared(lb_db_conn *c)
{
    return c ? c->aprepared : NULL;
}

static int exec_begin(lb_db_stmt *s)
{
    lb_db_conn *c = s->c;
    if (c->opts.debug)
        dbgf(c, "execute: %.*s", dlen(s->len), s->sql);
    c->err.code = 0;
    c->aop = AOP_EXECUTE;
    c->astmt = s;
    lb__db_async out;
    memset(&out, 0, sizeof out);
    int rc = c->ops->stmt_execute_start(s->drv, &out, &c->err);
    return rc > 0 ? rc : async_done(c, rc, &out);
}

int lb_db_stmt_execute_start(lb_db_stmt *s)
{
    if (!s)
        return -LB_DB_E_INVALID;
    lb_db_conn *c = s->c;
    if (c->aop)
        return busy(c);
    if (!has_async(c->ops))
        return lb_db_stmt_execute(s);
    if (c->cur)
        release(c);
    int prc = check_params(s);
    if (prc != 0)
        return prc;
    if (!c->drv)
        return fail_code(c, LB_DB_E_NOTCONN, "not connected", s->sql, s->len, 1);
    if (s->emulated) {
        size_t n;
        if (emu_build(s, &n) != 0)
            return fail(c, s->sql, s->len, 1);
        return query_begin(c, s->ebuf, n, s->type, &s->result);
    }
    if (!s->drv) {
        /* Unprepared since a reconnect: prepare it again first. */
        if (c->opts.debug)
            dbgf(c, "prepare: %.*s", dlen(s->len), s->sql);
        c->err.code = 0;
        c->err.message[0] = '\0';
        c->aop = AOP_REPREPARE;
        c->astmt = s;
        lb__db_async out;
        memset(&out, 0, sizeof out);
        int rc = c->ops->prepare_start(c->drv, s->sql, s->len, &out, &c->err);
        return rc > 0 ? rc : async_done(c, rc, &out);
    }
    return exec_begin(s);
}

static int async_done(lb_db_conn *c, int rc, lb__db_async *out)
{
    int op = c->aop;
    lb_db_stmt *s = c->astmt;
    c->aop = AOP_NONE;
    c->astmt = NULL;
    switch (op) {
    case AOP_CONNECT:
    case AOP_RECONNECT: {
        void *d = c->adrv;
        c->adrv = NULL;
        if (rc < 0 || !d) {
            if (d)
                c->ops->disconnect(d);
            if (c->err.code <= 0)
                lb__db_error_set(&c->err, LB_DB_E_UNKNOWN, "HY000", "connect failed");
            return fail(c, NULL, 0, 0);
        }
        pthread_mutex_lock(&c->lock);
        c->drv = d;
        if (c->aborted)         /* aborted while we were connecting */
            c->ops->abort(d);
        pthread_mutex_unlock(&c->lock);
        if (op == AOP_RECONNECT && c->st)
            st_add(&c->st->reconnects, 1);
        return 0;
    }
    case AOP_QUERY:
        if (rc < 0)
            return fail(c, c->asql, c->alen, 1);
        c->last_ds = NULL;
        succeed(c, c->atype, &out->rs, c->atarget, c->ops->fetch, c->ops->free_result, 1);
        return 0;
    case AOP_PREPARE: {
        int r = stmt_after_prepare(s, rc == 0 ? out->ds : NULL, rc == 0 ? out->nparams : 0);
        if (r != 0) {
            r = fail(c, s->sql, s->len, 1);
            stmt_discard(s);
            return r;
        }
        stmt_link(c, s);
        c->aprepared = s;
        return 0;
    }
    case AOP_REPREPARE:
        if (stmt_after_prepare(s, rc == 0 ? out->ds : NULL, rc == 0 ? out->nparams : 0) != 0)
            return fail(c, s->sql, s->len, 1);
        if (s->emulated)
            return lb_db_stmt_execute_start(s);
        return exec_begin(s);
    case AOP_EXECUTE:
        if (rc < 0)
            return fail(c, s->sql, s->len, 1);
        c->last_ds = s->drv;
        succeed(c, s->type, &out->rs, &s->result, c->ops->stmt_fetch, c->ops->stmt_free_result, 1);
        return 0;
    default:
        return fail_code(c, LB_DB_E_INVALID, "no operation in progress", NULL, 0, 0);
    }
}

int lb_db_cont(lb_db_conn *c, int ready)
{
    if (!c)
        return -LB_DB_E_INVALID;
    if (!c->aop)
        return fail_code(c, LB_DB_E_INVALID, "no operation in progress", NULL, 0, 0);
    lb__db_async out;
    memset(&out, 0, sizeof out);
    void *dc = (c->aop == AOP_CONNECT || c->aop == AOP_RECONNECT) ? c->adrv : c->drv;
    int rc = c->ops->cont(dc, ready, &out, &c->err);
    return rc > 0 ? rc : async_done(c, rc, &out);
}

int lb_db_conn_fd(lb_db_conn *c)
{
    void *dc = c ? (c->adrv ? c->adrv : c->drv) : NULL;
    return dc && has_async(c->ops) ? c->ops->fd(dc) : -1;
}

int lb_db_conn_timeout_ms(lb_db_conn *c)
{
    void *dc = c ? (c->adrv ? c->adrv : c->drv) : NULL;
    return dc && has_async(c->ops) ? c->ops->timeout_ms(dc) : 0;
}
