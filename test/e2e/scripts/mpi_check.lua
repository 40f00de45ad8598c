-- Cross-checks of an lbench-mpi result document against the ranks' own
-- documents (--rank-result-file), computed here independently of the
-- merge: counters and per-type counts are sums, the histogram is the
-- bucket-wise sum, percentiles recomputed from that sum agree, ranks[]
-- matches the ranks' files.  Each command fails with the first mismatch.
lbench.cmdline.options = {
  merged = { "the job's result document" },
  ranks = { "the ranks' result documents, in rank order", {}, type = "list" },
  point = { "the merged document is a sweep's: compare its point N (0: a run's document)", 0 },
}
local json = require("lbench.json")
local util = require("lbench.util")

local function load(path)
  local r = json.decode(assert(util.read_file(path), "cannot read " .. tostring(path)))
  local ok, why = require("lbench.result.document").validate(r)
  if not ok then error(path .. ": not a valid result document: " .. tostring(why), 0) end
  return r
end

local function docs()
  local ranks = {}
  for i, p in ipairs(lbench.opt.ranks) do ranks[i] = load(p) end
  if #ranks == 0 then error("no --ranks given", 0) end
  local m = load(lbench.opt.merged)
  if lbench.opt.point > 0 then
    m = m.points and m.points[lbench.opt.point]
    if not m then error("the merged document has no point " .. lbench.opt.point, 0) end
  end
  return m, ranks
end

local function same(what, got, want)
  if got ~= want then error(string.format("%s: merged %s, ranks' sum %s", what, tostring(got), tostring(want)), 0) end
end

