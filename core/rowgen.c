/* Rows generated in C for bulk loads (see rowgen.h). */
#include "rowgen.h"

#include <string.h>

/* A row's widest integer field: "-9007199254740992" and its separator. */
#define INT_FIELD_MAX 24

static char *put_int(char *p, double v)
{
    int64_t x = (int64_t)v;
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

int lb_rowgen_sbtest_init(lb_rowgen_sbtest *g, lb_rand *r, const lb_rand_dist *dist, const lb_progress *progress,
                          double first_id, double last_id, double k_max,
                          const char *c_tmpl, size_t c_len, const char *pad_tmpl, size_t pad_len)
{
    if (!g || !r || !dist || 2 * INT_FIELD_MAX + c_len + pad_len + 2 > LB_ROWSRC_MIN_CAP)
        return -1;
    memset(g, 0, sizeof *g);
    g->src.fill = lb_rowgen_sbtest_fill;
    g->src.ud = g;
    g->r = r;
    g->dist = *dist;
    if (progress)
        g->progress = *progress;
    g->next = first_id;
    g->last = last_id;
    g->k_max = k_max;
    g->c_tmpl = c_tmpl;
    g->c_len = c_len;
    g->pad_tmpl = pad_tmpl;
    g->pad_len = pad_len;
    return 0;
}

size_t lb_rowgen_sbtest_fill(void *ud, char *buf, size_t cap)
{
    lb_rowgen_sbtest *g = ud;
    if (g->progress.stop && *g->progress.stop)
        return 0;
    size_t row_max = 2 * INT_FIELD_MAX + g->c_len + g->pad_len + 2;
    char *p = buf, *end = buf + cap;
    uint64_t rows = 0;
    while (g->next <= g->last && (size_t)(end - p) >= row_max) {
        p = put_int(p, g->next);
        *p++ = '\t';
        p = put_int(p, lb_rand_dist_draw(g->r, &g->dist, 1, g->k_max));
        *p++ = '\t';
        lb_rand_string(g->r, g->c_tmpl, g->c_len, p);
        p += g->c_len;
        *p++ = '\t';
        lb_rand_string(g->r, g->pad_tmpl, g->pad_len, p);
        p += g->pad_len;
        *p++ = '\n';
        g->next += 1;
        rows++;
    }
    g->rows += (double)rows;
    if (g->progress.add && rows)
        g->progress.add(g->progress.ud, rows);
    return (size_t)(p - buf);
}
