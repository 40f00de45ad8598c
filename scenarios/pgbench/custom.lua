-- pgbench's custom scripts in the pgbench scenario: --file=FILE[@WEIGHT]
-- (repeatable, mixed with --builtin), --define=NAME=VALUE (repeatable),
-- --random-seed, the built-in variables, and a client's transactions.
--
-- With at least one --file, every script (the --builtin ones too, as
-- pgbench's script text) runs through the script language
-- (pgbench/script.lua, eval.lua, client.lua) and draws pgbench 15's
-- random numbers: client i of n gets the states pgbench gives its client
-- i, and picks its scripts as pgbench's thread i does (pgbench -j equal to
-- -c), so that a seeded run draws pgbench's values.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local script = require("pgbench.script")
local client = require("pgbench.client")
local scripts = require("pgbench.scripts")

local M = {}

-- Every value of option --NAME on the command line, in order (the option
-- table keeps only the last); the option's own value when the command
-- line has none (a config file).
local function occurrences(argv, name, last)
  local out, prefix = {}, "--" .. name .. "="
  for _, a in ipairs(argv or {}) do
    if a:sub(1, #prefix) == prefix then out[#out + 1] = a:sub(#prefix + 1) end
  end
  if #out == 0 and last ~= nil and last ~= "" then out[1] = last end
  return out
end

-- A --file value as { path, weight }: the weight after the last '@'.
local function file_spec(v)
  local path, w = v:match("^(.*)@([^@]*)$")
  local weight = 1
  if path then
    weight = tonumber(w)
    if not w:match("^-?%d+$") or not weight then util.fail("invalid weight specification: @%s", w) end
    if weight < 0 or weight > 2147483647 then
      util.fail("weight specification out of range (0 .. 2147483647): %s", w)
    end
  else
    path = v
  end
  return { path = path, weight = weight }
end

-- --file values as { path, weight }.
function M.files(argv, opt)
  local out = {}
  for _, v in ipairs(occurrences(argv, "file", opt.file)) do out[#out + 1] = file_spec(v) end
  return out
end

-- The scripts in the order the command line gives them, as pgbench numbers
-- them: { kind = "builtin", value } and { kind = "file", spec }.  Without
-- a --builtin on the command line, `builtin` (a config file's, or the
-- default) comes first.
local function ordered(argv, opt, builtin)
  local out, seen_builtin = {}, false
  for _, a in ipairs(argv or {}) do
    local b = a:match("^%-%-builtin=(.*)$")
    local f = a:match("^%-%-file=(.*)$")
    if b and b ~= "" then out[#out + 1] = { kind = "builtin", value = b }; seen_builtin = true end
    if f then out[#out + 1] = { kind = "file", spec = file_spec(f) } end
  end
  if not seen_builtin and builtin ~= "" then table.insert(out, 1, { kind = "builtin", value = builtin }) end
  -- a --file from a config file (none on the command line)
  if (opt.file or "") ~= "" and #occurrences(argv, "file") == 0 then
    out[#out + 1] = { kind = "file", spec = file_spec(opt.file) }
  end
  return out
end

-- --define values as { name, value }.
function M.defines(argv, opt)
  local out = {}
  for _, v in ipairs(occurrences(argv, "define", opt.define)) do
    local name, value = v:match("^([^=]+)=(.*)$")
    if not name then util.fail("invalid variable definition: \"%s\"", v) end
    if not name:match("^[%a_\128-\255][%w_\128-\255]*$") then
      util.fail("--define: invalid variable name: \"%s\"", name)
    end
    out[#out + 1] = { name = name, value = value }
  end
  return out
end

-- The run's scripts: { builtin = { name, desc }, weight, cmds, source }
-- in pgbench's order (the command line's) and their total
-- weight; a script that does not parse fails here, in one line.
-- `builtin`: the --builtin value to use (default opt.builtin).
-- Under the name pgbench, a syntax error at a column in pgbench's three
-- lines: where and what, the command, a caret under the place (raised as
-- it is: util.fail() would make them one line).
local function pgbench_syntax_error(why)
  local head, col, line = why:match('^(.-:%d+: syntax error in command "[^"]*"): .- at column (%d+): (.*)$')
  if not head then return why end
  return string.format("%s\n%s\n%s^ error found here", head, line, string.rep(" ", tonumber(col) - 1))
end

function M.load(opt, argv, commit, builtin)
  builtin = builtin or opt.builtin
  local list, total, names = {}, 0, {}
  local function add(name, desc, weight, text, source)
    local cmds, why = script.parse(text, source)
    if not cmds and opt.pgbench_compat then error({ lbench_message = pgbench_syntax_error(why) }, 0) end
    if not cmds then util.fail("%s", why) end
    for _, c in ipairs(cmds) do
      if c.kind == "set" and not c.name:match("^[%a_\128-\255][%w_\128-\255]*$") then
        util.fail("%s:%d: invalid variable name in command \"set\": \"%s\"", source, c.line, c.name)
      end
    end
    -- Each script is an event type: a file named twice gets a suffix.
    local n, k = name, 1
    while names[n] do k = k + 1; n = name .. " (" .. k .. ")" end
    names[n] = true
    list[#list + 1] = { builtin = { name = n, desc = desc }, weight = weight, cmds = cmds, source = source }
    total = total + weight
  end
  for _, item in ipairs(ordered(argv, opt, builtin)) do
    if item.kind == "builtin" then
      local parsed, why = scripts.parse(item.value)
      if not parsed then util.fail("%s", why) end
      for _, e in ipairs(parsed) do
        add(e.builtin.name, e.builtin.desc, e.weight, scripts.text(e.builtin, commit), e.builtin.name)
      end
    else
      local f = item.spec
      local text, why = util.read_file(f.path)
      if not text then util.fail("could not open file \"%s\": %s", f.path, why or "unreadable") end
      add(f.path, f.path, f.weight, text, f.path)
    end
  end
  if total == 0 then util.fail("total script weight must not be zero") end
  return list, total
end

-- --random-seed as the unsigned integer pgbench would use ("time" and
-- "rand" resolved), as text; nil and a reason when it is none of these.
function M.resolve_seed(v)
  local out = ffi.new("uint64_t[1]")
  if C.lb_pg_seed_parse(tostring(v), out) ~= 0 then
    return nil, "expected an unsigned integer, \"time\" or \"rand\""
  end
  return (tostring(out[0]):gsub("ULL$", ""))
end

-- The --sampling-rate state of thread `tid`: pgbench's thread `tid`'s
-- (seed as text; `defines` as M.defines gives them).
function M.sample_state(seed_text, nclients, tid, defines)
  local draw_default = 1
  for _, d in ipairs(defines) do if d.name == "default_seed" then draw_default = 0 end end
  local seed, seeds = ffi.new("uint64_t[1]"), ffi.new("lb_pg_seeds")
  C.lb_pg_seed_parse(seed_text, seed)
  C.lb_pg_client_seeds(seed[0], math.max(nclients, tid + 1), tid, draw_default, seeds)
  local out = ffi.new("lb_pg_prng")
  ffi.copy(out, seeds.sample, ffi.sizeof(out))
  return out
end

-- A client: its variables, random states and compiled scripts.
-- `info` = { list, total, seed (text), nclients, id, scale, defines, mode (simple, extended or prepared),
-- cmd_hists (per-command histograms, pgbench/stats.lua, or nil), debug (the
-- prefix of pgbench -d's trace lines, or nil), compat (run as pgbench: its
-- words for a server's error) }.
function M.client(con, info)
  local seeds = ffi.new("lb_pg_seeds")
  local vars, defined = {}, {}
  for _, d in ipairs(info.defines) do
    vars[d.name] = d.value
    defined[d.name] = true
  end
  local seed = ffi.new("uint64_t[1]")
  C.lb_pg_seed_parse(info.seed, seed)
  C.lb_pg_client_seeds(seed[0], info.nclients, info.id, defined.default_seed and 0 or 1, seeds)
  local function builtin_var(name, v) if not defined[name] then vars[name] = v end end
  builtin_var("scale", ffi.new("int64_t", info.scale))
  builtin_var("client_id", ffi.new("int64_t", info.id))
  builtin_var("default_seed", seeds.default_seed)
  builtin_var("random_seed", ffi.cast("int64_t", seed[0]))
  -- int_boxes: the boxes of the integers that \set stores (client.lua)
  local st = { vars = vars, int_boxes = {}, rs = seeds.func, client_id = info.id, con = con, script = 0,
    command = 0, cmd_hists = info.cmd_hists, debug = info.debug, prepnum = 0, compat = info.compat }
  local steps, cum = {}, {}
  local acc = 0
  for i, e in ipairs(info.list) do
    steps[i] = client.compile(e.cmds, st, info.mode)
    acc = acc + e.weight
    cum[i] = acc
  end
  local saved = ffi.new("lb_pg_prng")
  local R = { st = st }
  -- pgbench's chooseScript: a draw below the total weight, then the
  -- first script whose cumulated weight passes it.
  function R.pick()
    if #cum == 1 then return 1 end
    local w = C.lb_pg_random(seeds.choose, 0, info.total - 1)
    for i = 1, #cum do if w < cum[i] then return i end end
    return #cum
  end
  -- Run script i; `retry` runs it again from the random state it started
  -- with (pgbench's retries draw the same values).
  function R.exec(i, retry)
    if retry then ffi.copy(seeds.func, saved, ffi.sizeof(saved)) else ffi.copy(saved, seeds.func, ffi.sizeof(saved)) end
    local e = info.list[i]
    if st.debug then
      io.stderr:write(string.format("%sclient %d executing script \"%s\"\n", st.debug, st.client_id, e.builtin.desc))
    end
    client.run(st, steps[i], i - 1, e.cmds, e.source)
  end
  return R
end

-- The end of a transaction of any of this worker's clients (client.lua).
M.transaction_done = client.transaction_done

return M
