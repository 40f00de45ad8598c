-- Finding and loading scenarios into a Lua state.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local api = require("lbench.api.base")
local sbffi = require("lbench.api.sbffi")
local sblegacy = require("lbench.api.sblegacy")
local loadfile = require("lbench.loadfile") -- parsed once per process (core/luart.c)

local M = {}

-- Directories searched for stock scenarios, in order: ./scenarios, the
-- binary's own scenarios/ (a build tree), the installed share directory
-- beside the binary, then beside the library (<libdir>/../share: a program
-- embedding an installed liblbench, wherever its prefix), the share
-- directory fixed at build time, then each directory of LBENCH_PATH.
function M.search_dirs()
  local dirs, seen = {}, {}
  local function add(d)
    if not seen[d] then seen[d] = true; dirs[#dirs + 1] = d end
  end
  add("scenarios")
  local exe = ffi.string(C.lb_runtime_exe_dir())
  if exe ~= "" then
    add(exe .. "/scenarios")                  -- a build tree
    add(exe .. "/../share/lbench/scenarios")  -- an installed tree, wherever its prefix
  end
  local lib = ffi.string(C.lb_runtime_lib_dir())
  -- A static embedding's "library" is the program: its directory is above.
  if lib ~= "" and lib ~= exe then add(util.dirname(lib) .. "/share/lbench/scenarios") end
  add(ffi.string(C.lb_runtime_share_dir()) .. "/scenarios")
  for d in (os.getenv("LBENCH_PATH") or ""):gmatch("[^:]+") do add(d) end
  return dirs
end

-- Resolve a scenario argument to a file path (and "module" when it was
-- found on LUA_PATH).
function M.find(name)
  if name:find("/") or name:match("%.lua$") then
    if util.file_exists(name) then return name end
    util.fail("scenario file '%s' not found", name)
  end
  local dirs = M.search_dirs()
  for _, d in ipairs(dirs) do
    local p = d .. "/" .. name .. ".lua"
    if util.file_exists(p) then return p end
  end
  -- As sysbench: a benchmark may be a Lua module on LUA_PATH (a stock
  -- scenario of the same name wins).
  local mod = package.searchpath and package.searchpath(name, package.path)
  if mod then return mod, "module" end
  local names = {}
  for _, d in ipairs(dirs) do
    local ls = io.popen("ls '" .. d:gsub("'", "") .. "' 2>/dev/null")
    if ls then
      for f in ls:lines() do
        if f:match("%.lua$") then names[#names + 1] = (f:gsub("%.lua$", "")) end
      end
      ls:close()
    end
  end
  local near = util.closest(name, names)
  -- The directories searched: a program that cannot find the stock
  -- scenarios (an embedding, a moved installation) shows where it looked.
  local shown = {}
  for i, d in ipairs(dirs) do shown[i] = d == "scenarios" and "./scenarios" or d end
  util.fail("unknown scenario '%s'%s (a stock scenario name or a path to a .lua file; searched %s; more with " ..
    "LBENCH_PATH=dir:dir)", name, near and (" (did you mean '" .. near .. "'?)") or "", table.concat(shown, ", "))
end

-- sysbench 0.5-era helpers that its 1.0 scripts still call.
local function install_legacy(lb, ctx)
  local r = lb.rand
  rawset(_G, "sb_rand", function(a, b) return r.default(a, b) end)
  rawset(_G, "sb_rand_uniform", function(a, b) return r.uniform(a, b) end)
  rawset(_G, "sb_rand_gaussian", function(a, b) return r.gaussian(a, b) end)
  rawset(_G, "sb_rand_special", function(a, b) return r.special(a, b) end)
  rawset(_G, "sb_rand_uniq", function(a, b) return r.unique(a or 0, b or 4294967295) end)
  rawset(_G, "sb_rand_str", function(t) return r.string(t) end)
  rawset(_G, "sb_rnd", function() return r.uniform(0, 4294967295) end)
  -- sysbench 0.5 scripts read the thread number from a global.
  rawset(_G, "thread_id", lb.tid)
  -- ... and the script's path, and the MySQL table settings that its
  -- oltp_legacy scripts take from the command line (--mysql-table-engine)
  -- or default as sysbench 1.0 defaults them.
  rawset(_G, "test", lb.cmdline.script_path)
  if rawget(_G, "mysql_table_engine") == nil then
    local e = lb.opt and lb.opt.mysql_table_engine
    rawset(_G, "mysql_table_engine", type(e) == "string" and e ~= "" and e or "innodb")
  end
  rawset(_G, "myisam_max_rows", 1000000)
  -- A script that declares no options reads them as globals too (sysbench
  -- exports them so for its 0.5 scripts: --oltp-tables-count=8 is
  -- oltp_tables_count, the string given), and the thread count by its
  -- 0.5 name.  A global the script defines itself wins.
  for _, k in ipairs(ctx.free_opts or {}) do
    if rawget(_G, k) == nil then rawset(_G, k, lb.opt[k]) end
  end
  if rawget(_G, "num_threads") == nil and lb.opt and lb.opt.threads then rawset(_G, "num_threads", lb.opt.threads) end
  sblegacy.install(lb)
end

-- Optional globals that sysbench's own scripts probe by reading them
-- (`mysql_table_options or ""`); strict mode lets these read as nil.
local optional_globals = { "mysql_table_options", "pgsql_variant" }

-- Modules loaded before any scenario (the runtime's own, the standard
-- libraries).  Reloading a scenario in the same state (sweep points,
-- lbench.run rounds) drops every other module, so the scenario's own
-- modules run again and declare their options on the fresh API table.
local preloaded

-- Load the scenario file into this state with a fresh API table.
function M.load(path, ctx)
  if not preloaded then
    preloaded = {}
    for k in pairs(package.loaded) do preloaded[k] = true end
  else
    for k in pairs(package.loaded) do
      if not preloaded[k] and not tostring(k):match("^lbench%.") then package.loaded[k] = nil end
    end
  end
  local dir = util.dirname(path)
  local extra = dir .. "/?.lua;"
  for _, d in ipairs(M.search_dirs()) do extra = extra .. d .. "/?.lua;" end
  package.path = extra .. package.path
  local lb = api.new(ctx)
  local loaded = api.install(lb, ctx.opt.strict_globals == "on")
  for _, g in ipairs(optional_globals) do
    if rawget(_G, g) == nil then _G[g] = nil end -- declares it
  end
  install_legacy(lb, ctx)
  local chunk, err = loadfile(path)
  if not chunk then
    -- Syntax error: "path:line: message" is the whole story.
    util.fail("%s", err)
  end
  chunk()
  loaded()
  if type(lb.cmdline.options) == "table" then sbffi.add_test_args(lb.cmdline.options) end
  return lb
end

-- A global function of the scenario, or nil (no strict-mode error).
function M.fn(name)
  local f = rawget(_G, name)
  if type(f) == "function" then return f end
  return nil
end

return M
