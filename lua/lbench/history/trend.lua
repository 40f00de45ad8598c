-- `lbench history report [filters] [--metric=tps,p99] [--limit=N] --out=trend.html`:
-- a self-contained page of the history: per metric, a chart of the
-- metric over time with one line per series (scenario, command and key
-- options: the same experiment run again), every run a point linked to
-- its details further down the page; vertical marks where the lbench
-- version changes (the first suspect of a step); then the runs' table and
-- each run's details (header, figures, every option).
--
-- Only runs with status ok are drawn (an interrupted or failed run's
-- figures are not the experiment's); every matching run is listed.
-- Charts and page come from report/chart.lua and report/html.lua.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local fmt = require("lbench.fmt")
local result = require("lbench.result.document")
local history = require("lbench.result.history")
local chart = require("lbench.report.chart")
local html = require("lbench.report.html")
local cmd = require("lbench.history.args")

local M = {}

local function series_name(r)
  local parts = { r.scenario }
  if r.command ~= "run" then parts[#parts + 1] = r.command end
  if r.key_options ~= "" then parts[#parts + 1] = r.key_options end
  return table.concat(parts, " ")
end

local function metric_label(m)
  local spec = history.metrics[m]
  return spec.label .. (spec.unit ~= "" and (" (" .. spec.unit .. ")") or "")
end

-- The metrics to draw: --metric, else the headline figure most runs have.
local function metrics_of(opt, rows)
  local names = {}
  if opt then
    for _, s in ipairs(util.split(opt, ",")) do
      local m = history.metric(util.trim(s))
      if not m then util.fail("--metric: unknown metric '%s' (expected %s)", s, history.METRIC_NAMES) end
      names[#names + 1] = m
    end
    return names
  end
  local count = { tpmc = 0, iops = 0, tps = 0 }
  for _, r in ipairs(rows) do for k in pairs(count) do if r[k] then count[k] = count[k] + 1 end end end
  local best = "tps"
  if count.tpmc > 0 and count.tpmc * 2 >= #rows then best = "tpmc" elseif count.iops > count.tps / 2 then best = "iops" end
  return { best }
end

-- Series of one metric: name -> points, in the order they first appear.
local function series_of(rows, m)
  local list, by = {}, {}
  for _, r in ipairs(rows) do
    local y = r[m]
    if r.status == "ok" and y then
      local name = series_name(r)
      local s = by[name]
      if not s then s = { name = name, points = {} }; by[name] = s; list[#list + 1] = s end
      s.points[#s.points + 1] = { x = r.started_unix, y = y, id = r.id, href = "#run-" .. r.id,
        tip = string.format("#%d %s %s: %s %s", r.id, r.started_at, r.host or "?", fmt.num(y), history.metrics[m].label) }
    end
  end
  return list
end

-- Vertical marks where the lbench version changes from one run to the next.
local function version_marks(rows)
  local marks, last = {}, nil
  for _, r in ipairs(rows) do
    if r.lbench_version and last and r.lbench_version ~= last then
      marks[#marks + 1] = { x = r.started_unix, label = "lbench " .. r.lbench_version }
    end
    last = r.lbench_version or last
  end
  return marks
end

-- The table under a chart: per series, runs, first and last value, their
-- change in the metric's good direction, best and worst.
local function series_table(list, m)
  local higher = history.metrics[m].higher
  local rows = {}
  for _, s in ipairs(list) do
    local lo, hi = math.huge, -math.huge
    for _, p in ipairs(s.points) do lo = math.min(lo, p.y); hi = math.max(hi, p.y) end
    local first, last = s.points[1], s.points[#s.points]
    local _, d = fmt.ratio(last.y, first.y)
    local cls = d and ((higher and d or -d) < 0 and "bad" or ((higher and d or -d) > 0 and "good" or nil)) or nil
    rows[#rows + 1] = { s.name, #s.points, { html = '<a href="#run-' .. first.id .. '">' .. fmt.num(first.y) .. "</a>" },
      { html = '<a href="#run-' .. last.id .. '">' .. fmt.num(last.y) .. "</a>" },
      { text = fmt.pct(d), class = cls }, fmt.num(higher and hi or lo), fmt.num(higher and lo or hi) }
  end
  return html.table({ "series", "runs", "first", "last", "change", "best", "worst" }, rows)
end

local function trend_section(rows, metrics)
  local body = {}
  local marks = version_marks(rows)
  for _, m in ipairs(metrics) do
    local list = series_of(rows, m)
    local label = metric_label(m)
    body[#body + 1] = '<figure class="lb-figure">' .. chart.line({
      title = label .. " over time", x_label = "run start (UTC)", y_label = label, x_time = true,
      -- From zero whichever way the metric is better: a latency chart
      -- starting at its lowest value would show a 10 % change as a cliff,
      -- and read unlike the throughput chart beside it.
      y_zero = true, series = list, marks = marks, id = "chart-" .. m,
    }) .. "</figure>"
    if #list > 0 then body[#body + 1] = series_table(list, m)
    else body[#body + 1] = '<p class="note">No run with status ok has ' .. html.escape(history.metrics[m].label) .. ".</p>" end
  end
  body[#body + 1] = '<p class="note">Every point is one run; click it for the run\'s details. '
    .. "Vertical lines: the lbench version changes. Only runs with status ok are drawn. Every y axis starts at "
    .. "zero.</p>"
  return table.concat(body, "\n")
end

local function runs_section(rows, metrics)
  local header = { "id", "time", "host", "scenario", "command", "key options" }
  for _, m in ipairs(metrics) do header[#header + 1] = metric_label(m) end
  header[#header + 1] = "status"
  local cells = {}
  for _, r in ipairs(rows) do
    local row = { { html = '<a href="#run-' .. r.id .. '">#' .. r.id .. "</a>" }, r.started_at, r.host or "-", r.scenario,
      r.command, r.key_options ~= "" and r.key_options or "-" }
    for _, m in ipairs(metrics) do row[#row + 1] = fmt.num(r[m]) end
    row[#row + 1] = { text = r.status, class = r.status ~= "ok" and "warn" or nil }
    cells[#cells + 1] = row
  end
  return '<div class="lb-scroll">' .. html.table(header, cells) .. "</div>"
end

-- One run's details: where it ran, its figures, every option it had.
local function run_details(r)
  local doc = json.decode(r.document)
  local facts = {
    { "started", r.started_at }, { "host", r.host or "-" }, { "scenario", r.scenario }, { "command", r.command },
    { "status", { text = r.status .. (doc.stop_reason and (" (" .. tostring(doc.stop_reason) .. ")") or ""),
      class = r.status ~= "ok" and "warn" or nil } },
    { "lbench version", r.lbench_version or "-" }, { "stored from", r.source or "-" },
  }
  if doc.error then facts[#facts + 1] = { "error", { text = tostring(doc.error), class = "warn" } } end
  if type(doc.duration_s) == "number" then facts[#facts + 1] = { "duration (s)", fmt.num(doc.duration_s) } end
  if result.is_sweep(doc) then facts[#facts + 1] = { "sweep points", #doc.points } end
  for _, m in ipairs(history.METRIC_ORDER) do
    if r[m] then facts[#facts + 1] = { metric_label(m), fmt.num(r[m]) } end
  end
  local opts = {}
  for _, k in ipairs(util.sorted_keys(type(doc.options) == "table" and doc.options or {})) do
    local v = doc.options[k]
    opts[#opts + 1] = { k, type(v) == "table" and json.encode(v) or tostring(v) }
  end
  return string.format('<div class="lb-run" id="run-%d">\n<h3>Run #%d: %s</h3>\n', r.id, r.id, html.escape(series_name(r)))
    .. '<div class="lb-scroll">' .. html.table({ "field", "value" }, facts) .. "</div>\n"
    .. "<details><summary>options (" .. #opts .. ")</summary>\n" .. html.table({ "option", "value" }, opts)
    .. "\n</details>\n</div>"
end

local function report(rt, argv)
  local opts, pos = cmd.parse(argv, 3, { metric = "value", out = "value", limit = "value", title = "value" }, "report", true)
  if pos[1] then util.fail("history report: unexpected argument '%s' (filters are options: --scenario=%s)", pos[1], pos[1]) end
  if not opts.out then util.fail("history report: --out=FILE.html is required") end
  result.check_writable(opts.out, "--out")
  local f = cmd.filters(opts)
  f.with_document = true
  if opts.limit then
    f.limit = tonumber(opts.limit)
    if not f.limit or f.limit < 1 or f.limit ~= math.floor(f.limit) then util.fail("--limit=%s: expected a positive integer", opts.limit) end
  end
  local st = cmd.open(opts, false)
  local rows = cmd.query(st, f)
  st:close()
  if #rows == 0 then util.fail("history report: no runs match in %s", st.path) end
  local metrics = metrics_of(opts.metric, rows)
  local details = {}
  for _, r in ipairs(rows) do details[#details + 1] = run_details(r) end
  local scen = opts.scenario or "all scenarios"
  local title = opts.title or ("lbench history: " .. scen)
  local page = html.page({
    title = title,
    subtitle = string.format("%d run(s) from %s, %s to %s", #rows, st.path, rows[1].started_at, rows[#rows].started_at),
    generated_by = "lbench " .. ffi.string(C.lb_version()) .. " history report, " .. os.date("!%Y-%m-%dT%H:%M:%SZ"),
    sections = {
      { id = "trend", title = "Trend", body = trend_section(rows, metrics) },
      { id = "runs", title = "Runs", body = runs_section(rows, metrics) },
      { id = "details", title = "Run details", body = table.concat(details, "\n") },
    },
  })
  local ok, e = result.write_atomic(opts.out, page)
  if not ok then util.fail("--out: cannot write '%s': %s", opts.out, tostring(e)) end
  local labels = {}
  for _, m in ipairs(metrics) do labels[#labels + 1] = history.metrics[m].label end
  cmd.out(rt, string.format("%s: %d run(s), %s\n", opts.out, #rows, table.concat(labels, ", ")))
  return 0
end

M.main = report
return M
