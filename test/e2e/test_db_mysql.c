/* End-to-end test of the DB layer with the mysql driver against a real
 * MySQL/MariaDB server.  Connection settings come from LB_MYSQL_HOST,
 * LB_MYSQL_PORT, LB_MYSQL_USER, LB_MYSQL_PASSWORD, LB_MYSQL_DB; without
 * LB_MYSQL_PORT the test prints SKIP and exits 77.  The user needs CREATE,
 * DROP and PROCESS/SUPER-level rights (it KILLs its own connection). */
#include "db/db.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static lb_db_conn_opts base;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static lb_db_conn *open_conn(lb_db_stats *st, int ps_mode)
{
    lb_db_conn_opts o = base;
    o.ps_mode = ps_mode;
    lb_db_error err;
    lb_db_conn *c = lb_db_connect(lb_db_driver_find("mysql"), &o, st, &err);
    if (!c)
        printf("# connect failed: %d %s\n", err.code, err.message);
    return c;
}

static int q(lb_db_conn *c, const char *sql)
{
    int rc = lb_db_query(c, sql, strlen(sql));
    if (rc < 0)
        printf("# query failed (%d): %s -- %s\n", rc, lb_db_conn_error(c)->message, sql);
    return rc;
}

/* Run a single-value query and return its first column as a number. */
static long long q_int(lb_db_conn *c, const char *sql)
{
    if (q(c, sql) < 0)
        return -1;
    const char *const *v;
    const unsigned long *l;
    lb_db_result *r = lb_db_conn_result(c);
    if (!r || lb_db_result_fetch(r, &v, &l) != 1 || !v[0])
        return -1;
    return atoll(v[0]);
}

static uint64_t err_count(const lb_db_stats *st, int code)
{
    for (int i = 0; i < LB_DB_ERRSLOTS; i++)
        if (st->err[i].count && st->err[i].code == code)
            return st->err[i].count;
    return 0;
}

/* ---- basic queries ---- */

static void test_connect_and_query(lb_db_conn *c, lb_db_stats *st)
{
    const char *ver = lb_db_server_version(c);
    check(ver && ver[0] >= '0' && ver[0] <= '9', "connect.version", "version '%s'", ver ? ver : "(null)");
    printf("# server version %s\n", ver);
    check(strcmp(lb_db_driver_name(c), "mysql") == 0, "connect.driver_name", "%s", lb_db_driver_name(c));

    q(c, "DROP TABLE IF EXISTS lbt_e2e");
    int rc = q(c, "CREATE TABLE lbt_e2e (id INT PRIMARY KEY, b BIGINT, d DOUBLE, s VARCHAR(200), n INT NULL) ENGINE=InnoDB");
    check(rc == 0, "query.create_table", "rc %d", rc);
    uint64_t ins0 = st->queries[LB_DB_Q_INSERT];
    rc = q(c, "INSERT INTO lbt_e2e VALUES (1, 5000000001, 1.5, 'one', NULL), (2, -3, 2.25, 'two', 7), (3, 0, -0.5, '', 9)");
    check(rc == 0 && lb_db_affected_rows(c) == 3 && st->queries[LB_DB_Q_INSERT] == ins0 + 1,
          "query.insert", "rc %d affected %lu", rc, (unsigned long)lb_db_affected_rows(c));

    uint64_t rows0 = st->rows, sel0 = st->queries[LB_DB_Q_SELECT];
    rc = q(c, "  /* c */ SELECT id, b, d, s, n FROM lbt_e2e ORDER BY id");
    lb_db_result *r = lb_db_conn_result(c);
    check(rc == 0 && r && lb_db_result_nrows(r) == 3 && lb_db_result_nfields(r) == 5,
          "query.select_shape", "rc %d rows %ld fields %d", rc, (long)lb_db_result_nrows(r), lb_db_result_nfields(r));
    const char *const *v;
    const unsigned long *l;
    int ok = 1, nrows = 0;
    static const char *want[3][5] = {
        {"1", "5000000001", "1.5", "one", NULL},
        {"2", "-3", "2.25", "two", "7"},
        {"3", "0", "-0.5", "", "9"},
    };
    while (r && lb_db_result_fetch(r, &v, &l) == 1) {
        for (int i = 0; i < 5 && nrows < 3; i++) {
            const char *w = want[nrows][i];
            if (!w)
                ok &= v[i] == NULL;
            else
                ok &= v[i] && strcmp(v[i], w) == 0 && l[i] == strlen(w);
        }
        nrows++;
    }
    check(ok && nrows == 3, "query.select_values", "rows %d values %s", nrows, ok ? "ok" : "wrong");
    check(st->rows == rows0 + 3 && st->queries[LB_DB_Q_SELECT] == sel0 + 1, "query.rows_counted",
          "rows +%lu selects +%lu", (unsigned long)(st->rows - rows0),
          (unsigned long)(st->queries[LB_DB_Q_SELECT] - sel0));
    q(c, "DO 1");
    check(lb_db_conn_result(c) == NULL, "query.previous_result_freed", "result survived a new query");
    check(q_int(c, "UPDATE lbt_e2e SET n = 1 WHERE id >= 2") == -1 && lb_db_affected_rows(c) == 2,
          "query.affected_rows_update", "affected %lu", (unsigned long)lb_db_affected_rows(c));
}

