-- Fresh data for every point of a sweep (`lbench sweep --prepare-each`,
-- `--precondition-each`): before each point, cleanup, prepare with the
-- point's options and, where asked, precondition; then what the point runs
-- on (the scenario's lbench.hooks.loaded_size) is recorded in its result
-- document and its row of the sweep table.  This is how a throughput
-- against fill level (fileio --fill), table size (OLTP) or warehouse count
-- (TPC-C) curve is measured: every point on data made for it, none on data
-- that the previous point's writes aged.
--
-- Cleanup runs with the options that made the data there (the previous
-- point's; the first point's own before it), so that a sweep from 8
-- tables to 2 drops all 8.  After the last point nothing is removed: its
-- data stays for inspection or another run, and the sweep says so.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local session = require("lbench.run.session")
local job = require("lbench.run.job")
local datasize = require("lbench.db.datasize")

local M = {}

-- The sweep's own flags of this module: name -> takes a number.
M.flags = { ["prepare-each"] = false, ["precondition-each"] = false, ["prepare-threads"] = true }

-- A flag's value: bare (on) or on/off and its spellings.
function M.flag_value(flag, value)
  if not M.flags[flag] then
    if value == nil then return true end
    local v = tostring(value):lower()
    if v == "on" or v == "true" or v == "1" or v == "yes" then return true end
    if v == "off" or v == "false" or v == "0" or v == "no" then return false end
    util.fail("--%s=%s: expected on or off", flag, tostring(value))
  end
  local n = tonumber(value)
  if not n or n < 1 or n ~= math.floor(n) then util.fail("--%s=%s: expected a thread count >= 1", flag, tostring(value)) end
  return n
end

-- Raised out of a step that a signal stopped.
local INTERRUPTED = setmetatable({}, { __tostring = function() return "interrupted" end })

local Data = {}
Data.__index = Data

-- The data steps of a sweep, or nil when it asked for none.  `sweep` is
-- the sweep (its runtime, scenario path and argv, raw_for, say, output).
function M.new(sweep, set)
  local prepare, precondition = set["prepare-each"] or false, set["precondition-each"] or false
  if not prepare and not precondition then
    if set["prepare-threads"] then util.fail("--prepare-threads needs --prepare-each") end
    return nil
  end
  return setmetatable({ sweep = sweep, rt = sweep.rt, prepare = prepare, precondition = precondition,
                        prepare_threads = set["prepare-threads"] }, Data)
end

-- Refuse what the scenario cannot do, once it is loaded (as `lb`).
function Data:check(lb, name)
  local function has(cmd) return type((session.command_of(lb, cmd))) == "function" end
  if self.prepare and not has("prepare") then
    util.fail("--prepare-each: %s has no prepare command, so there is no data to make before each point", name)
  end
  if self.precondition and not has("precondition") then
    util.fail("--precondition-each: %s has no precondition command (fileio has one)", name)
  end
  self.has_cleanup = has("cleanup")
end

-- What the banner adds: the steps before each point.
function Data:describe()
  local steps = {}
  if self.prepare then
    if self.has_cleanup then steps[#steps + 1] = "cleanup" end
    steps[#steps + 1] = "prepare"
  end
  if self.precondition then steps[#steps + 1] = "precondition" end
  return table.concat(steps, ", ") .. " before each point" ..
    (self.prepare_threads and string.format(" (prepare with %d thread(s))", self.prepare_threads) or "")
end

-- The sweep document's record of the steps.
function Data:document(sw)
  sw.prepare_each = self.prepare
  sw.precondition_each = self.precondition
  if self.prepare then
    sw.data_left = "the last point's data is left in place: no cleanup after the sweep"
  end
end

-- The options of a step for `point`: the point's, with the result going
-- nowhere (the sweep's document records the step) and the step's own
-- lines as text.
function Data:raw_for(point, cmd)
  local raw = self.sweep:raw_for(point)
  raw.history = ""
  raw.output = "text"
  if self.prepare_threads and (cmd == "prepare" or cmd == "cleanup") then
    raw.threads = tostring(self.prepare_threads)
  end
  return raw
end

-- Run `fn`, with print() going to stderr when the sweep's own output is a
-- document on stdout (JSON, CSV).  (lbench.run inside a step, as fileio's
-- precondition rounds, copies the options, _print_to_stderr included.)
function Data:quietly(fn)
  if self.sweep.text then return fn() end
  local saved = rawget(_G, "print")
  rawset(_G, "print", util.stderr_print)
  local ok, e = pcall(fn)
  rawset(_G, "print", saved)
  if not ok then error(e, 0) end
end

-- Command `cmd` of the scenario, loaded afresh with `raw`, as `lbench
-- <scenario> <cmd>` would run it; returns its seconds and the loaded API
-- table.  Raises INTERRUPTED when a signal stopped it, its error when it
-- failed.
function Data:command(cmd, raw)
  local sw = self.sweep
  local ctx, lb = session.setup(self.rt, sw.path, raw, cmd, sw.scen_argv)
  -- The workers of a parallel step print to stderr too.
  if not sw.text then ctx.opt._print_to_stderr = true end
  local fn, parallel = session.command_of(lb, cmd)
  local t0 = C.lb_clock_now()
  local ok, e = pcall(self.quietly, self, function()
    if parallel then
      -- lbench-mpi: on every rank (cluster/transport.lua).
      local done, err = job.lead_parallel(ctx)
      if not done and err ~= "interrupted" then error(err, 0) end
    else
      fn()
    end
  end)
  if C.lb_runtime_stop_requested(self.rt) ~= 0 then
    self.stop_detail = not ok and (util.is_usage_error(e) and e.lbench_message or tostring(e)) or nil
    error(INTERRUPTED, 0)
  end
  if not ok then error(e, 0) end
  return C.lb_clock_now() - t0, lb
end

-- Figures of what was loaded, from the scenario's hook (nil without one);
-- a measurement that fails is a note, never the end of the sweep.
function Data:measure(lb)
  local hook = lb.hooks.loaded_size
  if type(hook) ~= "function" then return nil end
  local ok, t = pcall(hook)
  if not ok then
    self.sweep.say(string.format("  note: the loaded size could not be measured: %s\n",
      util.is_usage_error(t) and t.lbench_message or tostring(t)))
    return nil
  end
  if type(t) ~= "table" then return nil end
  local o = json.object()
  for _, k in ipairs(util.sorted_keys(t)) do o[k] = t[k] end
  return o
end

-- The steps of point `point`, in order; returns the point's record
-- ({ cleanup_s, prepare_s, precondition_s, loaded }).
function Data:steps(point, lbl)
  local say, rec, lb = self.sweep.say, json.object(), nil
  local function step(cmd, raw)
    self.step_name = cmd
    say(string.format("  %s\n", cmd))
    rec[cmd .. "_s"], lb = self:command(cmd, raw)
  end
  if self.prepare then
    if self.has_cleanup then step("cleanup", self.made_with or self:raw_for(point, "cleanup")) end
    -- From here on the data there is this point's, complete or not.
    self.made_with, self.made_label = self:raw_for(point, "cleanup"), lbl
    step("prepare", self:raw_for(point, "prepare"))
  end
  if self.precondition then step("precondition", self:raw_for(point, "precondition")) end
  rec.loaded = self:measure(lb)
  local took = {}
  for _, cmd in ipairs({ "cleanup", "prepare", "precondition" }) do
    if rec[cmd .. "_s"] then took[#took + 1] = string.format("%s %.1f s", cmd, rec[cmd .. "_s"]) end
  end
  say(string.format("  %s%s\n", rec.loaded and ("loaded: " .. datasize.text(rec.loaded) .. "; ") or "",
    table.concat(took, ", ")))
  return rec
end

-- Make the data of `point` (labelled `lbl`).  Returns its record; or nil,
-- "interrupted" or "error", and what happened ("the prepare was
-- interrupted: ...", "the prepare failed: ...").
function Data:before_point(point, lbl)
  self.step_name, self.stop_detail = nil, nil
  local ok, r = pcall(self.steps, self, point, lbl)
  if ok then return r end
  self.failed_in = self.step_name or "preparation"
  if r == INTERRUPTED then
    return nil, "interrupted", string.format("the %s was interrupted%s", self.failed_in,
      self.stop_detail and (": " .. self.stop_detail) or "")
  end
  return nil, "error", string.format("the %s failed: %s", self.failed_in,
    util.is_usage_error(r) and r.lbench_message or tostring(r))
end

-- The last line of a sweep that made data: what it leaves behind (a
-- cleanup or prepare cut short leaves it incomplete, a precondition cut
-- short leaves it partly preconditioned).
function Data:closing()
  if not self.prepare or not self.made_with then return nil end
  local state = ""
  if self.failed_in == "cleanup" or self.failed_in == "prepare" then state = ", incomplete"
  elseif self.failed_in == "precondition" then state = ", partly preconditioned" end
  return string.format("The data of the last point prepared (%s%s) is left in place; remove it with 'lbench %s ... " ..
    "cleanup' and that point's options.\n", self.made_label, state, self.sweep.scenario_arg)
end

return M
