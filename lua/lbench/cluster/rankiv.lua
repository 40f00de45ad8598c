-- Interval reports of a job of several ranks (cluster/transport.lua).  At each tick
-- every rank's reporter posts its interval (its lb_stats difference and
-- the interval's histograms, in the final merge's wire form) to rank 0
-- without waiting; rank 0 merges
-- the parts of one interval exactly and prints it when every rank's part
-- is in, or, after a bounded wait, marked with the ranks whose part is
-- missing (a late part is then dropped from the interval lines; the final
-- report, merged separately, still counts it).  Workers are not involved.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local cluster = require("lbench.cluster.transport")
local ranks = require("lbench.cluster.ranks")
local snapshot = require("lbench.result.snapshot")
local interval = require("lbench.result.interval")

local M = {}

local Agg = {}
Agg.__index = Agg

-- `interval_ns`: the report interval; rank 0 waits at most half of it
-- (between 0.2 and 2 s) beyond its own tick for the others' parts.
-- `new_snapshot` makes the histograms of a merged interval; `late(stats,
-- acc)`, if given, takes a part that came after its interval was printed.
function M.new(rt, interval_ns, new_snapshot, late)
  return setmetatable({ rt = rt, rank = cluster.rank(), size = cluster.size(), posted = 0, received = {},
    pending = {}, done = {}, new_snapshot = new_snapshot, buf_len = 0, late = late,
    wait_ns = math.min(2e9, math.max(2e8, interval_ns / 2)) }, Agg)
end

-- An interval's key: its end in ms from the rank's own start (the same
-- nominal tick on every rank), or "end" for the last one.
local function order(a, b)
  if a == "end" or b == "end" then return b == "end" and a ~= "end" end
  return a < b
end

-- A rank's interval on the wire: a header (when, how long, threads, the
-- warm-up flag, the phase, its event types' names), then its counters and
-- histograms in the same binary form as the final merge's (cluster/ranks.lua).
local function pack(rt, key, part, acc, stats)
  local names = snapshot.type_names(rt)
  local blobs = { { "stats", ranks.stats_wire(stats) }, { "lat", ranks.pack_hist(acc.lat) },
                  { "queue", ranks.pack_hist(acc.queue) } }
  for i = 1, #names do blobs[#blobs + 1] = { "t" .. i, ranks.pack_hist(acc.type_lat[i - 1]) } end
  return ranks.frame({ key = key, t_rel = part.t_rel, secs = part.secs, threads = part.threads,
    warm = part.warm or false, phase = part.phase, type_names = names }, blobs)
end

function Agg:add(from, msg)
  local h, blobs = ranks.open(msg)
  if self.done[h.key] then
    -- Printed already without it: only the figures that count every part
    -- as it comes (self.late: the metrics endpoint) take it.
    if self.late then
      local acc, sum = self.new_snapshot(), ffi.new("lb_stats")
      self:add_part(acc, sum, { h = h, blobs = blobs })
      self.late(sum, acc)
    end
    return
  end
  local e = self.pending[h.key] or { key = h.key, parts = {}, n = 0 }
  if not e.parts[from] then e.n = e.n + 1 end
  e.parts[from] = { h = h, blobs = blobs }
  if from == 0 then e.own_at = C.lb_clock_ns() end
  self.pending[h.key] = e
end

-- This rank's interval `key`: posted to rank 0, or (rank 0) kept.
function Agg:contribute(key, part, acc, stats)
  local msg = pack(self.rt, key, part, acc, stats)
  if self.rank == 0 then return self:add(0, msg) end
  if C.lb_cluster_post(msg, #msg) == 0 then self.posted = self.posted + 1 end
end

-- Rank 0: take every part posted so far.
function Agg:poll()
  local from = ffi.new("int[1]")
  while true do
    local n = tonumber(C.lb_cluster_probe(from))
    if n < 0 then return end
    if n > self.buf_len then
      -- One receive buffer, grown to the largest part: a new one per part
      -- was a thousand allocations per interval in a large job.
      self.buf_len = math.max(n, 2 * self.buf_len)
      self.buf = ffi.new("char[?]", self.buf_len)
    end
    if C.lb_cluster_recv(from[0], self.buf, n) ~= 0 then error("cluster: cannot receive an interval", 0) end
    self.received[from[0]] = (self.received[from[0]] or 0) + 1
    self:add(from[0], ffi.string(self.buf, n))
  end
end

local ZERO = ffi.new("lb_stats")

-- One rank's part `p` added to the histograms `acc` and counters `sum`.
function Agg:add_part(acc, sum, p)
  ranks.merge_hist(acc.lat, p.blobs.lat)
  ranks.merge_hist(acc.queue, p.blobs.queue)
  ranks.add_stats(sum, p.blobs.stats, ranks.merge_types(self.rt, acc, p.h.type_names or {}, p.blobs))
end

-- The job's interval from the parts of `e`: counters and histograms summed
-- (event types renumbered by name, ranks.merge_types), counted as one
-- process counts (snapshot.counters); times and the warm-up flag are rank
-- 0's.
function Agg:merge(e)
  local own = e.parts[0].h
  local acc, sum = self.new_snapshot(), ffi.new("lb_stats")
  local part = { t_rel = own.t_rel, secs = own.secs, threads = 0, warm = own.warm, phase = own.phase, missing = {} }
  for r = 0, self.size - 1 do
    local p = e.parts[r]
    if not p then
      part.missing[#part.missing + 1] = r
    else
      part.threads = part.threads + p.h.threads
      if part.secs <= 0 then part.secs = p.h.secs end
      self:add_part(acc, sum, p)
    end
  end
  part.d, part.stats = snapshot.counters(sum), sum
  local names = snapshot.type_names(self.rt)
  if #names > 0 then part.types = interval.type_deltas(names, sum, ZERO) end
  -- Every rank's last interval empty (each ended on a tick): nothing to print.
  if part.secs <= 0 then part.secs, part.empty = 1e-9, part.d.events == 0 end
  return { part = part, acc = acc }
end

-- Rank 0: the intervals ready to print, in order: complete, or waited for
-- long enough (`flush`: everything rank 0 has its own part of).
function Agg:ready(flush)
  self:poll()
  local keys = {}
  for k, e in pairs(self.pending) do if e.parts[0] then keys[#keys + 1] = k end end
  table.sort(keys, order)
  local out, now = {}, C.lb_clock_ns()
  for _, k in ipairs(keys) do
    local e = self.pending[k]
    if e.n < self.size and not flush and now < e.own_at + self.wait_ns then break end
    out[#out + 1] = self:merge(e)
    self.pending[k], self.done[k] = nil, true
  end
  return out
end

-- Rank 0, after the final merge told how many intervals each rank posted
-- (`posted_by`): receive them all (at most `timeout_s`), so that no rank
-- is left waiting for its sends.  False when some never came.
function Agg:collect_all(posted_by, timeout_s)
  local give_up = C.lb_clock_ns() + timeout_s * 1e9
  while true do
    self:poll()
    local all = true
    for r, n in pairs(posted_by) do
      if r ~= 0 and (self.received[r] or 0) < n then all = false end
    end
    if all then return true end
    if C.lb_clock_ns() >= give_up then return false end
    C.lb_clock_sleep_ns(1e6)
  end
end

return M
