-- sysbench's FFI surface for scripts: the `ffi` a script sees, and the
-- binding of this state's thread to the sb_* C functions (core/sbcompat/sbcompat.h).
--
-- sysbench's internal Lua modules declare part of its C core with
-- ffi.cdef, and published scripts copy those declarations before they call
-- ffi.C.sb_counter_inc, sb_event_start, sb_rand_str, db_query ...  The
-- types and functions are declared already (the FFI sections of
-- core/sbcompat/sbcompat.h and core/sbcompat/sbsql.h), so a script that uses them without
-- declaring them works too.  LuaJIT's ffi.cdef refuses to define an enum constant or a
-- named struct twice ("attempt to redefine"), so the script's `ffi` is a
-- copy of the FFI module whose cdef, on that error, declares the chunk one
-- statement at a time and skips the statements that are already declared.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local sql = require("lbench.api.sql")

local M = {}

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
  C.lb_sb_bind(C.lb_runtime_run_host(ctx.rt), ctx.W, R, cfg)
  -- The SQL half; options a script never connects with may be unusable
  -- (a bad --mysql-port is refused when the SQL API is used, not here).
  local ok, keep = pcall(sql.bind_c, ctx)
  anchors.sql = ok and keep or nil
end

-- Options a script declared through sysbench's C call
-- (ffi.C.sb_lua_set_test_args, what sysbench.cmdline.read_cmdline_options
-- does in sysbench) as lbench.cmdline.options entries; those the script
-- also declares in Lua keep the Lua declaration.
local ARG_TYPES = { [C.SB_ARG_TYPE_BOOL] = "bool", [C.SB_ARG_TYPE_INT] = "int", [C.SB_ARG_TYPE_SIZE] = "size",
                    [C.SB_ARG_TYPE_DOUBLE] = "double", [C.SB_ARG_TYPE_STRING] = "string",
                    [C.SB_ARG_TYPE_LIST] = "list", [C.SB_ARG_TYPE_FILE] = "string" }
function M.add_test_args(options)
  for i = 0, C.lb_sb_test_arg_count() - 1 do
    local a = C.lb_sb_test_arg(i)
    local name = a.name ~= nil and ffi.string(a.name) or nil
    local ty = ARG_TYPES[tonumber(a.type)]
    if name and ty and options[name] == nil then
      local v = a.value ~= nil and ffi.string(a.value) or nil
      if v and ty == "bool" then v = v == "on" or v == "true" or v == "1"
      elseif v and (ty == "int" or ty == "double") then v = tonumber(v)
      elseif v and ty == "list" then
        local l = {}
        for item in v:gmatch("[^,]+") do l[#l + 1] = item end
        v = l
      end
      options[name] = { a.desc ~= nil and ffi.string(a.desc) or "", v, type = ty }
    end
  end
end

-- The help text sb_print_test_options() prints.
function M.set_help(text) C.lb_sb_set_help(text) end

return M
