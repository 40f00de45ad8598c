#include "luart.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Generated at build time from lua/ (see contrib/embed.lua). */
typedef struct lb__embedded_file {
    const char *name;      /* module name, e.g. "lbench.run.worker" */
    const char *chunkname; /* "@lua/lbench/run/worker.lua": error messages name the source file */
    const char *data;      /* the source */
    size_t len;
    const char *bc;        /* the same module as bytecode, with debug information */
    size_t bclen;
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
            /* Bytecode first (no parsing in each thread's state); the
             * source when this libluajit reads another bytecode format. */
            if (f->bclen > 0 && luaL_loadbuffer(L, f->bc, f->bclen, f->chunkname) == 0)
                return 1;
            if (f->bclen > 0)
                lua_pop(L, 1);
            if (luaL_loadbuffer(L, f->data, f->len, f->chunkname) != 0)
                return lua_error(L);
            return 1;
        }
    }
    lua_pushfstring(L, "\n\tno embedded module '%s'", name);
    return 1;
}

/* ---- scenario files: parsed once per process ----------------------------------
 *
 * Every worker thread has its own Lua state, and each loads the scenario and
 * the modules it requires; parsing a 30 KiB scenario costs about half a
 * millisecond, once per thread (and twice in the main state).  The first
 * load keeps the chunk's bytecode, with its debug information (file:line in
 * errors and tracebacks stay as they were); later loads of the same file
 * read that instead.  An entry is used only while the file's device, inode,
 * size and modification time are unchanged, so an edited file is parsed
 * anew.  Entries are never freed: a process loads a handful of files. */
typedef struct cached_chunk {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char *bc;
    size_t len;
    struct cached_chunk *next;
} cached_chunk;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cached_chunk *cache_head;

static int same_file(const cached_chunk *c, const char *path, const struct stat *st)
{
    return c->dev == st->st_dev && c->ino == st->st_ino && c->size == st->st_size &&
           c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           strcmp(c->path, path) == 0;
}

typedef struct dump_buf {
    char *p;
    size_t len, cap;
    int oom;
} dump_buf;

static int dump_writer(lua_State *L, const void *data, size_t n, void *ud)
{
    (void)L;
    dump_buf *b = ud;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16384;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return 1;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return 0;
}

/* Keep the bytecode of the function on top of the stack for `path`.
 * Best effort: when memory is short the file is simply parsed next time. */
static void cache_store(lua_State *L, const char *path, const struct stat *st)
{
    dump_buf b = {0};
    if (lua_dump(L, dump_writer, &b) != 0 || b.oom) {
        free(b.p);
        return;
    }
    cached_chunk *c = calloc(1, sizeof(*c));
    char *pc = strdup(path);
    if (!c || !pc) {
        free(c);
        free(pc);
        free(b.p);
        return;
    }
    *c = (cached_chunk){ .path = pc, .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
                         .mtime = st->st_mtim, .bc = b.p, .len = b.len };
    pthread_mutex_lock(&cache_mu);
    c->next = cache_head;
    cache_head = c;
    pthread_mutex_unlock(&cache_mu);
}

/* ---- stock scenarios: compiled at build time ----------------------------------
 *
 * The main state parses a scenario and its modules before the workers read
 * them from the cache above: some 55 instructions per byte of source,
 * 9.4M for pgbench's 170 KB (the CPU of 300 pgbench transactions, once per
 * run).  The stock scenarios go in as bytecode too (contrib/embed.lua),
 * with their source's size and hash: a file whose path ends with a stock
 * scenario's name and whose bytes are that scenario's, as built, is loaded
 * from the bytecode; an edited copy is parsed as any other file. */
typedef struct lb__stock_chunk {
    const char *rel;     /* "scenarios/pgbench/custom.lua" */
    size_t len;          /* the source's size */
    uint64_t hash;       /* FNV-1a (64 bits) of the source */
    const char *bc;      /* its bytecode, with debug information */
    size_t bclen;
} lb__stock_chunk;
extern const lb__stock_chunk lb__stock_chunks[];
extern const int lb__stock_count;

/* Files loaded so (require("lbench.stock_loads")() for the specs). */
static _Atomic unsigned stock_loads;

static int l_stock_loads(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)atomic_load(&stock_loads));
    return 1;
}

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* The stock scenario `path` may be: its name ends with the entry's at a
 * directory boundary, and the sizes agree. */
