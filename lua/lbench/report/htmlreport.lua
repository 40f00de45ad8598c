-- `lbench report FILE.json [more.json ...] --out=FILE.html [--names=a,b]
-- [--title=T]`: one self-contained HTML page of result files (runs,
-- sweeps, fileio, tpcc, slap): a summary table per run with ratios to the
-- first, the comparison of the runs, the scale factors of sweeps, the
-- charts `lbench plot` draws (same data: report/plotdata.lua) as inline SVG, the
-- TPC-C summary and constraints, slap's levels, and the options and host
-- of each file side by side with the differences highlighted.
--
-- The page needs nothing at view time: no script, no network; hovering a
-- point or a bar shows its value (SVG <title>), the tables are plain HTML.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local catalogue = require("lbench.result.catalogue")
local fmt = require("lbench.fmt")
local options = require("lbench.options")
local result = require("lbench.result.document")
local plotdata = require("lbench.report.plotdata")
local chart = require("lbench.report.chart")
local html = require("lbench.report.html")
local domain = require("lbench.report.domain")
local serverhost = require("lbench.report.serverhost")
local datasize = require("lbench.db.datasize")

local M = {}

local esc, fnum = html.escape, fmt.num
local lat_cell = domain.lat_cell

-- A ratio against the baseline at or beyond this share is coloured better
-- or worse; closer ones are run-to-run noise in most benchmarks.
M.NOTABLE = 0.05

local function num(v) return type(v) == "number" and v == v and v or nil end

-- A ratio cell coloured by direction (`lower`: smaller is better).
local function ratio_cell(r, lower, text)
  local cell = { text = text or fmt.ratio_text(r) }
  if r and math.abs(r - 1) >= M.NOTABLE then
    local better = (r > 1) ~= (lower == true)
    cell.class = better and "good" or "bad"
  end
  return cell
end
M.ratio_cell = ratio_cell

local function note(s) return '<p class="note">' .. esc(s) .. "</p>" end

local function scroll(s) return '<div class="lb-scroll">' .. s .. "</div>" end

-- ---- summary -------------------------------------------------------------------

-- Latency percentiles shown per run: the usual four, and any other a run
-- asked for with --percentiles (the file always holds 50 ... 99.99).
local SHOWN_PCTS = { "50", "95", "99", "99.9" }
local STANDARD = { ["50"] = true, ["90"] = true, ["95"] = true, ["99"] = true, ["99.9"] = true, ["99.99"] = true }