/* ---- multiple result sets ---- */

static void test_multi_results(lb_db_conn *c, lb_db_stats *st)
{
    const char *const *v;
    const unsigned long *l;
    int rc = q(c, "SELECT 1; SELECT 2, 'x'; DO 0");
    lb_db_result *r = lb_db_conn_result(c);
    int first = r && lb_db_result_fetch(r, &v, &l) == 1 && strcmp(v[0], "1") == 0;
    int n2 = lb_db_next_result(c);
    r = lb_db_conn_result(c);
    int second = n2 == 1 && r && lb_db_result_nfields(r) == 2 && lb_db_result_fetch(r, &v, &l) == 1 &&
                 strcmp(v[0], "2") == 0 && strcmp(v[1], "x") == 0;
    int n3 = lb_db_next_result(c);
    int third = n3 == 1 && lb_db_conn_result(c) == NULL;
    int n4 = lb_db_next_result(c);
    check(rc == 0 && first && second && third && n4 == 0, "multi.results",
          "rc %d first %d second %d(n2=%d) third %d(n3=%d) end %d", rc, first, second, n2, third, n3, n4);

    /* Unread result sets are discarded by the next query. */
    q(c, "SELECT 1; SELECT 2; SELECT 3");
    long long x = q_int(c, "SELECT 42");
    check(x == 42, "multi.unread_discarded", "got %lld", x);

    /* A failing later statement is reported by next_result and counted. */
    uint64_t e0 = err_count(st, 1146);
    rc = q(c, "SELECT 1; SELECT * FROM lbt_no_such_table");
    int nr = lb_db_next_result(c);
    check(rc == 0 && nr == -1146 && err_count(st, 1146) == e0 + 1, "multi.later_error",
          "rc %d next %d counted %lu", rc, nr, (unsigned long)(err_count(st, 1146) - e0));
    check(q_int(c, "SELECT 7") == 7, "multi.usable_after_error", "connection not usable");
}

/* ---- prepared statements ---- */

typedef struct row {
    long long id, b;
    double d;
    char s[256];
    unsigned long slen;
    int null_n;
} row;

static const char nasty[] = "it's \"quoted\" \\ back\0nul\n\r\032 end";

/* Insert rows via prepared statements (native or emulated) and read them
 * back via a prepared SELECT; returns rows read into out[]. */
