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
  local ok, why = require("lbench.result").validate(r)
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

-- Each complete interval of the job is the sum of the ranks' same
-- interval (same end time; the last with the ranks' last); when every
-- rank ticked every interval, the intervals also tile the run.  (A rank
-- whose reporter was stalled past a whole interval skips that tick: the
-- job's interval is then marked or its parts do not line up, and is left
-- out here.)
local function same_interval(r, iv, last)
  if last then return r.intervals[#r.intervals] end
  for _, x in ipairs(r.intervals) do if x.time_s == iv.time_s then return x end end
  return nil
end

function intervals()
  local m, ranks = docs()
  if #m.intervals == 0 then error("no intervals", 0) end
  local total, compared, aligned = 0, 0, true
  for i, iv in ipairs(m.intervals) do
    local ev, cnt, all = 0, 0, not iv.missing_ranks
    for _, r in ipairs(ranks) do
      local riv = same_interval(r, iv, i == #m.intervals)
      if riv then ev, cnt = ev + riv.events, cnt + riv.latency_ms.count else all = false end
    end
    if all then
      same("intervals[" .. i .. "].events", iv.events, ev)
      same("intervals[" .. i .. "].latency_ms.count", iv.latency_ms.count, cnt)
      compared = compared + 1
    else
      aligned = false
    end
    total = total + iv.events
  end
  for _, r in ipairs(ranks) do if #r.intervals ~= #m.intervals then aligned = false end end
  if compared == 0 then error("no complete interval to compare", 0) end
  if aligned then same("sum of the intervals' events", total, m.totals.events) end
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
  intervals = { intervals }, precondition_round = { precondition_round } }
