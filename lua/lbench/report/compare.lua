-- `lbench compare a.json b.json [c.json ...] [--force] [--names=a,b]`:
-- result files side by side, per metric: the value of each run, its ratio
-- to the first (the baseline) and the difference in percent (the seeds'
-- "ratio" and "overhead" columns: (b - a) / a).  Sweep files (lbench
-- sweep) are compared point by point, one table per metric.  The metrics
-- are the catalogue's (result/catalogue.lua), the figures written by fmt.lua.
local C = require("lbench.ffi").C
local util = require("lbench.util")
local options = require("lbench.options")
local result = require("lbench.result.document")
local catalogue = require("lbench.result.catalogue")
local fmt = require("lbench.fmt")

local M = {}

local function num(v) return type(v) == "number" and v or nil end
local metric_title, present_metrics = catalogue.metric_title, catalogue.present_metrics

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
  for i = 1, n do row[#row + 1] = fmt.num(vals[i]) end
  for i = 2, n do
    local r, d = fmt.ratio(vals[i], vals[1])
    row[#row + 1] = fmt.ratio_text(r)
    row[#row + 1] = fmt.pct(d)
  end
  return row
end

local function describe(docs, files, names)
  local rows = {}
  for i, d in ipairs(docs) do
    local host = type(d.host) == "table" and d.host.hostname or "?"
    local what
    if result.is_sweep(d) then
      what = string.format("sweep of %d point(s)", #d.points)
    else
      what = string.format("%s thread(s), %s s", tostring(d.threads or (d.options and d.options.threads) or "?"),
        fmt.num(num(d.duration_s)))
    end
    rows[#rows + 1] = { names[i], files[i], tostring(d.scenario), what, tostring(host), tostring(d.started_at or "?") }
  end
  return fmt.table({ "name", "file", "scenario", "run", "host", "started" }, rows, "  ")
end

M.usage = "usage: lbench compare a.json b.json [more.json ...] [--force] [--names=a,b] [--output=text|csv]"

function M.main(rt, argv)
  local opts, files = options.parse_tool_args(argv, { force = true, names = true, output = true }, "compare")
  if #files < 2 then
    util.fail(M.usage)
  end
  local output = opts.output == nil and "text" or opts.output
  if output ~= "text" and output ~= "csv" then util.fail("--output=%s: expected text or csv", tostring(output)) end
  local docs = {}
  for i, f in ipairs(files) do docs[i] = result.load(f) end
  local names = catalogue.names(files, opts.names)
  local force = opts.force ~= nil and opts.force ~= "off" and opts.force ~= "false" and opts.force ~= "0"
  local sweep = catalogue.check_comparable(docs, files, force)

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
    if output == "csv" then emit(fmt.csv(header, rows)) else emit(fmt.table(header, rows)) end
  else
    -- Points matched by their label (threads=4 ...), in the first file's order.
    local labels, seen = {}, {}
    local by = {}
    for i, d in ipairs(docs) do
      by[i] = {}
      for _, p in ipairs(d.points) do
        local l = catalogue.point_label(p)
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
        emit(fmt.table(header, rows, "  "))
        emit("")
      end
    end
    if output == "csv" then
      local h = { "metric" }
      for _, c in ipairs(header) do h[#h + 1] = c end
      emit(fmt.csv(h, csv_rows))
    end
  end
  local s = table.concat(out, "\n"):gsub("\n+$", "") .. "\n"
  C.lb_runtime_write(rt, s, #s)
  return 0
end

return M