static int ps_roundtrip(lb_db_conn *c, const char *table, row *out, int max)
{
    char sql[256];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", table);
    q(c, sql);
    snprintf(sql, sizeof sql, "CREATE TABLE %s (id INT PRIMARY KEY, b BIGINT, d DOUBLE, s VARCHAR(200), n INT NULL)", table);
    q(c, sql);
    snprintf(sql, sizeof sql, "INSERT INTO %s (id, b, d, s, n) VALUES (?, ?, ?, ?, ?)", table);
    lb_db_stmt *ins = lb_db_prepare(c, sql, strlen(sql));
    snprintf(sql, sizeof sql, "SELECT id, b, d, s, n FROM %s WHERE id >= ? ORDER BY id", table);
    lb_db_stmt *sel = lb_db_prepare(c, sql, strlen(sql));
    if (!ins || !sel) {
        printf("# prepare failed: %s\n", lb_db_conn_error(c)->message);
        return -1;
    }
    char sbuf[256];
    lb_db_bind p[5];
    memset(p, 0, sizeof p);
    p[0].type = LB_DB_T_INT;
    p[1].type = LB_DB_T_BIGINT;
    p[2].type = LB_DB_T_DOUBLE;
    p[3].type = LB_DB_T_VARCHAR;
    p[3].buf = sbuf;
    p[3].cap = sizeof sbuf;
    p[4].type = LB_DB_T_INT;
    if (lb_db_stmt_bind_param(ins, p, 5) != 0)
        return -1;
    for (int i = 0; i < 4; i++) {
        p[0].i = i + 1;
        p[1].i = (1LL << 33) + i * 1000003LL;   /* > 2^32 */
        p[2].d = i * 0.1 + 1e-9;
        if (i == 3) {
            memcpy(sbuf, nasty, sizeof nasty - 1);
            p[3].len = sizeof nasty - 1;
        } else {
            p[3].len = (uint64_t)snprintf(sbuf, sizeof sbuf, "val-%d", i);
        }
        p[4].is_null = (i % 2) == 0;
        p[4].i = i * 10;
        if (lb_db_stmt_execute(ins) != 0) {
            printf("# execute failed: %s\n", lb_db_conn_error(c)->message);
            return -1;
        }
    }
    lb_db_bind sp;
    memset(&sp, 0, sizeof sp);
    sp.type = LB_DB_T_INT;
    sp.i = 1;
    lb_db_stmt_bind_param(sel, &sp, 1);
    if (lb_db_stmt_execute(sel) != 0)
        return -1;
    lb_db_result *r = lb_db_stmt_result(sel);
    const char *const *v;
    const unsigned long *l;
    int n = 0;
    while (r && n < max && lb_db_result_fetch(r, &v, &l) == 1) {
        row *o = &out[n++];
        memset(o, 0, sizeof *o);
        o->id = atoll(v[0]);
        o->b = atoll(v[1]);
        o->d = strtod(v[2], NULL);
        o->slen = l[3];
        memcpy(o->s, v[3], l[3] < sizeof o->s ? l[3] : sizeof o->s);
        o->null_n = v[4] == NULL;
    }
    lb_db_stmt_close(ins);
    lb_db_stmt_close(sel);
    return n;
}

static int rows_expected(const row *r, int n)
{
    if (n != 4)
        return 0;
    for (int i = 0; i < 4; i++) {
        char s[64];
        if (r[i].id != i + 1 || r[i].b != (1LL << 33) + i * 1000003LL ||
            fabs(r[i].d - (i * 0.1 + 1e-9)) > 1e-12 || r[i].null_n != ((i % 2) == 0))
            return 0;
        if (i == 3) {
            if (r[i].slen != sizeof nasty - 1 || memcmp(r[i].s, nasty, r[i].slen) != 0)
                return 0;
        } else {
            int sl = snprintf(s, sizeof s, "val-%d", i);
            if (r[i].slen != (unsigned long)sl || memcmp(r[i].s, s, (size_t)sl) != 0)
                return 0;
        }
    }
    return 1;
}

