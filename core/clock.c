#include "clock.h"

#include <errno.h>

int64_t lb_clock_ns(void) { return lb_clock_ns_inline(); }

double lb_clock_now(void) { return (double)lb_clock_ns_inline() / 1e9; }

double lb_clock_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void lb_clock_sleep_until(int64_t t_ns)
{
    if (t_ns <= 0)
        return;
    struct timespec ts = {.tv_sec = t_ns / 1000000000LL, .tv_nsec = t_ns % 1000000000LL};
    /* An absolute deadline makes EINTR restarts exact. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void lb_clock_sleep_ns(int64_t ns)
{
    if (ns > 0)
        lb_clock_sleep_until(lb_clock_ns_inline() + ns);
}
