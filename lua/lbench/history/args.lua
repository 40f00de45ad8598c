-- What every `lbench history` subcommand shares (history/command.lua dispatches,
-- history/check.lua and history/trend.lua are the larger subcommands): the arguments and
-- filters, opening the history, run ids, queries and text tables.
local C = require("lbench.ffi").C
local util = require("lbench.util")
local options = require("lbench.options")
local history = require("lbench.result.history")

local M = {}

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end
M.out = out

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

return M
