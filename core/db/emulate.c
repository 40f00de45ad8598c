/* Statement emulation: placeholders found once per statement, the text of
 * each execute built into a buffer the statement keeps (grown, never
 * shrunk, so a steady workload does not allocate).  Values are rendered so
 * that the server sees what a server-side execute would send. */
#include "emulate.h"
#include "error.h"
#include "sql.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lb__db_stmt_emulate(lb_db_stmt *s)
{
    s->emulated = 1;
    s->drv = NULL;
    int n = lb__db_scan_placeholders(s->sql, s->len, NULL);
    free(s->ph);
    s->ph = NULL;
    if (n > 0) {
        s->ph = malloc((size_t)n * sizeof *s->ph);
        if (!s->ph) {
            lb__db_error_set(&s->c->err, LB_DB_E_NOMEM, "HY001", "out of memory");
            return -LB_DB_E_NOMEM;
        }
        lb__db_scan_placeholders(s->sql, s->len, s->ph);
    }
    s->nparams = n;
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

/* emu_build without the recording of its failure. */
static int emu_text(lb_db_stmt *s, size_t *out_len)
{
    lb_db_conn *c = s->c;
    size_t need = s->len + 1;
    for (int i = 0; i < s->nparams; i++) {
        const lb_db_bind *p = &s->params[i];
        if (p->is_null)
            need += 4;
        else if (lb__db_bind_is_text(p->type))
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

int lb__db_emu_build(lb_db_stmt *s, size_t *out_len)
{
    if (emu_text(s, out_len) != 0)
        return lb__db_fail(s->c, s->sql, s->len, 1);
    return 0;
}