static void test_prepared(lb_db_conn *c, lb_db_stats *st)
{
    row native[8], emu[8];
    uint64_t ins0 = st->queries[LB_DB_Q_INSERT];
    int nn = ps_roundtrip(c, "lbt_ps_native", native, 8);
    check(rows_expected(native, nn), "ps.native_values", "rows %d", nn);
    check(st->queries[LB_DB_Q_INSERT] - ins0 == 4, "ps.native_counted", "inserts %lu",
          (unsigned long)(st->queries[LB_DB_Q_INSERT] - ins0));

    lb_db_stats st2;
    lb_db_stats_init(&st2);
    lb_db_conn *ce = open_conn(&st2, LB_DB_PS_DISABLE);
    int ne = ce ? ps_roundtrip(ce, "lbt_ps_emu", emu, 8) : -1;
    check(rows_expected(emu, ne), "ps.emulated_values", "rows %d", ne);
    int same = nn == ne && nn > 0;
    for (int i = 0; same && i < nn; i++)
        same = native[i].id == emu[i].id && native[i].b == emu[i].b && native[i].d == emu[i].d &&
               native[i].slen == emu[i].slen && memcmp(native[i].s, emu[i].s, native[i].slen) == 0 &&
               native[i].null_n == emu[i].null_n;
    check(same, "ps.disable_identical", "native and emulated results differ");
    check(st2.queries[LB_DB_Q_INSERT] == 4 && st2.queries[LB_DB_Q_SELECT] == 1, "ps.emulated_counted",
          "ins %lu sel %lu", (unsigned long)st2.queries[LB_DB_Q_INSERT], (unsigned long)st2.queries[LB_DB_Q_SELECT]);
    /* Server-side the table contents are identical too. */
    long long diff = q_int(c, "SELECT COUNT(*) FROM lbt_ps_native a JOIN lbt_ps_emu b USING (id) "
                              "WHERE a.b = b.b AND a.d = b.d AND a.s = b.s AND a.n <=> b.n");
    check(diff == 4, "ps.disable_identical_server_side", "matching rows %lld", diff);
    lb_db_disconnect(ce);

    /* Long values grow the result buffers; NULL params; in-place updates. */
    lb_db_stmt *s = lb_db_prepare(c, "SELECT REPEAT('x', ?), ? IS NULL, ?", 35);
    char vb[8] = "abc";
    lb_db_bind p[3];
    memset(p, 0, sizeof p);
    p[0].type = LB_DB_T_INT;
    p[1].type = LB_DB_T_INT;
    p[2].type = LB_DB_T_VARCHAR;
    p[2].buf = vb;
    p[2].cap = sizeof vb;
    p[2].len = 3;
    int ok = s && lb_db_stmt_bind_param(s, p, 3) == 0;
    const char *const *v;
    const unsigned long *l;
    int lens[] = { 10, 100000, 5, 70000 };
    for (int k = 0; ok && k < 4; k++) {
        p[0].i = lens[k];
        p[1].is_null = (char)(k & 1);
        ok &= lb_db_stmt_execute(s) == 0;
        lb_db_result *r = lb_db_stmt_result(s);
        ok &= r && lb_db_result_fetch(r, &v, &l) == 1;
        if (!ok)
            break;
        ok &= l[0] == (unsigned long)lens[k] && v[0][0] == 'x' && v[0][l[0] - 1] == 'x' && v[0][l[0]] == '\0';
        ok &= strcmp(v[1], (k & 1) ? "1" : "0") == 0;
        ok &= strcmp(v[2], "abc") == 0;
        ok &= lb_db_result_fetch(r, &v, &l) == 0;
    }
    check(ok, "ps.long_values_and_nulls", "mismatch");
    /* A statement result is superseded by the next query. */
    lb_db_stmt_execute(s);
    q(c, "DO 1");
    check(lb_db_stmt_result(s) == NULL, "ps.result_superseded", "stale statement result visible");
    lb_db_stmt_close(s);

    /* Swapping a param buffer between executes is picked up. */
    s = lb_db_prepare(c, "SELECT CONCAT(?, '!')", 21);
    char b1[] = "first", b2[] = "second";
    lb_db_bind sp;
    memset(&sp, 0, sizeof sp);
    sp.type = LB_DB_T_VARCHAR;
    sp.buf = b1;
    sp.cap = sizeof b1;
    sp.len = 5;
    lb_db_stmt_bind_param(s, &sp, 1);
    lb_db_stmt_execute(s);
    lb_db_result *r = lb_db_stmt_result(s);
    int a = r && lb_db_result_fetch(r, &v, &l) == 1 && strcmp(v[0], "first!") == 0;
    sp.buf = b2;
    sp.cap = sizeof b2;
    sp.len = 6;
    lb_db_stmt_execute(s);
    r = lb_db_stmt_result(s);
    int b = r && lb_db_result_fetch(r, &v, &l) == 1 && strcmp(v[0], "second!") == 0;
    check(a && b, "ps.buffer_swap", "first %d second %d", a, b);
    lb_db_stmt_close(s);

    /* Statements the server cannot prepare fall back to emulation. */
    s = lb_db_prepare(c, "PREPARE lb_p FROM 'SELECT 6*7'", 30);
    int prc = s ? lb_db_stmt_execute(s) : -1;
    long long pv = q_int(c, "EXECUTE lb_p");
    check(s && prc == 0 && pv == 42, "ps.unsupported_falls_back", "stmt %p rc %d value %lld", (void *)s, prc, pv);
    lb_db_stmt_close(s);
    q(c, "DEALLOCATE PREPARE lb_p");

    /* A prepare error is reported and counted. */
    uint64_t e0 = err_count(st, 1064);
    s = lb_db_prepare(c, "SELEC oops ?", 12);
    check(s == NULL && lb_db_conn_error(c)->code == 1064 && err_count(st, 1064) == e0 + 1,
          "ps.prepare_error", "code %d", lb_db_conn_error(c)->code);
}

