/* The FFI declarations are cut from the C headers at build time; this test
 * loads them into LuaJIT and checks that every shared struct has the same
 * size and field offsets on both sides (a mismatch would silently corrupt
 * counters or binds). */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "db/db.h"
#include "sbcompat/sbsql.h"
#include "hist.h"
#include "io/io.h"
#include "lbench.h"
#include "rand.h"
#include "sbcompat/sbcompat.h"
#include "stats.h"
#include "worker.h"

typedef struct lb__embedded_file {
    const char *name, *chunkname, *data;
    size_t len;
} lb__embedded_file;
extern const lb__embedded_file lb__embedded_files[];
extern const int lb__embedded_count;

static lua_State *L;

/* ffi.sizeof(type) or ffi.offsetof(type, field) evaluated in LuaJIT. */
static long lua_layout(const char *type, const char *field)
{
    char code[256];
    if (field)
        snprintf(code, sizeof(code), "return require('ffi').offsetof('%s', '%s')", type, field);
    else
        snprintf(code, sizeof(code), "return require('ffi').sizeof('%s')", type);
    if (luaL_dostring(L, code) != 0) {
        printf("# %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    long v = lua_isnumber(L, -1) ? (long)lua_tointeger(L, -1) : -1;
    lua_pop(L, 1);
    return v;
}

#define SIZE(T) check(lua_layout(#T, NULL) == (long)sizeof(T), "ffi_sizeof_" #T, "LuaJIT %ld, C %zu", lua_layout(#T, NULL), sizeof(T))
#define OFF(T, f) check(lua_layout(#T, #f) == (long)offsetof(T, f), "ffi_offsetof_" #T "_" #f, "LuaJIT %ld, C %zu", lua_layout(#T, #f), offsetof(T, f))

int main(void)
{
    L = luaL_newstate();
    luaL_openlibs(L);
    const lb__embedded_file *cdef = NULL;
    for (int i = 0; i < lb__embedded_count; i++)
        if (strcmp(lb__embedded_files[i].name, "lbench.cdef") == 0)
            cdef = &lb__embedded_files[i];
    check(cdef != NULL, "ffi_cdef_embedded", "no lbench.cdef module");
    if (!cdef)
        return check_exit();
    int ok = luaL_loadbuffer(L, cdef->data, cdef->len, "cdef") == 0 && lua_pcall(L, 0, 1, 0) == 0;
    if (ok) {
        lua_getglobal(L, "require");
        lua_pushliteral(L, "ffi");
        lua_call(L, 1, 1);
        lua_getfield(L, -1, "cdef");
        lua_pushvalue(L, -3);
        ok = lua_pcall(L, 1, 0, 0) == 0;
    }
    check(ok, "ffi_cdef_parses", "%s", ok ? "" : lua_tostring(L, -1));
    if (!ok)
        return check_exit();

    SIZE(lb_hist_config);
    OFF(lb_hist_config, rel_error);
    SIZE(lb_zipf);
    SIZE(lb_rand);
    OFF(lb_rand, zipf);
    SIZE(lb_code_count);
    SIZE(lb_stats_ext);
    OFF(lb_stats_ext, codes);
    SIZE(lb_handle_ops);
    OFF(lb_handle_ops, close);
    SIZE(lb_db_stats);
    OFF(lb_db_stats, reconnects);
    OFF(lb_db_stats, rows);
    OFF(lb_db_stats, err);
    SIZE(lb_db_error);
    OFF(lb_db_error, message);
    OFF(lb_db_error, query);
    OFF(lb_db_error, report);
    SIZE(lb_db_conn_opts);
    OFF(lb_db_conn_opts, port);
    OFF(lb_db_conn_opts, bulk_max);
    OFF(lb_db_conn_opts, debug_ud);
    SIZE(lb_db_bind);
    OFF(lb_db_bind, i);
    OFF(lb_db_bind, d);
    OFF(lb_db_bind, buf);
    OFF(lb_db_bind, len);
    SIZE(lb_type_counts);
    SIZE(lb_stats);
    OFF(lb_stats, busy_ns);
    OFF(lb_stats, io_bytes_written);
    OFF(lb_stats, ext);
    OFF(lb_stats, types);
    SIZE(lb_snapshot);
    OFF(lb_snapshot, sum);
    OFF(lb_snapshot, lat);
    OFF(lb_snapshot, type_lat);
    SIZE(lb_run_config);
    OFF(lb_run_config, rand_seed);
    OFF(lb_run_config, cpus);
    OFF(lb_run_config, boot);
    SIZE(lb_io_params);
    OFF(lb_io_params, bs_pct);
    OFF(lb_io_params, fsync_freq);
    OFF(lb_io_params, seed);
    OFF(lb_io_params, step_ns);
    SIZE(lb_io_counters);
    SIZE(lb_io_point);
    OFF(lb_io_point, read_lat_avg_ms);
    OFF(lb_io_point, read_lat_ms);
    OFF(lb_io_point, write_lat_ms);
    SIZE(lb_io_verify_result);
    OFF(lb_io_verify_result, nbad);
    SIZE(lb_io_bad_block);
    OFF(lb_io_bad_block, found_offset);
    SIZE(lb_io_space);
    SIZE(lb_io_steady);
    OFF(lb_io_steady, excursion_pct);
    SIZE(lb_interval);
    OFF(lb_interval, lat_ms);
    OFF(lb_interval, json);
    /* sysbench's surface (sbcompat/sbcompat.h, sbcompat/sbsql.h): scripts read these. */
    SIZE(sb_arg_t);
    OFF(sb_arg_t, validate);
    SIZE(lb_sb_rand_cfg);
    OFF(lb_sb_rand_cfg, zipf_exp);
    SIZE(sql_connection);
    OFF(sql_connection, sql_errmsg);
    OFF(sql_connection, driver);
    SIZE(sql_result);
    OFF(sql_result, nfields);
    OFF(sql_result, row);
    SIZE(sql_value);
    SIZE(sql_bind);
    OFF(sql_bind, max_len);
    OFF(sql_bind, is_null);
    OFF(lb_db_stats, writes_other);
    OFF(lb_db_stats, reconnect_failed);
    OFF(lb_db_stats, lost);
    OFF(lb_db_stats, outage_ns);
    OFF(lb_db_stats, gave_up);
    lua_close(L);
    return check_exit();
}
