/* Unit tests of the driver-independent DB layer, on the null driver (no
 * server needed): registry, SQL classification, accounting, bulk insert
 * flushing and client-side parameter substitution (ps_mode=disable). */
#include "db/db.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* Debug sink capturing every message, so tests can see the exact SQL the
 * layer sends to the driver. */
typedef struct capture {
    int n;
    int nquery;
    char last[4096];
    size_t max_query_len;
} capture;

static void cap_fn(void *ud, const char *msg)
{
    capture *cp = ud;
    cp->n++;
    if (strncmp(msg, "query: ", 7) == 0) {
        cp->nquery++;
        size_t l = strlen(msg + 7);
        if (l > cp->max_query_len)
            cp->max_query_len = l;
        snprintf(cp->last, sizeof cp->last, "%s", msg + 7);
    }
}

static lb_db_conn *open_null(lb_db_stats *st, capture *cp, int ps_mode, uint64_t bulk_max)
{
    lb_db_conn_opts o;
    lb_db_conn_opts_init(&o);
    o.ps_mode = ps_mode;
    o.bulk_max = bulk_max;
    if (cp) {
        o.debug = cap_fn;
        o.debug_ud = cp;
    }
    lb_db_error err;
    return lb_db_connect(lb_db_driver_find("null"), &o, st, &err);
}

static void test_registry(void)
{
    check(lb_db_driver_find("null") != NULL, "registry.null", "null driver not found");
#ifndef LB_DB_NO_MYSQL
    check(lb_db_driver_find("mysql") != NULL, "registry.mysql", "mysql driver not found");
#endif
    check(lb_db_driver_find("pgsql") != NULL && lb_db_driver_find("oracle") == NULL && lb_db_driver_find("") == NULL &&
          lb_db_driver_find(NULL) == NULL, "registry.unknown", "unknown names must give NULL");
    lb_db_error err;
    memset(&err, 0, sizeof err);
    lb_db_conn_opts o;
    lb_db_conn_opts_init(&o);
    check(lb_db_connect(NULL, &o, NULL, &err) == NULL && err.code == LB_DB_E_INVALID,
          "registry.connect_null_driver", "code %d", err.code);
    check(lb_db_ssl_mode_parse("VERIFY_CA") == LB_DB_SSL_VERIFY_CA &&
          lb_db_ssl_mode_parse("off") == LB_DB_SSL_DISABLED &&
          lb_db_ssl_mode_parse("bogus") == -1 &&
          lb_db_ps_mode_parse("disable") == LB_DB_PS_DISABLE &&
          lb_db_ps_mode_parse("auto") == LB_DB_PS_AUTO &&
          lb_db_ps_mode_parse("extended") == LB_DB_PS_EXTENDED &&
          lb_db_ps_mode_parse("x") == -1, "opts.parse", "mode parsing");
    check(lb_db_error_is_connection_lost(2013) && lb_db_error_is_connection_lost(2006) &&
          lb_db_error_is_connection_lost(2055) && lb_db_error_is_connection_lost(2002) &&
          !lb_db_error_is_connection_lost(1213) && !lb_db_error_is_connection_lost(1062),
          "errors.connection_lost", "classification of connection-lost codes");
}