/* ---- errors ---- */

static void test_connect_errors(void)
{
    lb_db_conn_opts o = base;
    o.password = "definitely-wrong";
    lb_db_error err;
    memset(&err, 0, sizeof err);
    lb_db_conn *c = lb_db_connect(lb_db_driver_find("mysql"), &o, NULL, &err);
    check(c == NULL && err.code == 1045 && strstr(err.message, "Access denied") != NULL &&
          strcmp(err.sqlstate, "28000") == 0, "error.bad_password",
          "code %d sqlstate %s message '%s'", err.code, err.sqlstate, err.message);
    printf("# bad password: %d (%s) %s\n", err.code, err.sqlstate, err.message);

    o = base;
    o.host = "127.0.0.1";
    o.socket = NULL;
    o.port = 1;
    o.connect_timeout = 2;
    memset(&err, 0, sizeof err);
    c = lb_db_connect(lb_db_driver_find("mysql"), &o, NULL, &err);
    check(c == NULL && (err.code == 2002 || err.code == 2003) && lb_db_error_is_connection_lost(err.code),
          "error.bad_port", "code %d message '%s'", err.code, err.message);
    printf("# bad port: %d %s\n", err.code, err.message);
}

/* ssl_mode: "preferred" always connects (TLS iff the server has it);
 * "required" connects with TLS or fails with 2026, never silently plain. */
static void test_ssl_modes(lb_db_conn *c)
{
    const char *const *v;
    const unsigned long *l;
    int have = 0;
    if (q(c, "SELECT @@have_ssl") == 0) {
        lb_db_result *r = lb_db_conn_result(c);
        have = r && lb_db_result_fetch(r, &v, &l) == 1 && v[0] && strcmp(v[0], "YES") == 0;
    }
    for (int mode = LB_DB_SSL_PREFERRED; mode <= LB_DB_SSL_REQUIRED; mode++) {
        lb_db_conn_opts o = base;
        o.ssl_mode = mode;
        lb_db_error err;
        memset(&err, 0, sizeof err);
        lb_db_conn *t = lb_db_connect(lb_db_driver_find("mysql"), &o, NULL, &err);
        int tls = 0;
        if (t && lb_db_query(t, "SHOW STATUS LIKE 'Ssl_cipher'", 29) == 0) {
            lb_db_result *r = lb_db_conn_result(t);
            tls = r && lb_db_result_fetch(r, &v, &l) == 1 && v[1] && v[1][0];
        }
        int ok = have ? (t && tls) : (mode == LB_DB_SSL_PREFERRED ? (t && !tls) : (!t && err.code == 2026));
        check(ok, mode == LB_DB_SSL_PREFERRED ? "ssl.preferred" : "ssl.required",
              "server have_ssl %d: connected %d tls %d err %d %s", have, t != NULL, tls, err.code, err.message);
        lb_db_disconnect(t);
    }
    printf("# ssl: server have_ssl=%s\n", have ? "YES" : "no");
}

