/* diskstats — one block device's counters from /proc/diskstats.
 *
 * fileio's data points set what lbench issued beside what reached the
 * device (merges, read-ahead, the filesystem's own writes); the points are
 * cut in the workers every N I/Os, so the device's counters are read there,
 * in C, at the same instant.  The reporter's per-interval figures read the
 * same file from Lua (lua/lbench/devices.lua). */
#ifndef LB_IO_DISKSTATS_H
#define LB_IO_DISKSTATS_H

#include <stdint.h>

/* FFI BEGIN */
/* Completed reads and writes, 512-byte sectors, milliseconds spent in
 * reads / writes, and milliseconds the device was busy (%util's base). */
typedef struct lb_diskstats {
    uint64_t reads, writes, sectors_read, sectors_written;
    uint64_t read_ms, write_ms, busy_ms;
} lb_diskstats;

/* Counters of device `name` (sda, nvme0n1, dm-0): 0, or -1 when the file
 * cannot be read or has no such device. */
int lb_diskstats_read(const char *name, lb_diskstats *out);
/* FFI END */

#endif