static void test_classify(void)
{
    static const struct { const char *sql; int type; } t[] = {
        {"SELECT 1", LB_DB_Q_SELECT},
        {"select c from sbtest1 where id=1", LB_DB_Q_SELECT},
        {"   \t\n  SeLeCt 1", LB_DB_Q_SELECT},
        {"/* comment */ SELECT 1", LB_DB_Q_SELECT},
        {"/* multi\nline */\n/*x*/UPDATE t SET a=1", LB_DB_Q_UPDATE},
        {"-- a comment\nSELECT 1", LB_DB_Q_SELECT},
        {"--\tc\nDELETE FROM t", LB_DB_Q_DELETE},
        {"# hash comment\nINSERT INTO t VALUES (1)", LB_DB_Q_INSERT},
        {"((SELECT 1) UNION (SELECT 2))", LB_DB_Q_SELECT},
        {"( select 1 )", LB_DB_Q_SELECT},
        {"WITH x AS (SELECT 1) SELECT * FROM x", LB_DB_Q_SELECT},
        {"with recursive r (n) as (select 1 union all select n+1 from r where n<3) select * from r", LB_DB_Q_SELECT},
        {"WITH a AS (SELECT ')' AS p), b AS (SELECT 2) UPDATE t JOIN a SET t.x=1", LB_DB_Q_UPDATE},
        {"WITH `q` AS (SELECT 1) DELETE FROM t WHERE id IN (SELECT * FROM q)", LB_DB_Q_DELETE},
        {"WITH", LB_DB_Q_SELECT},
        {"REPLACE INTO t VALUES (1)", LB_DB_Q_INSERT},
        {"replace into t values (1)", LB_DB_Q_INSERT},
        {"insert ignore into t values (1)", LB_DB_Q_INSERT},
        {"UPDATE sbtest1 SET k=k+1 WHERE id=5", LB_DB_Q_UPDATE},
        {"delete from sbtest1 where id=5", LB_DB_Q_DELETE},
        {"BEGIN", LB_DB_Q_OTHER},
        {"COMMIT", LB_DB_Q_OTHER},
        {"START TRANSACTION", LB_DB_Q_OTHER},
        {"SET autocommit=0", LB_DB_Q_OTHER},
        {"CREATE TABLE t (a int)", LB_DB_Q_OTHER},
        {"SHOW TABLES", LB_DB_Q_OTHER},
        {"selectx 1", LB_DB_Q_OTHER},
        {"sel", LB_DB_Q_OTHER},
        {"", LB_DB_Q_OTHER},
        {"   ", LB_DB_Q_OTHER},
        {"/* unterminated SELECT", LB_DB_Q_OTHER},
        {"--SELECT", LB_DB_Q_OTHER},           /* "--" without space is not a comment */
        {"TABLE sbtest1", LB_DB_Q_SELECT},
        {"VALUES (1),(2)", LB_DB_Q_SELECT},
    };
    int bad = 0;
    char why[512] = "";
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int got = lb_db_classify(t[i].sql, strlen(t[i].sql));
        if (got != t[i].type) {
            bad++;
            snprintf(why, sizeof why, "\"%s\": got %d want %d", t[i].sql, got, t[i].type);
        }
    }
    check(bad == 0, "classify.table", "%d wrong, e.g. %s", bad, why);
    /* Length is honoured: text after len is not looked at. */
    check(lb_db_classify("SELECTED", 6) == LB_DB_Q_SELECT, "classify.len", "len not honoured");
}

/* Placeholders and parentheses are found outside quoted text and
 * comments only. */
static void test_placeholders(void)
{
    static const struct { const char *sql; int n; } t[] = {
        {"SELECT ?", 1},
        {"SELECT '?', \"?\", `?`", 0},
        {"SELECT 'it''s ?', ?", 1},
        {"SELECT 'a\\'?', ?", 1},
        {"/* ? */ SELECT ? -- ?\n, ?", 2},
        {"# ?\nSELECT ?", 1},
        {"SELECT --?\n?", 2},          /* "--" without space is not a comment */
        {"SELECT '?", 0},               /* unterminated quote */
        {"", 0},
    };
    int bad = 0;
    char why[512] = "";
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int got = lb__db_count_placeholders(t[i].sql, strlen(t[i].sql));
        if (got != t[i].n) {
            bad++;
            snprintf(why, sizeof why, "\"%s\": got %d want %d", t[i].sql, got, t[i].n);
        }
    }
    check(bad == 0, "placeholders.table", "%d wrong, e.g. %s", bad, why);
    const char *w = "WITH a AS (SELECT /* ) */ ')' AS p) UPDATE t JOIN a SET t.x=1";
    check(lb_db_classify(w, strlen(w)) == LB_DB_Q_UPDATE, "classify.with_parens_skip_literals",
          "got %d", lb_db_classify(w, strlen(w)));
}

