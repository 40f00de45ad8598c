/* The C row generator of bulk loads (rowgen.h): rows exactly as the Lua
 * path makes them (id, k from the distribution, c and pad from their
 * templates), only whole rows per buffer, ids in order without a gap
 * across fills, the progress count, and a stop ending the rows; and
 * lb_rand_dist_draw drawing what the distribution's own function draws. */
#include "check.h"
#include "lbench.h"
#include "rand.h"
#include "rowgen.h"
#include "runtime.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char C_TMPL[] = "###########-###########-###########-###########-###########-"
                             "###########-###########-###########-###########-###########";
static const char PAD_TMPL[] = "###########-###########-###########-###########-###########";

/* Every line of buf[0..n) a row "id\tk\tc\tpad" with ids from *next on;
 * returns the rows, or -1 on the first bad one. */
static long check_rows(const char *buf, size_t n, long *next, long k_max, const regex_t *re)
{
    long rows = 0;
    const char *p = buf, *end = buf + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return -1;
        char line[512];
        size_t len = (size_t)(nl - p);
        if (len >= sizeof line)
            return -1;
        memcpy(line, p, len);
        line[len] = '\0';
        char *tab;
        long id = strtol(line, &tab, 10), k = strtol(tab + 1, NULL, 10);
        if (id != *next || k < 1 || k > k_max || regexec(re, line, 0, NULL, 0) != 0)
            return -1;
        (*next)++;
        rows++;
        p = nl + 1;
    }
    return rows;
}

static void test_rows(void)
{
    regex_t re;
    regcomp(&re, "^[0-9]+\t[0-9]+\t[0-9]{11}(-[0-9]{11}){9}\t[0-9]{11}(-[0-9]{11}){4}$", REG_EXTENDED | REG_NOSUB);
    lb_rand r;
    lb_rand_seed(&r, 42, 0);
    lb_rand_dist d = { .kind = LB_RAND_DIST_SPECIAL, .pct = 1, .res = 75 };
    lb_runtime *rt = lb_runtime_new();
    lb_runtime_progress_reset(rt, 10000);
    const lb_progress progress = { lb_runtime_stop_flag(rt), lb_runtime_progress_cb, rt };
    lb_rowgen_sbtest g;
    int rc = lb_rowgen_sbtest_init(&g, &r, &d, &progress, 1, 10000, 10000, C_TMPL, strlen(C_TMPL), PAD_TMPL, strlen(PAD_TMPL));
    check(rc == 0, "rowgen_init", "init returned %d", rc);
    char buf[LB_ROWSRC_MIN_CAP + 100];
    long next = 1, rows = 0, bad = 0, fills = 0;
    size_t n;
    while ((n = g.src.fill(g.src.ud, buf, sizeof buf)) > 0) {
        long got = check_rows(buf, n, &next, 10000, &re);
        if (got < 0)
            bad++;
        else
            rows += got;
        fills++;
    }
    check(bad == 0 && rows == 10000 && next == 10001, "rowgen_rows_whole_and_in_order",
          "%ld bad buffers, %ld rows, next id %ld", bad, rows, next);
    check(fills > 1, "rowgen_several_fills", "%ld fills", fills);
    check(g.rows == 10000 && lb_runtime_progress_done(rt) == 10000, "rowgen_counts_progress",
          "generated %.0f, progress %llu", g.rows, (unsigned long long)lb_runtime_progress_done(rt));
    check(g.src.fill(g.src.ud, buf, sizeof buf) == 0, "rowgen_stays_done", "more rows after the end");
    /* A stop ends the rows at the next fill. */
    lb_rowgen_sbtest_init(&g, &r, &d, &progress, 1, 1000000, 1000000, C_TMPL, strlen(C_TMPL), PAD_TMPL, strlen(PAD_TMPL));
    size_t first = g.src.fill(g.src.ud, buf, sizeof buf);
    lb_runtime_request_stop(rt);
    check(first > 0 && g.src.fill(g.src.ud, buf, sizeof buf) == 0, "rowgen_stop_ends_rows", "rows after a stop");
    check(lb_rowgen_sbtest_init(&g, &r, &d, NULL, 1, 2, 2, buf, sizeof buf, PAD_TMPL, 5) != 0,
          "rowgen_refuses_huge_template", "a template larger than a buffer was accepted");
    lb_runtime_free(rt);
    regfree(&re);
}

/* Same seed, same draws: the descriptor calls the distribution's function. */
static void test_dist(void)
{
    struct { int kind; const char *name; } kinds[] = {
        { LB_RAND_DIST_UNIFORM, "uniform" }, { LB_RAND_DIST_GAUSSIAN, "gaussian" },
        { LB_RAND_DIST_SPECIAL, "special" }, { LB_RAND_DIST_PARETO, "pareto" }, { LB_RAND_DIST_ZIPFIAN, "zipfian" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        lb_rand a, b;
        lb_rand_seed(&a, 7, 1);
        lb_rand_seed(&b, 7, 1);
        lb_rand_dist d = { .kind = kinds[i].kind, .iter = 12, .pct = 1, .res = 75, .h = 0.2, .theta = 0.8 };
        int same = 1;
        for (int j = 0; j < 1000 && same; j++) {
            double x = lb_rand_dist_draw(&a, &d, 1, 1000), y;
            switch (kinds[i].kind) {
            case LB_RAND_DIST_GAUSSIAN: y = lb_rand_gaussian(&b, 1, 1000, 12); break;
            case LB_RAND_DIST_SPECIAL: y = lb_rand_special(&b, 1, 1000, 1, 75, 12); break;
            case LB_RAND_DIST_PARETO: y = lb_rand_pareto(&b, 1, 1000, 0.2); break;
            case LB_RAND_DIST_ZIPFIAN: y = lb_rand_zipfian(&b, 1, 1000, 0.8); break;
            default: y = lb_rand_uniform(&b, 1, 1000); break;
            }
            same = x == y;
        }
        char name[64];
        snprintf(name, sizeof name, "rand_dist_%s", kinds[i].name);
        check(same, name, "lb_rand_dist_draw differs from lb_rand_%s", kinds[i].name);
    }
}

int main(void)
{
    test_rows();
    test_dist();
    return check_exit();
}
