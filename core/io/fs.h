/* fs — filesystem and device facts and chores for the fileio scenario.
 *
 * The Lua side sizes, creates and checks a file set through these (it has
 * no stat, statvfs or ioctl of its own), and the I/O core takes its
 * O_DIRECT-ready buffers from here.  Every function returns 0 or a
 * documented non-negative value, or -errno; none prints. */
#ifndef LB_IO_FS_H
#define LB_IO_FS_H

#include <stddef.h>
#include <stdint.h>

/* FFI BEGIN */
typedef struct lb_io_space {
    uint64_t total;        /* filesystem capacity (statvfs f_blocks) or device size */
    uint64_t avail;        /* free for unprivileged users (f_bavail) */
    int32_t is_blockdev;
    int32_t pad;
} lb_io_space;
/* statvfs of a path, or the size of a block device.  0 / -errno. */
int lb_io_space_of(const char *path, lb_io_space *out);
/* Drop the page-cache pages of a file or block device, as fio's invalidate
 * does before a job: a test that reads through the cache after prepare (or
 * after another test) would measure memory, not the device.  Dirty pages
 * are written back first so that they can go too.  0 / -errno. */
int lb_io_invalidate(const char *path);
enum { LB_IO_PATH_NONE = 0, LB_IO_PATH_FILE = 1, LB_IO_PATH_DIR = 2, LB_IO_PATH_BLOCKDEV = 3,
       LB_IO_PATH_OTHER = 4 };
/* What `path` is (LB_IO_PATH_*), or -errno other than ENOENT. */
int lb_io_path_kind(const char *path);
/* Size of a file, or of a block device; -errno. */
int64_t lb_io_path_size(const char *path);
/* mkdir -p (mode 0755).  0 / -errno. */
int lb_io_mkdir_p(const char *path);
/* Number of entries of a directory other than "." and ".."; -errno. */
int lb_io_dir_entries(const char *path);
/* FFI END */

/* `n` bytes (4096 when n is 0) aligned to 4 KiB, which satisfies O_DIRECT on
 * every device we meet (logical blocks of 512 B or 4 KiB); free() it.
 * NULL when out of memory. */
void *lb__io_alloc_aligned(size_t n);

#endif
