-- Every type, enum constant and function of sysbench 1.0.20's FFI surface
-- (what its internal Lua modules declare), used without a declaration of
-- the script's own: prints each name that is missing.
local C = ffi.C
local missing = {}
local function try(name, f) if not pcall(f) then missing[#missing + 1] = name end end

local types = { "sb_counter_type", "sql_error_t", "sql_driver", "sql_value", "sql_row", "sql_connection",
  "sql_statement", "sql_result", "sql_bind_type_t", "sql_bind", "sb_arg_type_t", "sb_opt_validate_t", "sb_arg_t",
  "sb_histogram_t" }
for _, t in ipairs(types) do try(t, function() return ffi.typeof(t .. " *") end) end

local constants = { "SB_CNT_OTHER", "SB_CNT_READ", "SB_CNT_WRITE", "SB_CNT_TRX", "SB_CNT_ERROR",
  "SB_CNT_RECONNECT", "SB_CNT_MAX", "DB_ERROR_NONE", "DB_ERROR_IGNORABLE", "DB_ERROR_FATAL", "SQL_TYPE_NONE",
  "SQL_TYPE_TINYINT", "SQL_TYPE_SMALLINT", "SQL_TYPE_INT", "SQL_TYPE_BIGINT", "SQL_TYPE_FLOAT", "SQL_TYPE_DOUBLE",
  "SQL_TYPE_TIME", "SQL_TYPE_DATE", "SQL_TYPE_DATETIME", "SQL_TYPE_TIMESTAMP", "SQL_TYPE_CHAR", "SQL_TYPE_VARCHAR",
  "SB_ARG_TYPE_NULL", "SB_ARG_TYPE_BOOL", "SB_ARG_TYPE_INT", "SB_ARG_TYPE_SIZE", "SB_ARG_TYPE_DOUBLE",
  "SB_ARG_TYPE_STRING", "SB_ARG_TYPE_LIST", "SB_ARG_TYPE_FILE", "SB_ARG_TYPE_MAX" }
for _, k in ipairs(constants) do try(k, function() return C[k] + 0 end) end

local functions = { "sb_event_start", "sb_event_stop", "sb_more_events", "sb_counter_inc",
  "sb_rand_uniform_uint64", "sb_rand_default", "sb_rand_uniform", "sb_rand_gaussian", "sb_rand_special",
  "sb_rand_pareto", "sb_rand_unique", "sb_rand_str", "sb_rand_uniform_double",
  "sb_histogram_new", "sb_histogram_delete", "sb_histogram_update", "sb_histogram_print",
  "sb_lua_set_test_args", "sb_print_test_options",
  "db_create", "db_destroy", "db_connection_create", "db_connection_close", "db_connection_reconnect",
  "db_connection_free", "db_bulk_insert_init", "db_bulk_insert_next", "db_bulk_insert_done", "db_query",
  "db_fetch_row", "db_prepare", "db_bind_param", "db_bind_result", "db_execute", "db_close", "db_free_results" }
for _, f in ipairs(functions) do try(f, function() return C[f] end) end

-- Values sysbench gives them.
assert(C.SB_CNT_READ == 1 and C.SB_CNT_TRX == 3 and C.SB_CNT_MAX == 6 and C.SQL_TYPE_VARCHAR == 12
  and C.SB_ARG_TYPE_FILE == 7 and C.DB_ERROR_FATAL == 2, "enum values")
-- sysbench.rand's Lua side too.
assert(ffi.istype("uint64_t", sysbench.rand.uniform_uint64()), "uniform_uint64 is a uint64_t")

sysbench.cmdline.commands = {
  check = {function()
    print(#types + #constants + #functions .. " names, missing: " .. (#missing > 0 and table.concat(missing, " ") or "none"))
  end},
}
function event() end
