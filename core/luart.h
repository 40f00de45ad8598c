/* luart — creating and entering Lua states (internal to the core).
 *
 * Every state gets the standard libraries, a loader for the Lua half of the
 * runtime (embedded into the library at build time, so an installed binary
 * needs no lua/ directory), and print() routed to its owner's output.
 * Every entry into Lua goes through lua_pcall with a traceback handler, so
 * script errors come back as "file:line: message" plus a traceback. */
#ifndef LB_LUART_H
#define LB_LUART_H

#include <stddef.h>

typedef struct lua_State lua_State;

/* Where a state's print() goes: its owner's output. */
typedef void (*lb__luart_out)(void *owner, const char *s, size_t len);

/* A new state for `owner` (the runtime, handed to Lua as its runtime
 * handle), print() through `out`; NULL with `err` filled on failure. */
lua_State *lb__luart_new(void *owner, lb__luart_out out, char *err, size_t errlen);

/* The owner given to lb__luart_new. */
void *lb__luart_owner(lua_State *L);

/* An argument of lb__luart_call: the string `s` when it is not NULL, else
 * light userdata `p`, else nil. */
typedef struct lb__luart_arg {
    void *p;
    const char *s;
} lb__luart_arg;

/* Call require(module)[fn](args...) protected, the one entry into Lua.
 * Returns 0 (*ret, when given, set to an integer result, else 0), or -1
 * with the error and its traceback in `err`. */
int lb__luart_call(lua_State *L, const char *module, const char *fn, const lb__luart_arg *args, int nargs,
                   int *ret, char *err, size_t errlen);

void lb__luart_close(lua_State *L);

/* Message handler for lua_pcall: one line for runtime usage errors
 * ({lbench_message=...}), message plus traceback for everything else. */
int lb__luart_msgh(lua_State *L);

#endif
