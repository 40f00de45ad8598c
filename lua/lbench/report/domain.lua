-- The sections of `lbench report` (report/htmlreport.lua) that show what a
-- scenario or a file carries beyond the common figures: the TPC-C summary
-- and its constraints, the phases of a --rate schedule, slap's concurrency levels, fileio's settings and
-- data points, the files' options and hosts side by side with the
-- differences highlighted, and the list of input files.  Each section
-- function takes the report's context and returns a section, or nil when
-- no input has what it shows.
local json = require("lbench.json")
local fmt = require("lbench.fmt")
local result = require("lbench.result.document")
local html = require("lbench.report.html")

local M = {}

local esc, fnum = html.escape, fmt.num

local function num(v) return type(v) == "number" and v == v and v or nil end

local function note(s) return '<p class="note">' .. esc(s) .. "</p>" end

local function scroll(s) return '<div class="lb-scroll">' .. s .. "</div>" end

-- A latency cell: the value given in ms, shown in the unit that reads
-- (fmt.ms: 40.5 µs, 1.23 ms), the exact ms on hover.
function M.lat_cell(ms)
  if type(ms) ~= "number" or ms ~= ms then return "-" end
  local exact = string.format("%.9f", ms):gsub("0+$", ""):gsub("%.$", "")
  return { text = fmt.ms(ms), class = "num", title = exact .. " ms" }
end
local lat_cell = M.lat_cell

