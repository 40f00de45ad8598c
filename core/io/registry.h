/* registry — the list of I/O engines and the lookup by name.
 *
 * One explicit array (registry.c) rather than constructor-attribute
 * registration, so the set of engines and their order are visible in one
 * place; each ops table is checked for completeness when it is looked up,
 * so a half-filled engine is "unknown", never a NULL call at run time. */
#ifndef LB_IO_REGISTRY_H
#define LB_IO_REGISTRY_H

#include <stddef.h>

#include "engine.h"

/* FFI BEGIN */
/* Number of engines in the registry ("sync", "libaio", ...); the Lua layer
 * probes this symbol to tell that the I/O objects were linked in. */
int lb_io_engine_count(void);
/* Can the engine run here?  0, or -errno with the reason in err (e.g.
 * io_uring not compiled in or refused by the kernel, or an unknown name). */
int lb_io_engine_probe(const char *name, char *err, size_t errlen);
/* FFI END */

/* The complete ops table of engine `name` (aliases: "psync" for sync,
 * "uring" for io_uring); NULL when unknown or incomplete. */
const lb__io_engine_ops *lb__io_engine_find(const char *name);
/* The error text for an unknown engine, shared by probe and job creation. */
void lb__io_engine_unknown(const char *name, char *err, size_t errlen);

#endif
