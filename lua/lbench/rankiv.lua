-- Interval reports of a job of several ranks (cluster.lua).  At each tick
-- every rank's reporter posts its interval (counter differences and the
-- interval's histograms, packed) to rank 0 without waiting; rank 0 merges
-- the parts of one interval exactly and prints it when every rank's part
-- is in, or, after a bounded wait, marked with the ranks whose part is
-- missing (a late part is then dropped from the interval lines; the final
-- report, merged separately, still counts it).  Workers are not involved.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local cluster = require("lbench.cluster")
local ranks = require("lbench.ranks")

local M = {}

local Agg = {}
Agg.__index = Agg

-- `interval_ns`: the report interval; rank 0 waits at most half of it
-- (between 0.2 and 2 s) beyond its own tick for the others' parts.
-- `new_snapshot` makes the histograms of a merged interval.
function M.new(rt, interval_ns, new_snapshot)
  return setmetatable({ rt = rt, rank = cluster.rank(), size = cluster.size(), posted = 0, received = {},
    pending = {}, done = {}, new_snapshot = new_snapshot,
    wait_ns = math.min(2e9, math.max(2e8, interval_ns / 2)) }, Agg)
end

-- An interval's key: its end in ms from the rank's own start (the same
-- nominal tick on every rank), or "end" for the last one.
local function order(a, b)
  if a == "end" or b == "end" then return b == "end" and a ~= "end" end
  return a < b
end

local function pack(rt, key, part, acc)
  local blobs = { { "lat", ranks.pack_hist(acc.lat) }, { "queue", ranks.pack_hist(acc.queue) } }
  for i, t in ipairs(part.types or {}) do
    blobs[#blobs + 1] = { "t" .. i, ranks.pack_hist(acc.type_lat[C.lb_runtime_type_id(rt, t.name)]) }
  end
  return ranks.frame({ key = key, t_rel = part.t_rel, secs = part.secs, d = part.d, threads = part.threads,
    warm = part.warm or false, phase = part.phase, types = part.types }, blobs)
end

function Agg:add(from, msg)
  local h, blobs = ranks.unpack(msg)
  if self.done[h.key] then return end -- printed already without it
  local e = self.pending[h.key] or { key = h.key, parts = {}, n = 0 }
  if not e.parts[from] then e.n = e.n + 1 end
  e.parts[from] = { h = h, blobs = blobs }
  if from == 0 then e.own_at = C.lb_clock_ns() end
  self.pending[h.key] = e
end

-- This rank's interval `key`: posted to rank 0, or (rank 0) kept.
function Agg:contribute(key, part, acc)
  local msg = pack(self.rt, key, part, acc)
  if self.rank == 0 then return self:add(0, msg) end
  if C.lb_cluster_post(msg, #msg) == 0 then self.posted = self.posted + 1 end
end

-- Rank 0: take every part posted so far.
function Agg:poll()
  local from = ffi.new("int[1]")
  while true do
    local n = tonumber(C.lb_cluster_probe(from))
    if n < 0 then return end
    local buf = ffi.new("char[?]", math.max(n, 1))
    if C.lb_cluster_recv(from[0], buf, n) ~= 0 then error("cluster: cannot receive an interval", 0) end
    self.received[from[0]] = (self.received[from[0]] or 0) + 1
    self:add(from[0], ffi.string(buf, n))
  end
end

local json = require("lbench.json")

-- (A decoded JSON object is iterated with json.pairs.)
local function add_counts(sum, d)
  for k, v in json.pairs(d) do sum[k] = (sum[k] or 0) + v end
end

-- The job's interval from the parts of `e`: counters and histograms summed,
-- per-type counts matched by name; times and the warm-up flag are rank 0's.
function Agg:merge(e)
  local own = e.parts[0].h
  local acc = self.new_snapshot()
  local part = { t_rel = own.t_rel, secs = own.secs, d = {}, threads = 0, warm = own.warm, phase = own.phase,
                 missing = {} }
  local types, torder = {}, {}
  for r = 0, self.size - 1 do
    local p = e.parts[r]
    if not p then
      part.missing[#part.missing + 1] = r
    else
      add_counts(part.d, p.h.d)
      part.threads = part.threads + p.h.threads
      if part.secs <= 0 then part.secs = p.h.secs end
      ranks.merge_hist(acc.lat, p.blobs.lat)
      ranks.merge_hist(acc.queue, p.blobs.queue)
      local names = {}
      for i, t in ipairs(p.h.types or {}) do
        local s = types[t.name]
        if not s then
          s = { name = t.name, events = 0, restarts = 0, rollbacks = 0 }
          types[t.name] = s; torder[#torder + 1] = s
        end
        s.events, s.restarts, s.rollbacks = s.events + t.events, s.restarts + t.restarts, s.rollbacks + t.rollbacks
        names[i] = t.name
      end
      ranks.merge_types(self.rt, acc, names, p.blobs)
    end
  end
  -- Every rank's last interval empty (each ended on a tick): nothing to print.
  if part.secs <= 0 then part.secs, part.empty = 1e-9, (part.d.events or 0) == 0 end
  if #torder > 0 then part.types = torder end
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
