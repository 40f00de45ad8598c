/* SQL scanning: classification by first keyword (every query and execute
 * is counted under its class) and placeholders (statements emulated
 * client-side substitute values at these offsets).  Both skip comments and
 * quoted text the way the server does. */
#include "sql.h"
#include "db.h"

#include <string.h>
#include <strings.h>

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

/* If a quoted name or string or a comment starts at i, the index after
 * it, else i: what the scanners step over without looking inside. */
static size_t skip_literal(const char *s, size_t n, size_t i)
{
    char ch = s[i];
    if (ch == '\'' || ch == '"' || ch == '`')
        return skip_quoted(s, n, i);
    return skip_comment(s, n, i);
}

/* The first index from i on that is outside quoted text and comments. */
static size_t next_code(const char *s, size_t n, size_t i)
{
    size_t j;
    while (i < n && (j = skip_literal(s, n, i)) != i)
        i = j;
    return i;
}

/* s[i] == '(': return the index after the matching ')'. */
static size_t skip_parens(const char *s, size_t n, size_t i)
{
    int depth = 0;
    while ((i = next_code(s, n, i)) < n) {
        char ch = s[i++];
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

/* First keywords with a class of their own (WITH is handled apart). */
static const struct { const char *kw; int type; } keywords[] = {
    {"select", LB_DB_Q_SELECT}, {"insert", LB_DB_Q_INSERT}, {"replace", LB_DB_Q_INSERT},
    {"update", LB_DB_Q_UPDATE}, {"delete", LB_DB_Q_DELETE}, {"table", LB_DB_Q_SELECT},
    {"values", LB_DB_Q_SELECT},
};

static int classify_at(const char *s, size_t n, size_t i, int depth)
{
    i = skip_junk(s, n, i, 1);
    size_t wl = word_at(s, n, i);
    const char *w = s + i;
    if (wl < 4 || wl > 9)
        return LB_DB_Q_OTHER;
    char first = (char)(w[0] | 0x20);
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
        if (keywords[k].kw[0] == first)
            return word_is(w, wl, keywords[k].kw) ? keywords[k].type : LB_DB_Q_OTHER;
    if (first == 'w' && word_is(w, wl, "with"))
        return depth < 8 ? classify_with(s, n, i + wl, depth) : LB_DB_Q_SELECT;
    return LB_DB_Q_OTHER;
}

int lb_db_classify(const char *sql, size_t len)
{
    if (!sql)
        return LB_DB_Q_OTHER;
    return classify_at(sql, len, 0, 0);
}

/* Walk the placeholders; store their offsets in `out` if not NULL. */
int lb__db_scan_placeholders(const char *s, size_t n, size_t *out)
{
    int count = 0;
    size_t i = 0;
    while ((i = next_code(s, n, i)) < n) {
        if (s[i] == '?') {
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
    return sql ? lb__db_scan_placeholders(sql, len, NULL) : 0;
}