-- The same for a value in seconds (TPC-C's response times).
local function sec_cell(s) return type(s) == "number" and lat_cell(s * 1000) or "-" end

local function okf(b)
  if b == nil then return "-" end
  return b and { text = "OK", class = "good" } or { text = "FAILED", class = "warn" }
end

-- A value of an options or host table as text: exact numbers, lists and
-- objects as compact JSON.
local function value_text(v)
  if v == nil then return nil end
  if v == json.null then return "null" end
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
    return string.format("%.10g", v)
  end
  if type(v) == "table" then return json.encode(v) end
  return tostring(v)
end

-- Rows of named values, one column per source, with the cells of a row
-- whose values differ marked `diff`.  `rows_spec` = list of { label, getter }
-- (getter(src) -> value); a row no source has a value for is left out.
-- Returns all rows, the rows that differ, and their labels.
local function side_by_side(rows_spec, sources)
  local rows, diff_rows, differ = {}, {}, {}
  for _, rs in ipairs(rows_spec) do
    local texts, first, same, any = {}, nil, true, false
    for i, src in ipairs(sources) do
      texts[i] = value_text(rs[2](src))
      any = any or texts[i] ~= nil
      if i == 1 then first = texts[i] elseif texts[i] ~= first then same = false end
    end
    if any then
      local differs = #sources > 1 and not same
      local row = { { text = rs[1], class = differs and "diff" or nil } }
      for i = 1, #sources do
        row[#row + 1] = { text = texts[i] or "-", class = differs and "diff" or (texts[i] == nil and "muted" or nil) }
      end
      rows[#rows + 1] = row
      if differs then diff_rows[#diff_rows + 1] = row; differ[#differ + 1] = rs[1] end
    end
  end
  return rows, differ, diff_rows
end

-- Keys of a table field over all documents, in their first order.
local function union_keys(docs, field)
  local keys, seen = {}, {}
  for _, d in ipairs(docs) do
    local t = d[field]
    if type(t) == "table" then
      for k in json.pairs(t) do
        if not seen[k] then seen[k] = true; keys[#keys + 1] = k end
      end
    end
  end
  return keys
end

-- ---- TPC-C ----------------------------------------------------------------------

local TPCC_FIGURES = {
  { "tpmC (new orders per minute)", "tpmC" }, { "NOTPM (committed new orders per minute)", "notpm" },
  { "tpmTotal (all transactions per minute)", "tpm_total" }, { "maximum tpmC for the warehouses", "max_tpmC" },
  { "efficiency (%)", "efficiency_pct" }, { "warehouses", "warehouses" }, { "connections", "connections" },
  { "threads", "threads" }, { "terminal mode", "terminal_mode" }, { "think time", "think_time" },
  { "isolation", "trx_level" }, { "duration (s)", "duration_s" }, { "ramp-up (s)", "rampup_s" },
  { "unknown errors", "unknown_errors" }, { "retried transactions", "retried" },
  { "delivery: skipped districts", "delivery_skipped_districts" }, { "delivery: skipped (%)", "delivery_skipped_pct" },
}

local TPCC_ORDER = { "new_order", "payment", "order_status", "delivery", "stock_level" }

local function tpcc_transactions(t)
  local header = { "transaction", "count", "share %", "minimum share %", "mix", "avg", "p90", "max", "p90 limit",
                   "response time", "rollbacks", "rollback %", "restarts" }
  local rows = {}
  local tx = type(t.transactions) == "table" and t.transactions or {}
  for _, name in ipairs(TPCC_ORDER) do
    local o = tx[name]
    if type(o) == "table" then
      rows[#rows + 1] = { name, fnum(num(o.count)), fnum(num(o.share_pct)), fnum(num(o.min_share_pct)),
        o.share_ok == nil and "-" or okf(o.share_ok), sec_cell(num(o.avg_s)), sec_cell(num(o.p90_s)),
        sec_cell(num(o.max_s)), sec_cell(num(o.p90_limit_s)), okf(o.p90_ok), fnum(num(o.rollbacks)), fnum(num(o.rollback_pct)), fnum(num(o.restarts)) }
    end
  end
  return html.table(header, rows, { class = "tpcc-transactions" })
end

function M.tpcc_section(ctx)
  local runs = {}
  for _, run in ipairs(ctx.runs) do if type(run.r.tpcc) == "table" then runs[#runs + 1] = run end end
  if #runs == 0 then return nil end
  local header = { "figure" }
  for _, run in ipairs(runs) do header[#header + 1] = run.name end
  local rows = {}
  for _, f in ipairs(TPCC_FIGURES) do
    local row, any = { f[1] }, false
    for _, run in ipairs(runs) do
      local v = run.r.tpcc[f[2]]
      any = any or v ~= nil
      row[#row + 1] = type(v) == "number" and fnum(v) or (v == nil and "-" or tostring(v))
    end
    if any then rows[#rows + 1] = row end
  end
  for _, c in ipairs({ { "response times (90th percentile within the limits)", "response_time_ok" },
                       { "transaction mix (minimum shares)", "mix_ok" } }) do
    local row = { c[1] }
    for _, run in ipairs(runs) do row[#row + 1] = okf(run.r.tpcc[c[2]]) end
    rows[#rows + 1] = row
  end
  local parts = { note("dbt2's summary: tpmC counts the new-order transactions per minute over the measured " ..
    "period; the constraints are the spec's 90th-percentile response-time limits and minimum mix shares."),
    scroll(html.table(header, rows, { id = "tpcc-summary" })) }
  for _, run in ipairs(runs) do
    parts[#parts + 1] = "<h3>" .. esc(run.name) .. ": transactions</h3>"
    parts[#parts + 1] = scroll(tpcc_transactions(run.r.tpcc))
  end
  return { id = "tpcc", title = "TPC-C", body = table.concat(parts, "\n") }
end

-- ---- event types -----------------------------------------------------------------

local function types_table(r)
  local header = { "type", "events", "share %", "per second", "avg", "p50", "p95", "p99", "p99.9", "max",
                   "rollbacks", "restarts" }
  local rows = {}
  local secs = num(r.duration_s)
  for name, t in json.pairs(r.types) do
    if type(t) == "table" then
      local lat = type(t.latency_ms) == "table" and t.latency_ms or {}
      local ev = num(t.events)
      rows[#rows + 1] = { tostring(name), fnum(ev), fnum(num(t.share_pct)), fnum(ev and secs and secs > 0 and ev / secs or nil),
        lat_cell(num(lat.avg)), lat_cell(result.pct(lat, "50")), lat_cell(result.pct(lat, "95")),
        lat_cell(result.pct(lat, "99")), lat_cell(result.pct(lat, "99.9")), lat_cell(num(lat.max)), fnum(num(t.rollbacks)), fnum(num(t.restarts)) }
    end
  end
  return html.table(header, rows, { class = "types-table" }), #rows
end

-- Per-type counts and latencies (TPC-C's transactions, fileio's reads and
-- writes, a script's lbench.stat.type), one table per run that has types.
function M.types_section(ctx)
  local parts = {}
  for _, run in ipairs(ctx.runs) do
    if type(run.r.types) == "table" then
      local t, n = types_table(run.r)
      if n > 0 then
        parts[#parts + 1] = "<h3>" .. esc(run.name) .. "</h3>"
        parts[#parts + 1] = scroll(t)
      end
    end
  end
  if #parts == 0 then return nil end
  return { id = "types", title = "Event types", body = note("Each type's events over the measured period and its " ..
    "latency (in ns, µs, ms or s; hover for ms).") .. "\n" .. table.concat(parts, "\n") }
end

-- ---- phases of a --rate schedule ------------------------------------------------

local function phases_table(r)
  local header = { "phase", "rate", "target /s", "start s", "time s", "events", "events/s", "errors", "avg latency",
                   "p95", "p99", "max latency" }
  local rows = {}
  for _, ph in ipairs(r.phases) do
    local lat = type(ph.latency_ms) == "table" and ph.latency_ms or {}
    local tr = type(ph.target_rate) == "table" and ph.target_rate or {}
    local target = tr.from == tr.to and fnum(num(tr.from)) or (fnum(num(tr.from)) .. " -> " .. fnum(num(tr.to)))
    rows[#rows + 1] = { tostring(ph.name), tostring(ph.rate or ""), target, fnum(num(ph.start_s)), fnum(num(ph.duration_s)),
      fnum(num(ph.events)), fnum(num(ph.events_per_sec)), fnum(num(ph.errors)), lat_cell(num(lat.avg)),
      lat_cell(result.pct(lat, "95")), lat_cell(result.pct(lat, "99")), lat_cell(num(lat.max)) }
  end
  return html.table(header, rows, { class = "phases-table" })
end

-- Runs with a --rate schedule: each phase's own figures.
function M.phases_section(ctx)
  local parts = {}
  for _, run in ipairs(ctx.runs) do
    if type(run.r.phases) == "table" and #run.r.phases > 0 then
      parts[#parts + 1] = "<h3>" .. esc(run.name) .. "</h3>"
      parts[#parts + 1] = scroll(phases_table(run.r))
    end
  end
  if #parts == 0 then return nil end
  return { id = "phases", title = "Phases", body = note("Each phase of the --rate schedule from its own counters and " ..
    "latency histogram (the time charts mark the boundaries).") .. "\n" .. table.concat(parts, "\n") }
end

-- ---- ranks of an lbench-mpi job ------------------------------------------------------

-- A rank's clock against rank 0's: the estimated offset, +- its error
-- bound (half the round trip it was measured over).
local function clock_cell(rk)
  local off, rtt = num(rk.clock_offset_ms), num(rk.clock_rtt_ms)
  if not off then return "-" end
  return fnum(off) .. (rtt and rtt > 0 and (" +- " .. fnum(rtt / 2)) or "")
end

local function ranks_table(r)
  local header = { "rank", "host", "threads", "status", "time s", "events", "events/s", "queries/s", "avg latency",
                   "p95", "p99", "max latency", "client CPU s", "clock offset ms" }
  local rows = {}
  for _, rk in ipairs(r.ranks) do
    local t = type(rk.totals) == "table" and rk.totals or {}
    local lat = type(rk.latency_ms) == "table" and rk.latency_ms or {}
    local cpu = type(rk.cpu) == "table" and rk.cpu or {}
    local status = rk.status ~= "ok" and { text = tostring(rk.status) .. (rk.error and (": " .. tostring(rk.error)) or ""),
      class = "bad" } or tostring(rk.status)
    rows[#rows + 1] = { fnum(num(rk.rank)), tostring(rk.host or ""), fnum(num(rk.threads)), status, fnum(num(rk.duration_s)),
      fnum(num(t.events)), fnum(num(t.events_per_sec)), fnum(num(t.queries_per_sec)), lat_cell(num(lat.avg)),
      lat_cell(result.pct(lat, "95")), lat_cell(result.pct(lat, "99")), lat_cell(num(lat.max)), fnum(num(cpu.client_s)),
      clock_cell(rk) }
  end
  return html.table(header, rows, { class = "ranks-table" })
end

-- A job of several ranks: the job's figures are the summary's (sums, and
-- percentiles of the exact merge); each rank's own beside them.
function M.ranks_section(ctx)
  local parts = {}
  for _, run in ipairs(ctx.runs) do
    if type(run.r.ranks) == "table" and #run.r.ranks > 0 then
      parts[#parts + 1] = string.format("<h3>%s</h3>", esc(run.name))
      parts[#parts + 1] = note(string.format("%d ranks (%s); start skew %s ms (start times on rank 0's clock, " ..
        "moved by each rank's clock offset).", #run.r.ranks,
        tostring(run.r.mpi_library or "MPI"), fnum(num(run.r.start_skew_ms))))
      parts[#parts + 1] = scroll(ranks_table(run.r))
    end
  end
  if #parts == 0 then return nil end
  return { id = "ranks", title = "Ranks", body = note("The job's totals are the sums over its ranks and its " ..
    "percentiles come from the exact merge of their histograms (summary above); each rank's own figures here.") ..
    "\n" .. table.concat(parts, "\n") }
end

-- ---- slap -----------------------------------------------------------------------

local function slap_table(s)
  local header = { "engine", "concurrency", "iterations", "avg s", "min s", "max s", "statements per client",
                   "statements/s", "p50", "p95", "p99", "max latency" }
  local rows = {}
  for _, l in ipairs(type(s.summary) == "table" and s.summary or {}) do
    local lat = type(l.latency_ms) == "table" and l.latency_ms or {}
    rows[#rows + 1] = { tostring(l.engine or "-"), fnum(num(l.concurrency)), fnum(num(l.iterations)), fnum(num(l.avg_s)),
      fnum(num(l.min_s)), fnum(num(l.max_s)), fnum(num(l.statements_per_client)), fnum(num(l.statements_per_sec)),
      lat_cell(result.pct(lat, "50")), lat_cell(result.pct(lat, "95")), lat_cell(result.pct(lat, "99")),
      lat_cell(num(lat.max)) }
  end
  return html.table(header, rows, { class = "slap-levels" })
end

function M.slap_section(ctx)
  local parts = {}
  for i, d in ipairs(ctx.docs) do
    if type(d.slap) == "table" then
      local s = d.slap
      parts[#parts + 1] = "<h3>" .. esc(ctx.names[i]) .. "</h3>"
      parts[#parts + 1] = note(string.format("mysqlslap's Benchmark blocks: load type %s, %d round(s); seconds " ..
        "to run all queries of a round, over its iterations.", tostring(s.load_type or "-"),
        type(s.runs) == "table" and #s.runs or 0))
      parts[#parts + 1] = scroll(slap_table(s))
    end
  end
  if #parts == 0 then return nil end
  return { id = "slap", title = "slap", body = table.concat(parts, "\n") }
end

-- ---- fileio ---------------------------------------------------------------------

local function fileio_points_table(f)
  local pts = type(f.points) == "table" and f.points or {}
  local header = { "I/Os", "time (s)", "IOPS", "read MiB/s", "written MiB/s", "read p99", "write p99",
                   "read max", "write max" }
  local rows = {}
  for _, p in ipairs(pts) do
    rows[#rows + 1] = { fnum(num(p.ios)), fnum(num(p.time_s)), fnum(num(p.iops)), fnum(num(p.read_mib_per_sec)),
      fnum(num(p.written_mib_per_sec)), lat_cell(num(p.read_lat_p99_ms)), lat_cell(num(p.write_lat_p99_ms)),
      lat_cell(num(p.read_lat_max_ms)), lat_cell(num(p.write_lat_max_ms)) }
  end
  return html.table(header, rows, { class = "fileio-points" })
end

function M.fileio_section(ctx)
  local runs = {}
  for _, run in ipairs(ctx.runs) do if type(run.r.fileio) == "table" then runs[#runs + 1] = run end end
  if #runs == 0 then return nil end
  local fs, keys, seen = {}, {}, {}
  for i, run in ipairs(runs) do
    fs[i] = run.r.fileio
    for k, v in json.pairs(run.r.fileio) do
      if type(v) ~= "table" and not seen[k] then seen[k] = true; keys[#keys + 1] = k end
    end
  end
  local spec = {}
  for _, k in ipairs(keys) do spec[#spec + 1] = { k, function(f) return f[k] end } end
  local header = { "setting" }
  for _, run in ipairs(runs) do header[#header + 1] = run.name end
  local rows = side_by_side(spec, fs)
  local parts = { note("The fileio settings of each run (differences highlighted), then each run's data points " ..
    "(one per --report-every-ios I/Os)."), scroll(html.table(header, rows, { class = "fileio-settings" })) }
  for _, run in ipairs(runs) do
    if type(run.r.fileio.points) == "table" and #run.r.fileio.points > 0 then
      parts[#parts + 1] = "<h3>" .. esc(run.name) .. ": data points</h3>"
      parts[#parts + 1] = scroll(fileio_points_table(run.r.fileio))
    end
  end
  return { id = "fileio", title = "fileio", body = table.concat(parts, "\n") }
end

-- ---- options and hosts side by side ------------------------------------------------

local function gib(v)
  v = num(v)
  return v and string.format("%.1f GiB (%d bytes)", v / 2 ^ 30, v) or nil
end

local function swept(d)
  if not result.is_sweep(d) or type(d.sweep) ~= "table" then return nil end
  local parts = {}
  for _, dm in ipairs(type(d.sweep.dimensions) == "table" and d.sweep.dimensions or {}) do
    local vals = {}
    for _, v in ipairs(type(dm.values) == "table" and dm.values or {}) do vals[#vals + 1] = tostring(v) end
    parts[#parts + 1] = tostring(dm.name) .. "=" .. table.concat(vals, ",")
  end
  return table.concat(parts, " ")
end

function M.side_by_side_section(ctx)
  local header = { "" }
  for _, n in ipairs(ctx.names) do header[#header + 1] = n end
  local run_spec = {
    { "scenario", function(d) return d.scenario end }, { "scenario hash", function(d) return d.scenario_hash end },
    { "command", function(d) return d.command end }, { "swept", swept },
    { "lbench version", function(d) return d.lbench_version end }, { "started (UTC)", function(d) return d.started_at end },
    { "status", function(d) return d.status end },
  }
  local host_spec = {}
  for _, k in ipairs(union_keys(ctx.docs, "host")) do
    host_spec[#host_spec + 1] = { k, function(d)
      local h = type(d.host) == "table" and d.host or {}
      return k == "memory_bytes" and gib(h[k]) or h[k]
    end }
  end
  local opt_spec = {}
  local okeys = union_keys(ctx.docs, "options")
  table.sort(okeys)
  for _, k in ipairs(okeys) do
    opt_spec[#opt_spec + 1] = { "--" .. k:gsub("_", "-"), function(d)
      if type(d.options) == "table" then return d.options[k] end
    end }
  end
  local run_rows = side_by_side(run_spec, ctx.docs)
  local host_rows, host_diff = side_by_side(host_spec, ctx.docs)
  local opt_rows, opt_diff, opt_diff_rows = side_by_side(opt_spec, ctx.docs)
  local parts = { note(#ctx.docs > 1 and
    "Each file's header, host and options; a highlighted row differs between the files." or
    "The file's header, host and options (a second file would be set beside it, differences highlighted).") }
  parts[#parts + 1] = "<h3>Run</h3>" .. scroll(html.table(header, run_rows, { id = "run-table" }))
  parts[#parts + 1] = "<h3>Host</h3>"
  if #ctx.docs > 1 then
    parts[#parts + 1] = note(#host_diff > 0 and ("Differs: " .. table.concat(host_diff, ", ") .. ".") or "Same host.")
  end
  parts[#parts + 1] = scroll(html.table(header, host_rows, { id = "host-table" }))
  parts[#parts + 1] = "<h3>Options</h3>"
  local all = scroll(html.table(header, opt_rows, { id = "options-table" }))
  if #ctx.docs > 1 then
    -- The options that differ first; all of them folded (<details> opens
    -- without a script).
    if #opt_diff > 0 then
      parts[#parts + 1] = note(#opt_diff .. " option(s) differ:")
      parts[#parts + 1] = scroll(html.table(header, opt_diff_rows, { id = "options-diff-table" }))
    else
      parts[#parts + 1] = note("Same options.")
    end
    all = string.format("<details><summary>All options (%d)</summary>\n%s\n</details>", #opt_rows, all)
  end
  parts[#parts + 1] = all
  return { id = "options", title = "Options and host", body = table.concat(parts, "\n") }
end

-- ---- errors ---------------------------------------------------------------------

-- Errors by code as "1146: 27805, 2013: 1", largest first.
local function by_code(t)
  local list = {}
  for code, n in json.pairs(type(t) == "table" and t or {}) do
    if num(n) and n > 0 then list[#list + 1] = { code = tostring(code), n = n } end
  end
  table.sort(list, function(a, b) return a.n > b.n or (a.n == b.n and a.code < b.code) end)
  local parts = {}
  for _, e in ipairs(list) do parts[#parts + 1] = e.code .. ": " .. fnum(e.n) end
  return table.concat(parts, ", ")
end

-- Runs that did not end well or met errors: status, why, and the errors by
-- code (ignored ones included: a retried deadlock is a figure to watch).
function M.errors_section(ctx)
  local rows = {}
  for i, run in ipairs(ctx.runs) do
    local r = run.r
    local t = type(r.totals) == "table" and r.totals or {}
    local codes = by_code(t.errors_by_code)
    local status = tostring(r.status or "ok")
    if status ~= "ok" or codes ~= "" or (num(t.errors) or 0) > 0 then
      rows[#rows + 1] = { { html = '<a href="#run-' .. i .. '">' .. esc(run.name) .. "</a>" },
        status == "ok" and status or { text = status, class = "warn" },
        tostring(r.stop_reason or r.error or "-"), fnum(num(t.errors)), fnum(num(t.ignored_errors)), codes ~= "" and codes or "-" }
    end
  end
  if #rows == 0 then return nil end
  local body = note("Runs that stopped early, failed, or met errors (ignored errors are those --db-ignore-errors " ..
    "retried).") .. scroll(html.table({ "run", "status", "stop reason or error", "errors", "ignored errors", "by code" },
    rows, { id = "errors-table" }))
  return { id = "errors", title = "Errors", body = body }
end

-- ---- input files ----------------------------------------------------------------

local function kind_of(d)
  if result.is_sweep(d) then return string.format("sweep of %d point(s)", #d.points) end
  if type(d.tpcc) == "table" then return "tpcc run" end
  if type(d.slap) == "table" then return "slap" end
  if type(d.fileio) == "table" then return "fileio " .. tostring(d.command or "run") end
  return tostring(d.command or "run")
end

function M.files_section(ctx)
  local rows = {}
  for i, d in ipairs(ctx.docs) do
    local ok, why = result.validate(d)
    rows[#rows + 1] = { ctx.names[i], { html = "<code>" .. esc(ctx.files[i]) .. "</code>" }, kind_of(d),
      tostring(d.scenario or "-"), tostring(d.started_at or "-"),
      ok and "valid" or { text = "not the documented schema: " .. tostring(why), class = "warn" } }
  end
  local body = note("The result files this page was made from, checked against the result schema (docs/results.md).") ..
    scroll(html.table({ "name", "file", "kind", "scenario", "started (UTC)", "schema" }, rows, { id = "files-table" }))
  return { id = "files", title = "Files", body = body }
end

return M
