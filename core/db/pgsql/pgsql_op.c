/* PostgreSQL driver, operations: connect, query, next result, prepare and
 * execute, each a short state machine on libpq's asynchronous calls
 * (PQconnectStartParams/PQconnectPoll, PQsendQuery, PQsendPrepare,
 * PQsendDescribePrepared, PQsendQueryPrepared, PQsendQueryParams for the
 * unnamed statement of ps_mode extended; PQflush, PQconsumeInput,
 * PQisBusy, PQgetResult).  The connection is in libpq's nonblocking mode,
 * so nothing here waits: a step that needs the socket returns what to
 * wait for and the core calls cont() when it is ready.
 *
 * An operation collects every result libpq has for it before it ends (so
 * the connection is free for the next command): the first is the
 * operation's, the others of a multi-statement query wait for
 * next_result.  Per execute that is one send, one wait and one receive,
 * the system calls of libpq's own blocking PQexecPrepared.
 *
 * In pipeline mode (pgbench's \startpipeline) an execute only queues its
 * statement; the results wait in libpq until the pipeline's end reads
 * them all, up to its last sync, and leaves the mode (see "pipeline"). */
#include "pgsql.h"
#include "../sql.h"
#include "../../clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_IO (LB_DB_WAIT_READ | LB_DB_WAIT_WRITE)

static int op_end(pg_conn *pc, int rc)
{
    if (rc < 0 && pc->op == PG_OP_PREPARE && pc->ast)
        lb__db_pg_stmt_free(pc->ast);   /* never handed to the core */
    pc->op = PG_OP_NONE;
    pc->ast = NULL;
    pc->describing = 0;
    pc->flushing = 0;
    return rc;
}

/* End the operation with the error of `r` (NULL: the connection's). */
static int fail(pg_conn *pc, lb_db_error *err, const PGresult *r)
{
    lb__db_pg_error(err, pc->pg, r);
    lb__db_pg_drop_results(pc);
    return op_end(pc, -1);
}

static int out_of_memory(pg_conn *pc, lb_db_error *err)
{
    lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
    lb__db_pg_drop_results(pc);
    return op_end(pc, -1);
}

/* Keep result `r`: the operation's first, or one for next_result. */
static int keep(pg_conn *pc, PGresult *r)
{
    if (!pc->first) {
        pc->first = r;
        return 0;
    }
    if (pc->nmore == pc->capmore) {
        int cap = pc->capmore ? pc->capmore * 2 : 4;
        PGresult **m = realloc(pc->more, sizeof *m * (size_t)cap);
        if (!m) {
            PQclear(r);
            return -1;
        }
        pc->more = m;
        pc->capmore = cap;
    }
    pc->more[pc->nmore++] = r;
    return 0;
}

/* A plain query started a COPY: end it so that the connection stays in
 * sync (the server then reports the COPY as failed).  Bulk loads do not
 * come this way. */
static int end_copy(pg_conn *pc, PGresult *r)
{
    ExecStatusType st = PQresultStatus(r);
    PQclear(r);
    if (st == PGRES_COPY_IN || st == PGRES_COPY_BOTH) {
        if (PQputCopyEnd(pc->pg, "COPY FROM STDIN is not supported through query()") < 0)
            return -1;
        pc->flushing = 1;
        return 0;
    }
    /* COPY TO STDOUT: read the data away (a rare path; it may block). */
    char *buf;
    int n;
    while ((n = PQgetCopyData(pc->pg, &buf, 0)) > 0)
        PQfreemem(buf);
    return n == -1 ? 0 : -1;
}

/* Send what is left of a query libpq could not send at once: 0 once all
 * is sent, WAIT_IO (libpq: wait for either, consume input when readable),
 * or -1 (the operation ended with the error). */
static int flush_pending(pg_conn *pc, lb_db_error *err)
{
    if (!pc->flushing)
        return 0;
    int f = PQflush(pc->pg);
    if (f < 0)
        return fail(pc, err, NULL);
    if (f > 0)
        return WAIT_IO;
    pc->flushing = 0;
    return 0;
}

