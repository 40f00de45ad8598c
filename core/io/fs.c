/* fs — filesystem and device helpers.  See fs.h. */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int lb_io_space_of(const char *path, lb_io_space *out)
{
    memset(out, 0, sizeof(*out));
    struct stat st;
    if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
        /* statvfs of a device node describes the filesystem holding /dev,
         * not the device: ask the device for its size. */
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        uint64_t bytes = 0;
        int rc = ioctl(fd, BLKGETSIZE64, &bytes);
        int e = errno;
        close(fd);
        if (rc < 0)
            return -e;
        out->total = out->avail = bytes;
        out->is_blockdev = 1;
        return 0;
    }
    struct statvfs vs;
    if (statvfs(path, &vs) < 0)
        return -errno;
    out->total = (uint64_t)vs.f_blocks * vs.f_frsize;
    out->avail = (uint64_t)vs.f_bavail * vs.f_frsize;
    return 0;
}


int lb_io_invalidate(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    /* POSIX_FADV_DONTNEED only starts writeback of dirty pages and keeps
     * them; sync first.  EROFS/EINVAL: nothing can be dirty there. */
    int rc = fdatasync(fd) < 0 && errno != EROFS && errno != EINVAL ? -errno : 0;
    if (rc == 0)
        rc = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc;
}

int lb_io_path_kind(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR ? LB_IO_PATH_NONE : -errno;
    if (S_ISREG(st.st_mode)) return LB_IO_PATH_FILE;
    if (S_ISDIR(st.st_mode)) return LB_IO_PATH_DIR;
    if (S_ISBLK(st.st_mode)) return LB_IO_PATH_BLOCKDEV;
    return LB_IO_PATH_OTHER;
}

int64_t lb_io_path_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    if (S_ISBLK(st.st_mode)) {   /* st_size of a device node is 0 */
        lb_io_space sp;
        int rc = lb_io_space_of(path, &sp);
        return rc < 0 ? rc : (int64_t)sp.total;
    }
    return (int64_t)st.st_size;
}

int lb_io_mkdir_p(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -errno;
            buf[i] = c;
        }
    }
    /* EEXIST also covers a file of that name: say so rather than succeed. */
    return lb_io_path_kind(path) == LB_IO_PATH_DIR ? 0 : -ENOTDIR;
}

int lb_io_dir_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

void *lb__io_alloc_aligned(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 4096) != 0)
        return NULL;
    return p;
}