static void test_accounting(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_null(&st, NULL, LB_DB_PS_AUTO, 0);
    check(c != NULL, "null.connect", "connect failed");
    if (!c)
        return;
    check(strcmp(lb_db_driver_name(c), "null") == 0 && strcmp(lb_db_server_version(c), "null") == 0,
          "null.names", "driver %s version %s", lb_db_driver_name(c), lb_db_server_version(c));

    const char *qs[] = { "SELECT 1", "select 2", "INSERT INTO t VALUES(1)", "UPDATE t SET a=1",
                         "DELETE FROM t", "BEGIN", "COMMIT", "REPLACE INTO t VALUES(2)" };
    int ok = 1;
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
        ok &= lb_db_query(c, qs[i], strlen(qs[i])) == 0;
    check(ok, "null.query_ok", "a query failed");
    check(st.queries[LB_DB_Q_SELECT] == 2 && st.queries[LB_DB_Q_INSERT] == 2 &&
          st.queries[LB_DB_Q_UPDATE] == 1 && st.queries[LB_DB_Q_DELETE] == 1 &&
          st.queries[LB_DB_Q_OTHER] == 2 && st.errors == 0,
          "null.query_counts", "sel %lu ins %lu upd %lu del %lu oth %lu err %lu",
          (unsigned long)st.queries[0], (unsigned long)st.queries[1], (unsigned long)st.queries[2],
          (unsigned long)st.queries[3], (unsigned long)st.queries[4], (unsigned long)st.errors);

    /* SELECT gives an empty result; non-SELECT none. */
    lb_db_query(c, "SELECT 1", 8);
    lb_db_result *r = lb_db_conn_result(c);
    const char *const *v;
    const unsigned long *l;
    check(r != NULL && lb_db_result_nrows(r) == 0 && lb_db_result_fetch(r, &v, &l) == 0,
          "null.select_empty_result", "expected an empty result");
    lb_db_result_free(r);
    lb_db_result_free(r);   /* idempotent */
    check(lb_db_conn_result(c) == NULL, "null.result_free", "result still current after free");
    lb_db_query(c, "BEGIN", 5);
    check(lb_db_conn_result(c) == NULL, "null.no_result_for_begin", "BEGIN produced a result");

    /* Prepared statements are classified once and counted per execute. */
    lb_db_stmt *s = lb_db_prepare(c, "SELECT c FROM sbtest1 WHERE id=?", 32);
    lb_db_stmt *u = lb_db_prepare(c, "UPDATE sbtest1 SET k=k+1 WHERE id=?", 35);
    check(s && u && lb_db_stmt_param_count(s) == 1, "null.prepare", "prepare failed");
    if (s && u) {
        lb_db_bind b;
        memset(&b, 0, sizeof b);
        b.type = LB_DB_T_INT;
        check(lb_db_stmt_execute(s) == -LB_DB_E_INVALID, "null.execute_unbound",
              "execute without bind must fail");
        uint64_t sel0 = st.queries[LB_DB_Q_SELECT], upd0 = st.queries[LB_DB_Q_UPDATE];
        check(lb_db_stmt_bind_param(s, &b, 2) < 0, "null.bind_count_mismatch", "n=2 accepted");
        check(lb_db_stmt_bind_param(s, &b, 1) == 0 && lb_db_stmt_bind_param(u, &b, 1) == 0,
              "null.bind", "bind failed");
        ok = 1;
        for (int i = 0; i < 1000; i++) {
            b.i = i;
            ok &= lb_db_stmt_execute(s) == 0;
            ok &= lb_db_stmt_result(s) != NULL;
            ok &= lb_db_stmt_execute(u) == 0;
            ok &= lb_db_stmt_result(u) == NULL;
        }
        check(ok && st.queries[LB_DB_Q_SELECT] - sel0 == 1000 && st.queries[LB_DB_Q_UPDATE] - upd0 == 1000,
              "null.stmt_counts", "ok %d sel %lu upd %lu", ok,
              (unsigned long)(st.queries[LB_DB_Q_SELECT] - sel0),
              (unsigned long)(st.queries[LB_DB_Q_UPDATE] - upd0));
        /* A VARCHAR with len > cap is refused and counted as an error. */
        lb_db_stmt *w = lb_db_prepare(c, "SELECT ?", 8);
        char buf[4] = "abc";
        lb_db_bind sb;
        memset(&sb, 0, sizeof sb);
        sb.type = LB_DB_T_VARCHAR;
        sb.buf = buf;
        sb.cap = 4;
        sb.len = 5;
        uint64_t e0 = st.errors;
        lb_db_stmt_bind_param(w, &sb, 1);
        int rc = lb_db_stmt_execute(w);
        check(rc == -LB_DB_E_INVALID && st.errors == e0 + 1 &&
              lb_db_conn_error(c)->code == LB_DB_E_INVALID &&
              strcmp(lb_db_conn_error(c)->query, "SELECT ?") == 0,
              "null.len_gt_cap", "rc %d errors %lu query '%s'", rc,
              (unsigned long)(st.errors - e0), lb_db_conn_error(c)->query);
        /* The error was counted under its own code. */
        int found = 0;
        for (int i = 0; i < LB_DB_ERRSLOTS; i++)
            if (st.err[i].code == LB_DB_E_INVALID)
                found = (int)st.err[i].count;
        check(found == 2, "null.err_by_code", "LB_DB_E_INVALID counted %d times (want 2)", found);
        lb_db_stmt_close(w);
    }
    lb_db_stmt_close(s);
    lb_db_stmt_close(u);
    check(st.reconnects == 0 && lb_db_reconnect(c) == 0 && st.reconnects == 1,
          "null.reconnect_count", "reconnects %lu", (unsigned long)st.reconnects);
    lb_db_disconnect(c);
    lb_db_disconnect(NULL);

    /* NULL stats: nothing is counted, nothing crashes. */
    c = open_null(NULL, NULL, LB_DB_PS_AUTO, 0);
    check(c && lb_db_query(c, "SELECT 1", 8) == 0, "null.no_stats", "query without stats failed");
    lb_db_disconnect(c);
}

