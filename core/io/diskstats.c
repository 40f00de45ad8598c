/* diskstats — see diskstats.h. */
#include "diskstats.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int lb_diskstats_read(const char *name, lb_diskstats *out)
{
    if (!name || !*name)
        return -1;
    FILE *f = fopen("/proc/diskstats", "r");
    if (!f)
        return -1;
    char line[512], dev[64];
    int rc = -1;
    while (fgets(line, sizeof(line), f)) {
        /* major minor name reads merged sectors ms writes merged sectors ms
         * in-flight busy-ms weighted-ms ... (later kernels append more) */
        uint64_t v[10];
        if (sscanf(line, "%*u %*u %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, dev, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7], &v[8], &v[9]) != 11 || strcmp(dev, name) != 0)
            continue;
        out->reads = v[0];
        out->sectors_read = v[2];
        out->read_ms = v[3];
        out->writes = v[4];
        out->sectors_written = v[6];
        out->write_ms = v[7];
        out->busy_ms = v[9];
        rc = 0;
        break;
    }
    fclose(f);
    return rc;
}
