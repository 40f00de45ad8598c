-- Workload phases: a rate that changes during one run.
--
--   --rate=1000@60,2000@60,4000@60     steps: 1000/s for 60 s, then 2000/s, ...
--   --rate=ramp:0-5000@300             a linear ramp from 0 to 5000/s over 300 s
--   --rate=ramp:100-2000@60,2000@120   entries mix; durations take s, m, h
--   --phases=warm,knee,overload        names, one per entry (default: the entries)
--
-- The schedule starts when the measured period does (a warm-up runs at
-- the first entry's starting rate) and the run lasts the schedule.  The
-- core paces by the schedule (pace.h); the reporter cuts an interval at
-- every phase boundary and keeps each phase's counters and its own
-- latency histogram, so every phase is reported on its own.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")

local M = {}

local UNIT = { s = 1, m = 60, h = 3600 }

local function duration(s)
  local n, u = s:match("^([%d.]+)([smh]?)$")
  n = tonumber(n)
  if not n or n <= 0 then return nil end
  return n * UNIT[u ~= "" and u or "s"]
end

local function rate(s)
  local v = tonumber(s)
  if not v or v ~= v or v < 0 or v == math.huge then return nil end
  return v
end

-- Parse a schedule: the segments { text, dur_s, rate0, rate1 }, or nil and
-- why.  A plain number is not a schedule (nil, nil).
function M.parse(raw)
  if type(raw) ~= "string" or not raw:find("@", 1, true) then return nil, nil end
  local segs = {}
  for i, item in ipairs(util.split(raw, ",")) do
    item = util.trim(item)
    local r0, r1, d = item:match("^ramp:([^-@]+)%-([^@]+)@(.+)$")
    if not r0 then
      r0, d = item:match("^([^@]+)@(.+)$")
      r1 = r0
    end
    local a, b, t = rate(r0 or ""), rate(r1 or ""), duration(d or "")
    if not (a and b and t) then
      return nil, string.format("entry %d '%s': expected RATE@SECONDS or ramp:FROM-TO@SECONDS "
        .. "(e.g. 1000@60, ramp:0-5000@5m)", i, item)
    end
    segs[#segs + 1] = { text = item, dur_s = t, rate0 = a, rate1 = b }
  end
  if #segs > 64 then return nil, "at most 64 entries" end
  local peak = 0
  for _, s in ipairs(segs) do peak = math.max(peak, s.rate0, s.rate1) end
  if peak <= 0 then return nil, "every rate is 0" end
  return segs
end

-- The schedule of options `opt` with names and absolute bounds (seconds
-- from the end of the warm-up), or nil without one.
function M.of(opt)
  local segs = opt.rate_schedule
  if not segs then return nil end
  local names = opt.phases or {}
  local out, t = {}, 0
  for i, s in ipairs(segs) do
    out[i] = { name = names[i] or s.text, start_s = t, end_s = t + s.dur_s, rate0 = s.rate0, rate1 = s.rate1,
               spec = s.text }
    t = t + s.dur_s
  end
  return out, t
end

-- --rate's value: a number, or a schedule whose peak becomes opt.rate
-- (what "paced" means everywhere) and whose segments opt.rate_schedule;
-- the run lasts the schedule.  Called by the option parser (raw: all the
-- raw options, for --time and --phases; `max`: the longest --time).
function M.store(into, v, raw_value, raw, max)
  local segs, why = M.parse(raw_value)
  if why then util.fail("--rate=%s: %s", tostring(raw_value), why) end
  if not segs then
    into.rate, into.rate_schedule = v, nil
    return
  end
  local peak, total = 0, 0
  for _, s in ipairs(segs) do peak = math.max(peak, s.rate0, s.rate1); total = total + s.dur_s end
  into.rate, into.rate_schedule = peak, segs
  if total > max then
    util.fail("--rate=%s: the schedule lasts %g s; expected at most %d s (the longest --time)", tostring(raw_value),
      total, max)
  end
  if raw.time ~= nil and tonumber(raw.time) ~= total then
    util.fail("--time=%s: --rate's schedule lasts %g s; leave --time out (the run lasts the schedule)",
      tostring(raw.time), total)
  end
  into.time = total
end

-- --phases without a schedule, or with another number of names.
function M.check(opt)
  local names = opt.phases or {}
  if #names == 0 then return end
  if not opt.rate_schedule then util.fail("--phases: names the entries of a --rate schedule (e.g. --rate=1000@60,2000@60)") end
  if #names ~= #opt.rate_schedule then
    util.fail("--phases: %d name(s) for %d --rate entries", #names, #opt.rate_schedule)
  end
end

-- ---- the reporter's side ----------------------------------------------------

local Tracker = {}
Tracker.__index = Tracker

-- A tracker of the phases of options `opt` for a reporter, or nil without
-- a schedule.  hist: an empty histogram snapshot of its own; summary(h,
-- keys): result.summary; the phases start at `origin_ns` with counters `c`.
-- pack(h) (several ranks, ranks.pack_hist): each closed phase also keeps
-- its raw figures and its histogram packed in `raw`, for rank 0's merge.
function M.tracker(opt, keys, hist, summary, origin_ns, c, pack)
  local list = M.of(opt)
  if not list then return nil end
  return setmetatable({ list = list, i = 1, keys = keys, hist = hist, summary = summary, origin = origin_ns,
                        start_ns = origin_ns, c0 = c, done = json.array(), pack = pack,
                        raw = pack and {} or nil }, Tracker)
end

-- The counters at the start of the first phase (the warm-up is over).
function Tracker:rebase(c) self.c0 = c end

-- Where the current phase ends and the next begins (nil: the last runs to the end).
function Tracker:next_boundary()
  if self.i >= #self.list then return nil end
  return self.origin + self.list[self.i].end_s * 1e9
end

function Tracker:current() return self.list[self.i] and self.list[self.i].name end

-- A collection's histograms belong to the current phase.
function Tracker:merge(snap) C.lb_stats_snapshot_merge_hists(self.hist, snap) end

-- The document entry of phase `p` (an entry of M.of) from its figures:
-- one process's, or (cluster/ranks.lua) the job's merge of every rank's.
function M.entry(p, f, latency)
  local o = json.object()
  o.name = p.name
  o.rate = p.spec
  o.target_rate = { from = p.rate0, to = p.rate1 }
  o.start_s = f.start_s
  o.duration_s = f.duration_s
  local per = f.duration_s > 0 and f.duration_s or 1
  o.events = f.events
  o.events_per_sec = f.events / per
  o.queries = f.queries
  o.queries_per_sec = f.queries / per
  o.errors = f.errors
  o.latency_ms = latency
  return o
end

-- The current phase ends at `t_ns` with counters `c`: its figures, from
-- its own counters and histogram.
function Tracker:close(t_ns, c)
  local p = self.list[self.i]
  if not p then return end
  local f = { start_s = tonumber(self.start_ns - self.origin) / 1e9, duration_s = tonumber(t_ns - self.start_ns) / 1e9,
    events = c.events - self.c0.events, errors = c.restarts - self.c0.restarts,
    queries = (c.reads - self.c0.reads) + (c.writes - self.c0.writes) + (c.other - self.c0.other) }
  self.done[#self.done + 1] = M.entry(p, f, self.summary(self.hist.lat, self.keys, true))
  if self.raw then
    f.hist = self.pack(self.hist.lat)
    self.raw[#self.raw + 1] = f
  end
  C.lb_stats_snapshot_reset_hists(self.hist)
  self.i, self.c0, self.start_ns = self.i + 1, c, t_ns
end

-- The run ended at `t_ns`: the phase in progress ends there.
function Tracker:finish(t_ns, c)
  if t_ns > self.start_ns or #self.done == 0 then self:close(t_ns, c) end
end

-- The banner's words for the schedule.
function M.describe(opt)
  local list = M.of(opt)
  local parts = {}
  for _, p in ipairs(list) do
    parts[#parts + 1] = (p.name ~= p.spec) and string.format("%s %s", p.name, p.spec) or p.spec
  end
  return table.concat(parts, ", ")
end

return M
