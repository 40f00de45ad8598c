-- Running a scenario: the event loop command ("run") and parallel
-- commands, driven from the main state.  The main thread is the reporter:
-- it waits for ticks, collects snapshots from the workers (no locks on
-- their hot path), prints interval lines and finally builds the result
-- tree that every output format renders from.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local report = require("lbench.result.render")
local sbhooks = require("lbench.result.sbhooks")
local result = require("lbench.result.document")
local cpu = require("lbench.cpu")
local observe = require("lbench.run.observe")
local phases = require("lbench.phases")
local interval = require("lbench.result.interval")
local cluster = require("lbench.cluster.transport")
local rankrun = require("lbench.cluster.rankrun")
local ranks = require("lbench.cluster.ranks")
local snapshot = require("lbench.result.snapshot")
local metrics_ep = require("lbench.run.metrics")
local checkpoints = require("lbench.run.checkpoints")
local new_snapshot, counters, diff, type_names = snapshot.new, snapshot.counters, snapshot.diff, snapshot.type_names

local M = {}

local INT64_MAX = 9223372036854775807LL
local summary, plain = result.summary, result.plain

local function say(ctx, s) C.lb_runtime_write(ctx.rt, s, #s) end

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

-- A job of several ranks (ctx.cluster, cluster/transport.lua): this process runs
-- its share of the threads (numbered from tid_base), of --rate and of
-- --events (split exactly: the ranks' shares add up to the option).
local function cluster_config(cfg, cl, opt, mode)
  cfg.threads, cfg.tid_base, cfg.job_threads = cl.threads, cl.tid_base, opt.threads
  if mode ~= C.LB_RUN_EVENTS then return end
  cfg.cluster_start = 1
  cfg.rate = cfg.rate / cl.size
  for i = 0, cfg.nrate_segs - 1 do
    cfg.rate_segs[i].rate0, cfg.rate_segs[i].rate1 = cfg.rate_segs[i].rate0 / cl.size, cfg.rate_segs[i].rate1 / cl.size
  end
  if opt.events > 0 then
    if opt.events < cl.size then util.fail("--events=%d: fewer events than the job's %d ranks", opt.events, cl.size) end
    cfg.events = cluster.share(opt.events, cl.rank, cl.size)
  end
end

local function make_config(opt, mode, boot, cl)
  local cfg = ffi.new("lb_run_config")
  cfg.threads = opt.threads
  cfg.mode = mode
  cfg.time_s = mode == C.LB_RUN_EVENTS and opt.time or 0
  cfg.events = mode == C.LB_RUN_EVENTS and opt.events or 0
  cfg.rate = mode == C.LB_RUN_EVENTS and opt.rate or 0
  cfg.rate_poisson = opt.rate_mode == "poisson" and 1 or 0
  for i, seg in ipairs(mode == C.LB_RUN_EVENTS and opt.rate_schedule or {}) do
    cfg.rate_segs[i - 1].dur_s, cfg.rate_segs[i - 1].rate0, cfg.rate_segs[i - 1].rate1 = seg.dur_s, seg.rate0, seg.rate1
    cfg.nrate_segs = i
  end
  if cl then cluster_config(cfg, cl, opt, mode) end
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
  return "return " .. util.serialize({ script = ctx.script, command = ctx.command, mode = mode, free_opts = ctx.free_opts,
    opt = ctx.opt, argv = ctx.argv, rank = ctx.rank, nranks = ctx.nranks })
end

-- A new lb_run (garbage-collected) from `cfg`.  cfg.boot only points into
-- the Lua string `boot`: the caller passes the string too, so that it stays
-- referenced until lb_run_new has copied it (a collection in between, e.g.
-- during the scenario's init(), would leave the workers a dangling pointer).
local function new_run(ctx, cfg, boot)
  local run = C.lb_run_new(C.lb_runtime_run_host(ctx.rt), cfg)
  if run == nil or #boot == 0 then error("cannot create the run (out of memory?)") end
  return ffi.gc(run, C.lb_run_free)
end

-- A progress line for long parallel commands, shown only on a terminal:
-- units/s and ETA from lb_progress_*.
local function progress_line(rt, t0, unit)
  local total = tonumber(C.lb_runtime_progress_total(rt))
  if total <= 0 then return nil end
  local done = tonumber(C.lb_runtime_progress_done(rt))
  local secs = tonumber(C.lb_clock_ns() - t0) / 1e9
  local rate = secs > 0 and done / secs or 0
  local frac = math.min(1, done / total)
  local bar = string.rep("#", math.floor(frac * 30)) .. string.rep(" ", 30 - math.floor(frac * 30))
  local eta = rate > 0 and (total - done) / rate or 0
  return string.format("[%s] %5.1f%% %d/%d %s, %.0f %s/s, ETA %ds ", bar, frac * 100, done, total, unit,
    rate, unit, math.floor(eta + 0.5))
end

-- How long workers of a parallel command may take to notice a stop request
-- before their connections are cut (a statement such as an index build can
-- run for minutes and does not look at the stop flag).
local COMMAND_STOP_GRACE_NS = 500000000LL

-- Run `command` (a parallel command) in every worker.  Returns true; or
-- false and "interrupted" when a signal stopped it (the workers have
-- ended); or false and the first worker's error.
function M.parallel_command(ctx)
  if C.lb_runtime_stop_requested(ctx.rt) ~= 0 then return false, "interrupted" end
  local boot = boot_chunk(ctx, "command")
  local run = new_run(ctx, make_config(ctx.opt, C.LB_RUN_COMMAND, boot, ctx.cluster), boot)
  local t0 = C.lb_clock_ns()
  local tty = C.lb_runtime_isatty() ~= 0 and ctx.progress_unit
  local shown, stop_at, cut = false, nil, false
  C.lb_run_start(run)
  while C.lb_run_wait(run, C.lb_clock_ns() + 500000000LL) == 0 do
    if C.lb_runtime_stop_requested(ctx.rt) ~= 0 then
      if not stop_at then
        stop_at = C.lb_clock_ns()
        C.lb_run_stop(run)
      elseif not cut and C.lb_clock_ns() - stop_at >= COMMAND_STOP_GRACE_NS then
        cut = true
        C.lb_run_abort_connections(run)
      end
    end
    local line = tty and not stop_at and progress_line(ctx.rt, t0, ctx.progress_unit)
    if line then C.lb_runtime_write_progress(ctx.rt, line, #line) shown = true end
  end
  if shown then say(ctx, (progress_line(ctx.rt, t0, ctx.progress_unit) or "") .. "\n") end
  C.lb_run_join(run)
  if stop_at or C.lb_runtime_stop_requested(ctx.rt) ~= 0 then return false, "interrupted" end
  if C.lb_run_failed(run) ~= 0 then
    return false, ffi.string(C.lb_run_error(run))
  end
  return true
end

-- --metrics-addr (run/metrics.lua).
M.parse_metrics_addr = metrics_ep.parse_addr

-- Async mode: --connections=N (N >= --threads) virtual users.
local function check_connections(opt)
  local n = opt.connections or 0
  if n > 0 and n < opt.threads then
    util.fail("--connections=%d: must be at least --threads=%d (each thread serves connections/threads virtual users)",
      n, opt.threads)
  end
  -- One descriptor per connection, plus the workers' event loops and
  -- whatever else is open: raise the soft limit as far as the hard one goes.
  local need = n + 16 * opt.threads + 256
  local lim = ffi.new("uint64_t[2]")
  if n > 0 and C.lb_runtime_files_limit(need, lim, lim + 1) ~= 0 then
    util.fail("--connections=%d needs about %d open files, but this process may open only %.0f (hard limit %.0f; "
      .. "see ulimit -n and -Hn): raise the limit, or use fewer connections", n, need, tonumber(lim[0]), tonumber(lim[1]))
  end
  return n > 0
end

-- No connection the main state closes is kept for the server probe any
-- more (api/sql.lua), and the one kept, if the probe did not take it, is
-- closed.
local function stop_parking(ctx)
  ctx.park_for_probe = false
  C.lb_runtime_drop_parked(ctx.rt)
end

-- The "run" command.
function M.run(ctx, lb)
  local metrics
  -- The checks inside the pcall too: under several ranks a rank that
  -- fails one (its host's open-files limit, a metrics port taken by
  -- another rank) must abort the job, not leave the others waiting.
  local ok, result, failed, err = pcall(function()
    if check_connections(ctx.opt) and type(rawget(_G, "thread_run")) == "function" then
      util.fail("--connections=%d: %s defines its own thread_run(), an event loop per thread, which async mode "
        .. "cannot share among virtual users; run it without --connections", ctx.opt.connections,
        ctx.scenario_name or ctx.script)
    end
    phases.check(ctx.opt)
    metrics = metrics_ep.start(ctx)
    return M.run_measured(ctx, lb, metrics)
  end)
  -- A run that failed before its probe opened keeps no connection for it.
  stop_parking(ctx)
  -- The endpoint goes before the run it reads is freed.
  if metrics ~= nil then
    C.lb_metrics_attach(metrics, nil, 0, 0, 0)
    C.lb_metrics_stop(metrics)
  end
  if not ok then
    -- Several ranks: a run that raised cannot take part in the job's
    -- remaining collectives; the job is aborted rather than left waiting.
    if ctx.cluster then cluster.give_up(tostring(result)) end
    error(result, 0)
  end
  return result, failed, err
end

-- The run's banner (text output, verbosity >= 3), sysbench's wording.  A
-- scenario's lbench.hooks.run_header() may add text of its own before
-- "Initializing worker threads..." (what sysbench's built-in tests print
-- as their mode, each line ending with a newline, as sysbench prints it).
-- With `check`, lbench.hooks.run_check() runs after that text and before
-- "Initializing worker threads...", where sysbench's fileio checks its
-- files (an error there ends the banner).
local function banner(ctx, lb, opt, paced, check)
  local lines = { string.format("Running the test with following options:\nNumber of threads: %d", opt.threads) }
  if ctx.cluster then
    lines[#lines + 1] = string.format("Number of ranks: %d (%d threads each)", ctx.cluster.size, ctx.cluster.threads)
  end
  if (opt.connections or 0) > 0 then
    local per = opt.connections / opt.threads
    lines[#lines + 1] = string.format("Number of connections: %d (async: %s per thread)", opt.connections,
      opt.connections % opt.threads == 0 and tostring(per)
        or string.format("%d-%d", math.floor(per), math.floor(per) + 1))
  end
  if paced and opt.rate_schedule then
    lines[#lines + 1] = string.format("Target transaction rate: schedule %s (%s)", phases.describe(opt), opt.rate_mode)
  elseif paced then
    lines[#lines + 1] = string.format("Target transaction rate: %g/sec (%s)", opt.rate, opt.rate_mode)
  end
  if opt.report_interval > 0 then lines[#lines + 1] = string.format("Report intermediate results every %g second(s)", opt.report_interval) end
  if #(opt.report_checkpoints or {}) > 0 then
    lines[#lines + 1] = string.format("Report checkpoint(s) at %s seconds", table.concat(opt.report_checkpoints, ", "))
  end
  if opt.warmup_time > 0 then lines[#lines + 1] = string.format("Warm-up: %g second(s), excluded from results", opt.warmup_time) end
  if opt.validate and opt.sysbench_compat then lines[#lines + 1] = "Validation checks: on.\n" end
  if opt.sysbench_compat then
    -- sysbench's words for the seed, and its blank line after them
    lines[#lines + 1] = (opt.rand_seed ~= 0 and string.format("Initializing random number generator from seed (%d).",
      opt.rand_seed) or "Initializing random number generator from current time") .. "\n"
  elseif opt.rand_seed ~= 0 then
    lines[#lines + 1] = "Random number generator seed is " .. opt.rand_seed
  end
  local head = lb.hooks.run_header and lb.hooks.run_header() or ""
  say(ctx, table.concat(lines, "\n") .. "\n\n" .. head)
  if check and lb.hooks.run_check then lb.hooks.run_check() end
  say(ctx, "Initializing worker threads...\n\n")
end

local function csv_header(ctx, keys, obs)
  local dummy = { latency_ms = { pct_list = {} }, observed = obs ~= nil }
  for _, k in ipairs(keys) do dummy.latency_ms.pct_list[#dummy.latency_ms.pct_list + 1] = { key = k } end
  dummy.type_order = type_names(ctx.rt) -- per-type columns (events/s)
  say(ctx, report.csv_header(dummy) .. "\n")
end

-- The reporter of one run: collections, interval ticks, the warm-up end.
-- Intervals tile the run exactly: a tick at the warm-up end when it falls
-- between two ticks, and a last tick at the end of the measured period
-- (the one due at the deadline waits for the events still in flight), so
-- the events of the measured intervals add up to the totals.
local Reporter = {}
Reporter.__index = Reporter

local function new_reporter(ctx, lb, run, metrics, keys, paced)
  local opt = ctx.opt
  local hcfg = ffi.new("lb_hist_config")
  C.lb_hist_config_default(hcfg)
  local t0 = C.lb_run_started_ns(run)
  local warm_end = C.lb_run_warmup_end_ns(run)
  local interval_ns = opt.report_interval > 0 and opt.report_interval * 1e9 or 0
  -- Several ranks and an endpoint, no interval reports: the ranks' figures
  -- are still merged every second, for rank 0's endpoint alone (`silent`:
  -- neither printed nor in any document).
  local silent = interval_ns == 0 and ctx.cluster ~= nil and metrics_ep.wanted(opt)
  if silent then interval_ns = 1e9 end
  local R = setmetatable({ ctx = ctx, lb = lb, run = run, metrics = metrics, keys = keys, paced = paced,
    t0 = t0, warm_end = warm_end, has_warm = warm_end > t0, interval_ns = interval_ns, silent = silent,
    job = ctx.cluster and metrics ~= nil and metrics_ep.job_sum() or nil,
    acc = new_snapshot(hcfg),   -- histograms since the last report tick
    cum = new_snapshot(hcfg),   -- histograms after the warm-up
    snap = new_snapshot(hcfg),  -- one collection
    last_collect = t0, base_stats = ffi.new("lb_stats"), tnames = type_names(ctx.rt),
    last_sum = ffi.new("lb_stats"), intervals = json.array(), warmup_events = 0,
    deadline = opt.time > 0 and warm_end + opt.time * 1e9 or nil, aborted = false,
    stuck_check = opt.time > 0 and warm_end + opt.time * 1e9 + 2e9 or nil,
    worker_base = {}, last_metrics = t0 }, Reporter)
  R.base = counters(R.snap.sum)  -- counters at the warm-up end
  -- Several ranks: each phase's raw figures and packed histogram too, for rank 0's merge.
  R.phases = phases.tracker(opt, keys, new_snapshot(hcfg), result.summary, warm_end, R.base,
    ctx.cluster and ranks.pack_hist or nil)
  R.last_report = { t = t0, c = counters(R.snap.sum) }
  R.next_cut = C.lb_run_next_cut(run, t0)
  R.warm_pending = R.has_warm
  if ctx.cluster then
    -- A part too late for its interval line still counts at the endpoint.
    local late = R.job and function(stats, acc) metrics_ep.job_interval(metrics, R.job, stats, acc) end
    R.rank = rankrun.new(ctx, run, R.interval_ns, hcfg, function(part, acc) R:emit(part, acc) end, late)
  end
  -- Without interval reports the endpoint still gets a latency interval
  -- every second (a collection merges into the cumulative histograms
  -- exactly as a report tick does).
  R.metrics_ns = (metrics ~= nil and R.interval_ns == 0) and 1e9 or nil
  R.cps = checkpoints.new(R, new_snapshot(hcfg))
  return R
end

-- Collect the periods that end at cut `cut` (INT64_MAX after the join:
-- everything): each event counts in the period in which it completed.
function Reporter:collect(cut)
  C.lb_run_collect(self.run, self.snap, cut)
  -- One process: the endpoint serves every collection (a job's rank 0
  -- serves the merged intervals instead: Reporter:emit).
  if self.metrics ~= nil and not self.ctx.cluster then metrics_ep.update(self.metrics, self.snap.sum, self.snap.lat) end
  C.lb_stats_snapshot_merge_hists(self.acc, self.snap)
  if not self.has_warm or self.last_collect >= self.warm_end then
    C.lb_stats_snapshot_merge_hists(self.cum, self.snap)
    if self.phases then self.phases:merge(self.snap) end
  end
  if self.cps then self.cps:merge(self.snap) end
  self.last_collect = cut == INT64_MAX and self.snap.t_ns or cut
end

-- Report the interval from the last tick to `t` (`final`: the last one,
-- at the end of the measured period).  Several ranks: rank 0 prints the
-- merge of every rank's interval (cluster/rankiv.lua).
function Reporter:tick(t, final)
  local snap, acc = self.snap, self.acc
  local c = counters(snap.sum)
  local part = { t_rel = tonumber(t - self.t0) / 1e9, secs = tonumber(t - self.last_report.t) / 1e9,
                 d = diff(c, self.last_report.c), threads = snap.threads_running }
  part.warm = self.has_warm and t <= self.warm_end + 1e6
  part.observed = not self.silent and self.obs and self.obs:tick(t)
  if self.phases and not part.warm then part.phase = self.phases:current() end
  if not self.ctx.cluster then metrics_ep.quantiles(self.metrics, acc.lat, self.keys, part.secs) end
  if #self.tnames > 0 then part.types = interval.type_deltas(self.tnames, snap.sum, self.last_sum) end
  if self.rank and self.rank:merges_intervals() then
    -- This rank's own interval (for its --rank-result-file), then the
    -- job's: its counters travel as the difference of two lb_stats.
    local stats = ffi.new("lb_stats")
    C.lb_stats_sub(stats, snap.sum, self.last_sum)
    self.rank:interval(final and "end" or math.floor(part.t_rel * 1000 + 0.5), part, acc, stats,
      part.secs > 0 and not self.silent and interval.json(self:interval_of(part, acc)) or nil)
  else
    self:emit(part, acc)
  end
  C.lb_stats_snapshot_reset_hists(acc)
  ffi.copy(self.last_sum, snap.sum, ffi.sizeof("lb_stats"))
  self.last_report = { t = t, c = c }
end

function Reporter:interval_of(part, acc)
  local iv = interval.make(self.ctx, part.t_rel, part.secs, part.d, acc, part.threads, part.warm, self.keys, self.paced)
  iv.phase = part.phase
  if part.observed then iv.server, iv.host = part.observed.server, part.observed.host end
  if part.types then interval.types(self.ctx.rt, iv, part.types, acc, self.keys, part.secs) end
  if part.missing and #part.missing > 0 then iv.missing_ranks = json.array(part.missing) end
  return iv
end

-- Print one interval: this process's, or (rank 0) the job's.
function Reporter:emit(part, acc)
  local ctx, opt, keys, d, secs = self.ctx, self.ctx.opt, self.keys, part.d, part.secs
  -- Rank 0 of several: the job's interval is the endpoint's.
  if self.job then metrics_ep.job_interval(self.metrics, self.job, part.stats, acc, keys, secs) end
  if self.silent then return end
  local iv = self:interval_of(part, acc)
  -- A scenario may add to the interval (text: iv.types_line).
  local hooks = self.lb.hooks
  if hooks.interval_extra then hooks.interval_extra(iv, secs) end
  local o, text_json = interval.emit(ctx, iv, keys)
  self.intervals[#self.intervals + 1] = o
  -- sysbench reports whole intervals only: the piece of one at the end of
  -- the run goes to the document and to lbench's own lines, not to a
  -- script's hook (nor to sysbench's lines when lbench runs as sysbench).
  local partial = opt.report_interval > 0 and secs < opt.report_interval * 0.999
  if partial and (hooks.report_intermediate or opt.sysbench_compat) then return end
  if hooks.report_intermediate then
    hooks.report_intermediate({ time_total = iv.time_s, time_interval = secs, threads_running = iv.threads,
      events = d.events, reads = d.reads, writes = d.writes, other = d.other, errors = d.restarts,
      reconnects = d.reconnects, percentile = tonumber(keys[1]),
      latency_pct = (iv.latency_ms.pct_list[1] and iv.latency_ms.pct_list[1].ms or 0) / 1000 })
  elseif opt.output == "text" then
    local line = report.interval_line(iv)
    if iv.missing_ranks then line = line .. " [not reported in time: " .. cluster.names(part.missing) .. "]" end
    say(ctx, line .. "\n")
  elseif opt.output == "json" then say(ctx, text_json .. "\n")
  elseif opt.output == "csv" then say(ctx, report.csv_row(iv) .. "\n") end
end

-- The warm-up is over (or the run ended inside it), and the collection at
-- its end is made: what was counted so far is the warm-up's; per-worker
-- figures are kept for the fairness table.
function Reporter:end_warmup(t)
  if self.interval_ns > 0 and t > self.last_report.t then self:tick(t) end
  self.base = counters(self.snap.sum)
  ffi.copy(self.base_stats, self.snap.sum, ffi.sizeof("lb_stats"))
  self.warmup_events = self.base.events
  if self.phases then self.phases:rebase(self.base) end
  local st = ffi.new("lb_stats")
  for i = 0, C.lb_run_threads(self.run) - 1 do
    C.lb_run_worker_collected(self.run, i, st)
    self.worker_base[i] = { events = tonumber(st.events) }
  end
  self.warm_pending = false
end

-- A phase boundary at `b` (collected): an interval ends there, and the phase.
function Reporter:phase_boundary(b)
  if self.interval_ns > 0 and b > self.last_report.t + 1e6 then self:tick(b) end
  self.phases:close(b, counters(self.snap.sum))
end

-- The run's time reached cut `c` (lb_run_next_cut): a report tick, the
-- warm-up end, a phase boundary, or (no interval reports) a metrics
-- interval.  One collection; every period is reported on its own, even
-- when the reporter comes late, so intervals are the same on every rank.
function Reporter:at_cut(c)
  self:collect(c)
  if self.warm_pending and c >= self.warm_end - 1e6 then
    self:end_warmup(c)
    self.cpu_sampler.start()
    if self.obs then self.obs:start(c) end
  end
  local b = not self.warm_pending and self.phases and self.phases:next_boundary()
  if b and c >= b - 1e6 then self:phase_boundary(c) end
  if self.interval_ns > 0 and c > self.last_report.t + 1e6 then self:tick(c) end
  if self.cps then self.cps:at(c, function(s) say(self.ctx, s) end) end
  if self.metrics_ns then
    metrics_ep.quantiles(self.metrics, self.snap.lat, self.keys, tonumber(c - self.last_metrics) / 1e9)
    self.last_metrics = c
  end
end

-- Every cut before `t` not made yet, except the one due at the deadline
-- (or within 1 ms before it): that interval ends at the end of the
-- measured period, after the join.
function Reporter:cuts_until(t)
  local last = self.deadline and self.deadline - 1e6
  while self.next_cut <= t and not (last and self.next_cut >= last) do
    local c = self.next_cut
    self:at_cut(c)
    self.next_cut = C.lb_run_next_cut(self.run, c)
  end
end

-- Wait for the workers, collecting at every cut; returns when all have ended.
function Reporter:loop()
  local rt, run = self.ctx.rt, self.run
  while true do
    local now = C.lb_clock_ns()
    local wake = now + 1e9
    if self.next_cut < wake then wake = self.next_cut end
    if self.stuck_check and not self.aborted and self.stuck_check < wake then wake = self.stuck_check end
    if self.rank then
      local ns = self.rank:poll_ns()
      if now + ns < wake then wake = now + ns end
    end
    if self.signalled and not self.cut then
      local cut_at = self.signalled + COMMAND_STOP_GRACE_NS
      if cut_at < wake then wake = cut_at end
    end
    local all_done = C.lb_run_wait(run, wake) ~= 0
    if not self.signalled and C.lb_runtime_stop_requested(rt) ~= 0 then
      self.signalled = C.lb_clock_ns()
      C.lb_run_stop(run)
    end
    if self.rank then self.rank:poll(self.signalled) end
    if all_done then return end
    now = C.lb_clock_ns()
    if self.signalled and not self.cut and now >= self.signalled + COMMAND_STOP_GRACE_NS then
      -- Stopped by a signal, and a worker is still inside an event (a long
      -- query): cut its connection rather than wait for the query; the
      -- abandoned event is not counted.
      self.cut = true
      C.lb_run_abort_connections(run)
    end
    self:cuts_until(now)
    if self.stuck_check and not self.aborted and now >= self.stuck_check then
      -- A worker still inside an event 2 s past the deadline is stuck (a
      -- server that does not answer): cut its connections.  One that is
      -- only closing connections (thousands of them) is not: the measured
      -- period ended with its last event.
      local stuck = C.lb_run_stuck_worker(run)
      if stuck >= 0 then
        self.aborted = true
        C.lb_run_stop(run)
        if C.lb_run_abort_connections(run) > 0 then self.cut_at_deadline = stuck end
      end
      self.stuck_check = now + 1e8
    end
  end
end

-- After the join: the last collection, the last interval up to the end of
-- the measured period, and that period's bounds.
function Reporter:finish()
  local t_end = C.lb_run_end_ns(self.run)
  self:cuts_until(t_end - 1e6)
  self:collect(INT64_MAX)
  if self.warm_pending then
    -- The run ended inside the warm-up: nothing was measured.
    self:end_warmup(t_end)
    C.lb_stats_snapshot_reset_hists(self.cum)
  end
  if self.interval_ns > 0 and t_end > self.last_report.t then
    local events = counters(self.snap.sum).events - self.last_report.c.events
    -- Several ranks: every rank sends a last interval, empty or not, so
    -- that rank 0 knows each has ended.
    local merged = self.rank and self.rank:merges_intervals()
    if events > 0 or t_end - self.last_report.t >= 1e6 or merged then self:tick(t_end, true) end
  elseif self.rank and self.rank:merges_intervals() then
    self:tick(self.last_report.t, true)
  end
  if self.phases then self.phases:finish(t_end, counters(self.snap.sum)) end
  local measure_start = self.has_warm and self.warm_end or self.t0
  if t_end < measure_start then t_end = measure_start end
  return tonumber(t_end - measure_start) / 1e9
end

-- Why a run ended early, or nil: "signal", "deadline_abort" (workers stuck
-- past the deadline were cut off).
function Reporter:stop_reason()
  if self.signalled or C.lb_runtime_stop_requested(self.ctx.rt) ~= 0 then return "signal" end
  if self.cut_at_deadline then return "deadline_abort" end
  if self.rank and self.rank.stopped_by then return "rank_stopped" end
  return nil
end

-- Where the reporter collects (run.h): every report interval (or every
-- second for a metrics endpoint alone), the warm-up end, phase boundaries
-- and --report-checkpoints.
local function set_cuts(cfg, opt)
  cfg.cut_grid_s = opt.report_interval > 0 and opt.report_interval or (metrics_ep.wanted(opt) and 1 or 0)
  local list = phases.of(opt) or {}
  local at = {}
  for i = 1, #list - 1 do at[#at + 1] = list[i].end_s end
  for _, s in ipairs(checkpoints.seconds(opt)) do at[#at + 1] = s - opt.warmup_time end
  table.sort(at)
  for i = 1, math.min(#at, C.LB_MAX_CUTS - 1) do
    cfg.cuts_after_warmup_s[i - 1] = at[i]
    cfg.ncuts = i
  end
end

-- Start the workers (thread_init, the barrier) and print the banner once
-- they are ready: a run that cannot start (no server, no table) prints
-- its one-line error and nothing else.  Returns true and, in async mode,
-- how long opening every connection took; or false, nil and the error.
local function start_workers(ctx, lb, run, opt, keys, paced, server_pid)
  -- Under the name pgbench, pgbench's lines alone (the scenario's).
  local text = opt.output == "text" and opt.verbosity >= 3 and not opt.pgbench_compat
  -- As sysbench: the header before the workers load the script (what its
  -- top level prints comes after "Initializing worker threads...").
  if text and opt.sysbench_compat then banner(ctx, lb, opt, paced, true)
  elseif lb.hooks.run_check then lb.hooks.run_check() end
  local open_t0, retries0 = C.lb_clock_ns(), C.lb_runtime_connect_retries(ctx.rt)
  local obs
  local ok = C.lb_run_launch(run) == 0
  if ok then
    -- The server and the host, sampled by rank 0 (the server is the
    -- job's) from before the first instant of the run.
    if (ctx.rank or 0) == 0 then obs = observe.new(opt, lb, C.lb_runtime_sql_used(ctx.rt) ~= 0, server_pid) end
    if obs then obs:begin() end
    ok = C.lb_run_go(run) == 0
  end
  -- The probe has taken the connection init() left it, if any: no other
  -- is kept.
  stop_parking(ctx)
  if not ok then
    if obs then obs:stop() end
    -- Nothing was measured (thread_init failed: no connection, no table):
    -- the caller reports the error alone (of the rank that failed).
    C.lb_run_join(run)
    local _, err = cluster.combine(false, ffi.string(C.lb_run_error(run)))
    -- lbench-mpi: rank 0 names the rank that failed and its host in one
    -- line; the others exit non-zero without one (an empty error).
    if (ctx.rank or 0) ~= 0 then err = "" end
    return false, nil, err
  end
  -- Async mode: how long opening every connection took (thread_init).
  local connect
  if (opt.connections or 0) > 0 then
    connect = { opened_s = tonumber(C.lb_clock_ns() - open_t0) / 1e9,
                retried = tonumber(C.lb_runtime_connect_retries(ctx.rt) - retries0) }
  end
  if text then
    if not opt.sysbench_compat then
      banner(ctx, lb, opt, paced)
      say(ctx, "Threads started!\n\n")
    end
    if connect then
      say(ctx, string.format("Connections: %d opened in %.2f s (%d transient failure(s) retried)\n\n",
        opt.connections, connect.opened_s, connect.retried))
    end
  end
  if opt.output == "csv" and opt.report_interval > 0 then csv_header(ctx, keys, obs) end
  return true, connect, nil, obs
end

-- How long the supervising thread sleeps at a time (lb_run_config.tick_ns):
-- 10 ms unless the scenario sets lbench.supervisor_tick_ms (1..1000).
local function supervisor_tick_ns(lb)
  local ms = lb.supervisor_tick_ms
  if ms == nil then return 0 end
  if type(ms) ~= "number" or ms < 1 or ms > 1000 then
    util.fail("lbench.supervisor_tick_ms: expected milliseconds from 1 to 1000, got %s", tostring(ms))
  end
  return math.floor(ms * 1e6)
end

-- The scenario's init(), in the main state, once for the job: on rank 0.
-- It comes before the run is configured: a scenario may set the run's
-- limits there (sysbench's memory test counts its events itself, --events
-- 0).  A connection it closes may be kept for the server probe
-- (start_workers).
local function run_init(ctx, opt)
  local init = rawget(_G, "init")
  ctx.park_for_probe = (ctx.rank or 0) == 0 and observe.wants_probe(opt)
  if type(init) == "function" and (ctx.rank or 0) == 0 then init() end
end

function M.run_measured(ctx, lb, metrics)
  local opt = ctx.opt
  local keys = M.percentile_keys(opt)
  run_init(ctx, opt)
  local paced = opt.rate > 0
  local boot = boot_chunk(ctx, "run")
  local cfg = make_config(opt, C.LB_RUN_EVENTS, boot, ctx.cluster)
  set_cuts(cfg, opt)
  cfg.tick_ns = supervisor_tick_ns(lb)
  -- As sysbench, "Threads started!" between the scripts' loading and their
  -- first event (the engine prints it at the start barrier); the string
  -- stays referenced here until the run has started.
  local start_note = opt.sysbench_compat and opt.output == "text" and opt.verbosity >= 3 and "Threads started!\n\n" or nil
  if start_note then cfg.start_note = start_note end

  local started_at = C.lb_clock_wall()
  local run = new_run(ctx, cfg, boot)
  local server_pid = cpu.server_pid(opt, lb, cluster.active())
  local cpu_sampler = cpu.sampler(server_pid)
  metrics_ep.attach(metrics, ctx, run)
  -- Several ranks: their wall clocks against rank 0's, so that the start
  -- skew compares one clock (cluster/ranks.lua); off the measured period.
  local clocks = ctx.cluster and cluster.clock_offsets()
  local started, connect, err0, obs = start_workers(ctx, lb, run, opt, keys, paced, server_pid)
  start_note = nil
  if not started then return nil, true, err0 end

  local R = new_reporter(ctx, lb, run, metrics, keys, paced)
  if obs then obs:started_at(R.t0) end
  R.obs = obs
  if not R.has_warm then
    cpu_sampler.start()
    if obs then obs:start(R.t0) end
  end
  R.cpu_sampler = cpu_sampler
  R:loop()
  C.lb_run_stop(run)
  C.lb_run_join(run)
  if R.cut_at_deadline then
    -- What the stuck worker was waiting for when its connections were cut.
    local buf = ffi.new("char[200]")
    C.lb_run_worker_waiting(run, R.cut_at_deadline, buf, 200)
    R.stuck_waiting = ffi.string(buf)
  end
  cpu_sampler.stop()
  local failed = C.lb_run_failed(run) ~= 0
  local err = failed and ffi.string(C.lb_run_error(run)) or nil
  local total_s = R:finish()
  -- After the last interval's sample (which closes the connection).
  local observed = obs and obs:stop(C.lb_clock_ns())
  sbhooks.json_close(ctx.rt)  -- the intervals' report_json series is over
  local a = {
    run = run, keys = keys, cum = R.cum, d = diff(counters(R.snap.sum), R.base), started_at = started_at,
    duration_s = result.duration_to_failure(total_s, failed, R.snap.sum, R.base_stats,
      tonumber(C.lb_run_last_end_ns(run) - (R.has_warm and R.warm_end or R.t0)) / 1e9),
    warmup_s = R.has_warm and tonumber(R.warm_end - R.t0) / 1e9 or 0,
    warmup_events = R.warmup_events, intervals = R.intervals, failed = failed, error = err,
    stop_reason = R:stop_reason(), paced = paced, threads = C.lb_run_threads(run), final_stats = R.snap.sum,
    base_stats = R.base_stats, worker_base = R.worker_base, cpu = cpu_sampler, type_names = R.tnames,
    connect = connect, phases = R.phases and R.phases.done, stopped_by = R.rank and R.rank.stopped_by, clocks = clocks,
    phase_raw = R.phases and R.phases.raw, stuck_thread = R.cut_at_deadline,
    stuck_waiting = R.stuck_waiting,
  }
  if ctx.cluster then
    a = R.rank:merge(lb, a, R.cum.lat, R.deadline)
    failed, err = a.failed, a.error
    -- Rank 0 has this rank's figures and error and reports the job's
    -- failure in one line naming the rank and its host: the others exit
    -- non-zero without a line of their own (an empty error is not printed).
    if failed and (ctx.rank or 0) ~= 0 then err = "" end
  end
  local res = result.build(ctx, lb, a)
  if obs then res.server, res.host_stats = obs:document(observed) end

  -- A scenario may add its own sections to the result (fileio series,
  -- TPC-C summary): lbench.hooks.result(r) in the main state.
  if lb.hooks.result then lb.hooks.result(res) end
  -- ... and its own text appended to the text report and "metric,value"
  -- rows to the CSV totals: lbench.hooks.report_extra(r, "text"|"csv").
  if lb.hooks.report_extra then
    local disp = getmetatable(res).__display
    disp.extra_text = lb.hooks.report_extra(res, "text")
    disp.extra_csv = lb.hooks.report_extra(res, "csv")
  end

  -- The caller's final report (ctx.final_report) comes before done(), as
  -- sysbench orders them; both while the run and the metrics endpoint are
  -- still up (done() may scrape it).
  if ctx.final_report and (ctx.rank or 0) == 0 then ctx.final_report(res) end
  local done = rawget(_G, "done")
  if type(done) == "function" and (ctx.rank or 0) == 0 then
    local ok, e = pcall(done)
    if not ok and not failed then failed, err = true, tostring(e) end
  end
  return res, failed, err
end

M.unwrap, M.to_json, M.text_view = result.unwrap, result.to_json, result.text_view

return M
