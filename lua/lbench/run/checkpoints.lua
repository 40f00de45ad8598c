-- --report-checkpoints (sysbench's): at each listed second of the run, a
-- full report of the period since the previous checkpoint (or the start),
-- "[ Ns ] Checkpoint report:" before it.  The reporter cuts the run's time
-- there (runner.set_cuts) and calls `at` at every cut; the final report
-- still covers the whole run (sysbench's covers what follows the last
-- checkpoint only).
local ffi = require("ffi")
local C = require("lbench.ffi").C
local snapshot = require("lbench.result.snapshot")
local document = require("lbench.result.document")
local render = require("lbench.result.render")

local M = {}

local Tracker = {}
Tracker.__index = Tracker

-- A tracker for the reporter R (nil without checkpoints): `hist` an empty
-- histogram snapshot of its own, merged at every collection.
function M.new(R, hist)
  local list = R.ctx.opt.report_checkpoints
  if not list or #list == 0 then return nil end
  local at = {}
  for i, s in ipairs(list) do at[i] = tonumber(s) end
  table.sort(at)
  local self = setmetatable({ R = R, at_s = at, i = 1, hist = hist }, Tracker)
  self:rebase(R.t0)
  return self
end

-- The seconds of the checkpoints, for the run's cuts.
function M.seconds(opt)
  local out = {}
  for _, s in ipairs(opt.report_checkpoints or {}) do out[#out + 1] = tonumber(s) end
  return out
end

function Tracker:rebase(t)
  local R = self.R
  self.t, self.c = t, snapshot.counters(R.snap.sum)
  self.workers = {}
  local st = ffi.new("lb_stats")
  for i = 0, C.lb_run_threads(R.run) - 1 do
    C.lb_run_worker_collected(R.run, i, st)
    self.workers[i] = { events = tonumber(st.events), busy = tonumber(st.busy_ns) }
  end
end

function Tracker:merge(snap) C.lb_stats_snapshot_merge_hists(self.hist, snap) end

local function avgsd(xs)
  local n, s, ss = #xs, 0, 0
  for _, x in ipairs(xs) do s, ss = s + x, ss + x * x end
  if n == 0 then return 0, 0 end
  local m = s / n
  return m, math.sqrt(math.max(0, ss / n - m * m))
end

-- The period's figures as the final report's view reads them.
function Tracker:view(t)
  local R = self.R
  local d = snapshot.diff(snapshot.counters(R.snap.sum), self.c)
  local secs = math.max(tonumber(t - self.t) / 1e9, 1e-9)
  local evs, busy = {}, {}
  local st = ffi.new("lb_stats")
  for i = 0, C.lb_run_threads(R.run) - 1 do
    C.lb_run_worker_collected(R.run, i, st)
    local b = self.workers[i]
    evs[#evs + 1] = tonumber(st.events) - b.events
    busy[#busy + 1] = (tonumber(st.busy_ns) - b.busy) / 1e9
  end
  local ea, es = avgsd(evs)
  local ba, bs = avgsd(busy)
  local lat = document.summary(self.hist.lat, R.keys, false)
  local totals = { events = d.events, events_per_sec = d.events / secs, ignored_errors = d.restarts,
                   reconnects = d.reconnects }
  if d.reads + d.writes + d.other > 0 then
    totals.queries = { read = d.reads, write = d.writes, other = d.other, total = d.reads + d.writes + d.other }
  end
  -- "total time" since the start, as sysbench prints it; rates over the period
  local v = { totals = totals, duration_s = tonumber(t - R.t0) / 1e9, interval_s = secs, latency_ms = lat,
              fairness = { events_avg = ea, events_stddev = es, exec_time_avg_s = ba, exec_time_stddev_s = bs } }
  if d.io_reads + d.io_writes + d.io_fsyncs > 0 then
    v.io = { reads_per_sec = d.io_reads / secs, writes_per_sec = d.io_writes / secs, fsyncs_per_sec = d.io_fsyncs / secs,
             read_mib_per_sec = d.io_bytes_read / 1048576 / secs, written_mib_per_sec = d.io_bytes_written / 1048576 / secs }
  end
  return v
end

-- The run reached cut `c` (collected): the checkpoints due by then.
function Tracker:at(c, say)
  local R = self.R
  while self.at_s[self.i] and c >= R.t0 + self.at_s[self.i] * 1e9 - 1e6 do
    local v = self:view(c)
    local opt = R.ctx.opt
    if opt.output == "text" and opt.verbosity >= 3 then
      local head = R.lb.hooks.report_head and R.lb.hooks.report_head(v) or ""
      say(string.format("[ %.0fs ] Checkpoint report:\n", tonumber(c - R.t0) / 1e9) .. head
        .. render.final_text_sysbench(v) .. "\n")
    end
    C.lb_stats_snapshot_reset_hists(self.hist)
    self:rebase(c)
    self.i = self.i + 1
  end
end

return M