static void test_error_counting(lb_db_conn *c, lb_db_stats *st)
{
    uint64_t e0 = st->errors, d0 = err_count(st, 1062);
    int rc1 = q(c, "INSERT INTO lbt_e2e VALUES (1, 0, 0, 'dup', NULL)");
    int rc2 = q(c, "INSERT INTO lbt_e2e VALUES (2, 0, 0, 'dup', NULL)");
    const lb_db_error *e = lb_db_conn_error(c);
    check(rc1 == -1062 && rc2 == -1062 && e->code == 1062 && strcmp(e->sqlstate, "23000") == 0 &&
          strncmp(e->query, "INSERT INTO lbt_e2e", 19) == 0,
          "error.duplicate_key", "rc %d/%d code %d state %s query '%s'", rc1, rc2, e->code, e->sqlstate, e->query);
    check(err_count(st, 1062) == d0 + 2 && st->errors == e0 + 2, "error.counted_per_code",
          "1062 count +%lu errors +%lu", (unsigned long)(err_count(st, 1062) - d0),
          (unsigned long)(st->errors - e0));

    /* More distinct codes than slots: the rest lands in the code -1 slot. */
    lb_db_stats s2;
    lb_db_stats_init(&s2);
    lb_db_conn *c2 = open_conn(&s2, LB_DB_PS_AUTO);
    char sql[128];
    for (int i = 0; i < 40; i++) {
        int n = snprintf(sql, sizeof sql, "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = %d", 30001 + i);
        lb_db_query(c2, sql, (size_t)n);
    }
    uint64_t sum = 0;
    int distinct = 0;
    for (int i = 0; i < LB_DB_ERRSLOTS - 1; i++) {
        sum += s2.err[i].count;
        distinct += s2.err[i].count == 1 && s2.err[i].code == 30001 + i;
    }
    check(s2.errors == 40 && distinct == LB_DB_ERRSLOTS - 1 && s2.err[LB_DB_ERRSLOTS - 1].code == -1 &&
          s2.err[LB_DB_ERRSLOTS - 1].count == 40 - (LB_DB_ERRSLOTS - 1) && sum == LB_DB_ERRSLOTS - 1,
          "error.slot_overflow", "errors %lu distinct %d overflow code %d count %lu",
          (unsigned long)s2.errors, distinct, s2.err[LB_DB_ERRSLOTS - 1].code,
          (unsigned long)s2.err[LB_DB_ERRSLOTS - 1].count);
    lb_db_disconnect(c2);
}

/* ---- deadlock ---- */

typedef struct dl_arg {
    int first, second;
    pthread_barrier_t *bar;
    lb_db_stats st;
    int rc;
} dl_arg;

static void *deadlock_worker(void *p)
{
    dl_arg *a = p;
    lb_db_stats_init(&a->st);
    lb_db_conn *c = open_conn(&a->st, LB_DB_PS_AUTO);
    if (!c) {
        pthread_barrier_wait(a->bar);
        a->rc = -1;
        return NULL;
    }
    char sql[128];
    q(c, "BEGIN");
    snprintf(sql, sizeof sql, "UPDATE lbt_e2e SET n = n + 1 WHERE id = %d", a->first);
    q(c, sql);
    pthread_barrier_wait(a->bar);
    snprintf(sql, sizeof sql, "UPDATE lbt_e2e SET n = n + 1 WHERE id = %d", a->second);
    a->rc = lb_db_query(c, sql, strlen(sql));
    q(c, "ROLLBACK");
    lb_db_disconnect(c);
    lb_db_thread_done();
    return NULL;
}

static void test_deadlock(void)
{
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    dl_arg a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.first = 1, a.second = 2, a.bar = &bar;
    b.first = 2, b.second = 1, b.bar = &bar;
    pthread_t ta, tb;
    double t0 = now_s();
    pthread_create(&ta, NULL, deadlock_worker, &a);
    pthread_create(&tb, NULL, deadlock_worker, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&bar);
    uint64_t n1213 = err_count(&a.st, 1213) + err_count(&b.st, 1213);
    int one_lost = (a.rc == -1213) + (b.rc == -1213) == 1 && (a.rc == 0 || b.rc == 0);
    check(one_lost && n1213 == 1 && a.st.errors + b.st.errors == 1, "error.deadlock_1213",
          "rc %d/%d, 1213 counted %lu", a.rc, b.rc, (unsigned long)n1213);
    printf("# deadlock resolved in %.3f s (rc %d / %d)\n", now_s() - t0, a.rc, b.rc);
}