function counters()
  local m, ranks = docs()
  local ev, q, types = 0, 0, {}
  for _, r in ipairs(ranks) do
    ev = ev + r.totals.events
    q = q + (r.totals.queries and r.totals.queries.total or 0)
    for name, t in pairs(r.types or {}) do types[name] = (types[name] or 0) + t.events end
  end
  same("totals.events", m.totals.events, ev)
  same("queries.total", m.totals.queries and m.totals.queries.total or 0, q)
  for name, n in pairs(types) do same("types." .. name .. ".events", m.types[name] and m.types[name].events, n) end
  same("latency count", m.latency_ms.count, ev)
  local rd, wr = 0, 0
  for _, r in ipairs(ranks) do
    if r.io then rd, wr = rd + r.io.reads, wr + r.io.writes end
  end
  same("io.reads", m.io and m.io.reads or 0, rd)
  same("io.writes", m.io and m.io.writes or 0, wr)
  same("nranks", m.nranks, #ranks)
  same("#ranks[]", #m.ranks, #ranks)
  for i, r in ipairs(ranks) do
    same("ranks[" .. i .. "].totals.events", m.ranks[i].totals.events, r.totals.events)
    same("ranks[" .. i .. "].threads", m.ranks[i].threads, r.threads)
  end
end

-- The bucket-wise sum of the ranks' histograms: lo -> { hi, count }.
local function summed(ranks)
  local sum = {}
  for _, r in ipairs(ranks) do
    for _, b in ipairs(r.histogram.buckets) do
      local s = sum[b[1]] or { b[2], 0 }
      s[2] = s[2] + b[3]
      sum[b[1]] = s
    end
  end
  return sum
end

function histogram()
  local m, ranks = docs()
  local sum, seen = summed(ranks), 0
  for _, b in ipairs(m.histogram.buckets) do
    local s = sum[b[1]]
    if not s then error("merged bucket " .. b[1] .. " is in no rank's histogram", 0) end
    same("bucket " .. b[1], b[3], s[2])
    seen = seen + 1
  end
  local n = 0
  for _ in pairs(sum) do n = n + 1 end
  same("bucket count", seen, n)
end

function percentiles()
  local m, ranks = docs()
  local sum = summed(ranks)
  local los, total = {}, 0
  for lo in pairs(sum) do los[#los + 1] = lo end
  table.sort(los)
  for _, lo in ipairs(los) do total = total + sum[lo][2] end
  for _, p in ipairs({ 50, 90, 99, 99.9 }) do
    local want, cum = math.max(1, math.ceil(p / 100 * total)), 0
    for _, lo in ipairs(los) do
      cum = cum + sum[lo][2]
      if cum >= want then
        local v = m.latency_ms.percentiles[string.format("%g", p)] * 1e6
        -- The reported value lies in the bucket the summed counts give.
        if v < lo - 1 or v > sum[lo][1] + 1 then
          error(string.format("p%g: merged %g ns, outside the summed histogram's bucket [%d, %d]", p, v, lo, sum[lo][1]), 0)
        end
        break
      end
    end
  end
end

-- Every rank reports the same intervals (rankrun.catch_up: a late
-- reporter makes every slot), so the job's intervals and each rank's are
-- matched one to one, by position: the same count, the same nominal end
-- (in ms; the last is each rank's own end), the same warm-up flag and
-- phase; each job interval is the sum of the ranks' same interval, leaving
-- out the ranks it names as missing (their part came too late to print);
-- when none is missing the intervals tile the run.
function intervals()
  local m, ranks = docs()
  if #m.intervals == 0 then error("no intervals", 0) end
  for k, r in ipairs(ranks) do same("#intervals of rank " .. (k - 1), #m.intervals, #r.intervals) end
  local total, complete = 0, true
  for i, iv in ipairs(m.intervals) do
    local w = "intervals[" .. i .. "]"
    local out = {}
    for _, x in ipairs(iv.missing_ranks or {}) do out[x] = true; complete = false end
    local ev, cnt = 0, 0
    for k, r in ipairs(ranks) do
      local riv = r.intervals[i]
      if i < #m.intervals then
        same(w .. ".time_s (ms) on rank " .. (k - 1), math.floor(riv.time_s * 1000 + 0.5), math.floor(iv.time_s * 1000 + 0.5))
      end
      same(w .. ".warmup on rank " .. (k - 1), riv.warmup, iv.warmup)
      same(w .. ".phase on rank " .. (k - 1), riv.phase, iv.phase)
      if not out[k - 1] then ev, cnt = ev + riv.events, cnt + riv.latency_ms.count end
    end
    same(w .. ".events", iv.events, ev)
    same(w .. ".latency_ms.count", iv.latency_ms.count, cnt)
    if not iv.warmup then total = total + iv.events end
  end
  if complete then same("sum of the measured intervals' events", total, m.totals.events) end
end

-- Each phase of the job against the ranks' same phase: events, queries
-- and errors are sums, the latency count is the events, min and max are
-- the ranks' extremes (exact: they come from the merged histogram, whose
-- min and max are the recorded ones), the rate is over the slowest rank's
-- duration; and ranks[] keeps each rank's own phase events.
function phases()
  local m, ranks = docs()
  if not m.phases or #m.phases == 0 then error("no phases", 0) end
  for _, r in ipairs(ranks) do same("#phases of a rank", #r.phases, #m.phases) end
  for i, p in ipairs(m.phases) do
    local w = "phases[" .. i .. "]"
    local ev, q, errs, lo, hi, dur = 0, 0, 0, math.huge, -math.huge, 0
    for k, r in ipairs(ranks) do
      local x = r.phases[i]
      same(w .. ".name on rank " .. (k - 1), x.name, p.name)
      ev, q, errs = ev + x.events, q + x.queries, errs + x.errors
      if x.latency_ms.count > 0 then lo, hi = math.min(lo, x.latency_ms.min), math.max(hi, x.latency_ms.max) end
      dur = math.max(dur, x.duration_s)
      same("ranks[" .. k .. "]." .. w .. ".events", m.ranks[k].phases[i].events, x.events)
    end
    same(w .. ".events", p.events, ev)
    same(w .. ".queries", p.queries, q)
    same(w .. ".errors", p.errors, errs)
    same(w .. ".latency_ms.count", p.latency_ms.count, ev)
    same(w .. ".latency_ms.min", p.latency_ms.min, lo)
    same(w .. ".latency_ms.max", p.latency_ms.max, hi)
    same(w .. ".duration_s", p.duration_s, dur)
    if math.abs(p.events_per_sec - ev / dur) > 1e-9 * p.events_per_sec then
      error(string.format("%s.events_per_sec: %g, the events over the slowest rank's duration %g", w, p.events_per_sec,
        ev / dur), 0)
    end
  end
end

local function near(what, got, want)
  if math.abs(got - want) > 1e-9 * math.max(1, math.abs(want)) then
    error(string.format("%s: merged %.12g, expected %.12g", what, got, want), 0)
  end
end

-- The job's client CPU is the ranks' summed, per event over the job's
-- events; a server that several ranks on one host measured counts once.
function cpu()
  local m, ranks = docs()
  local client, servers = 0, {}
  for _, r in ipairs(ranks) do
    client = client + r.cpu.client_s
    if r.cpu.server_pid then
      local k = r.host.hostname .. "/" .. r.cpu.server_pid
      servers[k] = math.max(servers[k] or 0, r.cpu.server_s)
    end
  end
  near("cpu.client_s", m.cpu.client_s, client)
  near("cpu.client_us_per_event", m.cpu.client_us_per_event, client * 1e6 / m.totals.events)
  local server, n = 0, 0
  for _, v in pairs(servers) do server, n = server + v, n + 1 end
  if n > 0 then
    near("cpu.server_s", m.cpu.server_s, server)
    near("cpu.server_us_per_event", m.cpu.server_us_per_event, server * 1e6 / m.totals.events)
  elseif m.cpu.server_s then
    error("cpu.server_s in the job's document, measured by no rank", 0)
  end
end

-- Connection fairness (async mode): the job's count, min, max, unused and
-- sum of events from the ranks' figures, the standard deviation from
-- their sums of squares (count * (stddev^2 + avg^2)); the same for the
-- threads' events.
function connections()
  local m, ranks = docs()
  local c = m.fairness.connections
  local n, lo, hi, unused, sum, sumsq = 0, math.huge, -math.huge, 0, 0, 0
  for _, r in ipairs(ranks) do
    local x = r.fairness.connections
    n, unused = n + x.count, unused + x.unused
    lo, hi = math.min(lo, x.events_min), math.max(hi, x.events_max)
    sum = sum + x.events_avg * x.count
    sumsq = sumsq + x.count * (x.events_stddev ^ 2 + x.events_avg ^ 2)
  end
  same("connections.count", c.count, n)
  same("connections.count (the job's --connections)", c.count, m.connections)
  same("connections.events_min", c.events_min, lo)
  same("connections.events_max", c.events_max, hi)
  same("connections.unused", c.unused, unused)
  near("connections: sum of events", c.events_avg * c.count, sum)
  local mean = sum / n
  near("connections.events_stddev", c.events_stddev, math.sqrt(math.max(0, sumsq / n - mean * mean)))
  -- Lanes count the warm-up too: without one, they add up to the totals.
  if not c.includes_warmup then near("connections: events against totals", c.events_avg * c.count, m.totals.events) end
  -- Threads: the job's K*T threads, from each rank's avg and stddev.
  n, sum, sumsq = 0, 0, 0
  for _, r in ipairs(ranks) do
    local f = r.fairness
    n, sum = n + r.threads, sum + f.events_avg * r.threads
    sumsq = sumsq + r.threads * (f.events_stddev ^ 2 + f.events_avg ^ 2)
  end
  same("threads", m.threads, n)
  near("fairness.events_avg", m.fairness.events_avg, sum / n)
  near("fairness.events_stddev", m.fairness.events_stddev, math.sqrt(math.max(0, sumsq / n - (sum / n) ^ 2)))
end

-- fileio precondition's last workload round (a run of the job, merged):
-- its duration is the slowest rank's and its IOPS the ranks' I/Os over it.
function precondition_round()
  local m, ranks = docs()
  local steps = m.precondition and m.precondition.steps or {}
  local step = steps[#steps]
  local round = step and step.rounds and step.rounds[#step.rounds]
  if not round then error("no workload round in the merged document", 0) end
  local ios, dur = 0, 0
  for _, r in ipairs(ranks) do
    ios = ios + (r.io and (r.io.reads + r.io.writes) or 0)
    dur = math.max(dur, r.duration_s)
  end
  same("round duration_s", round.duration_s, dur)
  if ios == 0 or math.abs(round.iops * round.duration_s - ios) > 1e-9 * ios then
    error(string.format("round iops: merged %.17g x %.17g s, ranks' I/Os %d", round.iops, round.duration_s, ios), 0)
  end
end

lbench.cmdline.commands = { counters = { counters }, histogram = { histogram }, percentiles = { percentiles },
  intervals = { intervals }, phases = { phases }, cpu = { cpu }, connections = { connections },
  precondition_round = { precondition_round } }
