-- Running a scenario: the event loop command ("run") and parallel
-- commands, driven from the main state.  The main thread is the reporter:
-- it waits for ticks, collects snapshots from the workers (no locks on
-- their hot path), prints interval lines and finally builds the result
-- tree that every output format renders from.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local report = require("lbench.report")
local hostinfo = require("lbench.host")
local cpu = require("lbench.cpu")

local M = {}

local INT64_MAX = 9223372036854775807LL
-- Percentiles always present in the result file, whatever --percentiles says.
local STANDARD_PCTS = { "50", "90", "95", "99", "99.9", "99.99" }

local function new_snapshot(hcfg)
  local s = ffi.new("lb_snapshot")
  if C.lb_snapshot_init(s, hcfg) ~= 0 then error("out of memory for histograms") end
  return ffi.gc(s, C.lb_snapshot_free)
end

local function say(ctx, s) C.lb_out(ctx.rt, s, #s) end

-- Percentile keys as written by the user: "95", "99.9".
function M.percentile_keys(opt)
  local keys = {}
  if opt.percentiles and #opt.percentiles > 0 then
    for _, p in ipairs(opt.percentiles) do
      local v = tonumber(p)
      if not v or v < 0 or v > 100 then util.fail("--percentiles: '%s' is not a percentile in 0..100", p) end
      keys[#keys + 1] = p
    end
  else
    keys[1] = string.format("%g", opt.percentile)
  end
  return keys
end

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
    local v = C.lb_hist_percentile(h, tonumber(k))
    -- Never clamp: a percentile among overflowed samples is reported as
    -- null (JSON) / "overflow" (text), with the overflow count beside it.
    local ms = (v ~= INT64_MAX) and tonumber(v) / 1e6 or nil
    if v < 0 then ms = 0 end
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

local function summary(h, keys, with_standard)
  local s, shown = lat_summary(h, keys, with_standard)
  return setmetatable({}, { __index = function(_, k)
    if k == "pct_list" then return shown end
    return s[k]
  end, __json = s })
end

local function plain(summary_)
  return getmetatable(summary_).__json
end

local function counters(sum)
  local db = sum.db
  local q = db.queries
  return {
    events = tonumber(sum.events),
    restarts = tonumber(sum.restarts),
    busy_ns = tonumber(sum.busy_ns),
    reads = tonumber(q[C.LB_DB_Q_SELECT]),
    inserts = tonumber(q[C.LB_DB_Q_INSERT]),
    updates = tonumber(q[C.LB_DB_Q_UPDATE]),
    deletes = tonumber(q[C.LB_DB_Q_DELETE]),
    writes = tonumber(q[C.LB_DB_Q_INSERT] + q[C.LB_DB_Q_UPDATE] + q[C.LB_DB_Q_DELETE]),
    other = tonumber(q[C.LB_DB_Q_OTHER]),
    db_errors = tonumber(db.errors),
    reconnects = tonumber(db.reconnects),
    io_reads = tonumber(sum.io_reads), io_writes = tonumber(sum.io_writes), io_fsyncs = tonumber(sum.io_fsyncs),
    io_bytes_read = tonumber(sum.io_bytes_read), io_bytes_written = tonumber(sum.io_bytes_written),
  }
end

local function diff(a, b)
  local d = {}
  for k, v in pairs(a) do d[k] = v - (b[k] or 0) end
  return d
end

local function type_names(rt)
  local n = C.lb_runtime_type_count(rt)
  local names = {}
  for i = 0, n - 1 do names[#names + 1] = ffi.string(C.lb_runtime_type_name(rt, i)) end
  return names
end

-- Parse --cpu-affinity=0,2-3 into a list of CPU numbers.
function M.parse_cpus(s)
  local cpus = {}
  for _, item in ipairs(util.split(s, ",")) do
    local a, b = item:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if a then
      for c = tonumber(a), tonumber(b) do cpus[#cpus + 1] = c end
    elseif item:match("^%s*%d+%s*$") then
      cpus[#cpus + 1] = tonumber(item)
    else
      util.fail("--cpu-affinity=%s: expected a list of CPU numbers or ranges such as 0,2-3", s)
    end
  end
  if #cpus == 0 then util.fail("--cpu-affinity: empty CPU list") end
  return cpus
end

local function make_config(opt, mode, boot)
  local cfg = ffi.new("lb_run_config")
  cfg.threads = opt.threads
  cfg.mode = mode
  cfg.time_s = mode == C.LB_RUN_EVENTS and opt.time or 0
  cfg.events = mode == C.LB_RUN_EVENTS and opt.events or 0
  cfg.rate = mode == C.LB_RUN_EVENTS and opt.rate or 0
  cfg.rate_poisson = opt.rate_mode == "poisson" and 1 or 0
  cfg.warmup_s = mode == C.LB_RUN_EVENTS and opt.warmup_time or 0
  cfg.rand_seed = opt.rand_seed
  cfg.rand_seed_set = opt.rand_seed ~= 0 and 1 or 0
  if opt.cpu_affinity then
    local cpus = M.parse_cpus(opt.cpu_affinity)
    if #cpus > C.LB_MAX_CPUS then util.fail("--cpu-affinity: at most %d CPUs", C.LB_MAX_CPUS) end
    cfg.ncpus = #cpus
    for i, c in ipairs(cpus) do cfg.cpus[i - 1] = c end
  end
  cfg.boot = boot
  return cfg
end

local function boot_chunk(ctx, mode)
  return "return " .. util.serialize({ script = ctx.script, command = ctx.command, mode = mode,
    opt = ctx.opt, argv = ctx.argv })
end

-- A progress line ("\r" updated) for long parallel commands, shown only
-- on a terminal: units/s and ETA from lb_progress_*.
local function progress_line(rt, t0, unit)
  local total = tonumber(C.lb_progress_total(rt))
  if total <= 0 then return nil end
  local done = tonumber(C.lb_progress_done(rt))
  local secs = tonumber(C.lb_clock_ns() - t0) / 1e9
  local rate = secs > 0 and done / secs or 0
  local frac = math.min(1, done / total)
  local bar = string.rep("#", math.floor(frac * 30)) .. string.rep(" ", 30 - math.floor(frac * 30))
  local eta = rate > 0 and (total - done) / rate or 0
  return string.format("\r[%s] %5.1f%% %d/%d %s, %.0f %s/s, ETA %ds ", bar, frac * 100, done, total, unit,
    rate, unit, math.floor(eta + 0.5))
end

-- Run `command` (a parallel command) in every worker.
function M.parallel_command(ctx)
  local boot = boot_chunk(ctx, "command")
  local cfg = make_config(ctx.opt, C.LB_RUN_COMMAND, boot)
  local run = C.lb_run_new(ctx.rt, cfg)
  if run == nil then error("cannot create the run (out of memory?)") end
  run = ffi.gc(run, C.lb_run_free)
  local t0 = C.lb_clock_ns()
  local tty = C.lb_runtime_isatty() ~= 0 and ctx.progress_unit
  local shown = false
  C.lb_run_start(run)
  while C.lb_run_wait(run, C.lb_clock_ns() + 500000000LL) == 0 do
    if C.lb_runtime_stop_requested(ctx.rt) ~= 0 then C.lb_run_stop(run) end
    local line = tty and progress_line(ctx.rt, t0, ctx.progress_unit)
    if line then say(ctx, line) shown = true end
  end
  if shown then say(ctx, (progress_line(ctx.rt, t0, ctx.progress_unit) or "") .. "\n") end
  C.lb_run_join(run)
  if C.lb_run_failed(run) ~= 0 then
    return false, ffi.string(C.lb_run_error(run))
  end
  return true
end

-- The interval report as a table (also what hooks and JSON lines see).
local function make_interval(ctx, t_rel, secs, d, h, threads, warm, keys, with_queue)
  local iv = {}
  iv.time_s = math.floor(t_rel * 1000 + 0.5) / 1000
  iv.warmup = warm
  iv.threads = threads
  iv.events = d.events
  iv.events_per_sec = d.events / secs
  local q = d.reads + d.writes + d.other
  iv.sql = q > 0 or ctx.sql_used
  iv.queries_per_sec = q / secs
  iv.reads_per_sec = d.reads / secs
  iv.writes_per_sec = d.writes / secs
  iv.other_per_sec = d.other / secs
  iv.errors_per_sec = d.restarts / secs
  iv.reconnects_per_sec = d.reconnects / secs
  if d.io_reads + d.io_writes + d.io_fsyncs > 0 then
    iv.io = { reads_per_sec = d.io_reads / secs, writes_per_sec = d.io_writes / secs,
              fsyncs_per_sec = d.io_fsyncs / secs, read_mib_per_sec = d.io_bytes_read / secs / 1048576,
              written_mib_per_sec = d.io_bytes_written / secs / 1048576 }
  end
  iv.latency_ms = summary(h.lat, keys, false)
  if with_queue then iv.queue_ms = summary(h.queue, keys, false) end
  return iv
end

local function interval_json(iv)
  local o = json.object()
  for _, k in ipairs({ "time_s", "warmup", "threads", "events", "events_per_sec", "queries_per_sec",
                       "reads_per_sec", "writes_per_sec", "other_per_sec", "errors_per_sec",
                       "reconnects_per_sec" }) do
    o[k] = iv[k]
  end
  o.latency_ms = plain(iv.latency_ms)
  if iv.queue_ms then o.queue_ms = plain(iv.queue_ms) end
  if iv.io then o.io = iv.io end
  if iv.types then
    local ts = json.object()
    for _, name in ipairs(iv.type_order) do
      local ty = iv.types[name]
      local t = json.object()
      t.events, t.restarts, t.rollbacks = ty.events, ty.restarts, ty.rollbacks
      t.latency_ms = plain(ty.latency_ms)
      ts[name] = t
    end
    o.types = ts
  end
  return o
end

-- Per-type counts and latencies of one interval (scenarios with event
-- types): `cur`/`prev` are lb_stats, `acc` the interval's histograms.
local function interval_types(iv, names, cur, prev, acc, keys, secs)
  iv.types, iv.type_order = {}, {}
  for i, name in ipairs(names) do
    local tc, tp = cur.types[i - 1], prev.types[i - 1]
    local h = acc.type_lat[i - 1]
    local ev = tonumber(tc.events - tp.events)
    iv.types[name] = { events = ev, events_per_sec = ev / secs, restarts = tonumber(tc.restarts - tp.restarts),
      rollbacks = tonumber(tc.rollbacks - tp.rollbacks),
      latency_ms = h ~= nil and summary(h, keys, true) or nil }
    iv.type_order[#iv.type_order + 1] = name
  end
  -- Types without a histogram this interval get an empty summary.
  for _, name in ipairs(iv.type_order) do
    local ty = iv.types[name]
    if not ty.latency_ms then
      local hc = ffi.new("lb_hist_config"); C.lb_hist_config_default(hc)
      ty.latency_ms = summary(ffi.gc(C.lb_hist_new(hc), C.lb_hist_free), keys, true)
    end
  end
end

local function emit_interval(ctx, iv, keys)
  local o = interval_json(iv)
  local text_json = json.encode(o)
  local civ = ffi.new("lb_interval")
  civ.time_s = iv.time_s
  civ.threads = iv.threads
  civ.warmup = iv.warmup and 1 or 0
  civ.events_per_s = iv.events_per_sec
  civ.reads_per_s, civ.writes_per_s, civ.other_per_s = iv.reads_per_sec, iv.writes_per_sec, iv.other_per_sec
  civ.errors_per_s, civ.reconnects_per_s = iv.errors_per_sec, iv.reconnects_per_sec
  civ.lat_avg_ms, civ.lat_max_ms = iv.latency_ms.avg, iv.latency_ms.max
  local n = #keys
  local ps, vs = ffi.new("double[?]", n + 1), ffi.new("double[?]", n + 1)
  for i, p in ipairs(iv.latency_ms.pct_list) do
    ps[i - 1] = tonumber(p.key)
    vs[i - 1] = p.ms or math.huge
  end
  civ.n_percentiles = n
  civ.percentiles, civ.lat_ms = ps, vs
  civ.json = text_json
  C.lb_runtime_emit_interval(ctx.rt, civ)
  return o, text_json
end

-- ---- metrics endpoint ------------------------------------------------------

-- --metrics-addr: "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" -> host, port.
function M.parse_metrics_addr(s, allow_remote)
  local host, port = s:match("^%[([^%]]+)%]:(%d+)$")
  if not host then host, port = s:match("^([^:]*):(%d+)$") end
  if not host then port = s:match("^(%d+)$"); host = "" end
  port = tonumber(port)
  if not port or port > 65535 then
    util.fail("--metrics-addr=%s: expected HOST:PORT, e.g. 127.0.0.1:9100", s)
  end
  if host == "" or host == "localhost" then host = "127.0.0.1" end
  local loopback = host:match("^127%.%d+%.%d+%.%d+$") or host == "::1"
  if not loopback and not allow_remote then
    util.fail("--metrics-addr=%s: %s is not a loopback address; add --metrics-allow-remote to serve metrics to the network", s, host)
  end
  return host, port
end

local function metrics_start(ctx)
  local addr = ctx.opt.metrics_addr
  if not addr or addr == "" then return nil end
  local host, port = M.parse_metrics_addr(addr, ctx.opt.metrics_allow_remote)
  local err = ffi.new("char[256]")
  local m = C.lb_metrics_start(ctx.rt, host, port, err, 256)
  if m == nil then util.fail("--metrics-addr=%s: %s", addr, ffi.string(err)) end
  return m
end

-- Publish the latency quantiles of histogram `h` (the last interval).
local METRIC_QS = { 0.5, 0.9, 0.95, 0.99, 0.999 }
local function metrics_publish(m, h, keys, secs)
  if m == nil then return end
  local qs, seen = {}, {}
  for _, q in ipairs(METRIC_QS) do qs[#qs + 1] = q; seen[q] = true end
  for _, k in ipairs(keys) do
    local q = tonumber(k) / 100
    if not seen[q] then qs[#qs + 1] = q; seen[q] = true end
  end
  local n = #qs
  local qa, va = ffi.new("double[?]", n), ffi.new("double[?]", n)
  local count = tonumber(C.lb_hist_count_all(h))
  for i, q in ipairs(qs) do
    qa[i - 1] = q
    local v = C.lb_hist_percentile(h, q * 100)
    va[i - 1] = (count > 0 and v ~= INT64_MAX and v >= 0) and tonumber(v) / 1e9 or -1
  end
  C.lb_metrics_publish(m, n, qa, va, count, secs)
end

-- Async mode: --connections=N (N >= --threads) virtual users.
local function check_connections(opt)
  local n = opt.connections or 0
  if n > 0 and n < opt.threads then
    util.fail("--connections=%d: must be at least --threads=%d (each thread serves connections/threads virtual users)",
      n, opt.threads)
  end
  return n > 0
end

-- The "run" command.
function M.run(ctx, lb)
  check_connections(ctx.opt)
  local metrics = metrics_start(ctx)
  local ok, result, failed, err = pcall(M.run_measured, ctx, lb, metrics)
  -- The endpoint goes before the run it reads is freed.
  if metrics ~= nil then
    C.lb_metrics_attach(metrics, nil, 0, 0)
    C.lb_metrics_stop(metrics)
  end
  if not ok then error(result, 0) end
  return result, failed, err
end

function M.run_measured(ctx, lb, metrics)
  local opt = ctx.opt
  local keys = M.percentile_keys(opt)
  local paced = opt.rate > 0
  local boot = boot_chunk(ctx, "run")
  local cfg = make_config(opt, C.LB_RUN_EVENTS, boot)
  local hcfg = ffi.new("lb_hist_config")
  C.lb_hist_config_default(hcfg)

  local init = rawget(_G, "init")
  if type(init) == "function" then init() end

  local started_at = C.lb_clock_wall()
  local run = C.lb_run_new(ctx.rt, cfg)
  if run == nil then error("cannot create the run (out of memory?)") end
  run = ffi.gc(run, C.lb_run_free)
  if opt.output == "text" and opt.verbosity >= 3 then
    local lines = { string.format("Running the test with following options:\nNumber of threads: %d", opt.threads) }
    if (opt.connections or 0) > 0 then
      lines[#lines + 1] = string.format("Number of connections: %d (async: %s per thread)", opt.connections,
        opt.connections % opt.threads == 0 and tostring(opt.connections / opt.threads)
          or string.format("%d-%d", math.floor(opt.connections / opt.threads), math.floor(opt.connections / opt.threads) + 1))
    end
    if paced then lines[#lines + 1] = string.format("Target transaction rate: %g/sec (%s)", opt.rate, opt.rate_mode) end
    if opt.report_interval > 0 then lines[#lines + 1] = string.format("Report intermediate results every %g second(s)", opt.report_interval) end
    if opt.warmup_time > 0 then lines[#lines + 1] = string.format("Warm-up: %g second(s), excluded from results", opt.warmup_time) end
    if opt.rand_seed ~= 0 then lines[#lines + 1] = "Random number generator seed is " .. opt.rand_seed end
    lines[#lines + 1] = "\nInitializing worker threads...\n"
    say(ctx, table.concat(lines, "\n") .. "\n")
  end
  local cpu_sampler = cpu.sampler(cpu.server_pid(opt, lb))
  if metrics ~= nil then
    C.lb_metrics_attach(metrics, run, opt.threads, (opt.connections or 0) > 0 and opt.connections or opt.threads)
  end
  local ok_start = C.lb_run_start(run) == 0
  if ok_start and opt.output == "text" and opt.verbosity >= 3 then say(ctx, "Threads started!\n\n") end
  if ok_start and opt.output == "csv" and opt.report_interval > 0 then
    local dummy = { latency_ms = { pct_list = {} } }
    for _, k in ipairs(keys) do dummy.latency_ms.pct_list[#dummy.latency_ms.pct_list + 1] = { key = k } end
    dummy.type_order = type_names(ctx.rt) -- per-type columns (events/s)
    say(ctx, report.csv_header(dummy) .. "\n")
  end

  local t0 = C.lb_run_started_ns(run)
  local warm_end = C.lb_run_warmup_end_ns(run)
  local has_warm = warm_end > t0
  local interval_ns = opt.report_interval > 0 and opt.report_interval * 1e9 or 0
  local acc = new_snapshot(hcfg)   -- histograms since the last report tick
  local cum = new_snapshot(hcfg)   -- histograms after the warm-up
  local snap = new_snapshot(hcfg)  -- one collection
  local last_collect = t0
  local base = counters(snap.sum)  -- counters at the warm-up end
  local base_stats = ffi.new("lb_stats")
  local last_report = { t = t0, c = counters(snap.sum) }
  local tnames = type_names(ctx.rt)
  local last_types = ffi.new("lb_stats")
  local intervals = json.array()
  local warmup_events = 0
  local next_report = interval_ns > 0 and t0 + interval_ns or nil
  local warm_pending = has_warm
  if not has_warm then cpu_sampler.start() end
  local deadline = opt.time > 0 and warm_end + opt.time * 1e9 or nil
  local aborted = false
  -- Without interval reports the endpoint still gets a latency interval
  -- every second (a collection merges into the cumulative histograms
  -- exactly as a report tick does).
  local metrics_ns = (metrics ~= nil and interval_ns == 0) and 1e9 or nil
  local next_metrics = metrics_ns and t0 + metrics_ns or nil
  local last_metrics = t0

  local function collect()
    C.lb_run_collect(run, snap, 10)
    C.lb_snapshot_merge_hists(acc, snap)
    if not has_warm or last_collect >= warm_end then C.lb_snapshot_merge_hists(cum, snap) end
    last_collect = snap.t_ns
  end

  local function report_tick(t)
    local c = counters(snap.sum)
    local d = diff(c, last_report.c)
    local secs = tonumber(t - last_report.t) / 1e9
    local warm = has_warm and t <= warm_end + 1e6
    metrics_publish(metrics, acc.lat, keys, secs)
    local iv = make_interval(ctx, tonumber(t - t0) / 1e9, secs, d, acc, snap.threads_running, warm, keys, paced)
    if #tnames > 0 then
      interval_types(iv, tnames, snap.sum, last_types, acc, keys, secs)
      ffi.copy(last_types, snap.sum, ffi.sizeof("lb_stats"))
    end
    -- A scenario may add to the interval (text: iv.types_line).
    if lb.hooks.interval_extra then lb.hooks.interval_extra(iv, secs) end
    local o, text_json = emit_interval(ctx, iv, keys)
    intervals[#intervals + 1] = o
    local hook = lb.hooks.report_intermediate
    if hook then
      hook({ time_total = iv.time_s, time_interval = secs, threads_running = iv.threads, events = d.events,
             reads = d.reads, writes = d.writes, other = d.other, errors = d.restarts, reconnects = d.reconnects,
             latency_pct = (iv.latency_ms.pct_list[1] and iv.latency_ms.pct_list[1].ms or 0) / 1000,
             percentile = tonumber(keys[1]) })
    elseif opt.output == "text" then say(ctx, report.interval_line(iv) .. "\n")
    elseif opt.output == "json" then say(ctx, text_json .. "\n")
    elseif opt.output == "csv" then say(ctx, report.csv_row(iv) .. "\n") end
    C.lb_snapshot_reset_hists(acc)
    last_report = { t = t, c = c }
  end

  if ok_start then
    while true do
      local now = C.lb_clock_ns()
      local wake = now + 1e9
      if next_report and next_report < wake then wake = next_report end
      if next_metrics and next_metrics < wake then wake = next_metrics end
      if warm_pending and warm_end < wake then wake = warm_end end
      if deadline and not aborted and deadline + 2e9 < wake then wake = deadline + 2e9 end
      local all_done = C.lb_run_wait(run, wake) ~= 0
      if C.lb_runtime_stop_requested(ctx.rt) ~= 0 then C.lb_run_stop(run) end
      now = C.lb_clock_ns()
      -- Workers that stop at the deadline finish just before the last tick:
      -- that interval is still reported (as sysbench does).
      if all_done and not (next_report and deadline and next_report <= deadline and now >= next_report) then
        break
      end
      if warm_pending and now >= warm_end then
        collect()
        base = counters(snap.sum)
        ffi.copy(base_stats, snap.sum, ffi.sizeof("lb_stats"))
        warmup_events = base.events
        warm_pending = false
        cpu_sampler.start()
      end
      if next_report and now >= next_report then
        collect()
        report_tick(next_report)
        next_report = next_report + interval_ns
        -- A late tick (stalled machine) skips missed slots instead of bursting.
        while next_report <= C.lb_clock_ns() do next_report = next_report + interval_ns end
        if all_done then break end
      end
      if next_metrics and now >= next_metrics and not all_done then
        collect()
        metrics_publish(metrics, snap.lat, keys, tonumber(snap.t_ns - last_metrics) / 1e9)
        last_metrics = snap.t_ns
        next_metrics = now + metrics_ns
      end
      if deadline and not aborted and now >= deadline + 2e9 then
        -- Workers still inside an event 2 s past the deadline are stuck
        -- (a server that does not answer): cut their connections.
        aborted = true
        C.lb_run_stop(run)
        C.lb_run_abort_connections(run)
      end
    end
  end
  C.lb_run_stop(run)
  C.lb_run_join(run)
  cpu_sampler.stop()
  local failed = C.lb_run_failed(run) ~= 0
  local err = failed and ffi.string(C.lb_run_error(run)) or nil
  collect()
  if warm_pending then
    -- The run ended inside the warm-up: nothing was measured.
    base = counters(snap.sum)
    ffi.copy(base_stats, snap.sum, ffi.sizeof("lb_stats"))
    warmup_events = base.events
    C.lb_snapshot_reset_hists(cum)
  end

  local t_end = C.lb_run_last_end_ns(run)
  local measure_start = has_warm and warm_end or t0
  if t_end < measure_start then t_end = measure_start end
  local total_s = tonumber(t_end - measure_start) / 1e9
  local final = counters(snap.sum)
  local d = diff(final, base)
  local result = M.build_result(ctx, lb, {
    run = run, keys = keys, cum = cum, d = d, started_at = started_at, duration_s = total_s,
    warmup_s = has_warm and tonumber(warm_end - t0) / 1e9 or 0, warmup_events = warmup_events,
    intervals = intervals, failed = failed, error = err, paced = paced, threads = opt.threads,
    final_stats = snap.sum, base_stats = base_stats, cpu = cpu_sampler,
  })

  -- A scenario may add its own sections to the result (fileio series,
  -- TPC-C summary): lbench.hooks.result(r) in the main state.
  if lb.hooks.result then lb.hooks.result(result) end
  -- ... and its own text appended to the text report and "metric,value"
  -- rows to the CSV totals: lbench.hooks.report_extra(r, "text"|"csv").
  if lb.hooks.report_extra then
    local disp = getmetatable(result).__display
    disp.extra_text = lb.hooks.report_extra(result, "text")
    disp.extra_csv = lb.hooks.report_extra(result, "csv")
  end

  local done = rawget(_G, "done")
  if type(done) == "function" then
    local ok, e = pcall(done)
    if not ok and not failed then failed, err = true, tostring(e) end
  end
  return result, failed, err
end

-- Build the result tree of a run.
function M.build_result(ctx, lb, a)
  local opt = ctx.opt
  local r = json.object()
  r.lbench_version = lb.version
  r.scenario = ctx.scenario_name
  r.scenario_path = ctx.script
  r.scenario_hash = ctx.script_hash
  r.command = ctx.command
  r.options = ctx.redacted_options
  r.host = hostinfo.collect()
  r.started_at = os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(a.started_at))
  r.status = a.failed and "error" or "ok"
  if a.error then r.error = a.error end
  r.threads = a.threads
  if (opt.connections or 0) > 0 then r.connections = opt.connections end
  r.duration_s = a.duration_s
  r.warmup_s = a.warmup_s
  r.warmup_events = a.warmup_events
  local d = a.d
  local secs = a.duration_s > 0 and a.duration_s or 1
  local t = json.object()
  t.events = d.events
  t.events_per_sec = d.events / secs
  local q = d.reads + d.writes + d.other
  if q > 0 or ctx.sql_used then
    local qo = json.object()
    qo.read, qo.write, qo.other, qo.total = d.reads, d.writes, d.other, q
    t.queries = qo
    local bt = json.object()
    bt.select, bt.insert, bt.update, bt.delete, bt.other = d.reads, d.inserts, d.updates, d.deletes, d.other
    t.queries_by_type = bt
    t.queries_per_sec = q / secs
    t.ignored_errors = d.restarts
    t.reconnects = d.reconnects
    t.errors = d.db_errors
    t.errors_by_code = M.error_codes(a.final_stats, a.base_stats)
  end
  local names = type_names(ctx.rt)
  r.totals = t
  if a.cpu then r.cpu = a.cpu.result(json, d.events, q > 0 and q or nil) end
  r.latency_ms = summary(a.cum.lat, a.keys, true)
  if a.paced then r.queue_ms = summary(a.cum.queue, a.keys, true) end
  if d.io_reads + d.io_writes + d.io_fsyncs > 0 then
    local io = json.object()
    io.reads, io.writes, io.fsyncs = d.io_reads, d.io_writes, d.io_fsyncs
    io.reads_per_sec, io.writes_per_sec, io.fsyncs_per_sec = d.io_reads / secs, d.io_writes / secs, d.io_fsyncs / secs
    io.read_mib_per_sec = d.io_bytes_read / secs / 1048576
    io.written_mib_per_sec = d.io_bytes_written / secs / 1048576
    r.io = io
  end
  -- Per-type table (types used by this run only).
  local types, order = json.object(), {}
  for i, name in ipairs(names) do
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
  if #order > 0 then r.types = types end
  -- Fairness: events and busy time per thread.
  local evs, busy = {}, {}
  for i = 0, opt.threads - 1 do
    local st = C.lb_run_worker_stats(a.run, i)
    evs[#evs + 1] = tonumber(st.events)
    busy[#busy + 1] = tonumber(st.busy_ns) / 1e9
  end
  local function avgsd(xs)
    local s, s2 = 0, 0
    for _, x in ipairs(xs) do s = s + x; s2 = s2 + x * x end
    local n = #xs
    local m = s / n
    return m, math.sqrt(math.max(0, s2 / n - m * m))
  end
  local f = json.object()
  f.events_avg, f.events_stddev = avgsd(evs)
  f.exec_time_avg_s, f.exec_time_stddev_s = avgsd(busy)
  -- Async mode: events per connection (virtual user), over all workers
  -- (cumulative, warm-up included, as the per-thread figures).
  if (opt.connections or 0) > 0 then
    local per, lo, hi = {}, math.huge, 0
    for i = 0, opt.threads - 1 do
      for j = 0, C.lb_run_lane_count(a.run, i) - 1 do
        local n = tonumber(C.lb_run_lane_events(a.run, i, j))
        per[#per + 1] = n
        if n < lo then lo = n end
        if n > hi then hi = n end
      end
    end
    local cf = json.object()
    cf.count = #per
    cf.events_min = #per > 0 and lo or 0
    cf.events_avg, cf.events_stddev = avgsd(per)
    cf.events_max = hi
    cf.unused = 0
    for _, n in ipairs(per) do if n == 0 then cf.unused = cf.unused + 1 end end
    f.connections = cf
  end
  r.fairness = f
  r.intervals = a.intervals
  local hb = json.array()
  local idx, lo, hi, cnt = ffi.new("int32_t[1]", -1), ffi.new("int64_t[1]"), ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
  while C.lb_hist_next_bucket(a.cum.lat, idx, lo, hi, cnt) do
    hb[#hb + 1] = json.array({ tonumber(lo[0]), tonumber(hi[0]), tonumber(cnt[0]) })
  end
  local ho = json.object()
  ho.unit = "ns"
  ho.relative_error = C.lb_hist_cfg(a.cum.lat).rel_error
  ho.underflow = tonumber(C.lb_hist_underflow(a.cum.lat))
  ho.overflow = tonumber(C.lb_hist_overflow(a.cum.lat))
  ho.buckets = hb
  r.histogram = ho
  -- Display helpers kept out of the JSON (see M.to_json).
  getmetatable(r).__display = { type_order = order }
  return r
end

-- Error counts by code between two lb_stats (codes are matched by value:
-- each worker fills its slots in its own order).
function M.error_codes(final, base)
  local codes = {}
  for i = 0, C.LB_DB_ERRSLOTS - 1 do
    local s = final.db.err[i]
    if s.count > 0 then codes[s.code] = (codes[s.code] or 0) + tonumber(s.count) end
    local b = base.db.err[i]
    if b.count > 0 then codes[b.code] = (codes[b.code] or 0) - tonumber(b.count) end
  end
  local o = json.object()
  local ks = util.sorted_keys(codes)
  for _, k in ipairs(ks) do
    if codes[k] > 0 then o[k == -1 and "other" or tostring(k)] = codes[k] end
  end
  return o
end

-- Serialise a result tree (summaries become their plain JSON objects).
local function unwrap(v)
  if type(v) == "table" then
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

return M