/* ---- abort ---- */

typedef struct ab_arg {
    lb_db_conn *c;
    int rc;
    double t_end;
} ab_arg;

static void *sleeper(void *p)
{
    ab_arg *a = p;
    a->rc = q(a->c, "SELECT SLEEP(30)");
    a->t_end = now_s();
    return NULL;
}

static void test_abort(void)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_conn(&st, LB_DB_PS_AUTO);
    if (!c) {
        check(0, "abort.unblocks", "no connection");
        return;
    }
    ab_arg a = { c, 0, 0 };
    pthread_t t;
    pthread_create(&t, NULL, sleeper, &a);
    usleep(300 * 1000);
    double t0 = now_s();
    lb_db_conn_abort(c);
    pthread_join(t, NULL);
    double dt = a.t_end - t0;
    check(a.rc < 0 && lb_db_error_is_connection_lost(-a.rc) && dt < 1.0, "abort.unblocks",
          "rc %d after %.3f s", a.rc, dt);
    printf("# abort: SELECT SLEEP(30) returned %d after %.1f ms\n", a.rc, dt * 1000);
    check(lb_db_reconnect(c) == 0 && q_int(c, "SELECT 5") == 5 && st.reconnects == 1,
          "abort.reconnect_after", "reconnects %lu", (unsigned long)st.reconnects);
    lb_db_disconnect(c);
}

/* ---- reconnect after KILL ---- */

static void test_kill_reconnect(lb_db_conn *admin)
{
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_conn(&st, LB_DB_PS_AUTO);
    if (!c) {
        check(0, "reconnect.after_kill", "no connection");
        return;
    }
    lb_db_stmt *s = lb_db_prepare(c, "SELECT ? + 1", 12);
    lb_db_stmt *s2 = lb_db_prepare(c, "SELECT CONNECTION_ID()", 22);
    lb_db_bind p;
    memset(&p, 0, sizeof p);
    p.type = LB_DB_T_BIGINT;
    p.i = 41;
    lb_db_stmt_bind_param(s, &p, 1);
    const char *const *v;
    const unsigned long *l;
    long long id1 = q_int(c, "SELECT CONNECTION_ID()");
    char sql[64];
    snprintf(sql, sizeof sql, "KILL %lld", id1);
    int krc = q(admin, sql);
    int rc = lb_db_stmt_execute(s);
    check(krc == 0 && rc < 0 && lb_db_error_is_connection_lost(-rc), "reconnect.kill_detected",
          "kill rc %d, execute rc %d (%s)", krc, rc, lb_db_conn_error(c)->message);
    printf("# after KILL: execute returned %d: %s\n", rc, lb_db_conn_error(c)->message);
    int rrc = lb_db_reconnect(c);
    p.i = 99;
    int erc = lb_db_stmt_execute(s);
    lb_db_result *r = lb_db_stmt_result(s);
    int val_ok = erc == 0 && r && lb_db_result_fetch(r, &v, &l) == 1 && strcmp(v[0], "100") == 0;
    lb_db_stmt_execute(s2);
    r = lb_db_stmt_result(s2);
    long long id2 = r && lb_db_result_fetch(r, &v, &l) == 1 ? atoll(v[0]) : -1;
    check(rrc == 0 && val_ok && id2 > 0 && id2 != id1 && st.reconnects == 1, "reconnect.after_kill",
          "reconnect %d execute %d value_ok %d ids %lld->%lld reconnects %lu", rrc, erc, val_ok, id1, id2,
          (unsigned long)st.reconnects);
    lb_db_stmt_close(s);
    lb_db_stmt_close(s2);
    lb_db_disconnect(c);
}

/* ---- bulk insert ---- */

