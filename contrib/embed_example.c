/* Embedding lbench in another C program.
 *
 *   cc embed_example.c $(pkg-config --cflags --libs lbench) -o embed_example
 *   ./embed_example script.lua|stock_scenario [threads] [seconds] [option=value ...]
 *
 *   ./embed_example oltp_point_select 2 5 db-driver=null
 *
 * Runs the scenario's "run" command, receives the interval reports through a
 * callback, and prints a few fields of the result.  The library prints
 * nothing by itself: report text arrives through the output callback, which
 * this program forwards with a prefix. */
#include <stdio.h>
#include <string.h>

#include <lbench.h>

static void on_output(void *ud, const char *text, size_t len)
{
    (void)ud;
    fwrite(text, 1, len, stdout);
}

static void on_interval(void *ud, const lb_interval *iv)
{
    int *count = ud;
    (*count)++;
    printf("interval %.0fs: %.0f events/s, p%g %.3f ms\n", iv->time_s, iv->events_per_s,
           iv->n_percentiles ? iv->percentiles[0] : 0.0, iv->n_percentiles ? iv->lat_ms[0] : 0.0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s script.lua|stock_scenario [threads] [seconds] [option=value ...]\n", argv[0]);
        return 2;
    }
    lb_runtime *rt = lb_runtime_new();
    if (!rt)
        return 1;
    int intervals = 0;
    lb_runtime_set_output(rt, on_output, NULL);
    lb_runtime_set_interval_callback(rt, on_interval, &intervals);
    int rc = lb_runtime_set_option(rt, "threads", argc > 2 ? argv[2] : "2");
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "time", argc > 3 ? argv[3] : "2");
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "report-interval", "1");
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "verbosity", "0");
    /* Any other option by its command-line name: db-driver=null ... */
    for (int i = 4; rc == 0 && i < argc; i++) {
        char name[128];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof(name)) {
            fprintf(stderr, "embed_example: '%s': expected option=value\n", argv[i]);
            lb_runtime_free(rt);
            return 2;
        }
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        rc = lb_runtime_set_option(rt, name, eq + 1);
    }
    if (rc == 0)
        rc = lb_runtime_load(rt, argv[1]);
    if (rc == 0)
        rc = lb_runtime_command(rt, "run");
    if (rc != 0) {
        fprintf(stderr, "embed_example: %s\n", lb_runtime_error(rt));
        lb_runtime_free(rt);
        return 1;
    }
    const char *json = lb_runtime_result_json(rt);
    printf("callbacks: %d intervals\nresult: %zu bytes of JSON, starts with %.20s\n", intervals,
           json ? strlen(json) : 0, json ? json : "");
    lb_runtime_free(rt);
    return 0;
}
