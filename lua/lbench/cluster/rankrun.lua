-- The reporter's rank in a job of several (cluster/transport.lua): an object the
-- reporter (run/runner.lua) owns and calls, so that rank code never reaches
-- into the reporter.  It carries the stop notices between ranks, the
-- interval parts every rank posts alike (cluster/rankiv.lua merges them on rank
-- 0), and the end of the run: this rank's own document, then rank 0's
-- merge of every rank's figures (cluster/ranks.lua).  Workers are not involved:
-- only the reporter (the main thread) calls these.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local cluster = require("lbench.cluster.transport")
local ranks = require("lbench.cluster.ranks")
local rankiv = require("lbench.cluster.rankiv")
local snapshot = require("lbench.result.snapshot")

local M = {}

-- How often the reporter looks for another rank's stop notice (a failure
-- there stops this rank too, within this), and how often while an
-- interval's part is on its way (cluster.h's in_flight: a part larger
-- than the transport's eager limit moves only while both ends call in;
-- at 100 ms, parts missed rank 0's wait of 0.2 s at 2 ranks on one host).
M.POLL_NS = 100000000
local MOVING_POLL_NS = 10000000

local Rank = {}
Rank.__index = Rank

-- The rank of a reporter whose run is `run`.  With report intervals
-- (`interval_ns` > 0, histograms of configuration `hcfg`), rank 0 prints
-- the job's intervals through `emit(part, acc)`, and hands a rank's part
-- that came too late for its interval to `late(stats, acc)` (if given).
function M.new(ctx, run, interval_ns, hcfg, emit, late)
  local self = setmetatable({ ctx = ctx, run = run, emit = emit, notified = false, stopped_by = nil }, Rank)
  if interval_ns > 0 then
    self.agg = rankiv.new(ctx.rt, interval_ns, function() return snapshot.new(hcfg) end, late)
    self.own_intervals = json.array()
  end
  return self
end

-- Are intervals merged across the ranks (then every rank sends a last one)?
function Rank:merges_intervals() return self.agg ~= nil end

-- When the reporter should call in next: sooner while a part moves, or
-- (rank 0) while an interval waits for another rank's part.
function Rank:poll_ns()
  if C.lb_cluster_in_flight() > 0 or (self.agg and self.agg.rank == 0 and next(self.agg.pending)) then
    return MOVING_POLL_NS
  end
  return M.POLL_NS
end

-- Rank 0: print the job's intervals that are complete (or waited for long
-- enough; `flush`: all).
function Rank:emit_ready(flush)
  for _, m in ipairs(self.agg:ready(flush)) do
    if not m.part.empty then self.emit(m.part, m.acc) end
  end
end

-- A failure here (`signalled`: a signal) tells the others to stop; a
-- notice from another rank stops this one (self.stopped_by names it).
-- Rank 0 prints the job's intervals that are ready.
function Rank:poll(signalled)
  if not self.notified and (C.lb_run_failed(self.run) ~= 0 or signalled) then
    self.notified = true
    cluster.notify_stop()
  end
  if self.agg and self.agg.rank == 0 then self:emit_ready() end
  local from = C.lb_cluster_poll_stop()
  if from > 0 and not self.stopped_by then
    self.stopped_by = from - 1
    self.notified = true -- the rank that failed has told everyone
    C.lb_run_stop(self.run)
  end
end

-- This rank's interval `key` (its end in ms from the start, or "end"),
-- its counters `stats` (an lb_stats difference) and histograms `acc`:
-- kept as its own (`own`, for its --rank-result-file), posted to rank 0,
-- and on rank 0 the job's intervals that are ready printed.
function Rank:interval(key, part, acc, stats, own)
  if own then self.own_intervals[#self.own_intervals + 1] = own end
  self.agg:contribute(key, part, acc, stats)
  if self.agg.rank == 0 then self:emit_ready() end
end

-- After the run: this rank's own document (--rank-result-file), then rank
-- 0 merges every rank's figures (cluster/ranks.lua); the others keep theirs.
-- `cum_lat`: the reporter's cumulative histogram (its configuration);
-- `deadline`: the run's, bounding how long rank 0 waits for the others.
function Rank:merge(lb, a, cum_lat, deadline)
  local ctx = self.ctx
  a.posted = self.agg and self.agg.posted or 0
  local own = self.own_intervals and setmetatable({ intervals = self.own_intervals }, { __index = a }) or a
  local ok, e = ranks.write_own(ctx, lb, own)
  if not ok then a.failed, a.error = true, a.error or e end
  local d = a.d
  local q = d.reads + d.writes + d.other
  local cpu_result = a.cpu and a.cpu.result(json, d.events, q > 0 and q or nil)
  local left = deadline and math.max(0, tonumber(deadline - C.lb_clock_ns()) / 1e9) or 86400
  a.new_snapshot = function() return snapshot.new(cum_lat ~= nil and C.lb_hist_cfg(cum_lat) or nil) end
  local t0 = C.lb_clock_ns()
  a = ranks.merge(ctx, a, cpu_result, left + ctx.opt.rank_timeout)
  if self.agg and cluster.rank() == 0 then
    -- Every rank has ended: the intervals still on their way, then the
    -- last ones printed (marked where a rank's part never came).
    if a.posted_by and not self.agg:collect_all(a.posted_by, 5) then
      cluster.give_up("some interval reports never arrived")
    end
    self:emit_ready(true)
  end
  -- What the merge costs after rank 0's own end (it waits for the slowest rank too).
  a.merge_ms = tonumber(C.lb_clock_ns() - t0) / 1e6
  return a
end

return M
