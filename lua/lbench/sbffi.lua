-- sysbench's FFI surface for scripts: the `ffi` a script sees, and the
-- binding of this state's thread to the sb_* C functions (core/sbcompat.h).
--
-- sysbench's internal Lua modules declare part of its C core with
-- ffi.cdef, and published scripts copy those declarations before they call
-- ffi.C.sb_counter_inc, sb_event_start, sb_rand_str, ...  The types and
-- functions are declared here already (the sbcompat.h FFI section, and the
-- SQL types below), so a script that uses them without declaring them
-- works too.  LuaJIT's ffi.cdef refuses to define an enum constant or a
-- named struct twice ("attempt to redefine"), so the script's `ffi` is a
-- copy of the FFI module whose cdef, on that error, declares the chunk one
-- statement at a time and skips the statements that are already declared.
local ffi = require("ffi")
local C = require("lbench.ffi").C

local M = {}

-- The SQL part of sysbench.sql.lua's declarations (types only).  These are
-- sysbench's own layouts, for scripts that name them (ffi.typeof,
-- ffi.metatype, casts); lbench's SQL layer has its own C types, so no C
-- code of lbench reads these and their single home is here.  The opaque
-- tails are LuaJIT variable-length arrays, which a C header cannot hold.
local SQL_TYPES = [[
typedef enum { DB_ERROR_NONE, DB_ERROR_IGNORABLE, DB_ERROR_FATAL } sql_error_t;
typedef struct { const char *sname; const char *lname; const char opaque[?]; } sql_driver;
typedef struct { uint32_t len; const char *ptr; } sql_value;
typedef struct { void *ptr; sql_value *values; } sql_row;
typedef struct {
  sql_error_t error; int sql_errno; const char *sql_state; const char *sql_errmsg;
  sql_driver *driver; const char opaque[?];
} sql_connection;
typedef struct { sql_connection *connection; const char opaque[?]; } sql_statement;
typedef struct {
  sb_counter_type counter; uint32_t nrows; uint32_t nfields; sql_statement *statement;
  void *ptr; sql_row row;
} sql_result;
typedef enum {
  SQL_TYPE_NONE, SQL_TYPE_TINYINT, SQL_TYPE_SMALLINT, SQL_TYPE_INT, SQL_TYPE_BIGINT, SQL_TYPE_FLOAT,
  SQL_TYPE_DOUBLE, SQL_TYPE_TIME, SQL_TYPE_DATE, SQL_TYPE_DATETIME, SQL_TYPE_TIMESTAMP, SQL_TYPE_CHAR,
  SQL_TYPE_VARCHAR
} sql_bind_type_t;
typedef struct {
  sql_bind_type_t type; void *buffer; unsigned long *data_len; unsigned long max_len; char *is_null;
} sql_bind;
]]

if not rawget(_G, "__lbench_sb_sql_types") then
  ffi.cdef(SQL_TYPES)
  rawset(_G, "__lbench_sb_sql_types", true)
end

-- The top-level declarations of a cdef chunk: comments and preprocessor
-- lines dropped, split at each ';' outside braces and parentheses.
local function statements(src)
  src = src:gsub("/%*.-%*/", " "):gsub("//[^\n]*", ""):gsub("^%s*#[^\n]*", ""):gsub("\n%s*#[^\n]*", "\n")
  local out, depth, start = {}, 0, 1
  for i = 1, #src do
    local ch = src:byte(i)
    if ch == 123 or ch == 40 then depth = depth + 1          -- { (
    elseif ch == 125 or ch == 41 then depth = depth - 1      -- } )
    elseif ch == 59 and depth == 0 then                      -- ;
      out[#out + 1] = src:sub(start, i)
      start = i + 1
    end
  end
  local rest = src:sub(start)
  if rest:match("%S") then out[#out + 1] = rest end
  return out
end

local function is_redefinition(e)
  return tostring(e):find("attempt to redefine", 1, true) ~= nil
end

-- ffi.cdef for scripts: declarations that exist already (sysbench's, or
-- the script's own from an earlier call or another module) are skipped.
local function tolerant_cdef(src, ...)
  local ok, err = pcall(ffi.cdef, src, ...)
  if ok then return end
  if not is_redefinition(err) or type(src) ~= "string" then error(err, 2) end
  for _, st in ipairs(statements(src)) do
    local ok2, e2 = pcall(ffi.cdef, st)
    if not ok2 and not is_redefinition(e2) then error(e2, 2) end
  end
end

-- The `ffi` module scripts get (global `ffi` and require("ffi")).
M.ffi = {}
for k, v in pairs(ffi) do M.ffi[k] = v end
M.ffi.cdef = tolerant_cdef

local RAND_TYPES = { uniform = C.LB_SB_RAND_UNIFORM, gaussian = C.LB_SB_RAND_GAUSSIAN, special = C.LB_SB_RAND_SPECIAL,
                     pareto = C.LB_SB_RAND_PARETO, zipfian = C.LB_SB_RAND_ZIPFIAN }

-- What the thread's sb_* calls use, kept alive as long as they may.
local anchors = {}

-- Bind this state's thread: runtime, worker (nil in the main state) and
-- the random stream `R` of lbench.rand with the run's --rand-* settings.
function M.bind(ctx, R)
  local opt = ctx.opt
  local cfg = ffi.new("lb_sb_rand_cfg")
  cfg.type = RAND_TYPES[opt.rand_type or "special"] or C.LB_SB_RAND_SPECIAL
  cfg.gaussian_iter = opt.rand_spec_iter or 12
  cfg.special_pct, cfg.special_res = opt.rand_spec_pct or 1, opt.rand_spec_res or 75
  cfg.pareto_h, cfg.zipf_exp = opt.rand_pareto_h or 0.2, opt.rand_zipfian_exp or 0.8
  anchors.R, anchors.cfg = R, cfg
  C.lb_sb_bind(ctx.rt, ctx.W, R, cfg)
end

-- The help text sb_print_test_options() prints.
function M.set_help(text) C.lb_sb_set_help(text) end

return M