static void test_error_slots(void)
{
    /* A merely zeroed block works: the first error claims slot 0.  (Slot
     * overflow into the code -1 slot needs many distinct codes, which only
     * a real server produces: see test/e2e/test_db_mysql.c.) */
    lb_db_stats st;
    memset(&st, 0, sizeof st);
    lb_db_conn *c = open_null(&st, NULL, LB_DB_PS_AUTO, 0);
    lb_db_stmt *s = lb_db_prepare(c, "SELECT ?", 8);
    lb_db_stmt_execute(s);   /* unbound: LB_DB_E_INVALID */
    lb_db_stmt_execute(s);
    check(st.errors == 2 && st.err[0].code == LB_DB_E_INVALID && st.err[0].count == 2 &&
          st.err[1].count == 0 && st.queries[LB_DB_Q_SELECT] == 0, "stats.first_slot",
          "slot0 code %d count %lu", st.err[0].code, (unsigned long)st.err[0].count);
    lb_db_stats_init(&st);
    check(st.err[LB_DB_ERRSLOTS - 1].code == -1 && st.errors == 0, "stats.init_marks_overflow",
          "overflow slot code %d", st.err[LB_DB_ERRSLOTS - 1].code);
    lb_db_disconnect(c);
}

static void test_bulk(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    capture cp;
    memset(&cp, 0, sizeof cp);
    const uint64_t max = 1000;
    lb_db_conn *c = open_null(&st, &cp, LB_DB_PS_AUTO, max);
    if (!c) {
        check(0, "bulk.connect", "connect failed");
        return;
    }
    const char *prefix = "INSERT INTO sbtest1(k, c) VALUES";
    check(lb_db_bulk_insert_next(c, "(1,'x')", 7) < 0, "bulk.next_before_init", "accepted");
    check(lb_db_bulk_insert_init(c, prefix, strlen(prefix)) == 0, "bulk.init", "init failed");
    char row[64];
    int ok = 1;
    size_t total = 0;
    const int nrows = 1000;
    for (int i = 0; i < nrows; i++) {
        int n = snprintf(row, sizeof row, "(%d,'row-%05d')", i, i);
        total += (size_t)n;
        ok &= lb_db_bulk_insert_next(c, row, (size_t)n) == 0;
    }
    int flushed_before_done = cp.nquery;
    ok &= lb_db_bulk_insert_done(c) == 0;
    /* Each row is 18..20 bytes; ~ (1000-32)/19 rows per statement. */
    size_t per_stmt_payload = max - strlen(prefix);
    int min_flushes = (int)((total + per_stmt_payload - 1) / per_stmt_payload);
    check(ok, "bulk.ok", "a bulk call failed");
    check(flushed_before_done > 1 && cp.max_query_len <= max, "bulk.flush_at_threshold",
          "flushes before done %d, longest statement %zu (max %lu)",
          flushed_before_done, cp.max_query_len, (unsigned long)max);
    check(cp.nquery >= min_flushes && cp.nquery <= min_flushes + 2 &&
          st.queries[LB_DB_Q_INSERT] == (uint64_t)cp.nquery,
          "bulk.one_insert_per_flush", "flushes %d (min %d), inserts counted %lu", cp.nquery,
          min_flushes, (unsigned long)st.queries[LB_DB_Q_INSERT]);
    check(strncmp(cp.last, prefix, strlen(prefix)) == 0 &&
          strstr(cp.last, "(999,'row-00999')") != NULL && cp.last[strlen(cp.last) - 1] == ')',
          "bulk.statement_text", "last statement: %.80s", cp.last);
    /* Rows flushed in order, none lost or duplicated: count tuples over all
     * statements via the insert counter and the last statement's tail. */
    int before = cp.nquery;
    check(lb_db_bulk_insert_done(c) == 0 && cp.nquery == before, "bulk.done_idempotent",
          "second done sent something");
    /* Empty bulk insert sends nothing. */
    lb_db_bulk_insert_init(c, prefix, strlen(prefix));
    lb_db_bulk_insert_done(c);
    check(cp.nquery == before, "bulk.empty", "empty bulk insert sent a statement");
    /* A single oversized row is still sent (alone). */
    char big[1500];
    memset(big, 'x', sizeof big);
    big[0] = '(';
    big[sizeof big - 1] = ')';
    lb_db_bulk_insert_init(c, prefix, strlen(prefix));
    lb_db_bulk_insert_next(c, "(1,'a')", 7);
    lb_db_bulk_insert_next(c, big, sizeof big);
    lb_db_bulk_insert_done(c);
    check(cp.nquery == before + 2, "bulk.oversized_row", "statements %d", cp.nquery - before);
    lb_db_disconnect(c);
}