/* Send what is left, then take results until libpq has none: 0 when all
 * are in, a wait mask, or -1 (the operation ended with the error). */
static int collect(pg_conn *pc, lb_db_error *err)
{
    for (;;) {
        int w = flush_pending(pc, err);
        if (w != 0)
            return w;
        if (PQisBusy(pc->pg))
            return LB_DB_WAIT_READ;
        PGresult *r = PQgetResult(pc->pg);
        if (!r)
            return 0;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_COPY_IN && (pc->op == PG_OP_LOAD_START || pc->op == PG_OP_LOAD_ROWS)) {
            /* The server waits for the rows: the load's first step is done
             * (asking again would only repeat this result). */
            PQclear(r);
            pc->copying = 1;
            return 0;
        }
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
            if (end_copy(pc, r) != 0)
                return fail(pc, err, NULL);
        } else if (keep(pc, r) != 0) {
            return out_of_memory(pc, err);
        }
    }
}

/* The request is queued in libpq: send it and collect its results. */
static int sent(pg_conn *pc, int ok, lb_db_error *err)
{
    if (!ok)
        return fail(pc, err, NULL);
    pc->flushing = 1;
    return collect(pc, err);
}

/* A new operation: results a multi-statement query left unread go. */
static void begin(pg_conn *pc, int op, pg_stmt *ps)
{
    lb__db_pg_drop_results(pc);
    pc->op = op;
    pc->ast = ps;
    pc->describing = 0;
}

/* ---- connect ---------------------------------------------------------- */

int lb__db_pg_connect_start(const lb_db_conn_opts *o, void **dc, lb_db_error *err)
{
    pg_conn *pc = lb__db_pg_conn_start(o, err);
    *dc = pc;
    if (!pc)
        return -1;
    if (PQstatus(pc->pg) == CONNECTION_BAD) {
        lb__db_pg_error(err, pc->pg, NULL);
        return -1;
    }
    pc->op = PG_OP_CONNECT;
    /* libpq: start as if PQconnectPoll had asked to wait for writing. */
    return LB_DB_WAIT_WRITE | LB_DB_WAIT_TIMEOUT;
}

/* libpq reports connect failures as text only: give the usual ones
 * their SQLSTATE, so scripts and reports can tell them apart. */
static void connect_error(pg_conn *pc, lb_db_error *err)
{
    lb__db_pg_error(err, pc->pg, NULL);
    /* libpq's words whole, for pgbench's (one line: they end with a newline) */
    snprintf(err->report, sizeof err->report, "%s", err->message);
    /* 'connection to server at "h", port p failed: FATAL:  why': the
     * caller names the server; keep the why. */
    char *m = err->message;
    const char *why = strstr(m, " failed: ");
    if (why && strncmp(m, "connection to server", 20) == 0) {
        why += 9;
        if (strncmp(why, "FATAL:  ", 8) == 0)
            why += 8;
        memmove(m, why, strlen(why) + 1);
    }
    const char *state = "08001";
    if (strstr(m, "password authentication failed") || strstr(m, "no password supplied"))
        state = "28P01";
    else if (strstr(m, "database \"") && strstr(m, "does not exist"))
        state = "3D000";
    else if (strstr(m, "role \"") && strstr(m, "does not exist"))
        state = "28000";
    else if (strstr(m, "too many clients already") || strstr(m, "too many connections for"))
        state = "53300"; /* max_connections, or a role's or a database's CONNECTION LIMIT */
    err->code = lb_db_sqlstate_code(state);
    memcpy(err->sqlstate, state, 6);
}

/* The server's NOTICEs (DROP TABLE IF EXISTS of a missing table, ...)
 * would go to stderr through libpq's default processor, into the middle
 * of a report: drop them, as the MySQL driver drops warnings. */
