/* registry — the I/O engines lbench knows, in the order they are listed.
 * See registry.h. */
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const lb__io_engine_ops *const engines[] = {
    &lb__io_sync_ops,
    &lb__io_libaio_ops,
    &lb__io_uring_ops,
    &lb__io_mmap_ops,
    &lb__io_null_ops,
};
enum { NENGINES = sizeof(engines) / sizeof(engines[0]) };

/* probe is the only optional entry: everything else the core calls
 * unconditionally. */
static int ops_complete(const lb__io_engine_ops *o)
{
    return o->name && o->init && o->cleanup && o->queue && o->commit && o->reap;
}

const lb__io_engine_ops *lb__io_engine_find(const char *name)
{
    if (!name)
        return NULL;
    /* fio's names for the same engines. */
    if (!strcmp(name, "psync"))
        name = "sync";
    if (!strcmp(name, "uring"))
        name = "io_uring";
    for (int i = 0; i < NENGINES; i++)
        if (!strcmp(engines[i]->name, name))
            return ops_complete(engines[i]) ? engines[i] : NULL;
    return NULL;
}

void lb__io_engine_unknown(const char *name, char *err, size_t errlen)
{
    snprintf(err, errlen, "unknown I/O engine '%s' (sync, libaio, io_uring, mmap, null)", name ? name : "");
}

int lb_io_engine_count(void) { return NENGINES; }

int lb_io_engine_probe(const char *name, char *err, size_t errlen)
{
    const lb__io_engine_ops *o = lb__io_engine_find(name);
    if (!o) {
        lb__io_engine_unknown(name, err, errlen);
        return -EINVAL;
    }
    return o->probe ? o->probe(err, errlen) : 0;
}
