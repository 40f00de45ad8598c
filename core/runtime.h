/* runtime — internals of lb_runtime shared with the rest of the core and
 * with the Lua half of the runtime (through the FFI).  The public API is
 * in lbench.h. */
#ifndef LB_RUNTIME_H
#define LB_RUNTIME_H

#include <stddef.h>

#include "lbench.h"

typedef struct lua_State lua_State;

/* Write report text through the output callback (thread-safe if the
 * callback is). */
void lb__runtime_write(lb_runtime *rt, const char *s, size_t len);

/* The runtime a Lua state belongs to (stored in its registry). */
lb_runtime *lb__runtime_self(lua_State *L);

/* FFI BEGIN */
void lb_out(lb_runtime *rt, const char *s, size_t len);
void lb_runtime_emit_interval(lb_runtime *rt, const lb_interval *iv);
void lb_runtime_set_result(lb_runtime *rt, const char *json, size_t len);
int  lb_runtime_stop_requested(const lb_runtime *rt);
void lb_runtime_clear_stop(lb_runtime *rt);
void lb_runtime_set_error(lb_runtime *rt, const char *msg);
int  lb_runtime_type_id(lb_runtime *rt, const char *name);
const char *lb_runtime_type_name(lb_runtime *rt, int id);
int  lb_runtime_type_count(lb_runtime *rt);
const char *lb_runtime_share_dir(void);
const char *lb_runtime_exe_dir(void);
/* FFI END */

#endif