static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static int connect_step(pg_conn *pc, int ready, lb_db_error *err)
{
    if (!(ready & WAIT_IO) && lb_clock_ns_inline() >= pc->deadline_ns) {
        lb__db_error_set(err, lb_db_sqlstate_code("08001"), "08001", "timeout expired while connecting");
        return op_end(pc, -1);
    }
    switch (PQconnectPoll(pc->pg)) {
    case PGRES_POLLING_READING:
        return LB_DB_WAIT_READ | LB_DB_WAIT_TIMEOUT;
    case PGRES_POLLING_WRITING:
        return LB_DB_WAIT_WRITE | LB_DB_WAIT_TIMEOUT;
    case PGRES_POLLING_OK:
        if (PQsetnonblocking(pc->pg, 1) != 0) {
            lb__db_pg_error(err, pc->pg, NULL);
            return op_end(pc, -1);
        }
        pc->fd = PQsocket(pc->pg);
        PQsetNoticeProcessor(pc->pg, ignore_notice, NULL);
        return op_end(pc, 0);
    default:
        connect_error(pc, err);
        return op_end(pc, -1);
    }
}

/* ---- query and next result --------------------------------------------- */

/* libpq takes NUL-terminated text; the core's need not be. */
static const char *sql_text(pg_conn *pc, const char *sql, size_t len)
{
    if (len + 1 > pc->sqlcap) {
        size_t cap = len + 1 < 4096 ? 4096 : (len + 1) * 2;
        char *s = realloc(pc->sql, cap);
        if (!s)
            return NULL;
        pc->sql = s;
        pc->sqlcap = cap;
    }
    memcpy(pc->sql, sql, len);
    pc->sql[len] = '\0';
    return pc->sql;
}

int lb__db_pg_query_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    begin(pc, PG_OP_QUERY, NULL);
    const char *text = sql_text(pc, sql, len);
    if (!text)
        return out_of_memory(pc, err);
    return sent(pc, PQsendQuery(pc->pg, text), err);
}

int lb__db_pg_next_result_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    pg_conn *pc = dc;
    out->found = 0;
    if (pc->nextmore >= pc->nmore)
        return 0;
    PGresult *r = pc->more[pc->nextmore++];
    if (lb__db_pg_result_out(pc->pg, r, &pc->res, &out->rs, &pc->affected, err) != 0)
        return -1;
    out->found = 1;
    return 0;
}

/* ---- prepare ------------------------------------------------------------ */

/* sysbench's scripts write '?' placeholders; PostgreSQL numbers them
 * ($1, $2, ...).  Text with no '?' goes unchanged (it may use $n). */
static const char *numbered(pg_conn *pc, const char *sql, size_t len)
{
    int n = lb__db_scan_placeholders(sql, len, NULL);
    if (n == 0)
        return sql_text(pc, sql, len);
    size_t *at = malloc(sizeof *at * (size_t)n);
    char *text = at ? malloc(len + (size_t)n * 11 + 1) : NULL;
    if (!text) {
        free(at);
        return NULL;
    }
    lb__db_scan_placeholders(sql, len, at);
    size_t o = 0, from = 0;
    for (int i = 0; i < n; i++) {
        memcpy(text + o, sql + from, at[i] - from);
        o += at[i] - from;
        o += (size_t)sprintf(text + o, "$%d", i + 1);
        from = at[i] + 1;
    }
    memcpy(text + o, sql + from, len - from);
    text[o + len - from] = '\0';
    free(at);
    const char *copy = sql_text(pc, text, o + len - from);
    free(text);
    return copy;
}

/* The parameter arrays of a statement with `np` parameters: 0 or -1. */
static int params_alloc(pg_stmt *ps, int np)
{
    size_t n = (size_t)(np ? np : 1);
    ps->np = np;
    ps->values = calloc(n, sizeof *ps->values);
    ps->text = calloc(n, sizeof *ps->text);
    ps->textcap = calloc(n, sizeof *ps->textcap);
    ps->ptypes = calloc(n, sizeof *ps->ptypes);
    ps->lengths = calloc(n, sizeof *ps->lengths);
    ps->formats = calloc(n, sizeof *ps->formats);
    return ps->values && ps->text && ps->textcap && ps->ptypes && ps->lengths && ps->formats ? 0 : -1;
}

