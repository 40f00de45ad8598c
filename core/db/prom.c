/* The SQL layer's counters (lb_db_stats, the workers' extension block) as
 * Prometheus lines for the metrics endpoint (metrics.c asks its owner for
 * them: lb_metrics_host.ext_lines), so that the engine's writer knows
 * nothing of the SQL layer. */
#include "db.h"
#include "../loop.h"

#include <stdio.h>

static const char *const qtype_name[LB_DB_Q_NTYPES] = { "select", "insert", "update", "delete", "other" };

static void counter(lb_loop_reply *rep, const char *name, const char *help)
{
    lb_loop_reply_printf(rep, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

/* An error code as its label: "other" for the overflow slot, PostgreSQL's
 * by SQLSTATE (as in the result file), MySQL's by number. */
static void code_label(int32_t code, char *buf, size_t n)
{
    char state[6];
    if (code == -1)
        snprintf(buf, n, "other");
    else if (lb_db_code_sqlstate(code, state))
        snprintf(buf, n, "%s", state);
    else
        snprintf(buf, n, "%d", code);
}

void lb_db_metrics_lines(void *owner, const void *ext, lb_loop_reply *rep)
{
    (void)owner;
    const lb_db_stats *db = ext;
    counter(rep, "lbench_queries_total", "successful queries by class");
    for (int i = 0; i < LB_DB_Q_NTYPES; i++)
        lb_loop_reply_printf(rep, "lbench_queries_total{type=\"%s\"} %llu\n", qtype_name[i],
                             (unsigned long long)db->queries[i]);
    counter(rep, "lbench_query_errors_total", "failed queries by error code");
    for (int i = 0; i < LB_DB_ERRSLOTS; i++) {
        if (db->err[i].count == 0)
            continue;
        char code[16];
        code_label(db->err[i].code, code, sizeof code);
        lb_loop_reply_printf(rep, "lbench_query_errors_total{code=\"%s\"} %llu\n", code,
                             (unsigned long long)db->err[i].count);
    }
    counter(rep, "lbench_reconnects_total", "successful reconnects after a lost connection");
    lb_loop_reply_printf(rep, "lbench_reconnects_total %llu\n", (unsigned long long)db->reconnects);
    counter(rep, "lbench_rows_total", "rows returned to the client");
    lb_loop_reply_printf(rep, "lbench_rows_total %llu\n", (unsigned long long)db->rows);
}
