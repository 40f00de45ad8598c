/* The embedding API's lb_runtime_set_option: a general option's bad value
 * is refused by the call that gives it (one line naming the option and
 * what it expects, as the command line says it), not by a later command;
 * a good value, and a name the scenario may declare, are taken. */
#include <string.h>

#include "check.h"
#include "lbench.h"

/* One line, starting with `want`. */
static int says(lb_runtime *rt, const char *want)
{
    const char *e = lb_runtime_error(rt);
    return strncmp(e, want, strlen(want)) == 0 && !strchr(e, '\n');
}

int main(void)
{
    lb_runtime *rt = lb_runtime_new();
    if (!rt) {
        check(0, "runtime_new", "lb_runtime_new returned NULL");
        return check_exit();
    }
    int rc = lb_runtime_set_option(rt, "threads", "abc");
    check(rc == -1 && says(rt, "--threads=abc: expected an integer"), "set_option_refuses_bad_int",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    rc = lb_runtime_set_option(rt, "time", "-1");
    check(rc == -1 && says(rt, "--time=-1: expected a number >= 0"), "set_option_refuses_out_of_range",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    rc = lb_runtime_set_option(rt, "rate-mode", "bursty");
    check(rc == -1 && says(rt, "--rate-mode=bursty: expected one of poisson, constant"), "set_option_refuses_bad_choice",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    rc = lb_runtime_set_option(rt, "db_driver", "oracle");
    check(rc == -1 && says(rt, "--db-driver=oracle: unknown driver"), "set_option_refuses_bad_driver",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    rc = lb_runtime_set_option(rt, "threads", NULL);
    check(rc == -1 && says(rt, "--threads needs a value"), "set_option_refuses_no_value",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    rc = lb_runtime_set_option(rt, "threads", "2");
    int rc2 = lb_runtime_set_option(rt, "table-size", "not checked before the script declares it");
    check(rc == 0 && rc2 == 0 && lb_runtime_error(rt)[0] == '\0', "set_option_takes_good_values",
          "rc %d/%d, error '%s'", rc, rc2, lb_runtime_error(rt));
    lb_runtime_free(rt);

    /* Refused values leave nothing behind: a run takes the good ones. */
    rt = lb_runtime_new();
    if (!rt)
        return 1;
    rc = lb_runtime_set_option(rt, "threads", "2");
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "threads", "x") == -1 ? 0 : -1;
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "events", "10");
    if (rc == 0)
        rc = lb_runtime_set_option(rt, "time", "0");
    if (rc == 0)
        rc = lb_runtime_load(rt, "test/cli/scripts/empty.lua");
    if (rc == 0)
        rc = lb_runtime_command(rt, "run");
    const char *json = lb_runtime_result_json(rt);
    check(rc == 0 && json && strstr(json, "\"threads\": 2"), "set_option_refused_values_not_kept",
          "rc %d, error '%s'", rc, lb_runtime_error(rt));
    lb_runtime_free(rt);
    return check_exit();
}
