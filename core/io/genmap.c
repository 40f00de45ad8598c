/* genmap — the generation map file.  See genmap.h. */
#include "genmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct lb_io_genmap {
    uint16_t *map;
    uint64_t n;
    size_t bytes;
};

lb_io_genmap *lb_io_genmap_open(const char *path, uint64_t nchunks, int create, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open the generation map %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t bytes = (size_t)nchunks * sizeof(uint16_t);
    struct stat st;
    /* A short map belongs to another set geometry: refuse rather than
     * read past it. */
    if (fstat(fd, &st) < 0 || (!create && (uint64_t)st.st_size < bytes)) {
        snprintf(err, errlen, "generation map %s is shorter than the file set (%llu chunks)", path,
                 (unsigned long long)nchunks);
        close(fd);
        return NULL;
    }
    if (create && ftruncate(fd, (off_t)bytes) < 0) {
        snprintf(err, errlen, "cannot size the generation map %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    lb_io_genmap *g = calloc(1, sizeof(*g));
    void *p = bytes ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : NULL;
    close(fd);   /* the mapping keeps the file */
    if (!g || p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map the generation map %s: %s", path, g ? strerror(errno) : "out of memory");
        if (p && p != MAP_FAILED)
            munmap(p, bytes);
        free(g);
        return NULL;
    }
    g->map = p;
    g->n = nchunks;
    g->bytes = bytes;
    return g;
}

uint16_t *lb_io_genmap_data(lb_io_genmap *g) { return g ? g->map : NULL; }
uint64_t lb_io_genmap_count(const lb_io_genmap *g) { return g ? g->n : 0; }

void lb_io_genmap_close(lb_io_genmap *g)
{
    if (!g)
        return;
    if (g->map)
        munmap(g->map, g->bytes);
    free(g);
}