/* Emulated prepared statements: the substituted SQL is what the driver
 * receives; the debug sink shows it. */
static void test_emulation(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    capture cp;
    memset(&cp, 0, sizeof cp);
    lb_db_conn *c = open_null(&st, &cp, LB_DB_PS_DISABLE, 0);
    if (!c) {
        check(0, "emu.connect", "connect failed");
        return;
    }
    const char *sql = "SELECT c FROM t WHERE id=? AND s=? AND d=? AND n=? AND q='?' AND b=? -- ?\n";
    lb_db_stmt *s = lb_db_prepare(c, sql, strlen(sql));
    check(s && lb_db_stmt_param_count(s) == 5, "emu.placeholders",
          "count %d (quoted and commented '?' must not count)", s ? lb_db_stmt_param_count(s) : -1);
    if (!s) {
        lb_db_disconnect(c);
        return;
    }
    char str[64];
    const char raw[] = "it's a \"q\" \\ \0nul\n\r\032end";
    size_t rawlen = sizeof raw - 1;
    memcpy(str, raw, rawlen);
    char big[] = "9";
    lb_db_bind b[5];
    memset(b, 0, sizeof b);
    b[0].type = LB_DB_T_BIGINT;
    b[0].i = 5000000000LL;
    b[1].type = LB_DB_T_VARCHAR;
    b[1].buf = str;
    b[1].cap = sizeof str;
    b[1].len = rawlen;
    b[2].type = LB_DB_T_DOUBLE;
    b[2].d = 0.1;
    b[3].type = LB_DB_T_INT;
    b[3].is_null = 1;
    b[4].type = LB_DB_T_CHAR;
    b[4].buf = big;
    b[4].cap = sizeof big;
    b[4].len = 0;
    check(lb_db_stmt_bind_param(s, b, 5) == 0, "emu.bind", "bind failed");
    int rc = lb_db_stmt_execute(s);
    const char *want = "SELECT c FROM t WHERE id=5000000000 AND s='it\\'s a \\\"q\\\" \\\\ \\0nul\\n\\r\\Zend' "
                       "AND d=0.1 AND n=NULL AND q='?' AND b='' -- ?\n";
    check(rc == 0 && strcmp(cp.last, want) == 0, "emu.substitution",
          "rc %d\n got: %s\nwant: %s", rc, cp.last, want);
    check(st.queries[LB_DB_Q_SELECT] == 1 && lb_db_stmt_result(s) != NULL, "emu.accounting",
          "select count %lu", (unsigned long)st.queries[LB_DB_Q_SELECT]);

    /* Values change in place between executes; no re-bind needed. */
    b[0].i = -7;
    b[2].d = 1.0 / 3.0;
    b[3].is_null = 0;
    b[3].i = 42;
    memcpy(str, "x", 1);
    b[1].len = 1;
    lb_db_stmt_execute(s);
    want = "SELECT c FROM t WHERE id=-7 AND s='x' AND d=0.3333333333333333 AND n=42 AND q='?' AND b='' -- ?\n";
    check(strcmp(cp.last, want) == 0, "emu.in_place_update", "\n got: %s\nwant: %s", cp.last, want);

    /* Temporal values are quoted text. */
    lb_db_stmt *t = lb_db_prepare(c, "INSERT INTO t VALUES (?)", 24);
    char ts[] = "2024-01-31 12:00:00";
    lb_db_bind tb;
    memset(&tb, 0, sizeof tb);
    tb.type = LB_DB_T_DATETIME;
    tb.buf = ts;
    tb.cap = sizeof ts;
    tb.len = sizeof ts - 1;
    lb_db_stmt_bind_param(t, &tb, 1);
    lb_db_stmt_execute(t);
    check(strcmp(cp.last, "INSERT INTO t VALUES ('2024-01-31 12:00:00')") == 0 &&
          st.queries[LB_DB_Q_INSERT] == 1, "emu.temporal", "got: %s", cp.last);
    lb_db_stmt_close(t);

    /* Non-finite doubles cannot be written as SQL literals. */
    b[2].d = 1.0 / 0.0;
    check(lb_db_stmt_execute(s) == -LB_DB_E_INVALID, "emu.nonfinite", "inf accepted");
    lb_db_stmt_close(s);
    lb_db_disconnect(c);
}

