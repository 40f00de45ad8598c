/* luart — creating and entering Lua states (internal to the core).
 *
 * Every state gets the standard libraries, a loader for the Lua half of the
 * runtime (embedded into the library at build time, so an installed binary
 * needs no lua/ directory), and print() routed to the runtime's output.
 * Every entry into Lua goes through lua_pcall with a traceback handler, so
 * script errors come back as "file:line: message" plus a traceback. */
#ifndef LB_LUART_H
#define LB_LUART_H

#include <stddef.h>

typedef struct lua_State lua_State;
typedef struct lb_runtime lb_runtime;

/* A new state for `rt`; NULL with `err` filled on failure. */
lua_State *lb__luart_new(lb_runtime *rt, char *err, size_t errlen);

/* Call require(module)[fn](ptr, str, rt) protected.  Returns 0, or -1 with
 * the error and traceback in `err`.  A string returned by the function is
 * ignored. */
int lb__luart_call_module(lua_State *L, const char *module, const char *fn, void *ptr,
                          const char *str, char *err, size_t errlen);

void lb__luart_close(lua_State *L);

/* Message handler for lua_pcall: one line for runtime usage errors
 * ({lbench_message=...}), message plus traceback for everything else. */
int lb__luart_msgh(lua_State *L);

/* Runtime internals the core needs (defined in runtime.c). */
int lb__runtime_stop_requested(const lb_runtime *rt);

#endif
