/* steady — SNIA PTS steady state.  See steady.h. */
#include "steady.h"

#include <math.h>
#include <string.h>

int lb_io_steady_state(const double *y, int32_t n, int32_t window, double range_limit_pct,
                       double slope_limit_pct, lb_io_steady *out)
{
    memset(out, 0, sizeof(*out));
    if (window < 2)   /* a slope needs two points */
        window = 2;
    out->window = window;
    if (!y || n < window)
        return 0;
    const double *v = y + (n - window);
    double sx = 0, sy = 0, sxx = 0, sxy = 0, mn = v[0], mx = v[0];
    for (int i = 0; i < window; i++) {
        double x = i;
        sx += x; sy += v[i]; sxx += x * x; sxy += x * v[i];
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    double avg = sy / window;
    double slope = (window * sxy - sx * sy) / (window * sxx - sx * sx);
    out->avg = avg;
    out->min = mn;
    out->max = mx;
    out->slope = slope;
    if (avg <= 0)   /* both criteria are shares of the average */
        return 0;
    out->range_pct = (mx - mn) / avg * 100.0;
    out->excursion_pct = fabs(slope) * (window - 1) / avg * 100.0;
    out->steady = out->range_pct <= range_limit_pct && out->excursion_pct <= slope_limit_pct;
    return out->steady;
}
