-- fileio precondition: bring a prepared set (and the device under it) to
-- the state a benchmark should measure.  Steps, from --precondition:
-- sequential passes over the whole set (workload-independent, SNIA PTS),
-- then rounds of the workload until steady state (lbench.rounds) or a
-- fixed count.  Each round is a measured run (lbench.run), so it stamps
-- its writes and can be verified like any other.  The verdict goes into
-- the manifest and the result document.
local json = require("lbench.json")
local rounds = require("lbench.run.rounds")
local lib = require("fileio.lib")
local manifest = require("fileio.manifest")
local points = require("fileio.points")
local fail = lib.fail

local M = {}

-- True while the rounds run: run's init() and result hook then leave the
-- set and the result document to this command.
local active = false
function M.active() return active end

-- Raised out of the rounds when one of them was interrupted.
local INTERRUPTED = setmetatable({}, { __tostring = function() return "precondition interrupted" end })

-- One precondition command: the set, the options, the steps done so far.
local Pre = {}
Pre.__index = Pre

-- One round's summary (a run's result -> its JSON row).
local function round_summary(k, r)
  local o = json.object()
  local io, secs = r.io or {}, r.duration_s > 0 and r.duration_s or 1
  o.round = k
  o.duration_s = r.duration_s
  o.iops = ((io.reads or 0) + (io.writes or 0)) / secs
  o.reads_per_sec = io.reads_per_sec or 0
  o.writes_per_sec = io.writes_per_sec or 0
  o.read_mib_per_sec = io.read_mib_per_sec or 0
  o.written_mib_per_sec = io.written_mib_per_sec or 0
  local function p99(name)
    local ty = r.types and r.types[name]
    return ty and ty.latency_ms.percentiles["99"] or json.null
  end
  o.read_p99_ms = p99("read")
  o.write_p99_ms = p99("write")
  return o
end

-- The workload steps' mode: given, or random writes (the usual SSD
-- preconditioning); it must write, or nothing would settle.
local function choose_workload(opt, steps)
  for _, st in ipairs(steps) do
    if st.kind == "workload" and opt.file_test_mode == "" then
      opt.file_test_mode = "rndwr"
      if opt.output == "text" then print("Workload: rndwr (no --file-test-mode given)") end
    end
    if st.kind == "workload" then
      lib.check_run(opt, opt.file_test_mode)
      if not lib.writes(opt.file_test_mode) then
        fail("workload preconditioning needs a workload that writes (--file-test-mode=rndwr, rndrw, seqwr, seqrewr)")
      end
    end
  end
end

-- One measured run with the options `over` on top of the command line.
-- Every run writes a new generation of the set, recorded first so that
-- verify knows what to expect even after a crash.
function Pre:run(over)
  local opt, m = self.opt, self.m
  m.generation = m.generation + 1
  manifest.save(self.t, m)
  over.warmup_time = 0
  over.rate = 0
  -- The runner's banner once, not once per round (it shows the same
  -- options every time); the live data points stay on (thread_init).
  if self.runs > 0 and opt.verbosity >= 3 then over.verbosity = 2; over.points_live = true end
  self.runs = self.runs + 1
  local r, failed, err = lbench.run(over)
  if failed then fail("precondition: %s", tostring(err)) end
  if r.status ~= "ok" then error(INTERRUPTED, 0) end
  return r
end

-- A workload-independent step: sequential passes over the whole set.
-- Returns the step's JSON object.
function Pre:seq_step(st)
  if self.text then
    print(string.format("Workload-independent preconditioning: sequential %s writes, %d pass%s over %s",
      lib.fmt_size(st.bs), st.passes, st.passes == 1 and "" or "es", lib.fmt_size(self.m.total_size)))
  end
  local r = self:run({ time = 0, events = 0, file_test_mode = "seqwr", bssplit = "", file_block_size = st.bs,
                       seq_passes = st.passes, file_fsync_freq = 0, random_distribution = "uniform" })
  local o = json.object()
  o.kind = "seq"
  o.block_size = st.bs
  o.passes = st.passes
  o.duration_s = r.duration_s
  o.written_mib_per_sec = r.io and r.io.written_mib_per_sec or 0
  if self.text then print(string.format("  done in %.1f s, %.1f MiB/s", o.duration_s, o.written_mib_per_sec)) end
  return o
end

-- The text line of workload round k.
function Pre:round_line(k, rs, ss)
  local opt = self.opt
  local tail = ""
  if k >= opt.steady_window then
    tail = string.format("  window: range %.1f %%, slope excursion %.1f %% -> %s", ss.range_pct,
      ss.excursion_pct, ss.steady and "steady" or "not steady")
  end
  print(string.format("  round %2d: %10.2f IOPS  read %8.2f MiB/s  written %8.2f MiB/s%s", k, rs.iops,
    rs.read_mib_per_sec, rs.written_mib_per_sec, tail))
end

-- The verdict of a workload step as its JSON object.
local function verdict_object(opt, nrounds, ss)
  local sv = json.object()
  sv.reached = ss.steady
  sv.rounds = nrounds
  sv.window = ss.window
  sv.avg_iops = ss.avg
  sv.min_iops = ss.min
  sv.max_iops = ss.max
  sv.range_pct = ss.range_pct
  sv.excursion_pct = ss.excursion_pct
  sv.range_limit_pct = opt.steady_range_pct
  sv.slope_limit_pct = opt.steady_slope_pct
  return sv