/* ps_mode extended: nothing goes to the server until an execute sends the
 * text with its parameters (Parse, Bind, Execute of the unnamed statement
 * every time, as pgbench -M extended), so the statement is ready now.
 * Its parameters' types are the server's guess from the text (0 here):
 * their values go as text. */
static int unnamed_ready(pg_conn *pc, pg_stmt *ps, const char *text, int np, lb__db_async *out, lb_db_error *err)
{
    begin(pc, PG_OP_PREPARE, ps);
    ps->sql = strdup(text);
    if (!ps->sql || params_alloc(ps, np) != 0)
        return out_of_memory(pc, err);
    ps->next = pc->stmts;
    pc->stmts = ps;
    out->ds = ps;
    out->nparams = np;
    return op_end(pc, 0);
}

int lb__db_pg_prepare_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    pg_conn *pc = dc;
    pg_stmt *ps = calloc(1, sizeof *ps);
    const char *text = ps ? numbered(pc, sql, len) : NULL;
    if (!text) {
        free(ps);
        begin(pc, PG_OP_PREPARE, NULL);
        return out_of_memory(pc, err);
    }
    ps->pc = pc;
    if (pc->unnamed)
        return unnamed_ready(pc, ps, text, lb__db_scan_placeholders(sql, len, NULL), out, err);
    if (pc->pipeline) {
        /* Its answer would wait for the pipeline's sync: prepare first. */
        free(ps);
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "cannot prepare a statement in pipeline mode");
        return -1;
    }
    snprintf(ps->name, sizeof ps->name, "lb%lu", ++pc->nstmts);
    begin(pc, PG_OP_PREPARE, ps);
    return sent(pc, PQsendPrepare(pc->pg, ps->name, text, 0, NULL), err);
}

/* The Parse is done: ask for the parameter count (Describe). */
static int prepare_parsed(pg_conn *pc, lb_db_error *err)
{
    PGresult *r = pc->first;
    pc->first = NULL;
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        lb__db_pg_error(err, pc->pg, r);
        if (strstr(err->message, "cannot insert multiple commands into a prepared statement"))
            err->code = LB_DB_E_UNSUPPORTED;   /* the core emulates it */
        PQclear(r);
        lb__db_pg_drop_results(pc);
        return op_end(pc, -1);
    }
    PQclear(r);
    pc->describing = 1;
    return sent(pc, PQsendDescribePrepared(pc->pg, pc->ast->name), err);
}

static int prepare_described(pg_conn *pc, lb__db_async *out, lb_db_error *err)
{
    pg_stmt *ps = pc->ast;
    PGresult *r = pc->first;
    pc->first = NULL;
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        lb__db_pg_error(err, pc->pg, r);
        PQclear(r);
        return op_end(pc, -1);
    }
    int np = PQnparams(r);
    if (params_alloc(ps, np) != 0) {
        PQclear(r);
        return out_of_memory(pc, err);
    }
    for (int i = 0; i < np; i++)
        ps->ptypes[i] = PQparamtype(r, i);
    PQclear(r);
    ps->next = pc->stmts;
    pc->stmts = ps;
    out->ds = ps;
    out->nparams = np;
    return op_end(pc, 0);
}

/* ---- pipeline ------------------------------------------------------------ */

/* Send what libpq holds: 0 once all is sent, a wait mask, or -1. */
static int pipe_flush(pg_conn *pc, lb_db_error *err)
{
    int f = PQflush(pc->pg);
    if (f < 0)
        return fail(pc, err, NULL);
    return f > 0 ? WAIT_IO : op_end(pc, 0);
}

/* The last sync's result is in: leave pipeline mode and end with the
 * pipeline's first error, if it had one. */
static int pipe_exit(pg_conn *pc, lb_db_error *err)
{
    PGresult *bad = pc->pfail;
    pc->pfail = NULL;
    int ok = PQexitPipelineMode(pc->pg);
    if (!ok && !PQisBusy(pc->pg)) {
        /* libpq may still hold the sync's end of results: take it. */
        PGresult *r = PQgetResult(pc->pg);
        if (r)
            PQclear(r);
        ok = PQexitPipelineMode(pc->pg);
    }
    if (!ok) {
        if (bad)
            PQclear(bad);
        return fail(pc, err, NULL);
    }
    pc->pipeline = 0;
    if (!bad)
        return op_end(pc, 0);
    lb__db_pg_error(err, pc->pg, bad);
    PQclear(bad);
    return op_end(pc, -1);
}

