-- The Lua half's architecture, checked on the sources themselves
-- (docs/architecture.md draws it): lua/lbench/ is in layers, each folder
-- using only its own and those below, every lbench module required at
-- the top of a file (never inside a function to dodge a cycle), no cycle
-- between modules, and no file over 800 lines.

-- Bottom to top.  "" is the ground: the files at the top of lua/lbench/
-- but runtime.lua, the main state's entry, which sits above everything.
local LAYERS = { "", "api", "db", "result", "cluster", "run", "report", "history", "sweep", "runtime" }
local RANK = {}
for i, l in ipairs(LAYERS) do RANK[l] = i end

local function lines_of(path)
  local f = assert(io.open(path))
  local t = {}
  for line in f:lines() do t[#t + 1] = line end
  f:close()
  return t
end

-- Every module: name -> { path, layer, lines }.
local function modules()
  local p = assert(io.popen("find lua/lbench -name '*.lua' | sort"))
  local mods = {}
  for path in p:lines() do
    local rel = path:gsub("^lua/lbench/", ""):gsub("%.lua$", "")
    local folder = rel:match("^([%w_]+)/") or (rel == "runtime" and "runtime" or "")
    mods["lbench." .. rel:gsub("/", ".")] = { path = path, layer = folder, lines = lines_of(path) }
  end
  p:close()
  return mods
end

-- The lbench modules a file requires: { name, line number, text }.
-- lbench.cdef and lbench.loadfile are made by the C half, not files.
local function requires(m)
  local out = {}
  for i, line in ipairs(m.lines) do
    for name in line:gmatch('require%("(lbench%.[%w_.]+)"%)') do
      if name ~= "lbench.cdef" and name ~= "lbench.loadfile" then out[#out + 1] = { name, i, line } end
    end
  end
  return out
end

describe("lua/lbench layers", function()
  local mods = modules()

  it("has every folder in a layer and finds the modules", function()
    local n = 0
    for name, m in pairs(mods) do
      n = n + 1
      assert(RANK[m.layer], name .. " is in folder '" .. m.layer .. "', which is in no layer")
    end
    assert.is_true(n > 40)
  end)

  it("requires lbench modules only at the top of a file, and only from its own layer or below", function()
    for name, m in pairs(mods) do
      for _, r in ipairs(requires(m)) do
        local dep, at, text = r[1], r[2], r[3]
        assert(text:match("^local [%w_, ]+ = require%(") or text:match("^M%.[%w_]+ = require%("),
          string.format("%s:%d: require of %s inside a function or an expression: %s", m.path, at, dep, text))
        local d = mods[dep]
        assert(d, string.format("%s:%d: no module %s", m.path, at, dep))
        assert(RANK[d.layer] <= RANK[m.layer], string.format("%s:%d: layer '%s' uses %s of the layer above, '%s'",
          m.path, at, m.layer, dep, d.layer))
      end
    end
  end)

  it("has no cycle between modules", function()
    local state = {}
    local function visit(name, path)
      if state[name] == "done" then return end
      assert(state[name] ~= "open", "cycle: " .. table.concat(path, " -> ") .. " -> " .. name)
      state[name] = "open"
      path[#path + 1] = name
      for _, r in ipairs(requires(mods[name])) do visit(r[1], path) end
      path[#path] = nil
      state[name] = "done"
    end
    for name in pairs(mods) do visit(name, {}) end
  end)

  it("keeps every file within 800 lines", function()
    for _, m in pairs(mods) do
      assert(#m.lines <= 800, string.format("%s has %d lines", m.path, #m.lines))
    end
  end)
end)