local function pct_keys(runs)
  local keys, seen = {}, {}
  for _, k in ipairs(SHOWN_PCTS) do seen[k] = true end
  local extra = {}
  for _, run in ipairs(runs) do
    local p = type(run.r.latency_ms) == "table" and run.r.latency_ms.percentiles
    if type(p) == "table" then
      for k in json.pairs(p) do
        if tonumber(k) and not seen[k] and not STANDARD[k] then seen[k] = true; extra[#extra + 1] = k end
      end
    end
  end
  for _, k in ipairs(SHOWN_PCTS) do keys[#keys + 1] = k end
  for _, k in ipairs(extra) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
  return keys
end

local function status_cell(r)
  local s = tostring(r.status or "ok")
  if s == "ok" then return s end
  return { text = s .. (r.stop_reason and (" (" .. tostring(r.stop_reason) .. ")") or ""), class = "warn",
           title = r.error and tostring(r.error) or nil }
end

-- The run each run's ratio is taken against: the first run (itself
-- included) that lbench compare would set beside it (catalogue.comparable:
-- the same scenario, sweeps with sweeps) and whose throughput has the same
-- unit (IOPS against TPS is no ratio).  base[i] == i: run i is a baseline.
local function baselines(runs)
  local base, unit = {}, {}
  for i, run in ipairs(runs) do
    unit[i] = select(2, result.throughput(run.r))
    base[i] = i
    for j = 1, i - 1 do
      if base[j] == j and unit[j] == unit[i] and catalogue.comparable(runs[j].doc, run.doc) then base[i] = j break end
    end
  end
  return base
end

-- The ratio cell of run i: against its baseline, named on hover; a
-- baseline others compare with reads 1.000; a run nothing compares with
-- has none (a TPC-C run against an OLTP run measures nothing).
local function summary_ratio(i, runs, base, followed)
  local b = base[i]
  if b ~= i then
    local thr, bthr = num((result.throughput(runs[i].r))), num((result.throughput(runs[b].r)))
    local cell = ratio_cell(thr and bthr and bthr > 0 and thr / bthr or nil)
    cell.title = runs[i].name .. " / " .. runs[b].name
    return cell
  end
  if followed[i] then return { text = "1.000", class = "muted", title = "baseline: " .. runs[i].name } end
  return { text = "-", title = "no comparable run (ratios only between runs of the same scenario, sweeps with sweeps)" }
end

-- One row of the summary table; its 8th cell is the ratio.
local function summary_row(i, run, keys, ratio)
  local r = run.r
  local thr, label = result.throughput(r)
  local lat = type(r.latency_ms) == "table" and r.latency_ms or {}
  local totals = type(r.totals) == "table" and r.totals or {}
  local cpu = type(r.cpu) == "table" and r.cpu or {}
  local row = { { html = '<span id="run-' .. i .. '">' .. esc(run.name) .. "</span>" }, tostring(r.scenario or "-"),
                status_cell(r), fnum(num(r.threads)), fnum(num(r.duration_s)), fnum(num(thr)), { text = label, class = "muted" },
                ratio }
  row[#row + 1] = lat_cell(num(lat.avg))
  for _, k in ipairs(keys) do
    local v = result.pct(lat, k)
    row[#row + 1] = v and lat_cell(v) or (result.pct_overflowed(lat, k) and { text = "overflow", class = "warn" } or "-")
  end
  row[#row + 1] = lat_cell(num(lat.max))
  local errs = num(totals.errors)
  row[#row + 1] = errs and errs > 0 and { text = fnum(errs), class = "warn" } or fnum(errs)
  row[#row + 1] = fnum(num(totals.reconnects))
  row[#row + 1] = fnum(num(cpu.client_us_per_event))
  row[#row + 1] = fnum(num(cpu.server_us_per_event))
  return row
end

-- Columns no run has a value in (server CPU without --server-pid, errors
-- of a non-SQL scenario) are left out.
local function drop_empty_columns(header, rows)
  local keep = {}
  for c = 1, #header do
    keep[c] = #rows == 0
    for _, r in ipairs(rows) do
      local v = r[c]
      if type(v) == "table" then v = v.text or v.html end
      if v ~= nil and v ~= "-" then keep[c] = true break end
    end
  end
  local h2, r2 = {}, {}
  for c = 1, #header do if keep[c] then h2[#h2 + 1] = header[c] end end
  for i, r in ipairs(rows) do
    r2[i] = {}
    for c = 1, #header do if keep[c] then r2[i][#r2[i] + 1] = r[c] end end
  end
  return h2, r2
end

local function summary_section(ctx)
  local keys = pct_keys(ctx.runs)
  local header = { "run", "scenario", "status", "threads", "duration (s)", "throughput", "unit", "ratio", "avg latency" }
  for _, k in ipairs(keys) do header[#header + 1] = "p" .. k end
  for _, h in ipairs({ "max latency", "errors", "reconnects", "client CPU µs/event", "server CPU µs/event" }) do
    header[#header + 1] = h
  end
  local base, followed = baselines(ctx.runs), {}
  for i, b in ipairs(base) do if b ~= i then followed[b] = true end end
  local rows = {}
  for i, run in ipairs(ctx.runs) do rows[i] = summary_row(i, run, keys, summary_ratio(i, ctx.runs, base, followed)) end
  header, rows = drop_empty_columns(header, rows)
  local ratio = next(followed) and string.format("; ratio = throughput / the first comparable run's (the same " ..
    "scenario and unit, sweeps with sweeps, as lbench compare; hover for which), coloured when it differs by %d %% " ..
    "or more", M.NOTABLE * 100) or ""
  local body = { note("One row per run (a sweep's points each have one). Throughput is IOPS for I/O scenarios, " ..
    "transactions per second for SQL, events per second otherwise" .. ratio .. "; latency over the measured " ..
    "period (warm-up excluded), each value in ns, µs, ms or s (hover for ms).") }
  body[#body + 1] = scroll(html.table(header, rows, { id = "summary-table" }))
  return { id = "summary", title = "Summary", body = table.concat(body, "\n") }
end

-- ---- comparison (runs, not sweeps) ------------------------------------------------

-- Each run against the first run before it that lbench compare accepts
-- beside it (catalogue.comparable); a run with none gets no ratio columns.
local function comparison_section(ctx)
  local docs, names = {}, {}
  for i, d in ipairs(ctx.docs) do
    if not result.is_sweep(d) then docs[#docs + 1] = d; names[#names + 1] = ctx.names[i] end
  end
  if #docs < 2 then return nil end
  local pairs_ = {}
  for i = 2, #docs do
    for j = 1, i - 1 do
      if catalogue.comparable(docs[j], docs[i]) then pairs_[#pairs_ + 1] = { i, j } break end
    end
  end
  local header = { "metric" }
  for _, n in ipairs(names) do header[#header + 1] = n end
  for _, p in ipairs(pairs_) do
    header[#header + 1] = names[p[1]] .. " / " .. names[p[2]]
    header[#header + 1] = "diff " .. names[p[1]]
  end
  local rows = {}
  for _, m in ipairs(catalogue.present_metrics(docs)) do
    local vals, row = {}, { m[2] == "ms" and m[1] or catalogue.metric_title(m) }
    for i, d in ipairs(docs) do
      vals[i] = m[3](d)
      row[#row + 1] = m[2] == "ms" and domain.lat_cell(vals[i]) or fnum(vals[i])
    end
    for _, p in ipairs(pairs_) do
      local r, d = fmt.ratio(vals[p[1]], vals[p[2]])
      row[#row + 1] = ratio_cell(r, m.lower)
      row[#row + 1] = ratio_cell(r, m.lower, fmt.pct(d))
    end
    rows[#rows + 1] = row
  end
  local body = { note(string.format("lbench compare's table: each run against the first run of the same scenario " ..
    "(ratio = value / its value, diff = (value - its value) / its value); green is better, red worse, by %d %% or " ..
    "more. Latencies in ns, µs, ms or s (hover for ms).", M.NOTABLE * 100)) }
  if #pairs_ == 0 then
    body[#body + 1] = note("These runs ran different scenarios: their values side by side, no ratio (lbench " ..
      "compare refuses them too).")
  elseif #pairs_ < #docs - 1 then
    local alone, paired = {}, {}
    for _, p in ipairs(pairs_) do paired[p[1]] = true end
    for i = 2, #docs do if not paired[i] then alone[#alone + 1] = names[i] end end
    body[#body + 1] = note("No ratio for " .. table.concat(alone, ", ") .. ": no run before it ran its scenario.")
  end
  body[#body + 1] = scroll(html.table(header, rows, { id = "comparison-table" }))
  return { id = "comparison", title = "Comparison", body = table.concat(body, "\n") }
end

-- ---- sweeps ------------------------------------------------------------------------

local function fmt_ratio_or(v) return v and fmt.ratio_text(v) or "-" end

-- A sweep with --prepare-each: what each point ran on.
local function loaded_cells(d, header, rows)
  local any = false
  for _, s in ipairs(type(d.summary) == "table" and d.summary or {}) do if type(s.loaded) == "table" then any = true end end
  if not any then return end
  local text = datasize.text
  table.insert(header, 2, "loaded")
  for i, row in ipairs(rows) do table.insert(row, 2, text(d.summary[i].loaded)) end
end

local function sweep_table(d)
  local header = { "point", "status", "threads", "throughput", "unit", "scale factor", "efficiency", "p95", "p99",
                   "errors", "client CPU µs/event", "server CPU µs/event" }
  local rows = {}
  for i, s in ipairs(type(d.summary) == "table" and d.summary or {}) do
    local p = d.points[i] or {}
    local st = tostring(s.status or "ok")
    local eff = num(s.efficiency)
    rows[#rows + 1] = { tostring(s.label or catalogue.point_label(p)), st == "ok" and st or { text = st, class = "warn" },
      fnum(num(s.threads)), fnum(num(s.throughput)), { text = tostring(s.metric or ""), class = "muted" },
      i == s.baseline and { text = fmt_ratio_or(s.scale_factor), class = "muted" } or ratio_cell(num(s.scale_factor)),
      eff and ratio_cell(eff, false, string.format("%.0f %%", eff * 100)) or "-",
      lat_cell(num(s.p95)), lat_cell(num(s.p99)), num(s.errors) and s.errors > 0 and { text = fnum(s.errors), class = "warn" }
      or fnum(num(s.errors)), fnum(num(s.client_us)), fnum(num(s.server_us)) }
  end
  loaded_cells(d, header, rows)
  -- What the server and its device did at each point (--server-stats).
  for _, c in ipairs({ { "server hit %", "hit_pct" }, { "server disk reads/s", "disk_reads" },
                       { "device util %", "dev_util" } }) do
    local any = false
    for _, s in ipairs(type(d.summary) == "table" and d.summary or {}) do any = any or num(s[c[2]]) ~= nil end
    if any then
      header[#header + 1] = c[1]
      for i, row in ipairs(rows) do row[#row + 1] = fnum(num(d.summary[i][c[2]])) end
    end
  end
  return html.table(header, rows, { class = "sweep-table" })
end

local function sweeps_section(ctx)
  local parts = {}
  for i, d in ipairs(ctx.docs) do
    if result.is_sweep(d) then
      local dims = {}
      for _, dm in ipairs(type(d.sweep) == "table" and d.sweep.dimensions or {}) do
        local vals = {}
        for _, v in ipairs(type(dm.values) == "table" and dm.values or {}) do vals[#vals + 1] = tostring(v) end
        dims[#dims + 1] = string.format("%s (%s) = %s", tostring(dm.name), tostring(dm.kind), table.concat(vals, ", "))
      end
      parts[#parts + 1] = "<h3>" .. esc(ctx.names[i]) .. "</h3>"
      parts[#parts + 1] = note(string.format("%d point(s); swept: %s. Scale factor = throughput / the baseline " ..
        "point's (the first point with the same other coordinates); efficiency = scale factor / thread ratio.",
        #d.points, #dims > 0 and table.concat(dims, "; ") or "-"))
      parts[#parts + 1] = scroll(sweep_table(d))
    end
  end
  if #parts == 0 then return nil end
  return { id = "sweeps", title = "Sweeps: scale factors", body = table.concat(parts, "\n") }
end

-- ---- charts ------------------------------------------------------------------------

-- Hover text of a point: series, then x and y with their axis names.
local function tip(ch, s, p, x_text)
  return string.format("%s\n%s: %s\n%s: %s", s.title, ch.xlabel, x_text or fnum(p[1]), ch.ylabel, fnum(p[2]))
end

-- A swept value's chart as grouped bars: one group per value, one bar per
-- line of the data (the write-ups' "TPS per buffer-pool size").
local function bar_svg(ch)
  local xs, label_of = {}, {}
  for _, s in ipairs(ch.series) do
    for _, p in ipairs(s.points) do
      if not label_of[p[1]] then label_of[p[1]] = p[3] or fnum(p[1]); xs[#xs + 1] = p[1] end
    end
  end
  table.sort(xs)
  local idx, cats = {}, {}
  for i, x in ipairs(xs) do idx[x] = i; cats[i] = label_of[x] end
  local series = {}
  for _, s in ipairs(ch.series) do
    local values, tips = {}, {}
    for _, p in ipairs(s.points) do
      values[idx[p[1]]] = p[2]
      tips[idx[p[1]]] = tip(ch, s, p, label_of[p[1]])
    end
    series[#series + 1] = { name = s.title, values = values, tips = tips }
  end
  -- The values are labelled as swept (2G), so the axis needs no unit.
  return chart.bar({ id = "chart-" .. ch.name, title = ch.title, y_label = ch.ylabel, categories = cats, series = series,
                     x_label = (ch.xlabel:gsub(" %([^)]*%)$", "")) })
end

local function line_svg(ch)
  local spec = { id = "chart-" .. ch.name, title = ch.title, x_label = ch.xlabel, y_label = ch.ylabel, y_zero = ch.yzero,
                 x_zero = ch.xzero, series = {} }
  if ch.categories then
    spec.x_categories = {}
    for i, c in ipairs(ch.categories) do spec.x_categories[i] = tostring(c) end
  end
  local xs, seen = {}, {}
  for _, s in ipairs(ch.series) do
    local pts = {}
    for _, p in ipairs(s.points) do
      pts[#pts + 1] = { x = p[1], y = p[2], tip = tip(ch, s, p, p[3]) }
      if not seen[p[1]] then seen[p[1]] = true; xs[#xs + 1] = p[1] end
    end
    -- A warm-up and phase boundaries are drawn on their own run's series
    -- only (report/plotdata.lua): another run has neither.
    local marks
    for _, m in ipairs(s.marks or {}) do
      marks = marks or {}
      marks[#marks + 1] = { x = m[1], label = m[2] }
    end
    spec.series[#spec.series + 1] = { name = s.title, points = pts, color = s.color, dash = s.dash, run = s.run,
                                      warmup = s.warmup, marks = marks }
  end
  if ch.xtics then table.sort(xs); spec.x_ticks = xs end
  return chart.line(spec)
end

-- What each chart shows, under it.
local CAPTIONS = {
  throughput = "Throughput per report interval.",
  jitter = "Each interval's throughput against the run's mean (warm-up excluded from the mean): the stability of a run.",
  latency = "Latency percentiles of each report interval (solid, dashed ...: the percentiles of one run).",
  scaling = "Measured throughput against threads; dashed: ideal linear scaling from the first point.",
  fileio = "fileio throughput per block of I/Os: a drop is the device's write cliff.",
  ["fileio-latency"] = "p99 latency per block of I/Os (solid: reads, dashed: writes).",
  tpcc = "Transactions per minute of each TPC-C type per report interval; new_order's line is the tpmC curve.",
  slap = "slap: statements per second at each concurrency level (averaged over the iterations).",
}

local function charts_section(ctx)
  local parts = {}
  for _, ch in ipairs(ctx.charts) do
    local svg = ch.name:match("^sweep%-") and bar_svg(ch) or line_svg(ch)
    local cap = CAPTIONS[ch.name] or ("Throughput at each value of " .. ch.xlabel:gsub(" %([^)]*%)$", "") ..
      ", one bar per combination of the other swept values.")
    local warm = false
    for _, s in ipairs(ch.series) do warm = warm or s.warmup ~= nil end
    if warm then cap = cap .. " Faded, with hollow dots: a run's warm-up, on its own lines." end
    if ch.marks and #ch.marks > 0 then cap = cap .. " Dotted verticals: a run's phase boundaries, in its colour." end
    parts[#parts + 1] = string.format('<figure class="lb-figure" id="fig-%s">%s<figcaption class="muted">%s</figcaption></figure>',
      esc(html.id(ch.name)), svg, esc(cap))
  end
  if #ctx.skipped > 0 then
    local items = {}
    for _, w in ipairs(ctx.skipped) do items[#items + 1] = "<li>" .. esc(w) .. "</li>" end
    parts[#parts + 1] = string.format('<details class="muted"><summary>Charts not drawn (%d)</summary><ul>%s</ul></details>',
      #items, table.concat(items))
  end
  if #ctx.charts == 0 and #ctx.skipped == 0 then return nil end
  return { id = "charts", title = "Charts", body = table.concat(parts, "\n") }
end

-- ---- the page ----------------------------------------------------------------------

local function build_page(ctx)
  ctx.runs = plotdata.runs_of(ctx.docs, ctx.names)
  ctx.charts, ctx.skipped = plotdata.charts(ctx.docs, ctx.names)
  local sections = {}
  local function add(s) if s then sections[#sections + 1] = s end end
  add(summary_section(ctx))
  add(domain.errors_section(ctx))
  add(comparison_section(ctx))
  add(sweeps_section(ctx))
  add(charts_section(ctx))
  local sh, ncharts = serverhost.section(ctx.runs, line_svg)
  add(sh)
  ctx.server_charts = ncharts
  add(domain.phases_section(ctx))
  add(domain.ranks_section(ctx))
  add(domain.tpcc_section(ctx))
  add(domain.types_section(ctx))
  add(domain.slap_section(ctx))
  add(domain.fileio_section(ctx))
  add(domain.side_by_side_section(ctx))
  add(domain.files_section(ctx))
  local title = ctx.title or ("lbench report: " .. table.concat(ctx.names, ", "))
  return html.page({ title = title, generated_by = ctx.generated_by, sections = sections,
    subtitle = string.format("%d result file(s), %d run(s); generated %s", #ctx.docs, #ctx.runs, ctx.generated_at) })
end

M.usage = "usage: lbench report FILE.json [more.json ...] --out=FILE.html [--names=a,b] [--title=T]"

local function shell_word(s)
  if s:match("^[%w%._/=,:%-]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

function M.main(rt, argv)
  local opts, files = options.parse_tool_args(argv, { out = true, names = true, title = true }, "report")
  if files[1] == "help" and #files == 1 and not util.file_exists("help") then
    local s = M.usage .. "\n"
    C.lb_runtime_write(rt, s, #s)
    return 0
  end
  if #files == 0 then util.fail("lbench report: no result file given (%s)", M.usage) end
  if opts.out == nil or opts.out == true or opts.out == "" then
    util.fail("lbench report: --out=FILE.html is required (%s)", M.usage)
  end
  local docs = {}
  for i, f in ipairs(files) do docs[i] = result.load(f) end
  local names = catalogue.names(files, opts.names)
  result.check_writable(opts.out, "--out")
  local words = { "lbench" }
  for _, a in ipairs(argv) do words[#words + 1] = shell_word(a) end
  local now = os.time()
  local ctx = { docs = docs, files = files, names = names, title = opts.title ~= true and opts.title or nil,
                generated_at = os.date("!%Y-%m-%d %H:%M:%S UTC", now),
                generated_by = string.format("lbench %s: %s", ffi.string(C.lb_version()), table.concat(words, " ")) }
  local ok, page = pcall(build_page, ctx)
  if not ok then
    if util.is_usage_error(page) then error(page, 0) end
    -- A file that parses but holds values of the wrong type (edited or
    -- damaged): name the first that fails on its own.
    local bad = table.concat(files, "', '")
    for i, d in ipairs(docs) do
      local one = { docs = { d }, files = { files[i] }, names = { names[i] }, generated_at = ctx.generated_at,
                    generated_by = ctx.generated_by }
      if not pcall(build_page, one) then bad = files[i] break end
    end
    util.fail("'%s' holds malformed values, cannot report it (%s)", bad, (tostring(page):gsub("\n.*", "")))
  end
  local wok, err = result.write_atomic(opts.out, page)
  if not wok then util.fail("--out=%s: cannot write: %s", opts.out, tostring(err)) end
  local s = string.format("Report of %d file(s) (%d run(s), %d chart(s)) written to %s\n", #files, #ctx.runs,
    #ctx.charts + (ctx.server_charts or 0), opts.out)
  C.lb_runtime_write(rt, s, #s)
  return 0
end

return M