/* Read every result up to the last sync sent, keeping only the first
 * error (after it the server skips the statements up to the next sync:
 * PGRES_PIPELINE_ABORTED).  0 / -1 once out of pipeline mode, or a wait
 * mask.  Every statement's results end with a NULL from PQgetResult, and
 * the next one's follow: as long as a sync is due there is more. */
static int pipe_drain(pg_conn *pc, lb_db_error *err)
{
    int nulls = 0;
    for (;;) {
        int w = flush_pending(pc, err);
        if (w != 0)
            return w;
        if (PQisBusy(pc->pg))
            return LB_DB_WAIT_READ;
        PGresult *r = PQgetResult(pc->pg);
        if (!r) {
            /* Two ends in a row: libpq has nothing yet (or the
             * connection is gone). */
            if (++nulls < 2)
                continue;
            if (PQstatus(pc->pg) == CONNECTION_BAD)
                return fail(pc, err, NULL);
            return LB_DB_WAIT_READ;
        }
        nulls = 0;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            if (--pc->syncs <= 0)
                return pipe_exit(pc, err);
        } else if (st == PGRES_FATAL_ERROR && !pc->pfail) {
            pc->pfail = r;
        } else {
            PQclear(r);
        }
    }
}

static int not_in_pipeline(pg_conn *pc, lb_db_error *err, const char *msg)
{
    lb__db_error_set(err, LB_DB_E_INVALID, "HY000", msg);
    return op_end(pc, -1);
}

int lb__db_pg_pipeline_start(void *dc, int what, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    begin(pc, PG_OP_PIPE_SEND, NULL);
    if (what == LB_DB_PIPE_ENTER) {
        if (pc->pipeline)
            return not_in_pipeline(pc, err, "already in pipeline mode");
        if (!PQenterPipelineMode(pc->pg))
            return fail(pc, err, NULL);
        pc->pipeline = 1;
        pc->syncs = 0;
        return op_end(pc, 0);
    }
    if (!pc->pipeline)
        return not_in_pipeline(pc, err, "not in pipeline mode");
    /* libpq 15's PQpipelineSync queues the sync and tries to send. */
    if (!PQpipelineSync(pc->pg))
        return fail(pc, err, NULL);
    pc->syncs++;
    if (what == LB_DB_PIPE_SYNC)
        return pipe_flush(pc, err);
    pc->op = PG_OP_PIPE_END;
    pc->flushing = 1;
    return pipe_drain(pc, err);
}

/* ---- execute ------------------------------------------------------------ */

/* An execute queued in a pipeline completes at once: libpq sends its
 * buffer when it fills, and the sync sends the rest (as in pgbench, a
 * pipeline's statement costs no system call of its own). */
static int pipe_sent(pg_conn *pc, int ok, lb_db_error *err)
{
    if (!ok)
        return fail(pc, err, NULL);
    return op_end(pc, 0);
}

int lb__db_pg_stmt_execute_start(void *ds, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_stmt *ps = ds;
    pg_conn *pc = ps->pc;
    begin(pc, PG_OP_EXECUTE, ps);
    if (ps->np && lb__db_pg_fill_params(ps, err) != 0)
        return op_end(pc, -1);
    int ok = ps->sql ? PQsendQueryParams(pc->pg, ps->sql, ps->np, NULL, ps->values, ps->lengths, ps->formats, 0)
                     : PQsendQueryPrepared(pc->pg, ps->name, ps->np, ps->values, ps->lengths, ps->formats, 0);
    return pc->pipeline ? pipe_sent(pc, ok, err) : sent(pc, ok, err);
}

/* ---- bulk load: COPY ... FROM STDIN ------------------------------------ */

