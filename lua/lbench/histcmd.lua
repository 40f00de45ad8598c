-- `lbench history list|show|import|delete|check|report|help`: the run
-- history (history.lua) from the command line.  This file holds the
-- dispatch, the arguments and filters every subcommand shares, and the
-- small subcommands; `check` is regress.lua's, `report` trend.lua's.
local C = require("lbench.ffi").C
local util = require("lbench.util")
local options = require("lbench.options")
local fmt = require("lbench.fmt")
local history = require("lbench.history")

local M = {}

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end
M.out = out

M.usage = [[
usage: lbench history COMMAND [options]   (the history: --history=PATH, else $LBENCH_HISTORY)
  list   [filters] [--limit=N] [--output=text|csv]   id, time, host, scenario, command, key options, tps, p95, p99, status
  show   ID                      the stored result document, exactly as it was written
  import FILE...                 store result files (a document stored already is skipped)
  delete ID...                   remove runs
  check  NEW.json [--metric=tps,p99] [--max-regression=5%|tps:5%,p99:10%] [--baseline=last|ID|median:N] [--add] [filters]
                                 compare a new result with a baseline: exit 1 on a regression, 0 otherwise, 2 on an error
  report [filters] [--metric=tps] --out=trend.html   a trend page: the metric over runs, one line per scenario and options
  help
filters: --scenario=NAME --host=NAME --command=NAME --status=ok --since=30d|12h|2026-11-01 --where=option=value (repeatable)
metrics: tps, qps, p95, p99, avg (latency, ms), tpmC, iops, MiB/s]]

-- Options each subcommand takes besides the filters: name -> "value",
-- "flag" or "multi" (repeatable).
local FILTERS = { history = "value", scenario = "value", host = "value", command = "value", status = "value",
  since = "value", where = "multi" }

-- Parse argv (from index `first`) against `known` (plus the filters when
-- `filters`); returns opts, positional arguments.
function M.parse(argv, first, known, sub, filters)
  local all = {}
  for k, v in pairs(known) do all[k] = v end
  if filters then for k, v in pairs(FILTERS) do all[k] = v end else all.history = "value" end
  return options.parse_tool_args(argv, all, "history " .. sub, first)
end

-- --since: a duration back from now (30d, 12h, 90m, 2w, 3600s) or a UTC
-- date/time (2026-11-01, 2026-11-01T08:00:00Z).  Returns Unix seconds.
local UNITS = { s = 1, m = 60, h = 3600, d = 86400, w = 7 * 86400 }
function M.since(s)
  local n, u = s:match("^(%d+%.?%d*)([smhdw])$")
  if n then return os.time() - math.floor(tonumber(n) * UNITS[u]) end
  local t = history.unix_time(s)
  if t then return t end
  util.fail("--since=%s: expected a duration such as 30d, 12h, 90m, 2w or a UTC date such as 2026-11-01", s)
end

