/* Error records: filling one (drivers too use lb__db_error_set), the
 * failure path every API call shares, and which codes mean "reconnect". */
#include "error.h"
#include "account.h"
#include "conn.h"
#include "debug.h"

#include <stdio.h>
#include <string.h>

void lb__db_error_set(lb_db_error *err, int code, const char *sqlstate, const char *msg)
{
    if (!err)
        return;
    err->code = code;
    snprintf(err->sqlstate, sizeof err->sqlstate, "%s", sqlstate && *sqlstate ? sqlstate : "HY000");
    snprintf(err->message, sizeof err->message, "%s", msg ? msg : "");
    err->query[0] = '\0';
    err->report[0] = '\0';
}

/* SQLSTATE characters are digits and upper-case letters: base 36. */
static int b36(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A' + 10;
    return -1;
}

int lb_db_sqlstate_code(const char *state)
{
    if (!state)
        return 0;
    int v = 0;
    for (int i = 0; i < 5; i++) {
        int d = b36(state[i]);
        if (d < 0)
            return 0;
        v = v * 36 + d;
    }
    return state[5] == '\0' ? LB_DB_SQLSTATE_BASE + v : 0;
}

int lb_db_code_sqlstate(int code, char *out)
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    int v = code - LB_DB_SQLSTATE_BASE;
    if (v < 0 || v >= 36 * 36 * 36 * 36 * 36)
        return 0;
    for (int i = 4; i >= 0; i--, v /= 36)
        out[i] = digits[v % 36];
    out[5] = '\0';
    return 1;
}

/* PostgreSQL: class 08 (connection exception) and the server going away
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now). */
static int sqlstate_connection_lost(int code)
{
    char s[6];
    if (!lb_db_code_sqlstate(code, s))
        return 0;
    return (s[0] == '0' && s[1] == '8') ||
           (s[0] == '5' && s[1] == '7' && s[2] == 'P' && s[3] == '0' && s[4] >= '1' && s[4] <= '3');
}

int lb_db_error_is_connection_lost(int code)
{
    if (code >= LB_DB_SQLSTATE_BASE)
        return sqlstate_connection_lost(code);
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

int lb__db_fail(lb_db_conn *c, const char *sql, size_t len, int counted)
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
    if (counted) {
        lb__db_count_error(c->st, e->code);
        if (lb_db_error_is_connection_lost(e->code))
            lb__db_outage_begin(c);
    }
    if (c->opts.debug)
        lb__db_debugf(c, "error %d (%s): %s; query: %.*s", e->code, e->sqlstate, e->message,
                      lb__db_dlen(len), sql ? sql : "");
    return -e->code;
}

int lb__db_fail_code(lb_db_conn *c, int code, const char *msg, const char *sql, size_t len, int counted)
{
    lb__db_error_set(&c->err, code, "HY000", msg);
    return lb__db_fail(c, sql, len, counted);
}