int lb__db_pg_load_start(void *dc, const char *sql, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    begin(pc, PG_OP_LOAD_START, NULL);
    pc->copying = 0;
    const char *text = sql_text(pc, sql, len);
    if (!text)
        return out_of_memory(pc, err);
    return sent(pc, PQsendQuery(pc->pg, text), err);
}

/* Queue what is left of the chunk, then send it: 0, a wait mask, -1. */
static int load_push(pg_conn *pc, lb_db_error *err)
{
    if (pc->lbuf) {
        int r = PQputCopyData(pc->pg, pc->lbuf, (int)pc->llen);
        if (r < 0)
            return fail(pc, err, NULL);
        if (r == 0)
            return WAIT_IO;   /* libpq's buffer is full: once the socket drains */
        pc->lbuf = NULL;
    }
    int f = PQflush(pc->pg);
    if (f < 0)
        return fail(pc, err, NULL);
    return f > 0 ? WAIT_IO : op_end(pc, 0);
}

int lb__db_pg_load_data_start(void *dc, const char *buf, size_t len, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    if (!pc->copying || len > 0x7fffffff) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", pc->copying ? "chunk too large" : "no bulk load in progress");
        return -1;
    }
    pc->op = PG_OP_LOAD_DATA;
    pc->lbuf = buf;
    pc->llen = len;
    return load_push(pc, err);
}

/* Queue the end of the data, then collect the COPY's result. */
static int load_finish(pg_conn *pc, lb_db_error *err)
{
    if (pc->end_pending) {
        int r = PQputCopyEnd(pc->pg, NULL);
        if (r < 0)
            return fail(pc, err, NULL);
        if (r == 0)
            return WAIT_IO;
        pc->end_pending = 0;
        pc->flushing = 1;
    }
    return collect(pc, err);
}

int lb__db_pg_load_end_start(void *dc, lb__db_async *out, lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    if (!pc->copying) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no bulk load in progress");
        return -1;
    }
    begin(pc, PG_OP_LOAD_END, NULL);
    pc->copying = 0;
    pc->end_pending = 1;
    return load_finish(pc, err);
}

/* A load of generated rows: chunks of ROWBUF bytes, each queued and
 * flushed before the next is generated, so libpq's buffer stays small. */
#define ROWBUF (64 * 1024)

/* Generate, queue and send chunks until the source ends (then the end of
 * the data, as load_end) or the socket must drain: 0, a wait mask, -1. */
static int rows_pump(pg_conn *pc, lb_db_error *err)
{
    for (;;) {
        if (pc->lbuf) {
            int r = PQputCopyData(pc->pg, pc->lbuf, (int)pc->llen);
            if (r < 0)
                return fail(pc, err, NULL);
            if (r == 0)
                return WAIT_IO;
            pc->lbuf = NULL;
        }
        int f = PQflush(pc->pg);
        if (f < 0)
            return fail(pc, err, NULL);
        if (f > 0)
            return WAIT_IO;
        size_t n = pc->lsrc->fill(pc->lsrc->ud, pc->rowbuf, ROWBUF);
        if (n == 0) {
            pc->lsrc = NULL;
            pc->op = PG_OP_LOAD_END;
            pc->copying = 0;
            pc->end_pending = 1;
            return load_finish(pc, err);
        }
        pc->lbuf = pc->rowbuf;
        pc->llen = n;
    }
}

int lb__db_pg_load_rows_start(void *dc, const char *sql, size_t len, const lb_rowsrc *src, lb__db_async *out,
                              lb_db_error *err)
{
    (void)out;
    pg_conn *pc = dc;
    if (!pc->rowbuf && !(pc->rowbuf = malloc(ROWBUF))) {
        lb__db_error_set(err, LB_DB_E_NOMEM, "HY001", "out of memory");
        return -1;
    }
    begin(pc, PG_OP_LOAD_ROWS, NULL);
    pc->copying = 0;
    pc->lsrc = src;
    pc->lbuf = NULL;
    const char *text = sql_text(pc, sql, len);
    if (!text)
        return out_of_memory(pc, err);
    int rc = sent(pc, PQsendQuery(pc->pg, text), err);
    return rc != 0 || !pc->copying ? rc : rows_pump(pc, err);
}

