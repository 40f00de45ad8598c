-- Virtual users: one script instance per VU in a worker state.
--
-- sysbench scripts keep their connection and statements in globals set by
-- thread_init, and lbench's oltp scenarios in module-level locals; both
-- must be per connection while scenario code stays the same.  So every VU
-- runs the scenario chunk in an environment of its own (setfenv), whose
-- misses fall back to the state's shared globals (standard library, the
-- strict-global check, the legacy sb_* helpers), with:
--
--  - its own `require`, which loads Lua modules from package.path into
--    the VU's environment and caches them per VU (the runtime's lbench.*
--    modules, the standard and FFI libraries stay shared);
--  - its own shallow copy of the `lbench`/`sysbench` table, with its own
--    `hooks`, `tid` (the worker's) and `vu` (0 .. connections-1).
--
-- Memory: the chunk and each module are compiled once per state; running
-- a compiled chunk under a VU environment creates only that VU's closures
-- and tables (closures share the function prototypes and take the
-- environment of the function that creates them), so a VU costs a few KB
-- of Lua objects plus its coroutine and connection.
local api = require("lbench.api.base")
local loadfile = require("lbench.loadfile") -- parsed once per process (core/luart.c)

local M = {}

local function shared_module(name)
  if name:match("^lbench%.") or name:match("^jit%.") then return true end
  local p = package.loaded[name]
  -- Libraries loaded before any scenario code (string, ffi, bit, ...).
  return p ~= nil and M.preloaded[name] == true
end

-- Names in package.loaded before the scenario ran: never per VU.
M.preloaded = {}

function M.snapshot_preloaded()
  for k in pairs(package.loaded) do
    if type(k) == "string" and not k:match("^lbench%.") then M.preloaded[k] = true end
  end
end

-- A factory of VU instances of the scenario at `path`, whose shared API
-- table (already installed as the state's global `lbench`) is `lb`.
function M.factory(path, lb)
  local G = _G
  local chunk, err = loadfile(path)
  if not chunk then error({ lbench_message = err }) end
  local compiled = {} -- module file -> compiled chunk

  local function new(tid, vu)
    local env = setmetatable({}, {
      __index = G,
      -- A name a VU assigns is known from then on, also once it is nil
      -- again (declared in the shared strict-global table).
      __newindex = function(t, k, v)
        if rawget(G, k) == nil then G[k] = nil end
        rawset(t, k, v)
      end,
    })
    local vlb = {}
    for k, v in pairs(lb) do vlb[k] = v end
    vlb.hooks = {}
    vlb.tid = tid
    vlb.vu = vu
    -- Lazily created parts of the shared table (lbench.sql) are shared.
    setmetatable(vlb, { __index = function(t, k)
      local v = lb[k]
      if v ~= nil then rawset(t, k, v) end
      return v
    end })

    local loaded = {}
    local function vrequire(name)
      local v = loaded[name]
      if v ~= nil then return v end
      if type(name) ~= "string" or shared_module(name) then return require(name) end
      local file = package.searchpath(name, package.path)
      if not file then return require(name) end
      local f = compiled[file]
      if not f then
        local e
        f, e = loadfile(file)
        if not f then error(e, 2) end
        compiled[file] = f
      end
      loaded[name] = true -- a cycle sees `true`, as with Lua's require
      setfenv(f, env)
      local r = f(name)
      if r == nil then r = true end
      loaded[name] = r
      return r
    end

    rawset(env, "lbench", vlb)
    rawset(env, "sysbench", vlb)
    rawset(env, "require", vrequire)
    rawset(env, "_G", env)
    -- The body runs here, outside any coroutine: it cannot yield, so the
    -- shared chunk's environment cannot change under it.  Unknown globals
    -- read while it runs are allowed, as in the first load.
    api.set_loading(true)
    setfenv(chunk, env)
    local ok, e = pcall(chunk)
    setfenv(chunk, G)
    api.set_loading(false)
    if not ok then error(e, 0) end

    local inst = { env = env, lb = vlb, vu = vu }
    function inst.fn(name)
      local f = rawget(env, name)
      if f == nil then f = rawget(G, name) end
      if type(f) == "function" then return f end
      return nil
    end
    return inst
  end
  return new
end

return M
