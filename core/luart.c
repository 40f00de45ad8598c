#include "luart.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

/* Generated at build time from lua/ (see contrib/embed.lua). */
typedef struct lb__embedded_file {
    const char *name;      /* module name, e.g. "lbench.worker" */
    const char *chunkname; /* "@lua/lbench/worker.lua": error messages name the source file */
    const char *data;
    size_t len;
} lb__embedded_file;
extern const lb__embedded_file lb__embedded_files[];
extern const int lb__embedded_count;

/* package.loaders entry: finds embedded modules. */
static int load_embedded(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    for (int i = 0; i < lb__embedded_count; i++) {
        const lb__embedded_file *f = &lb__embedded_files[i];
        if (strcmp(f->name, name) == 0) {
            if (luaL_loadbuffer(L, f->data, f->len, f->chunkname) != 0)
                return lua_error(L);
            return 1;
        }
    }
    lua_pushfstring(L, "\n\tno embedded module '%s'", name);
    return 1;
}

/* print() that writes through the runtime's output callback, so that a
 * library user decides where scenario output goes. */
static int l_print(lua_State *L)
{
    lb_runtime *rt = lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    luaL_Buffer b;
    lua_getglobal(L, "tostring");
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        lua_pushvalue(L, -1 - (i > 1 ? 0 : 0)); /* tostring */
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        if (!lua_isstring(L, -1))
            return luaL_error(L, "'tostring' must return a string to 'print'");
        if (i > 1)
            luaL_addchar(&b, '\t');
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    lb__runtime_write(rt, s, len);
    return 0;
}

int lb__luart_msgh(lua_State *L)
{
    /* Errors raised by the runtime for bad input are tables
     * {lbench_message = "..."}: shown as one line, without a traceback.
     * Everything else is a script or internal error: add a traceback. */
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "lbench_message");
        if (lua_isstring(L, -1))
            return 1;
        lua_pop(L, 1);
        lua_getglobal(L, "tostring");
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        lua_replace(L, 1);
    } else if (!lua_isstring(L, 1)) {
        lua_pushliteral(L, "(error object is not a string)");
        lua_replace(L, 1);
    }
    lua_getglobal(L, "debug");
    lua_getfield(L, -1, "traceback");
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

lua_State *lb__luart_new(lb_runtime *rt, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "cannot create a Lua state: out of memory");
        return NULL;
    }
    luaL_openlibs(L);
    lua_pushlightuserdata(L, rt);
    lua_setfield(L, LUA_REGISTRYINDEX, "lbench.runtime");
    /* package.loaders: insert ours right after the preload searcher, so
     * the runtime's own modules cannot be shadowed by files on disk. */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaders");
    int n = (int)lua_objlen(L, -1);
    for (int i = n; i >= 2; i--) {
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushcfunction(L, load_embedded);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 2);

    lua_pushlightuserdata(L, rt);
    lua_pushcclosure(L, l_print, 1);
    lua_setglobal(L, "print");
    return L;
}

int lb__luart_call_module(lua_State *L, const char *module, const char *fn, void *ptr,
                          const char *str, char *err, size_t errlen)
{
    int base = lua_gettop(L);
    lua_pushcfunction(L, lb__luart_msgh);
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    if (lua_pcall(L, 1, 1, base + 1) != 0)
        goto fail;
    lua_getfield(L, -1, fn);
    lua_remove(L, -2);
    lua_pushlightuserdata(L, ptr);
    lua_pushstring(L, str ? str : "");
    lua_pushlightuserdata(L, lb__runtime_self(L));
    if (lua_pcall(L, 3, 0, base + 1) != 0)
        goto fail;
    lua_settop(L, base);
    return 0;
fail:
    snprintf(err, errlen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown Lua error");
    lua_settop(L, base);
    return -1;
}

void lb__luart_close(lua_State *L)
{
    if (L)
        lua_close(L);
}
