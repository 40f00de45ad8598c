/* MySQL driver, connections and plain results: the client library's
 * process and thread set-up, connection handles (options, TLS check,
 * abort from another thread) and query results.  Query rows are
 * handed out as the library's own MYSQL_ROW (no copy), and results are
 * stored client-side (the connection is free for the next query at once
 * and the row count is known without fetching). */
#include "mysql_driver.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static _Thread_local int thread_ready;
static int thread_key_once_failed;   /* no key: threads end the library themselves */

/* libmariadb keeps per-thread state; mysql_thread_init must run in every
 * thread that uses the library (mysql_init does it implicitly in some
 * versions, not all), so do it on first use.  A thread-specific key ends
 * it when the thread exits, so the threads that use the library (lbench's
 * workers, an embedder's) need no call of ours at their end. */
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *unused)
{
    (void)unused;
    lb__db_my_thread_done();
}

static void make_thread_key(void)
{
    if (pthread_key_create(&thread_key, thread_exit) != 0)
        thread_key_once_failed = 1;
}

void lb__db_my_thread_init(void)
{
    if (!thread_ready) {
        mysql_thread_init();
        thread_ready = 1;
        pthread_once(&thread_key_once, make_thread_key);
        if (!thread_key_once_failed)
            pthread_setspecific(thread_key, &thread_ready);
    }
}

void lb__db_my_thread_done(void)
{
    if (thread_ready) {
        mysql_thread_end();
        thread_ready = 0;
        if (!thread_key_once_failed)
            pthread_setspecific(thread_key, NULL);
    }
}

int lb__db_my_global_init(void)
{
    return mysql_library_init(0, NULL, NULL) ? -1 : 0;
}

void lb__db_my_global_done(void)
{
    mysql_library_end();
}

void lb__db_my_conn_error(lb_db_error *err, MYSQL *m)
{
    lb__db_error_set(err, (int)mysql_errno(m), mysql_sqlstate(m), mysql_error(m));
}

static void set_uint_opt(MYSQL *m, enum mysql_option opt, int32_t v)
{
    if (v > 0) {
        unsigned int u = (unsigned int)v;
        mysql_options(m, opt, &u);
    }
}

/* Allocate and set up a MYSQL handle with the options (no I/O). */
my_conn *lb__db_my_conn_init(const lb_db_conn_opts *o, lb_db_error *err)
{
    lb__db_my_thread_init();
    my_conn *mc = calloc(1, sizeof *mc);
    if (!mc) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return NULL;
    }
    mc->fd = -1;
    if (!mysql_init(&mc->m)) {
        free(mc);
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "mysql_init failed");
        return NULL;
    }
    MYSQL *m = &mc->m;
    my_bool on = 1;
    set_uint_opt(m, MYSQL_OPT_CONNECT_TIMEOUT, o->connect_timeout);
    set_uint_opt(m, MYSQL_OPT_READ_TIMEOUT, o->read_timeout);
    set_uint_opt(m, MYSQL_OPT_WRITE_TIMEOUT, o->write_timeout);
    if (o->compression)
        mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
    /* Makes mysql_stmt_fetch report columns that did not fit our buffers. */
    mysql_options(m, MYSQL_REPORT_DATA_TRUNCATION, &on);
    if (o->ssl_mode != LB_DB_SSL_DISABLED) {
        /* Connector/C has no CA-only verification: VERIFY_CA and
         * VERIFY_IDENTITY both verify the chain and the host name. */
        mysql_ssl_set(m, o->ssl_key, o->ssl_cert, o->ssl_ca, NULL, o->ssl_cipher);
        if (o->ssl_mode >= LB_DB_SSL_REQUIRED)
            mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &on);
        if (o->ssl_mode >= LB_DB_SSL_VERIFY_CA)
            mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
    }
    mc->ssl_required = o->ssl_mode >= LB_DB_SSL_REQUIRED;
    mc->load_affected = -1;
    lb__db_my_infile_install(mc);
    return mc;
}

/* After the handshake: Connector/C only refuses a TLS-less server when
 * certificate verification is on; MYSQL_OPT_SSL_ENFORCE alone falls back
 * to plain text.  "required" must not, so check what was negotiated. */
int lb__db_my_connected(my_conn *mc, lb_db_error *err)
{
    if (mc->ssl_required && mysql_get_ssl_cipher(&mc->m) == NULL) {
        lb__db_error_set(err, 2026, "HY000", "TLS/SSL error: SSL is required, but the server does not support it");
        return -1;
    }
    mc->fd = (int)mysql_get_socket(&mc->m);
    return 0;
}

