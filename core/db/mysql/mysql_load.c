/* MySQL driver, bulk loads: LOAD DATA LOCAL INFILE with the "file" served
 * from memory through Connector/C's local-infile callbacks.
 *
 * The server asks for the file once the statement runs; the callbacks
 * then hand it rows from a source (lb_rowsrc): either a generator that
 * writes them straight into Connector/C's packet buffer (load_rows), or
 * the rows a caller gave to load_data, buffered until LOAD_FLUSH bytes
 * are there and sent as one statement (so a load of many chunks is a few
 * statements, each in the caller's transaction).  The callbacks are
 * installed on every connection and refuse any LOAD DATA LOCAL that is not
 * one of these: a server can never make lbench read a local file. */
#include "mysql_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffered rows per statement: large enough that a statement's fixed cost
 * (parse, open the table, one round trip) is lost in its data. */
#define LOAD_FLUSH (4u << 20)

/* ---- local-infile callbacks ----------------------------------------------- */

static int infile_init(void **ptr, const char *filename, void *ud)
{
    (void)filename;
    my_conn *mc = ud;
    *ptr = mc;
    return mc->lsrc ? 0 : 1;
}

static int infile_read(void *ptr, char *buf, unsigned int len)
{
    my_conn *mc = ptr;
    if (len < LB_ROWSRC_MIN_CAP)
        return -1;
    return (int)mc->lsrc->fill(mc->lsrc->ud, buf, len);
}

static void infile_end(void *ptr)
{
    (void)ptr;
}

static int infile_error(void *ptr, char *msg, unsigned int len)
{
    my_conn *mc = ptr;
    snprintf(msg, len, "%s", mc && mc->lsrc ? "the row source failed"
                                             : "LOAD DATA LOCAL INFILE is only served for lbench's own bulk loads");
    return 2068; /* CR_LOAD_DATA_LOCAL_INFILE_REJECTED */
}

void lb__db_my_infile_install(my_conn *mc)
{
    unsigned int on = 1;
    mysql_options(&mc->m, MYSQL_OPT_LOCAL_INFILE, &on);
    mysql_set_local_infile_handler(&mc->m, infile_init, infile_read, infile_end, infile_error, mc);
}

/* ---- buffered rows as a source -------------------------------------------- */

/* Whole rows from lbuf[lpos..llen): up to cap bytes ending at a newline
 * (one row longer than cap is cut; the server joins the pieces). */
static size_t buffer_fill(void *ud, char *buf, size_t cap)
{
    my_conn *mc = ud;
    size_t left = mc->llen - mc->lpos;
    size_t n = left < cap ? left : cap;
    if (n < left) {
        const char *nl = memrchr(mc->lbuf + mc->lpos, '\n', n);
        if (nl)
            n = (size_t)(nl - (mc->lbuf + mc->lpos)) + 1;
    }
    memcpy(buf, mc->lbuf + mc->lpos, n);
    mc->lpos += n;
    return n;
}

/* ---- the ops ---------------------------------------------------------------- */

static int no_load(lb_db_error *err)
{
    lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no bulk load in progress");
    return -1;
}

static int keep_sql(my_conn *mc, const char *sql, size_t len, lb_db_error *err)
{
    if (len + 1 > mc->lsql_cap) {
        char *p = realloc(mc->lsql, len + 1);
        if (!p) {
            lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
        mc->lsql = p;
        mc->lsql_cap = len + 1;
    }
    memcpy(mc->lsql, sql, len);
    mc->lsql[len] = '\0';
    mc->lsql_len = len;
    return 0;
}

int lb__db_my_load_ran(my_conn *mc, int rc, uint64_t rows)
{
    mc->lsrc = NULL;
    mc->llen = mc->lpos = 0;
    if (rc != 0) {
        mc->loading = 0;
        return -1;
    }
    mc->ltotal += rows;
    if (mc->lend) {
        mc->loading = 0;
        mc->load_affected = (int64_t)mc->ltotal;
    }
    return 0;
}

/* The buffered rows as one statement (`end`: the load's last). */
static int flush(my_conn *mc, int end, lb__db_async *out, lb_db_error *err)
{
    mc->lend = end;
    if (mc->llen == 0)
        return end ? lb__db_my_load_ran(mc, 0, 0) : 0;
    mc->bufsrc.fill = buffer_fill;
    mc->bufsrc.ud = mc;
    mc->lsrc = &mc->bufsrc;
    mc->lpos = 0;
    return lb__db_my_load_run(mc, out, err);
}

int lb__db_my_load_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    my_conn *mc = dc;
    if (keep_sql(mc, sql, len, err) != 0)
        return -1;
    mc->loading = 1;
    mc->llen = mc->lpos = 0;
    mc->ltotal = 0;
    mc->load_affected = -1;
    return 0;   /* nothing to send until there are rows */
}

int lb__db_my_load_data_start(void *dc, const char *buf, size_t len, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    if (!mc->loading)
        return no_load(err);
    if (mc->llen + len > mc->lcap) {
        size_t cap = mc->lcap ? mc->lcap : LOAD_FLUSH + (64u << 10);
        while (cap < mc->llen + len)
            cap *= 2;
        char *p = realloc(mc->lbuf, cap);
        if (!p) {
            lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -1;
        }
        mc->lbuf = p;
        mc->lcap = cap;
    }
    memcpy(mc->lbuf + mc->llen, buf, len);
    mc->llen += len;
    return mc->llen >= LOAD_FLUSH ? flush(mc, 0, out, err) : 0;
}

int lb__db_my_load_end_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    my_conn *mc = dc;
    if (!mc->loading)
        return no_load(err);
    return flush(mc, 1, out, err);
}

int lb__db_my_load_rows_start(void *dc, const char *sql, size_t len, const lb_rowsrc *src, lb__db_async *out,
                              lb_db_error *err)
{
    my_conn *mc = dc;
    if (keep_sql(mc, sql, len, err) != 0)
        return -1;
    mc->loading = 1;
    mc->ltotal = 0;
    mc->lend = 1;
    mc->lsrc = src;
    return lb__db_my_load_run(mc, out, err);
}

void lb__db_my_load_free(my_conn *mc)
{
    free(mc->lsql);
    free(mc->lbuf);
}
