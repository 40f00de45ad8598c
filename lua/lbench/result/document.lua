-- The result document: the one place that builds a run's result tree
-- (header, totals, latency summaries, per-type tables, fairness,
-- histogram), serialises it, and writes result files (checked before the
-- run, written atomically).  run/runner.lua feeds it what a run measured.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local hostinfo = require("lbench.host")
local hist = require("lbench.api.hist")

local M = {}

-- Percentiles always present in the result file, whatever --percentiles says.
local STANDARD_PCTS = { "50", "90", "95", "99", "99.9", "99.99" }

-- Latency summary of one histogram, in ms.
local function lat_summary(h, keys, with_standard)
  local s = json.object()
  local n = tonumber(C.lb_hist_total(h))
  s.count = tonumber(C.lb_hist_count_all(h))
  s.min = n > 0 and tonumber(C.lb_hist_min(h)) / 1e6 or 0
  s.avg = n > 0 and C.lb_hist_mean(h) / 1e6 or 0
  s.max = n > 0 and tonumber(C.lb_hist_max(h)) / 1e6 or 0
  s.sum = C.lb_hist_sum(h) / 1e6
  s.stddev = n > 0 and C.lb_hist_stddev(h) / 1e6 or 0
  local all, seen = {}, {}
  for _, k in ipairs(keys) do if not seen[k] then all[#all + 1] = k; seen[k] = true end end
  if with_standard then
    for _, k in ipairs(STANDARD_PCTS) do if not seen[k] then all[#all + 1] = k; seen[k] = true end end
  end
  local pcts = json.object()
  local shown = {}
  local want = {}
  for _, k in ipairs(keys) do want[k] = true end
  for _, k in ipairs(all) do
    local v = hist.decode(C.lb_hist_percentile(h, tonumber(k)))
    -- Never clamp: a percentile among overflowed samples is reported as
    -- null (JSON) / "overflow" (text), with the overflow count beside it;
    -- one among underflowed samples (below 1 ns) as 0.
    local ms = v ~= math.huge and math.max(v, 0) / 1e6 or nil
    if ms == nil then pcts[k] = json.null else pcts[k] = ms end
    if want[k] then shown[#shown + 1] = { key = k, ms = ms } end
  end
  s.percentiles = pcts
  s.underflow = tonumber(C.lb_hist_underflow(h))
  s.overflow = tonumber(C.lb_hist_overflow(h))
  -- Display-only fields (not serialised: plain table keys on a json.object
  -- would be; keep them in a side table).
  return s, shown
end

-- A summary as the reports read it: the JSON object's fields, and two
-- for display only: pct_list (the configured percentiles) and highest_ms
-- (the histogram's range, for the text report's out-of-range line).
local function summary(h, keys, with_standard)
  local s, shown = lat_summary(h, keys, with_standard)
  local highest_ms = tonumber(C.lb_hist_cfg(h).highest) / 1e6
  return setmetatable({}, { __index = function(_, k)
    if k == "pct_list" then return shown end
    if k == "highest_ms" then return highest_ms end
    return s[k]
  end, __json = s })
end

local function plain(summary_)
  return getmetatable(summary_).__json
end

M.summary = summary
M.plain = plain

-- The header every result document starts with.  `status` is "ok",
-- "interrupted" (a signal, or workers stuck past the deadline were cut
-- off: `stop_reason` says which) or "error"; an interrupted or failed run
-- keeps what it measured up to its end.
function M.header(ctx, lb, started_at, status, stop_reason, err)
  local r = json.object()
  r.lbench_version = lb.version
  r.scenario = ctx.scenario_name
  r.scenario_path = ctx.script
  r.scenario_hash = ctx.script_hash
  r.command = ctx.command
  r.options = ctx.redacted_options
  r.host = hostinfo.collect()
  r.started_at = os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(started_at))
  r.status = status
  if stop_reason then r.stop_reason = stop_reason end
  if err then r.error = err end
  return r
end

-- Whether the run uses SQL (so that every report has the SQL layout):
-- some state of this process loaded lbench.sql (a worker's, in a scenario
-- that leaves the main state without it), or queries were counted.
function M.sql_run(ctx, queries)
  return queries > 0 or ctx.sql_used or (ctx.rt ~= nil and C.lb_runtime_sql_used(ctx.rt) ~= 0)
end

-- The totals of an SQL run from plain counts (a run's counters, slap's
-- rounds): events, queries by kind and by statement type, rates, errors.
-- c: events, reads, writes, other, inserts, updates, deletes, restarts
-- (ignored errors), reconnects, db_errors.
function M.sql_totals(c, secs)
  local t = json.object()
  t.events = c.events
  t.events_per_sec = c.events / secs
  local q = c.reads + c.writes + c.other
  local qo = json.object()
  -- One assignment per key: LuaJIT assigns a list right to left, which
  -- would reverse a json.object()'s order.
  qo.read = c.reads
  qo.write = c.writes
  qo.other = c.other
  qo.total = q
  t.queries = qo
  local bt = json.object()
  bt.select = c.reads
  bt.insert = c.inserts
  bt.update = c.updates
  bt.delete = c.deletes
  bt.other = c.other
  t.queries_by_type = bt
  t.queries_per_sec = q / secs
  t.ignored_errors = c.restarts
  t.reconnects = c.reconnects
  t.errors = c.db_errors
  return t
end

local function totals(ctx, a, d, secs)
  local q = d.reads + d.writes + d.other
  if not M.sql_run(ctx, q) then
    local t = json.object()
    t.events = d.events
    t.events_per_sec = d.events / secs
    return t, q
  end
  local t = M.sql_totals(d, secs)
  t.errors_by_code = M.error_codes(a.final_stats, a.base_stats)
  M.outage_totals(t, a.final_stats, a.base_stats)
  return t, q
end

-- The measured period of a run that failed because a connection was lost
-- and never came back: it ends when the last event completed (`last_s`,
-- from the start of the measured period), not when the run gave up
-- waiting at its deadline; otherwise `total_s`.
function M.duration_to_failure(total_s, failed, final, base, last_s)
  if not failed then return total_s end
  local f, b = ffi.cast("lb_db_stats *", final.ext), ffi.cast("lb_db_stats *", base.ext)
  if f.gave_up <= b.gave_up then return total_s end
  return math.max(0, math.min(total_s, last_s))
end

-- Connections lost and reconnects tried (lb_db_stats, core/db/db.h)
-- between two lb_stats: every attempt, the failed ones, the losses, their
-- outage time (summed over connections: from the loss to a reconnect, or
-- to the end) and the outages that ended without a reconnect.
function M.outage_totals(t, final, base)
  local f, b = ffi.cast("lb_db_stats *", final.ext), ffi.cast("lb_db_stats *", base.ext)
  local function d(k) return tonumber(f[k] - b[k]) end
  t.reconnects_failed = d("reconnect_failed")
  t.reconnect_attempts = d("reconnects") + t.reconnects_failed
  t.connections_lost = d("lost")
  t.outage_s = d("outage_ns") / 1e9
  t.not_reconnected = d("gave_up")
end

local function io_totals(d, secs)
  if d.io_reads + d.io_writes + d.io_fsyncs == 0 then return nil end
  local io = json.object()
  io.reads = d.io_reads
  io.writes = d.io_writes
  io.fsyncs = d.io_fsyncs
  io.reads_per_sec = d.io_reads / secs
  io.writes_per_sec = d.io_writes / secs
  io.fsyncs_per_sec = d.io_fsyncs / secs
  io.read_mib_per_sec = d.io_bytes_read / secs / 1048576
  io.written_mib_per_sec = d.io_bytes_written / secs / 1048576
  return io
end

-- Per-type table (types used by this run only) and its display order.
local function type_table(a, d)
  local types, order = json.object(), {}
  for i, name in ipairs(a.type_names) do
    local tc, tb = a.final_stats.types[i - 1], a.base_stats.types[i - 1]
    local h = a.cum.type_lat[i - 1]
    local ev = tonumber(tc.events - tb.events)
    local rs = tonumber(tc.restarts - tb.restarts)
    if ev > 0 or rs > 0 then
      local o = json.object()
      o.events = ev
      o.restarts = rs
      o.rollbacks = tonumber(tc.rollbacks - tb.rollbacks)
      o.share_pct = d.events > 0 and 100 * ev / d.events or 0
      if h ~= nil then o.latency_ms = summary(h, a.keys, true)
      else
        local hc = ffi.new("lb_hist_config"); C.lb_hist_config_default(hc)
        local empty = ffi.gc(C.lb_hist_new(hc), C.lb_hist_free)
        o.latency_ms = summary(empty, a.keys, true)
      end
      types[name] = o
      order[#order + 1] = name
    end
  end
  return #order > 0 and types or nil, order
end

local function avgsd(xs)
  local s, s2 = 0, 0
  for _, x in ipairs(xs) do s = s + x; s2 = s2 + x * x end
  local n = #xs
  if n == 0 then return 0, 0 end
  local m = s / n
  return m, math.sqrt(math.max(0, s2 / n - m * m))
end

-- Fairness: events and busy time per thread over the measured period
-- (what each worker had done at the warm-up end is subtracted); in async
-- mode also events per connection (virtual user), which count the warm-up
-- too: the lanes are read only once the workers have ended.
-- Events and busy seconds of each of this process's threads over the
-- measured period; a merge of ranks (cluster/ranks.lua) gives the job's instead.
function M.thread_figures(a)
  if a.thread_events then return a.thread_events, a.thread_busy end
  local evs, busy = {}, {}
  for i = 0, C.lb_run_threads(a.run) - 1 do
    local st = C.lb_run_worker_stats(a.run, i)
    local b = a.worker_base and a.worker_base[i] or { events = 0 }
    evs[#evs + 1] = tonumber(st.events) - b.events
    busy[#busy + 1] = (tonumber(st.busy_ns) - tonumber(C.lb_run_worker_warm_busy(a.run, i))) / 1e9
  end
  return evs, busy
end

-- Async mode: the events of each connection (virtual user) of this
-- process, as the figures that add up over ranks: count, sum, sum of
-- squares, min, max, unused.  A merge of ranks (cluster/ranks.lua) gives the job's.
function M.lane_figures(a)
  if a.lane_figures then return a.lane_figures end
  local f = M.lanes_new()
  for i = 0, C.lb_run_threads(a.run) - 1 do
    for j = 0, C.lb_run_lane_count(a.run, i) - 1 do
      local n = tonumber(C.lb_run_lane_events(a.run, i, j))
      M.lanes_add(f, { count = 1, sum = n, sumsq = n * n, min = n, max = n, unused = n == 0 and 1 or 0 })
    end
  end
  return M.lanes_done(f)
end

-- Lane figures that add up: empty, `x` added into `f` (one lane's, or a
-- rank's whole set: cluster/ranks.lua merges them with the same), and the
-- finished set (no lanes: min 0).
function M.lanes_new() return { count = 0, sum = 0, sumsq = 0, min = math.huge, max = 0, unused = 0 } end
function M.lanes_add(f, x)
  if x.count == 0 then return end
  f.count, f.sum, f.sumsq, f.unused = f.count + x.count, f.sum + x.sum, f.sumsq + x.sumsq, f.unused + x.unused
  f.min, f.max = math.min(f.min, x.min), math.max(f.max, x.max)
end
function M.lanes_done(f)
  if f.count == 0 then f.min = 0 end
  return f
end

local function fairness(opt, a)
  local evs, busy = M.thread_figures(a)
  local f = json.object()
  local ea, es = avgsd(evs)
  f.events_avg = ea
  f.events_stddev = es
  local ba, bs = avgsd(busy)
  f.exec_time_avg_s = ba
  f.exec_time_stddev_s = bs
  if (opt.connections or 0) > 0 then
    local lf = M.lane_figures(a)
    local cf = json.object()
    cf.count = lf.count
    cf.events_min = lf.min
    local m = lf.count > 0 and lf.sum / lf.count or 0
    cf.events_avg = m
    cf.events_stddev = lf.count > 0 and math.sqrt(math.max(0, lf.sumsq / lf.count - m * m)) or 0
    cf.events_max = lf.max
    cf.includes_warmup = (a.warmup_s or 0) > 0
    cf.unused = lf.unused
    f.connections = cf
  end
  return f
end

-- The merged latency histogram: [lo_ns, hi_ns, count] buckets.
function M.histogram(h)
  local hb = json.array()
  local idx, lo, hi, cnt = ffi.new("int32_t[1]", -1), ffi.new("int64_t[1]"), ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
  while C.lb_hist_next_bucket(h, idx, lo, hi, cnt) do
    hb[#hb + 1] = json.array({ tonumber(lo[0]), tonumber(hi[0]), tonumber(cnt[0]) })
  end
  local ho = json.object()
  ho.unit = "ns"
  ho.relative_error = C.lb_hist_cfg(h).rel_error
  ho.underflow = tonumber(C.lb_hist_underflow(h))
  ho.overflow = tonumber(C.lb_hist_overflow(h))
  ho.buckets = hb
  return ho
end

-- Build the result tree of a run.
function M.build(ctx, lb, a)
  local opt = ctx.opt
  local status = a.failed and "error" or (a.stop_reason and "interrupted") or "ok"
  local r = M.header(ctx, lb, a.started_at, status, a.stop_reason, a.error)
  r.threads = a.threads
  -- Several ranks (lbench-mpi): the job's figures, each rank's beside them.
  if a.nranks then
    r.nranks = a.nranks
    r.mpi_library = a.mpi_library
    if a.start_skew_ms then r.start_skew_ms = a.start_skew_ms end
    if a.merge_ms then r.merge_ms = a.merge_ms end
  end
  if (opt.connections or 0) > 0 then r.connections = opt.connections end
  -- Async mode: the time to open them all, and the transient failures retried.
  if a.connect then r.connect = { opened_s = a.connect.opened_s, retried = a.connect.retried } end
  r.duration_s = a.duration_s
  r.warmup_s = a.warmup_s
  r.warmup_events = a.warmup_events
  if a.stuck_thread then r.stuck_thread, r.stuck_waiting = a.stuck_thread, a.stuck_waiting end
  local d = a.d
  local secs = a.duration_s > 0 and a.duration_s or 1
  local q
  r.totals, q = totals(ctx, a, d, secs)
  if a.cpu then r.cpu = a.cpu.result(json, d.events, q > 0 and q or nil) end
  r.latency_ms = summary(a.cum.lat, a.keys, true)
  if a.paced then
    r.queue_ms = summary(a.cum.queue, a.keys, true)
    -- The backlog at the end: intended starts before the deadline that the
    -- run did not begin (it ends at --time, behind schedule or not).
    r.queue_ms.not_started = d.not_started or 0
    plain(r.queue_ms).not_started = r.queue_ms.not_started
  end
  r.io = io_totals(d, secs)
  local types, order = type_table(a, d)
  r.types = types
  r.fairness = fairness(opt, a)
  -- A --rate schedule: each phase's own totals and latency histogram.
  if a.phases and #a.phases > 0 then r.phases = a.phases end
  r.intervals = a.intervals
  r.histogram = M.histogram(a.cum.lat)
  if a.ranks then r.ranks = a.ranks end
  -- Display helpers kept out of the JSON (see M.to_json).
  getmetatable(r).__display = { type_order = order }
  return r
end

-- Error counts by code between two lb_stats (codes are matched by value:
-- each worker fills its slots in its own order).
function M.error_codes(final, base)
  local codes = {}
  for i = 0, C.LB_STATS_EXT_CODES - 1 do
    local s = final.ext.codes[i]
    if s.count > 0 then codes[s.code] = (codes[s.code] or 0) + tonumber(s.count) end
    local b = base.ext.codes[i]
    if b.count > 0 then codes[b.code] = (codes[b.code] or 0) - tonumber(b.count) end
  end
  local o = json.object()
  local ks = util.sorted_keys(codes)
  local state = ffi.new("char[6]")
  for _, k in ipairs(ks) do
    -- PostgreSQL's codes by their SQLSTATE (core/db/db.h).
    local name = k == -1 and "other" or C.lb_db_code_sqlstate(k, state) ~= 0 and ffi.string(state) or tostring(k)
    if codes[k] > 0 then o[name] = codes[k] end
  end
  return o
end

-- Serialise a result tree (summaries become their plain JSON objects).
local function unwrap(v)
  if type(v) == "table" and v ~= json.null then
    local mt = getmetatable(v)
    if mt and mt.__json then return unwrap(mt.__json) end
    if mt and mt.__jsonorder then
      local o = json.object()
      for k, x in json.pairs(v) do o[k] = unwrap(x) end
      return o
    end
    local isarr = mt and mt.__jsonarray
    local o = isarr and json.array() or {}
    for k, x in pairs(v) do o[k] = unwrap(x) end
    return o
  end
  return v
end
M.unwrap = unwrap

function M.to_json(r, indent) return json.encode(unwrap(r), indent) end

-- The view report.final_text needs.
function M.text_view(r)
  local view = setmetatable({}, { __index = r })
  local disp = getmetatable(r).__display or {}
  view.type_order = disp.type_order or {}
  view.extra_text, view.extra_csv = disp.extra_text, disp.extra_csv
  view.types = r.types
  return view
end

-- ---- result files ------------------------------------------------------------

-- Refuse an output path that cannot be written, before anything is
-- measured: a directory, or a file in a directory that does not exist or is
-- not writable.  Creates and removes a probe file beside it.
function M.check_writable(path, what)
  if path == nil or path == "" then util.fail("%s: empty path", what) end
  local probe = io.open(path, "rb")
  if probe then
    local _, _, code = probe:read(1)
    probe:close()
    if code == 21 then util.fail("%s=%s: is a directory, expected a file path", what, path) end
  end
  local dir = path:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  local tmp = string.format("%s/.lbench-probe-%d-%d", dir, C.lb_runtime_pid(), math.random(1e9))
  local f, e = io.open(tmp, "wb")
  if not f then
    util.fail("%s=%s: cannot write there: %s", what, path, (e or "?"):gsub("^[^:]*: ", ""))
  end
  f:close()
  os.remove(tmp)
end

-- Write `doc` to `path` through a temporary file and a rename, so that a
-- reader (or a crash) never sees half a result.  Returns true or false, err.
function M.write_atomic(path, doc)
  local tmp = string.format("%s.tmp-%d", path, C.lb_runtime_pid())
  local f, e = io.open(tmp, "wb")
  if not f then return false, e end
  local ok, we = f:write(doc)
  local cok, ce = f:close()
  if not ok or not cok then
    os.remove(tmp)
    return false, we or ce
  end
  local rok, re = os.rename(tmp, path)
  if not rok then os.remove(tmp) return false, re end
  return true
end

-- ---- reading result files ---------------------------------------------------

local function num(v) return type(v) == "number" and v or nil end

-- Decode a result file (a run or a sweep); fails with one line naming the
-- file when it is missing, not JSON or not an lbench result.
function M.load(path)
  local src, err = util.read_file(path)
  if not src then util.fail("cannot read '%s': %s", path, tostring(err)) end
  if src:match("^%s*$") then util.fail("'%s' is empty, not an lbench result file", path) end
  local ok, doc = pcall(json.decode, src)
  if not ok then
    local msg = util.is_usage_error(doc) and doc.lbench_message or tostring(doc)
    util.fail("'%s' is not a JSON document (%s)", path, msg)
  end
  -- The shape the tools rely on; a file that parses but lacks it (another
  -- program's JSON, a hand-edited result) is refused here rather than
  -- failing deep inside a table or a chart.
  local what = "'%s' is not an lbench result file (%s)"
  if type(doc) ~= "table" or not (doc.totals or doc.points) then util.fail(what, path, "no 'totals' or 'points'") end
  if doc.points ~= nil then
    if type(doc.points) ~= "table" then util.fail(what, path, "'points' is not a list") end
    for i, p in ipairs(doc.points) do
      if type(p) ~= "table" or type(p.totals) ~= "table" then util.fail("'%s': sweep point %d has no totals", path, i) end
    end
  elseif type(doc.totals) ~= "table" then
    util.fail(what, path, "'totals' is not an object")
  end
  return doc
end

function M.is_sweep(doc) return doc.points ~= nil end

-- I/O operations per second of a run (reads + writes), or nil.
function M.iops(r)
  local io = r.io
  if type(io) ~= "table" then return nil end
  local rd, wr = num(io.reads_per_sec), num(io.writes_per_sec)
  if not rd and not wr then return nil end
  return (rd or 0) + (wr or 0)
end

function M.is_sql(r) return type(r.totals) == "table" and r.totals.queries ~= nil end

-- The headline throughput of a run: IOPS for I/O scenarios, otherwise
-- events per second (transactions per second for SQL scenarios).
-- Returns value, label, key.
function M.throughput(r)
  local iops = M.iops(r)
  if iops then return iops, "IOPS", "iops" end
  local v = r.totals and num(r.totals.events_per_sec) or 0
  return v, M.is_sql(r) and "TPS" or "events/s", "events_per_sec"
end

-- Percentile of the run's latency (ms) or nil.
function M.pct(lat, key)
  if type(lat) ~= "table" or type(lat.percentiles) ~= "table" then return nil end
  return num(lat.percentiles[key])
end

-- Whether percentile `key` of summary `lat` fell among the overflowed
-- samples (written as null).  A decoded file has no key for a null, so
-- the counts decide there: the percentile's rank is past the samples in
-- range.
function M.pct_overflowed(lat, key)
  if type(lat) ~= "table" or type(lat.percentiles) ~= "table" then return false end
  local v = lat.percentiles[key]
  if v == json.null then return true end
  local n, over, p = num(lat.count), num(lat.overflow), tonumber(key)
  if v ~= nil or not (n and over and p) or over <= 0 then return false end
  return math.ceil(p / 100 * n) > n - over
end

-- ---- the schema --------------------------------------------------------------

local STATUSES = { ok = true, interrupted = true, error = true, mismatch = true }

local function need(doc, key, ty, where)
  local v = doc[key]
  if type(v) ~= ty then
    error(string.format("%s%s: expected a %s, found %s", where, key, ty, v == nil and "nothing" or type(v)), 0)
  end
  return v
end

-- An entry of a list that must be an object ("intervals[2]").
local function entry(v, where)
  if type(v) ~= "table" then
    error(string.format("%s: expected an object, found %s", where, v == nil and "nothing" or type(v)), 0)
  end
  return v
end

-- A run's measured part: what compare, plot and the report read.
local function validate_run(r, where)
  need(r, "threads", "number", where)
  local d = need(r, "duration_s", "number", where)
  if d < 0 then error(where .. "duration_s: negative", 0) end
  local t = need(r, "totals", "table", where)
  need(t, "events", "number", where .. "totals.")
  need(t, "events_per_sec", "number", where .. "totals.")
  local lat = need(r, "latency_ms", "table", where)
  for _, k in ipairs({ "count", "min", "avg", "max", "sum", "stddev", "underflow", "overflow" }) do
    need(lat, k, "number", where .. "latency_ms.")
  end
  need(lat, "percentiles", "table", where .. "latency_ms.")
  for i, iv in ipairs(need(r, "intervals", "table", where)) do
    entry(iv, string.format("%sintervals[%d]", where, i))
    local w = string.format("%sintervals[%d].", where, i)
    need(iv, "time_s", "number", w)
    need(iv, "events", "number", w)
    need(need(iv, "latency_ms", "table", w), "count", "number", w .. "latency_ms.")
  end
  local h = need(r, "histogram", "table", where)
  need(h, "buckets", "table", where .. "histogram.")
end

-- Check a result document against the schema of docs/results.md's table:
-- the header every document carries (whatever wrote it), then the measured
-- part of a run or of each sweep point.  Returns true, or nil and a reason.
function M.validate(doc)
  return pcall(function()
    if type(doc) ~= "table" then error("not an object", 0) end
    for _, k in ipairs({ "lbench_version", "scenario", "command", "started_at", "status" }) do need(doc, k, "string", "") end
    need(doc, "options", "table", "")
    need(doc, "host", "table", "")
    if not doc.started_at:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$") then
      error("started_at: not an ISO 8601 UTC time: " .. doc.started_at, 0)
    end
    if not STATUSES[doc.status] then error("status: unknown value '" .. doc.status .. "'", 0) end
    if (doc.status == "interrupted") ~= (doc.stop_reason ~= nil) then
      error("stop_reason: present exactly when status is interrupted", 0)
    end
    if doc.error ~= nil then need(doc, "error", "string", "") end
    if doc.tool == "sweep" then
      for i, p in ipairs(need(doc, "points", "table", "")) do
        validate_run(entry(p, string.format("points[%d]", i)), string.format("points[%d].", i))
      end
      need(doc, "summary", "table", "")
    elseif doc.command == "run" and doc.scenario ~= "slap" then
      validate_run(doc, "")
    end
  end)
end

return M