void lb__db_my_disconnect(void *dc)
{
    my_conn *mc = dc;
    my_stmt *orphan = mc->op == OP_PREPARE ? mc->ast : NULL; /* a prepare that never completed */
    if (mc->res)
        mysql_free_result(mc->res);
    /* mysql_close detaches (invalidates) the connection's statements, so
     * their later mysql_stmt_close only frees client memory. */
    mysql_close(&mc->m);
    if (orphan)
        lb__db_my_stmt_close(orphan);
    lb__db_my_load_free(mc);
    free(mc);
}

void lb__db_my_abort(void *dc)
{
    my_conn *mc = dc;
    /* shutdown() rather than close(): the fd stays allocated to this
     * connection (no reuse race), and the owner's blocked read/write fails
     * at once with a lost-connection error. */
    if (mc->fd >= 0)
        shutdown(mc->fd, SHUT_RDWR);
}

const char *lb__db_my_server_version(void *dc)
{
    return mysql_get_server_info(&((my_conn *)dc)->m);
}

/* The server's status flags of the last reply, statements' included. */
static int my_in_transaction(void *dc)
{
    return (((my_conn *)dc)->m.server_status & SERVER_STATUS_IN_TRANS) != 0;
}

void lb__db_my_result_out(MYSQL_RES *r, lb__db_rs *out)
{
    out->h = r;
    out->nrows = r ? (int64_t)mysql_num_rows(r) : 0;
    out->nfields = r ? (int)mysql_num_fields(r) : 0;
}

const char *lb__db_my_field_name(void *h, int i)
{
    MYSQL_FIELD *f = mysql_fetch_field_direct((MYSQL_RES *)h, (unsigned int)i);
    return f ? f->name : NULL;
}

int lb__db_my_fetch(void *h, const char *const **values, const unsigned long **lengths, lb_db_error *err)
{
    (void)err;
    MYSQL_ROW row = mysql_fetch_row((MYSQL_RES *)h);
    if (!row)
        return 0;
    *values = (const char *const *)row;
    *lengths = mysql_fetch_lengths((MYSQL_RES *)h);
    return 1;
}

void lb__db_my_free_result(void *h)
{
    mysql_free_result((MYSQL_RES *)h);
}

uint64_t lb__db_my_affected_rows(void *dc, void *ds)
{
    my_conn *mc = dc;
    if (!ds && mc->load_affected >= 0)
        return (uint64_t)mc->load_affected;   /* a load: the sum over its statements */
    my_ulonglong n = ds ? mysql_stmt_affected_rows(((my_stmt *)ds)->st) : mysql_affected_rows(&mc->m);
    return n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
}

uint64_t lb__db_my_insert_id(void *dc, void *ds)
{
    return ds ? (uint64_t)mysql_stmt_insert_id(((my_stmt *)ds)->st)
              : (uint64_t)mysql_insert_id(&((my_conn *)dc)->m);
}

long lb__db_my_escape(void *dc, char *to, const char *from, size_t len)
{
    /* Honours the connection charset and NO_BACKSLASH_ESCAPES. */
    unsigned long n = mysql_real_escape_string(&((my_conn *)dc)->m, to, from, (unsigned long)len);
    return n == (unsigned long)-1 ? -1 : (long)n;
}

/* The driver as the core sees it (db.h). */
const lb_db_driver_ops lb__db_mysql_ops = {
    .name = "mysql",
    .global_init = lb__db_my_global_init,
    .global_done = lb__db_my_global_done,
    .thread_done = lb__db_my_thread_done,
    .disconnect = lb__db_my_disconnect,
    .abort = lb__db_my_abort,
    .server_version = lb__db_my_server_version,
    .next_result_start = lb__db_my_next_result_start,
    .fetch = lb__db_my_fetch,
    .free_result = lb__db_my_free_result,
    .affected_rows = lb__db_my_affected_rows,
    .insert_id = lb__db_my_insert_id,
    .escape = lb__db_my_escape,
    .stmt_bind = lb__db_my_stmt_bind,
    .stmt_fetch = lb__db_my_stmt_fetch,
    .stmt_free_result = lb__db_my_stmt_free_result,
    .field_name = lb__db_my_field_name,
    .stmt_field_name = lb__db_my_stmt_field_name,
    .stmt_close = lb__db_my_stmt_close,
    .connect_start = lb__db_my_connect_start,
    .query_start = lb__db_my_query_start,
    .prepare_start = lb__db_my_prepare_start,
    .stmt_execute_start = lb__db_my_stmt_execute_start,
    .in_transaction = my_in_transaction,
    .stmt_execute_blocking = lb__db_my_stmt_execute_blocking,
    .cont = lb__db_my_cont,
    .fd = lb__db_my_fd,
    .timeout_ms = lb__db_my_timeout_ms,
    .load_start = lb__db_my_load_start,
    .load_data_start = lb__db_my_load_data_start,
    .load_end_start = lb__db_my_load_end_start,
    .load_rows_start = lb__db_my_load_rows_start,
};