-- The filters of `opts` as history.select takes them.
function M.filters(opts)
  local f = { scenario = opts.scenario, host = opts.host, command = opts.command, status = opts.status }
  if opts.since then f.since = M.since(opts.since) end
  f.where = {}
  for _, w in ipairs(opts.where or {}) do
    local k, v = w:match("^([^=]+)=(.*)$")
    if not k or k == "" then util.fail("--where=%s: expected option=value (e.g. --where=threads=8)", w) end
    f.where[#f.where + 1] = { options.key(util.trim(k)), v }
  end
  return f
end

-- The history file of the command: --history, else LBENCH_HISTORY.
function M.history_path(opts)
  local p = history.path_of({ history = opts.history })
  if not p then util.fail("no history given: use --history=PATH or set LBENCH_HISTORY") end
  return p
end

-- Open the history named by `opts` (an existing one unless `create`).
function M.open(opts, create)
  local path = M.history_path(opts)
  if create then history.check_path(path) end
  local st, e = history.open(path, create)
  if not st then util.fail("--history=%s: %s", path, history.explain(e)) end
  return st, path
end

-- A run id given on the command line.
function M.run_id(s, what)
  local id = tonumber(s)
  if not id or id < 1 or id ~= math.floor(id) then util.fail("%s '%s': expected a run id (a positive integer, see lbench history list)", what, s) end
  return id
end

local function query(st, f)
  local rows, e = st:select(f)
  if not rows then util.fail("--history=%s: %s", st.path, history.explain(e)) end
  return rows
end
M.query = query

-- An aligned text table: numbers (and "-") right-aligned, text left.
function M.table(header, rows)
  local w, numeric = {}, {}
  for i, h in ipairs(header) do w[i], numeric[i] = #h, true end
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do
      if #c > w[i] then w[i] = #c end
      if c ~= "-" and not tonumber((c:gsub("%%$", ""))) then numeric[i] = false end
    end
  end
  local lines = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    local cells = {}
    for i = 1, #header do
      local c, pad = r[i] or "", string.rep(" ", w[i] - #(r[i] or ""))
      cells[i] = numeric[i] and pad .. c or c .. pad
    end
    lines[#lines + 1] = (table.concat(cells, "  "):gsub("%s+$", ""))
  end
  return table.concat(lines, "\n")
end

-- ---- list ------------------------------------------------------------------

local function list(rt, argv)
  local opts, pos = M.parse(argv, 3, { limit = "value", output = "value" }, "list", true)
  if pos[1] then util.fail("history list: unexpected argument '%s' (filters are options: --scenario=%s)", pos[1], pos[1]) end
  local output = opts.output or "text"
  if output ~= "text" and output ~= "csv" then util.fail("--output=%s: expected text or csv", output) end
  local f = M.filters(opts)
  if opts.limit then
    local n = tonumber(opts.limit)
    if not n or n < 1 or n ~= math.floor(n) then util.fail("--limit=%s: expected a positive integer", opts.limit) end
    f.limit = n
  end
  local st = M.open(opts, false)
  local rows = query(st, f)
  st:close()
  local header = { "id", "time", "host", "scenario", "command", "key options", "tps", "p95 ms", "p99 ms", "status" }
  local cells = {}
  for _, r in ipairs(rows) do
    cells[#cells + 1] = { tostring(r.id), r.started_at, r.host or "-", r.scenario, r.tool == "sweep" and (r.command .. " (sweep)") or r.command,
      r.key_options ~= "" and r.key_options or "-", fmt.num(r.tps), fmt.num(r.p95), fmt.num(r.p99), r.status }
  end
  if output == "csv" then
    out(rt, fmt.csv(header, cells) .. "\n")
  elseif #rows == 0 then
    out(rt, "no runs match\n")
  else
    out(rt, M.table(header, cells) .. "\n")
  end
  return 0
end

-- ---- show, delete ------------------------------------------------------------

local function show(rt, argv)
  local opts, pos = M.parse(argv, 3, {}, "show", false)
  if #pos ~= 1 then util.fail("usage: lbench history show ID") end
  local id = M.run_id(pos[1], "history show:")
  local st, path = M.open(opts, false)
  local doc, e = st:document(id)
  st:close()
  if e then util.fail("--history=%s: %s", path, history.explain(e)) end
  if not doc then util.fail("history show: no run %d in %s", id, path) end
  out(rt, doc .. "\n")
  return 0
end

local function delete(rt, argv)
  local opts, pos = M.parse(argv, 3, {}, "delete", false)
  if #pos == 0 then util.fail("usage: lbench history delete ID...") end
  local ids = {}
  for i, s in ipairs(pos) do ids[i] = M.run_id(s, "history delete:") end
  local st, path = M.open(opts, false)
  -- All or nothing: an id that is not there deletes none of them (a typo
  -- in a list should not half-apply).
  for _, id in ipairs(ids) do
    local d, e = st:document(id)
    if e then st:close() util.fail("--history=%s: %s", path, history.explain(e)) end
    if not d then st:close() util.fail("history delete: no run %d in %s (nothing deleted)", id, path) end
  end
  local missing, e = st:delete(ids)
  st:close()
  if not missing then util.fail("--history=%s: %s", path, history.explain(e)) end
  out(rt, string.format("deleted %d run(s) from %s\n", #ids, path))
  return 0
end

-- ---- import ------------------------------------------------------------------

local function import(rt, argv)
  local opts, files = M.parse(argv, 3, {}, "import", false)
  if #files == 0 then util.fail("usage: lbench history import FILE... [--history=PATH]") end
  -- Every file is read and checked before anything is stored, so that a
  -- bad file in a glob imports nothing rather than half the list.
  local docs = {}
  for i, f in ipairs(files) do
    local text, e = util.read_file(f)
    if not text then util.fail("history import: cannot read '%s': %s", f, tostring(e)) end
    local doc, why = history.decode(text)
    if not doc then util.fail("history import: '%s' is %s", f, why) end
    docs[i] = { text = text, doc = doc }
  end
  local st, path = M.open(opts, true)
  local added, lines = 0, {}
  for i, f in ipairs(files) do
    local id, new = st:add(docs[i].text, docs[i].doc, f)
    if not id then st:close() util.fail("--history=%s: cannot store '%s': %s", path, f, history.explain(new)) end
    if new then added = added + 1 end
    lines[#lines + 1] = string.format("%s #%d %s", new and "added" or "already stored as", id, f)
  end
  st:close()
  lines[#lines + 1] = string.format("%d added, %d already stored (%s)", added, #files - added, path)
  out(rt, table.concat(lines, "\n") .. "\n")
  return 0
end

local COMMANDS = {
  list = list, show = show, import = import, delete = delete,
  check = function(rt, argv) return require("lbench.regress").main(rt, argv) end,
  report = function(rt, argv) return require("lbench.trend").main(rt, argv) end,
  help = function(rt) out(rt, M.usage .. "\n") return 0 end,
}

function M.main(rt, argv)
  local sub = argv[2]
  if sub == nil then util.fail("history: missing command (list, show, import, delete, check, report, help)") end
  local fn = COMMANDS[sub]
  if not fn then
    local near = util.closest(sub, util.sorted_keys(COMMANDS))
    util.fail("history: unknown command '%s'%s (list, show, import, delete, check, report, help)", sub,
      near and (" (did you mean '" .. near .. "'?)") or "")
  end
  return fn(rt, argv)
end

return M