static void test_bulk(lb_db_conn *c, lb_db_stats *st)
{
    q(c, "DROP TABLE IF EXISTS lbt_bulk");
    q(c, "CREATE TABLE lbt_bulk (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL)");
    const char *prefix = "INSERT INTO lbt_bulk (id, k, c, pad) VALUES";
    uint64_t ins0 = st->queries[LB_DB_Q_INSERT];
    double t0 = now_s();
    int ok = lb_db_bulk_insert_init(c, prefix, strlen(prefix)) == 0;
    char row[256];
    for (int i = 1; ok && i <= 100000; i++) {
        int n = snprintf(row, sizeof row,
                         "(%d,%d,'%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d','%011d-%011d-%011d-%011d-%011d')",
                         i, i * 7 % 100000, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i);
        ok &= lb_db_bulk_insert_next(c, row, (size_t)n) == 0;
    }
    ok &= lb_db_bulk_insert_done(c) == 0;
    double dt = now_s() - t0;
    long long cnt = q_int(c, "SELECT COUNT(*) FROM lbt_bulk");
    long long sum = q_int(c, "SELECT SUM(id) FROM lbt_bulk");
    uint64_t flushes = st->queries[LB_DB_Q_INSERT] - ins0;
    check(ok && cnt == 100000 && sum == 100000LL * 100001 / 2, "bulk.100k_rows",
          "ok %d count %lld sum %lld", ok, cnt, sum);
    check(flushes > 1 && flushes < 200, "bulk.flush_count", "%lu statements", (unsigned long)flushes);
    printf("# bulk: 100000 rows in %lu statements, %.2f s\n", (unsigned long)flushes, dt);
}

int main(void)
{
    const char *port = getenv("LB_MYSQL_PORT");
    if (!port || !*port) {
        printf("SKIP test_db_mysql: LB_MYSQL_PORT not set\n");
        return 77;
    }
    lb_db_conn_opts_init(&base);
    base.host = getenv("LB_MYSQL_HOST") ? getenv("LB_MYSQL_HOST") : "127.0.0.1";
    base.port = atoi(port);
    base.user = getenv("LB_MYSQL_USER") ? getenv("LB_MYSQL_USER") : "sbtest";
    base.password = getenv("LB_MYSQL_PASSWORD") ? getenv("LB_MYSQL_PASSWORD") : "";
    base.db = getenv("LB_MYSQL_DB") ? getenv("LB_MYSQL_DB") : "sbtest";
    base.connect_timeout = 5;
    /* LB_DB_BLOCKING=1: every case again on a thread's blocking connection
     * (the driver's blocking calls; test/e2e/run.sh runs both). */
    base.blocking = getenv("LB_DB_BLOCKING") && atoi(getenv("LB_DB_BLOCKING")) != 0;

    if (lb_db_global_init() != 0) {
        check(0, "global_init", "failed");
        return check_exit();
    }
    lb_db_stats st;
    lb_db_stats_init(&st);
    lb_db_conn *c = open_conn(&st, LB_DB_PS_AUTO);
    check(c != NULL, "connect.ok", "cannot connect to %s:%d", base.host, base.port);
    if (!c)
        return check_exit();
    test_connect_and_query(c, &st);
    test_multi_results(c, &st);
    test_prepared(c, &st);
    test_connect_errors();
    test_ssl_modes(c);
    test_error_counting(c, &st);
    test_deadlock();
    test_abort();
    test_kill_reconnect(c);
    test_bulk(c, &st);
    q(c, "DROP TABLE IF EXISTS lbt_e2e, lbt_ps_native, lbt_ps_emu, lbt_bulk");
    printf("# stats: select %lu insert %lu update %lu delete %lu other %lu errors %lu rows %lu\n",
           (unsigned long)st.queries[0], (unsigned long)st.queries[1], (unsigned long)st.queries[2],
           (unsigned long)st.queries[3], (unsigned long)st.queries[4], (unsigned long)st.errors,
           (unsigned long)st.rows);
    lb_db_disconnect(c);
    lb_db_thread_done();
    lb_db_global_done();
    return check_exit();
}