static const lb__stock_chunk *stock_entry(const char *path, off_t size)
{
    size_t plen = strlen(path);
    for (int i = 0; i < lb__stock_count; i++) {
        const lb__stock_chunk *e = &lb__stock_chunks[i];
        size_t rlen = strlen(e->rel);
        if ((off_t)e->len == size && plen >= rlen && strcmp(path + plen - rlen, e->rel) == 0 &&
            (plen == rlen || path[plen - rlen - 1] == '/'))
            return e;
    }
    return NULL;
}

static size_t uleb128(const unsigned char *p, size_t len, size_t *pos)
{
    size_t v = 0;
    for (int shift = 0; *pos < len && shift < 35; shift += 7) {
        unsigned char b = p[(*pos)++];
        v |= (size_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* The chunk's bytecode with the file name in its header (LuaJIT takes the
 * chunk name from there, not from the loader) made `name`: errors and
 * tracebacks name the file as if it had been parsed.  Header: ESC 'L' 'J'
 * version, flags (ULEB128), then, unless stripped (flag 2), the name's
 * length (ULEB128) and bytes.  NULL when malformed or out of memory. */
static char *renamed_bytecode(const lb__stock_chunk *e, const char *name, size_t *outlen)
{
    const unsigned char *bc = (const unsigned char *)e->bc;
    size_t pos = 4;
    if (e->bclen < 5 || bc[0] != 0x1b || bc[1] != 'L' || bc[2] != 'J')
        return NULL;
    size_t flags = uleb128(bc, e->bclen, &pos), head = pos;
    if (flags & 2)
        return NULL;
    size_t old = uleb128(bc, e->bclen, &pos);
    if (pos + old > e->bclen)
        return NULL;
    size_t nlen = strlen(name), rest = e->bclen - pos - old;
    char *out = malloc(head + 5 + nlen + rest);
    if (!out)
        return NULL;
    memcpy(out, bc, head);
    size_t o = head;
    for (size_t v = nlen;; v >>= 7) {
        out[o++] = (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80)
            break;
    }
    memcpy(out + o, name, nlen);
    memcpy(out + o + nlen, bc + pos + old, rest);
    *outlen = o + nlen + rest;
    return out;
}

/* Load `path` from its stock bytecode: 1 with the function on the stack,
 * 0 with the stack as it was (not a stock scenario, edited, unreadable, or
 * a libluajit that reads another bytecode format: the caller parses it). */
static int load_stock(lua_State *L, const char *path, const struct stat *st)
{
    const lb__stock_chunk *e = stock_entry(path, st->st_size);
    if (!e)
        return 0;
    unsigned char *src = malloc(e->len ? e->len : 1);
    FILE *f = src ? fopen(path, "rb") : NULL;
    int same = f && fread(src, 1, e->len, f) == e->len && fgetc(f) == EOF && fnv1a64(src, e->len) == e->hash;
    if (f)
        fclose(f);
    free(src);
    size_t n = strlen(path);
    char *name = same ? malloc(n + 2) : NULL;
    if (!name)
        return 0;
    name[0] = '@';
    memcpy(name + 1, path, n + 1);
    size_t bclen;
    char *bc = renamed_bytecode(e, name, &bclen);
    int ok = bc && luaL_loadbuffer(L, bc, bclen, name) == 0;
    if (bc && !ok)
        lua_pop(L, 1);
    if (ok)
        atomic_fetch_add(&stock_loads, 1);
    free(bc);
    free(name);
    return ok;
}

/* loadfile(path) for scenario files and the modules they require: the
 * loaded function, or nil and the message, as Lua's loadfile. */
static int l_loadfile_cached(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    int cacheable = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (cacheable) {
        const cached_chunk *hit = NULL;
        pthread_mutex_lock(&cache_mu);
        for (const cached_chunk *c = cache_head; c && !hit; c = c->next)
            if (same_file(c, path, &st))
                hit = c;
        pthread_mutex_unlock(&cache_mu);
        /* The chunk name is the one stored in the bytecode ("@path"). */
        if (hit && luaL_loadbuffer(L, hit->bc, hit->len, path) == 0)
            return 1;
        if (hit) {
            lua_pop(L, 1);
            cacheable = 0;   /* already stored: just parse */
        }
    }
    if (cacheable && load_stock(L, path, &st)) {
        cache_store(L, path, &st);
        return 1;
    }
    if (luaL_loadfile(L, path) != 0) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (cacheable)
        cache_store(L, path, &st);
    return 1;
}

/* package.loaders entry after the embedded modules: package.path's files
 * through the cache above (Lua's own file searcher still follows it). */
static int load_path_cached(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, -3, "path");
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2)) {
        lua_pop(L, 3);
        lua_pushliteral(L, "");   /* Lua's searcher will report the paths tried */
        return 1;
    }
    lua_pop(L, 1);
    const char *file = lua_tostring(L, -1);
    lua_pushcfunction(L, l_loadfile_cached);
    lua_pushstring(L, file);
    lua_call(L, 1, 2);
    if (lua_isnil(L, -2))
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
                          lua_tostring(L, -1));
    lua_pop(L, 1);
    return 1;
}