end

-- A workload step: rounds of --precondition-round-time until steady state
-- (or the step's fixed count).  Returns the step's JSON object and its
-- steady-state verdict.
function Pre:workload_step(st)
  local opt, text = self.opt, self.text
  local cap = st.rounds or opt.precondition_max_rounds
  if text then
    print(string.format("Workload-dependent preconditioning: %s rounds of %g s%s", opt.file_test_mode,
      opt.precondition_round_time, st.steady and string.format(" until steady state (at most %d)", cap) or ""))
  end
  local rows, ss = rounds.until_steady({
    max = cap, until_steady = st.steady,
    window = opt.steady_window, range_pct = opt.steady_range_pct, slope_pct = opt.steady_slope_pct,
    round = function(k)
      local rs = round_summary(k, self:run({ time = opt.precondition_round_time, events = 0 }))
      return rs.iops, rs
    end,
    after = text and function(k, rs, verdict) self:round_line(k, rs, verdict) end or nil,
  })
  local o = json.object()
  o.kind = "workload"
  o.mode = opt.file_test_mode
  o.round_time_s = opt.precondition_round_time
  o.rounds = rows
  local sv = verdict_object(opt, #rows, ss)
  o.steady_state = sv
  if text and ss.steady then
    print(string.format("Steady state reached after %d rounds (window of %d: avg %.2f IOPS, range %.1f %%, excursion %.1f %%)",
      #rows, ss.window, ss.avg, ss.range_pct, ss.excursion_pct))
  elseif text and st.steady then
    print(string.format("Steady state NOT reached within %d rounds", #rows))
  end
  return o, sv
end

-- The result document: the standard header, then what was done.
function Pre:document(status, stop_reason)
  local doc = lbench.result_header("precondition", self.started, status, stop_reason)
  local p = json.object()
  p.steps = self.steps
  if status == "interrupted" then
    p.rounds_run = self.runs
  else
    if self.verdict.reached ~= nil then p.steady_state = self.verdict end
    if self.points then p.report_every_ios = self.opt.report_every_ios; p.points = self.points end
  end
  doc.precondition = p
  return doc
end

-- A signal stopped a round: the result file says so (with the steps that
-- completed), the manifest keeps its previous preconditioning record.
function Pre:interrupted()
  if lbench.result_wanted() then lbench.write_result(self.opt.result_file, self:document("interrupted", "signal")) end
  fail("precondition interrupted in round %d: the set is partly preconditioned (its data is intact and verifiable); "
    .. "run precondition again", self.runs)
end

-- --output=csv: one table of rounds per step that has rounds, then the points.
function Pre:csv()
  local out = {}
  for _, st in ipairs(self.steps) do
    if st.rounds then
      local rows = { "round,duration_s,iops,reads_per_sec,writes_per_sec,read_mib_per_sec,written_mib_per_sec" }
      for _, r in ipairs(st.rounds) do
        rows[#rows + 1] = string.format("%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", r.round, r.duration_s, r.iops,
          r.reads_per_sec, r.writes_per_sec, r.read_mib_per_sec, r.written_mib_per_sec)
      end
      out[#out + 1] = table.concat(rows, "\n") .. "\n"
    end
  end
  if self.points then out[#out + 1] = "\n" .. points.csv(self.points) .. "\n" end
  return table.concat(out)
end

-- Every step in order; the last workload step's verdict is the command's.
function Pre:run_steps(plan)
  for _, st in ipairs(plan) do
    if st.kind == "seq" then
      self.steps[#self.steps + 1] = self:seq_step(st)
    else
      local o
      o, self.verdict = self:workload_step(st)
      self.steps[#self.steps + 1] = o
    end
  end
end

-- The precondition command.
function M.run(opt)
  lbench.check_result_path(opt.result_file)
  local t = manifest.target(opt)
  local self = setmetatable({ opt = opt, t = t, m = manifest.require(t), started = os.time(), runs = 0,
                              steps = json.array(), verdict = json.object(), text = opt.output == "text" }, Pre)
  manifest.check_device_write(t, opt, "precondition")
  local plan = lib.precondition_steps(opt.precondition)
  choose_workload(opt, plan)
  active = true
  local sh = points.open(t, opt.report_every_ios)
  local ok, e = pcall(self.run_steps, self, plan)
  active = false
  if not ok then
    if sh ~= nil then points.finish(sh, false) end
    if e ~= INTERRUPTED then error(e, 0) end
    self:interrupted()
  end
  if sh ~= nil then self.points = points.finish(sh, self.text and opt.verbosity >= 3) end
  local pc = json.object()
  pc.at = os.date("!%Y-%m-%dT%H:%M:%SZ", self.started)
  pc.spec = opt.precondition
  pc.steady_state = self.verdict.reached
  pc.rounds = self.verdict.rounds
  self.m.preconditioned = pc
  manifest.save(t, self.m)
  lbench.publish(self:document("ok"), { csv = function() return self:csv() end, file = opt.result_file })
end

return M