/* Debug sink gets every query, and with no sink nothing is formatted. */
static void test_debug(void)
{
    capture cp;
    memset(&cp, 0, sizeof cp);
    lb_db_conn *c = open_null(NULL, &cp, LB_DB_PS_AUTO, 0);
    lb_db_query(c, "SELECT 42", 9);
    check(cp.nquery == 1 && strcmp(cp.last, "SELECT 42") == 0, "debug.query_logged",
          "n %d last '%s'", cp.nquery, cp.last);
    lb_db_disconnect(c);
}

/* PostgreSQL's SQLSTATEs as codes: a round trip, invalid texts, no
 * overlap with MySQL's numbers, and which of them mean "reconnect". */
static void test_sqlstate_codes(void)
{
    const char *states[] = { "00000", "40001", "40P01", "23505", "08006", "57P01", "ZZZZZ" };
    int ok = 1;
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        char back[6] = "";
        int code = lb_db_sqlstate_code(states[i]);
        ok &= code >= LB_DB_SQLSTATE_BASE && lb_db_code_sqlstate(code, back) == 1 && strcmp(back, states[i]) == 0;
    }
    char out[6];
    check(ok && lb_db_sqlstate_code("4000") == 0 && lb_db_sqlstate_code("40p01") == 0 &&
          lb_db_sqlstate_code("400011") == 0 && lb_db_sqlstate_code(NULL) == 0 &&
          lb_db_code_sqlstate(1213, out) == 0 && lb_db_code_sqlstate(LB_DB_E_INVALID, out) == 0,
          "sqlstate.round_trip", "SQLSTATE codes do not round-trip");
    check(lb_db_error_is_connection_lost(lb_db_sqlstate_code("08006")) &&
          lb_db_error_is_connection_lost(lb_db_sqlstate_code("57P01")) &&
          !lb_db_error_is_connection_lost(lb_db_sqlstate_code("40001")) &&
          !lb_db_error_is_connection_lost(lb_db_sqlstate_code("57014")) &&
          lb_db_error_is_connection_lost(2013) && !lb_db_error_is_connection_lost(1213),
          "sqlstate.connection_lost", "wrong lost-connection classes");
}

int main(void)
{
    test_sqlstate_codes();
    if (lb_db_global_init() != 0)
        check(0, "global_init", "failed");
    test_registry();
    test_classify();
    test_placeholders();
    test_accounting();
    test_error_slots();
    test_bulk();
    test_emulation();
    test_debug();
    lb_db_global_done();
    return check_exit();
}
