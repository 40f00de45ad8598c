-- `lbench compare a.json b.json [c.json ...] [--force] [--names=a,b]`:
-- result files side by side, per metric: the value of each run, its ratio
-- to the first (the baseline) and the difference in percent (the seeds'
-- "ratio" and "overhead" columns: (b - a) / a).  Sweep files (lbench
-- sweep) are compared point by point, one table per metric.
--
-- Also the formatting helpers the other result tools share (sweep, plot):
-- numbers, tables, CSV, arguments.  Reading result files and their
-- headline figures is result.lua's.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local options = require("lbench.options")
local result = require("lbench.result")

local M = {}

-- ---- shared helpers ------------------------------------------------------

-- Readers of result documents (result.lua), under their old names too.
M.load, M.is_sweep, M.iops, M.is_sql = result.load, result.is_sweep, result.iops, result.is_sql
M.throughput, M.pct = result.throughput, result.pct

-- Display name of a file: its base name without .json.
function M.run_name(path)
  return (path:match("([^/]*)$"):gsub("%.json$", ""))
end

-- Names for a list of files: --names=a,b when given, else base names made
-- unique with a #n suffix.
function M.names(files, names_opt)
  local names = {}
  if names_opt and names_opt ~= true then
    names = util.split(names_opt, ",")
    if #names ~= #files then
      util.fail("--names: %d name(s) given for %d file(s)", #names, #files)
    end
    return names
  end
  local count = {}
  for i, f in ipairs(files) do
    names[i] = M.run_name(f)
    count[names[i]] = (count[names[i]] or 0) + 1
  end
  for i in ipairs(names) do
    if count[names[i]] > 1 then names[i] = names[i] .. "#" .. i end
  end
  return names
end

local function num(v) return type(v) == "number" and v or nil end

-- Human formatting: enough digits to compare, never exponent noise for
-- ordinary magnitudes.
function M.fmt(v)
  if v == nil then return "-" end
  if type(v) ~= "number" then return tostring(v) end
  if v ~= v then return "-" end
  local a = math.abs(v)
  if a == 0 then return "0" end
  if a == math.floor(a) and a < 1e15 then return string.format("%d", v) end
  if a >= 1000 then return string.format("%.0f", v) end
  if a >= 100 then return string.format("%.1f", v) end
  if a >= 1 then return string.format("%.2f", v) end
  if a >= 1e-4 then
    -- three significant digits, no exponent: 0.500, 0.0283
    return string.format("%." .. (2 - math.floor(math.log10(a))) .. "f", v)
  end
  return string.format("%.3g", v)
end

-- A duration given in milliseconds in the unit that reads (ns, µs, ms or
-- s) with three significant digits: 40.5 µs, 1.23 ms, 12.0 s; never an
-- exponent.  Latencies of one column span ns (the null driver) to seconds
-- (a stalled server), so the unit is chosen per value.
local UNITS = { { 1e-6, "ns" }, { 1e-3, "µs" }, { 1, "ms" }, { 1000, "s" } }

function M.fmt_ms(v)
  if type(v) ~= "number" or v ~= v then return "-" end
  if v == 0 then return "0" end
  local a, u = math.abs(v), 1
  while u < #UNITS and a >= UNITS[u + 1][1] do u = u + 1 end
  local x = a / UNITS[u][1]
  local dec = math.max(0, 2 - math.floor(math.log10(x) + 1e-12))
  local s = string.format("%." .. dec .. "f", x)
  -- 999.96 µs rounds to "1000": that is 1.00 ms.
  if tonumber(s) >= 1000 and u < #UNITS then
    u = u + 1
    s = string.format("%.2f", a / UNITS[u][1])
  end
  return (v < 0 and "-" or "") .. s .. " " .. UNITS[u][2]
end

function M.fmt_pct(d)
  if d == nil then return "-" end
  return string.format("%+.1f%%", d)
end

function M.fmt_ratio(x)
  if x == nil then return "-" end
  return string.format("%.3f", x)
end

-- Ratio and difference in percent of v against base (nil when undefined).
function M.ratio(v, base)
  if v == nil or base == nil or base == 0 then return nil, nil end
  return v / base, (v - base) / base * 100
end

-- Render rows (arrays of strings) as an aligned table; the first column is
-- left-aligned, the others right-aligned.
function M.table(header, rows, indent)
  indent = indent or ""
  local w = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    for i, c in ipairs(r) do if not w[i] or #c > w[i] then w[i] = #c end end
  end
  -- The first column is left-aligned unless it holds only numbers.
  local left = false
  for _, r in ipairs(rows) do
    if r[1] and not tonumber(r[1]) then left = true end
  end
  local out = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    local cells = {}
    for i = 1, #w do
      local c = r[i] or ""
      if i == 1 and left then cells[i] = c .. string.rep(" ", w[i] - #c)
      else cells[i] = string.rep(" ", w[i] - #c) .. c end
    end
    out[#out + 1] = (indent .. table.concat(cells, "  ")):gsub("%s+$", "")
  end
  return table.concat(out, "\n")
end

-- CSV rendering of the same rows.
function M.csv(header, rows)
  local out = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    local cells = {}
    for i, c in ipairs(r) do
      cells[i] = c:find('[,"\n]') and ('"' .. c:gsub('"', '""') .. '"') or c
    end
    out[#out + 1] = table.concat(cells, ",")
  end
  return table.concat(out, "\n")
end

-- A point of a sweep as "name=value name=value".
function M.point_label(p)
  local sp = p.sweep_point
  if type(sp) ~= "table" then return "run" end
  local parts = {}
  for k, v in json.pairs(sp) do parts[#parts + 1] = k .. "=" .. tostring(v) end
  return #parts > 0 and table.concat(parts, " ") or "run"
end

-- A swept value as a number when it is one (sizes like 2G included).
function M.numeric(v)
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  return tonumber(v) or options.parse_size(v)
end

-- Argument parsing shared by the tools: --name=value options and
-- positional arguments, from argv[first or 2].  known[name]: true (any
-- value; a bare --flag is true), "value" (a value needed), "flag" (no
-- value) or "multi" (a value, repeatable: a list).  `tool` names the tool
-- in messages ("compare", "history list").
function M.parse_args(argv, known, tool, first)
  local opts, pos = {}, {}
  for i = first or 2, #argv do
    local a = argv[i]
    if a:sub(1, 2) == "--" and #a > 2 then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      if not name then name, value = a:sub(3), true end
      name = options.norm(name)
      local kind = known[name]
      if not kind then
        local names = util.sorted_keys(known)
        local near = util.closest(name, names)
        util.fail("lbench %s: unknown option '--%s'%s (options: --%s)", tool, name,
          near and (" (did you mean '--" .. near .. "'?)") or "", table.concat(names, ", --"))
      end
      if kind == "flag" and value ~= true then util.fail("lbench %s: --%s takes no value", tool, name) end
      if (kind == "value" or kind == "multi") and (value == true or value == "") then
        util.fail("lbench %s: --%s needs a value (--%s=...)", tool, name, name)
      end
      if kind == "multi" then
        opts[name] = opts[name] or {}
        table.insert(opts[name], value)
      else
        opts[name] = value
      end
    else
      pos[#pos + 1] = a
    end
  end
  return opts, pos
end

-- ---- compare ---------------------------------------------------------------

-- Metrics in the order shown: label, unit, getter.  A row is shown when at
-- least one run has a value.  `lower`: smaller is better (the report
-- colours ratios by it).
local function lat(key)
  return function(r) return M.pct(r.latency_ms, key) end
end

local function tpcc(r, key) return type(r.tpcc) == "table" and num(r.tpcc[key]) or nil end

M.metrics = {
  { "events", "", function(r) return r.totals and num(r.totals.events) end },
  { "duration", "s", function(r) return num(r.duration_s) end, lower = true },
  { "events/s", "", function(r) return not M.is_sql(r) and r.totals and num(r.totals.events_per_sec) or nil end },
  { "TPS", "", function(r) return M.is_sql(r) and num(r.totals.events_per_sec) or nil end },
  { "QPS", "", function(r) return M.is_sql(r) and num(r.totals.queries_per_sec) or nil end },
  -- Domain figures (the scenario's own summary): only when every run has
  -- them, since a tpmC beside a run without one compares nothing.
  { "tpmC", "", function(r) return tpcc(r, "tpmC") end, all = true },
  { "NOTPM", "", function(r) return tpcc(r, "notpm") end, all = true },
  { "tpmTotal", "", function(r) return tpcc(r, "tpm_total") end, all = true },
  { "efficiency", "%", function(r) return tpcc(r, "efficiency_pct") end, all = true },
  { "IOPS", "", function(r) return M.iops(r) end },
  { "read", "MiB/s", function(r) return type(r.io) == "table" and num(r.io.read_mib_per_sec) or nil end },
  { "written", "MiB/s", function(r) return type(r.io) == "table" and num(r.io.written_mib_per_sec) or nil end },
  { "fsyncs/s", "", function(r) return type(r.io) == "table" and num(r.io.fsyncs_per_sec) or nil end },
  { "latency avg", "ms", function(r) return type(r.latency_ms) == "table" and num(r.latency_ms.avg) or nil end, lower = true },
  { "latency p95", "ms", lat("95"), lower = true },
  { "latency p99", "ms", lat("99"), lower = true },
  { "latency max", "ms", function(r) return type(r.latency_ms) == "table" and num(r.latency_ms.max) or nil end, lower = true },
  { "errors", "", function(r) return M.is_sql(r) and (num(r.totals.errors) or 0) or nil end, lower = true },
  { "ignored errors", "", function(r) return M.is_sql(r) and num(r.totals.ignored_errors) or nil end, lower = true },
  { "reconnects", "", function(r) return M.is_sql(r) and num(r.totals.reconnects) or nil end, lower = true },
}

local function metric_title(m) return m[2] ~= "" and (m[1] .. " (" .. m[2] .. ")") or m[1] end
M.metric_title = metric_title

-- Header + rows of one comparison line set: for each row label, the values
-- of every run, then ratio and difference of each run after the first.
local function compare_header(first_col, names)
  local h = { first_col }
  for _, n in ipairs(names) do h[#h + 1] = n end
  for i = 2, #names do
    h[#h + 1] = #names > 2 and (names[i] .. "/" .. names[1]) or "ratio"
    h[#h + 1] = #names > 2 and ("diff " .. names[i]) or "diff"
  end
  return h
end

local function compare_row(label, vals, n)
  local row = { label }
  for i = 1, n do row[#row + 1] = M.fmt(vals[i]) end
  for i = 2, n do
    local r, d = M.ratio(vals[i], vals[1])
    row[#row + 1] = M.fmt_ratio(r)
    row[#row + 1] = M.fmt_pct(d)
  end
  return row
end

-- Metrics any of the runs has (every run, for those marked `all`).
local function present_metrics(runs)
  local out = {}
  for _, m in ipairs(M.metrics) do
    local have = 0
    for _, r in ipairs(runs) do
      if m[3](r) ~= nil then have = have + 1 end
    end
    if have > 0 and (not m.all or have == #runs) then out[#out + 1] = m end
  end
  return out
end
M.present_metrics = present_metrics

-- Whether result documents a and b can be set against each other, so that
-- a ratio between them means something: the same scenario (unless
-- `force`), and a sweep only with a sweep.  Returns true, or false and
-- "scenario" or "sweep".  lbench compare refuses what this refuses, and
-- lbench report computes no ratio for it (htmlreport.lua).
function M.comparable(a, b, force)
  if not force and a.scenario ~= b.scenario then return false, "scenario" end
  if M.is_sweep(a) ~= M.is_sweep(b) then return false, "sweep" end
  return true
end

local function check_comparable(docs, files, force)
  -- Every scenario first: a different scenario is the likelier mistake.
  for i = 2, #docs do
    local _, why = M.comparable(docs[1], docs[i], force)
    if why == "scenario" then
      util.fail("cannot compare: '%s' ran scenario '%s' but '%s' ran '%s' (add --force to compare anyway)",
        files[1], tostring(docs[1].scenario), files[i], tostring(docs[i].scenario))
    end
  end
  for i = 2, #docs do
    if not M.comparable(docs[1], docs[i], true) then
      util.fail("cannot compare sweep files with single-run files (compare sweeps with sweeps, runs with runs)")
    end
  end
  return M.is_sweep(docs[1])
end

local function describe(docs, files, names)
  local rows = {}
  for i, d in ipairs(docs) do
    local host = type(d.host) == "table" and d.host.hostname or "?"
    local what
    if M.is_sweep(d) then
      what = string.format("sweep of %d point(s)", #d.points)
    else
      what = string.format("%s thread(s), %s s", tostring(d.threads or (d.options and d.options.threads) or "?"),
        M.fmt(num(d.duration_s)))
    end
    rows[#rows + 1] = { names[i], files[i], tostring(d.scenario), what, tostring(host), tostring(d.started_at or "?") }
  end
  return M.table({ "name", "file", "scenario", "run", "host", "started" }, rows, "  ")
end

M.usage = "usage: lbench compare a.json b.json [more.json ...] [--force] [--names=a,b] [--output=text|csv]"

function M.main(rt, argv)
  local opts, files = M.parse_args(argv, { force = true, names = true, output = true }, "compare")
  if #files < 2 then
    util.fail(M.usage)
  end
  local output = opts.output == nil and "text" or opts.output
  if output ~= "text" and output ~= "csv" then util.fail("--output=%s: expected text or csv", tostring(output)) end
  local docs = {}
  for i, f in ipairs(files) do docs[i] = M.load(f) end
  local names = M.names(files, opts.names)
  local force = opts.force ~= nil and opts.force ~= "off" and opts.force ~= "false" and opts.force ~= "0"
  local sweep = check_comparable(docs, files, force)

  local out = {}
  local csv_rows = {}
  local function emit(s) out[#out + 1] = s end
  if output == "text" then
    emit(string.format("Comparing %d results; ratio = value / %s, diff = (value - %s) / %s",
      #docs, names[1], names[1], names[1]))
    emit("")
    emit(describe(docs, files, names))
    local hashes = {}
    for _, d in ipairs(docs) do if d.scenario_hash then hashes[d.scenario_hash] = true end end
    if next(hashes) and next(hashes, next(hashes)) then
      emit("  note: the scenario sources differ (scenario_hash)")
    end
    emit("")
  end

  if not sweep then
    local metrics = present_metrics(docs)
    local rows = {}
    for _, m in ipairs(metrics) do
      local vals = {}
      for i, d in ipairs(docs) do vals[i] = m[3](d) end
      rows[#rows + 1] = compare_row(metric_title(m), vals, #docs)
    end
    local header = compare_header("metric", names)
    if output == "csv" then emit(M.csv(header, rows)) else emit(M.table(header, rows)) end
  else
    -- Points matched by their label (threads=4 ...), in the first file's order.
    local labels, seen = {}, {}
    local by = {}
    for i, d in ipairs(docs) do
      by[i] = {}
      for _, p in ipairs(d.points) do
        local l = M.point_label(p)
        by[i][l] = p
        if not seen[l] then seen[l] = true; labels[#labels + 1] = l end
      end
    end
    local all = {}
    for _, d in ipairs(docs) do for _, p in ipairs(d.points) do all[#all + 1] = p end end
    local metrics = present_metrics(all)
    local header = compare_header("point", names)
    for _, m in ipairs(metrics) do
      local rows = {}
      for _, l in ipairs(labels) do
        local vals = {}
        for i = 1, #docs do vals[i] = by[i][l] and m[3](by[i][l]) or nil end
        rows[#rows + 1] = compare_row(l, vals, #docs)
      end
      if output == "csv" then
        for _, r in ipairs(rows) do
          local row = { metric_title(m) }
          for _, c in ipairs(r) do row[#row + 1] = c end
          csv_rows[#csv_rows + 1] = row
        end
      else
        emit(metric_title(m))
        emit(M.table(header, rows, "  "))
        emit("")
      end
    end
    if output == "csv" then
      local h = { "metric" }
      for _, c in ipairs(header) do h[#h + 1] = c end
      emit(M.csv(h, csv_rows))
    end
  end
  local s = table.concat(out, "\n"):gsub("\n+$", "") .. "\n"
  C.lb_runtime_write(rt, s, #s)
  return 0
end

return M
