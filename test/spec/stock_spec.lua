-- Stock scenarios come from the bytecode built into lbench when the file
-- on disk is the one it was built from (core/luart.c, load_stock): the
-- chunk is the one parsing gives, named after the file as found; any other
-- file, an edited copy included, is parsed.
local jutil = require("jit.util")
local loadfile_cached = require("lbench.loadfile")
local stock_loads = require("lbench.stock_loads")
local util = require("lbench.util")

-- What a chunk is, function by function: where it is in the file, its
-- instructions and the line of each (string.dump's bytes vary from state
-- to state: the order of a table constant's keys).
local function shape(f, out)
  out = out or {}
  local fi = jutil.funcinfo(f)
  out[#out + 1] = table.concat({ fi.source, fi.linedefined, fi.lastlinedefined, fi.bytecodes, fi.params }, ":")
  for pc = 1, fi.bytecodes - 1 do
    local _, mode = jutil.funcbc(f, pc)
    out[#out + 1] = (jutil.funcinfo(f, pc).currentline or "?") .. " " .. mode
  end
  local i = -1
  while jutil.funck(f, i) ~= nil do
    if type(jutil.funck(f, i)) == "proto" then shape(jutil.funck(f, i), out) end
    i = i - 1
  end
  return out
end

local function spit(p, s)
  local f = assert(io.open(p, "wb"))
  f:write(s)
  f:close()
end

describe("stock scenario bytecode", function()
  local dir = string.format("/tmp/lbench-stock-spec-%d", require("lbench.ffi").C.lb_runtime_pid())
  local src = assert(util.read_file("scenarios/pgbench/expr.lua"))
  setup(function() assert(os.execute("mkdir -p " .. dir .. "/scenarios/pgbench " .. dir .. "/other")) end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("loads an unchanged copy from the bytecode, as parsing would give it, under its own name", function()
    local path = dir .. "/scenarios/pgbench/expr.lua"
    spit(path, src)
    local n = stock_loads()
    local f = assert(loadfile_cached(path))
    assert.are.equal(n + 1, stock_loads())
    assert.are.equal("@" .. path, debug.getinfo(f, "S").source)
    -- what the parser makes of the same file, lines and all
    assert.are.same(shape(assert(loadstring(src, "@" .. path))), shape(f))
  end)

  it("parses an edited copy of the same size, and the same bytes under another name", function()
    local edited = dir .. "/scenarios/pgbench/expr.lua.edited"
    local path = dir .. "/scenarios/pgbench/../pgbench/expr.lua"
    local n = stock_loads()
    spit(dir .. "/other/expr.lua", src)
    assert(loadfile_cached(dir .. "/other/expr.lua"))
    local changed = src:gsub("^(%-%- )(%a)", function(p, c) return p .. (c == "x" and "y" or "x") end, 1)
    assert.are.equal(#src, #changed)
    spit(edited, changed)
    os.rename(edited, dir .. "/scenarios/pgbench/expr.lua")
    local f = assert(loadfile_cached(path))
    assert.are.equal(n, stock_loads())
    assert.are.same(shape(assert(loadstring(changed, "@" .. path))), shape(f))
  end)
end)
