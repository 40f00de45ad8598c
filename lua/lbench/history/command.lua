-- `lbench history list|show|import|delete|check|report|help`: the run
-- history (result/history.lua) from the command line.  This file holds the
-- dispatch and the small subcommands; the arguments and filters every
-- subcommand shares are history/args.lua's, `check` is history/check.lua's, `report`
-- history/trend.lua's.
local util = require("lbench.util")
local fmt = require("lbench.fmt")
local history = require("lbench.result.history")
local args = require("lbench.history.args")
local regress = require("lbench.history.check")
local trend = require("lbench.history.trend")

local M = {}

local out = args.out

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
metrics: tps, qps, p95, p99, avg (latency, ms), tpmC, iops, MiB/s;
         the server's and the host's (--server-stats): hit, disk-reads, written, log-written, iowait, util, await]]

-- ---- list ------------------------------------------------------------------

local function list(rt, argv)
  local opts, pos = args.parse(argv, 3, { limit = "value", output = "value" }, "list", true)
  if pos[1] then util.fail("history list: unexpected argument '%s' (filters are options: --scenario=%s)", pos[1], pos[1]) end
  local output = opts.output or "text"
  if output ~= "text" and output ~= "csv" then util.fail("--output=%s: expected text or csv", output) end
  local f = args.filters(opts)
  if opts.limit then
    local n = tonumber(opts.limit)
    if not n or n < 1 or n ~= math.floor(n) then util.fail("--limit=%s: expected a positive integer", opts.limit) end
    f.limit = n
  end
  local st = args.open(opts, false)
  local rows = args.query(st, f)
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
    out(rt, args.table(header, cells) .. "\n")
  end
  return 0
end

-- ---- show, delete ------------------------------------------------------------

local function show(rt, argv)
  local opts, pos = args.parse(argv, 3, {}, "show", false)
  if #pos ~= 1 then util.fail("usage: lbench history show ID") end
  local id = args.run_id(pos[1], "history show:")
  local st, path = args.open(opts, false)
  local doc, e = st:document(id)
  st:close()
  if e then util.fail("--history=%s: %s", path, history.explain(e)) end
  if not doc then util.fail("history show: no run %d in %s", id, path) end
  out(rt, doc .. "\n")
  return 0
end

local function delete(rt, argv)
  local opts, pos = args.parse(argv, 3, {}, "delete", false)
  if #pos == 0 then util.fail("usage: lbench history delete ID...") end
  local ids = {}
  for i, s in ipairs(pos) do ids[i] = args.run_id(s, "history delete:") end
  local st, path = args.open(opts, false)
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
  local opts, files = args.parse(argv, 3, {}, "import", false)
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
  local st, path = args.open(opts, true)
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
  check = regress.main,
  report = trend.main,
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