/* A state's owner and its output, kept in the registry. */
struct owner {
    void *owner;
    lb__luart_out out;
};

/* print() that writes through the owner's output, so that a library user
 * decides where scenario output goes. */
static int l_print(lua_State *L)
{
    const struct owner *o = lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    lua_getglobal(L, "tostring");
    int tostr = n + 1;
    /* The line is built on the stack with lua_concat (the accumulator at
     * tostr + 1): a luaL_Buffer must not be mixed with stack-relative
     * indexes, which broke print() of long arguments. */
    lua_pushliteral(L, "");
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            lua_pushliteral(L, "\t");
        lua_pushvalue(L, tostr);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        if (!lua_isstring(L, -1))
            return luaL_error(L, "'tostring' must return a string to 'print'");
        lua_concat(L, lua_gettop(L) - tostr);
    }
    lua_pushliteral(L, "\n");
    lua_concat(L, 2);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    o->out(o->owner, s, len);
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
    /* The first frame of an error() call is error itself: drop it, so the
     * traceback starts with the script's own frame. */
    luaL_gsub(L, lua_tostring(L, -1), "stack traceback:\n\t[C]: in function 'error'\n", "stack traceback:\n");
    /* And lbench's own frames (the command dispatch around a script's
     * prepare(), the loader around its top level): util.user_traceback.
     * Protected: a failure there keeps the whole traceback. */
    int tb = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lbench.util");
    if (lua_pcall(L, 1, 1, 0) == 0 && lua_istable(L, -1)) {
        lua_getfield(L, -1, "user_traceback");
        lua_pushvalue(L, tb);
        if (lua_pcall(L, 1, 1, 0) == 0 && lua_isstring(L, -1))
            lua_replace(L, tb);
    }
    lua_settop(L, tb);
    return 1;
}

lua_State *lb__luart_new(void *owner, lb__luart_out out, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "cannot create a Lua state: out of memory");
        return NULL;
    }
    luaL_openlibs(L);
    struct owner *o = lua_newuserdata(L, sizeof *o);
    o->owner = owner;
    o->out = out;
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "lbench.owner");
    lua_pushcclosure(L, l_print, 1);
    lua_setglobal(L, "print");
    /* package.loaders: after the preload searcher, ours: the embedded
     * modules (so the runtime's own cannot be shadowed by files on disk),
     * then package.path's files through the parse-once cache; Lua's own
     * searchers follow, two places down. */
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaders");
    int n = (int)lua_objlen(L, -1);
    for (int i = n; i >= 2; i--) {
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 2);
    }
    lua_pushcfunction(L, load_embedded);
    lua_rawseti(L, -2, 2);
    lua_pushcfunction(L, load_path_cached);
    lua_rawseti(L, -2, 3);
    lua_pop(L, 1);
    /* require("lbench.loadfile")(path): loadfile through the cache. */
    lua_getfield(L, -1, "loaded");
    lua_pushcfunction(L, l_loadfile_cached);
    lua_setfield(L, -2, "lbench.loadfile");
    lua_pushcfunction(L, l_stock_loads);
    lua_setfield(L, -2, "lbench.stock_loads");
    lua_pop(L, 2);
    return L;
}

void *lb__luart_owner(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "lbench.owner");
    const struct owner *o = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return o ? o->owner : NULL;
}

int lb__luart_call(lua_State *L, const char *module, const char *fn, const lb__luart_arg *args, int nargs,
                   int *ret, char *err, size_t errlen)
{
    int base = lua_gettop(L);
    if (ret)
        *ret = 0;
    lua_pushcfunction(L, lb__luart_msgh);
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    if (lua_pcall(L, 1, 1, base + 1) != 0)
        goto fail;
    lua_getfield(L, -1, fn);
    lua_remove(L, -2);
    for (int i = 0; i < nargs; i++) {
        if (args[i].s)
            lua_pushstring(L, args[i].s);
        else if (args[i].p)
            lua_pushlightuserdata(L, args[i].p);
        else
            lua_pushnil(L);
    }
    if (lua_pcall(L, nargs, 1, base + 1) != 0)
        goto fail;
    if (ret && lua_isnumber(L, -1))
        *ret = (int)lua_tointeger(L, -1);
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
