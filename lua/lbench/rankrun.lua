-- The reporter's part in a job of several ranks (cluster.lua), kept out of
-- runner.lua: the stop notices between ranks, the interval slots every
-- rank must post alike, and the end of the run (this rank's own document,
-- then rank 0's merge of every rank's figures, ranks.lua).  Workers are
-- not involved: only the reporter (the main thread) calls these.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local cluster = require("lbench.cluster")

local M = {}

-- How often the reporter looks for another rank's stop notice (a failure
-- there stops this rank too, within this), and how often while an
-- interval's part is on its way (cluster.h's in_flight: a part larger
-- than the transport's eager limit moves only while both ends call in;
-- at 100 ms, parts missed rank 0's wait of 0.2 s at 2 ranks on one host).
M.POLL_NS = 100000000
local MOVING_POLL_NS = 10000000

-- When the reporter `R` should call in next: sooner while a part moves,
-- or (rank 0) while an interval waits for another rank's part.
function M.poll_ns(R)
  if C.lb_cluster_in_flight() > 0 or (R.agg and R.agg.rank == 0 and next(R.agg.pending)) then
    return MOVING_POLL_NS
  end
  return M.POLL_NS
end

-- A failure here tells the others to stop; a notice from another rank
-- stops this one.  Rank 0 prints the job's intervals that are ready.
function M.poll(R)
  if not R.notified and (C.lb_run_failed(R.run) ~= 0 or R.signalled) then
    R.notified = true
    cluster.notify_stop()
  end
  if R.agg and R.agg.rank == 0 then R:emit_ready() end
  local from = C.lb_cluster_poll_stop()
  if from > 0 and not R.stopped_by then
    R.stopped_by = from - 1
    R.notified = true -- the rank that failed has told everyone
    C.lb_run_stop(R.run)
  end
end

-- After the run: this rank's own document (--rank-result-file), then rank
-- 0 merges every rank's figures (ranks.lua); the others keep theirs.
-- `fns`: the runner's counters, diff and new_snapshot.
function M.merge(ctx, lb, a, R, fns)
  local ranks = require("lbench.ranks")
  a.posted = R.agg and R.agg.posted or 0
  local own = R.own_intervals and setmetatable({ intervals = R.own_intervals }, { __index = a }) or a
  local ok, e = ranks.write_own(ctx, lb, own)
  if not ok then a.failed, a.error = true, a.error or e end
  local d = a.d
  local q = d.reads + d.writes + d.other
  local cpu_result = a.cpu and a.cpu.result(json, d.events, q > 0 and q or nil)
  local left = R.deadline and math.max(0, tonumber(R.deadline - C.lb_clock_ns()) / 1e9) or 86400
  a.new_snapshot = function() return fns.new_snapshot(R.cum.lat ~= nil and C.lb_hist_cfg(R.cum.lat) or nil) end
  local t0 = C.lb_clock_ns()
  a = ranks.merge(ctx, a, fns.counters, fns.diff, cpu_result, left + ctx.opt.rank_timeout)
  if R.agg and cluster.rank() == 0 then
    -- Every rank has ended: the intervals still on their way, then the
    -- last ones printed (marked where a rank's part never came).
    if a.posted_by and not R.agg:collect_all(a.posted_by, 5) then
      cluster.give_up("some interval reports never arrived")
    end
    R:emit_ready(true)
  end
  -- What the merge costs after rank 0's own end (it waits for the slowest rank too).
  a.merge_ms = tonumber(C.lb_clock_ns() - t0) / 1e6
  return a
end

return M