/* ---- continue ------------------------------------------------------------ */

/* Every result is in: finish the operation. */
static int finish(pg_conn *pc, lb__db_async *out, lb_db_error *err)
{
    PGresult *r = pc->first;
    if (pc->op == PG_OP_LOAD_ROWS) {
        if (pc->copying)
            return rows_pump(pc, err);
        pc->lsrc = NULL;
        pc->op = PG_OP_LOAD_START;   /* the statement was not a COPY FROM STDIN: fail as a load start */
    }
    switch (pc->op) {
    case PG_OP_QUERY:
        pc->first = NULL;
        if (lb__db_pg_result_out(pc->pg, r, &pc->res, &out->rs, &pc->affected, err) != 0) {
            lb__db_pg_drop_results(pc);
            return op_end(pc, -1);
        }
        return op_end(pc, 0);
    case PG_OP_PREPARE:
        if (!r) {
            lb__db_error_set(err, LB_DB_E_UNKNOWN, "XX000", "no answer to the prepare");
            return op_end(pc, -1);
        }
        return pc->describing ? prepare_described(pc, out, err) : prepare_parsed(pc, err);
    case PG_OP_LOAD_START:
        if (pc->copying)
            return op_end(pc, 0);
        pc->first = NULL;
        if (lb__db_pg_result_out(pc->pg, r, &pc->res, &out->rs, &pc->affected, err) == 0) {
            if (out->rs.h) {
                PQclear(pc->res.r);
                pc->res.r = NULL;
                out->rs.h = NULL;
            }
            lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "not a COPY ... FROM STDIN statement");
        }
        lb__db_pg_drop_results(pc);
        return op_end(pc, -1);
    case PG_OP_LOAD_END:
        pc->first = NULL;
        lb__db_pg_drop_results(pc);
        return op_end(pc, lb__db_pg_result_out(pc->pg, r, &pc->res, &out->rs, &pc->affected, err));
    case PG_OP_EXECUTE: {
        pg_stmt *ps = pc->ast;
        pc->first = NULL;
        lb__db_pg_drop_results(pc);
        if (lb__db_pg_result_out(pc->pg, r, &ps->res, &out->rs, &ps->affected, err) != 0)
            return op_end(pc, -1);
        return op_end(pc, 0);
    }
    default:
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no operation in progress");
        return op_end(pc, -1);
    }
}

int lb__db_pg_cont(void *dc, int ready, lb__db_async *out, lb_db_error *err)
{
    pg_conn *pc = dc;
    if (pc->op == PG_OP_CONNECT)
        return connect_step(pc, ready, err);
    if (pc->op == PG_OP_NONE) {
        lb__db_error_set(err, LB_DB_E_INVALID, "HY000", "no operation in progress");
        return -1;
    }
    if ((ready & LB_DB_WAIT_READ) && !PQconsumeInput(pc->pg))
        return fail(pc, err, NULL);
    if (pc->op == PG_OP_LOAD_DATA)
        return load_push(pc, err);
    if (pc->op == PG_OP_PIPE_SEND)
        return pipe_flush(pc, err);
    if (pc->op == PG_OP_PIPE_END)
        return pipe_drain(pc, err);
    if (pc->op == PG_OP_LOAD_ROWS && pc->copying)
        return rows_pump(pc, err);
    int rc = pc->op == PG_OP_LOAD_END ? load_finish(pc, err) : collect(pc, err);
    return rc != 0 ? rc : finish(pc, out, err);
}

int lb__db_pg_fd(void *dc)
{
    return PQsocket(((pg_conn *)dc)->pg);
}

int lb__db_pg_timeout_ms(void *dc)
{
    pg_conn *pc = dc;
    if (pc->op != PG_OP_CONNECT)
        return 0;
    int64_t left = pc->deadline_ns - lb_clock_ns_inline();
    return left > 0 ? (int)(left / 1000000) + 1 : 0;
}
