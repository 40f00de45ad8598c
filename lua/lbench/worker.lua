-- A worker thread's Lua side: loads the scenario into this thread's own
-- state, meets the start barrier, and runs the event loop or a parallel
-- command.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local api = require("lbench.api")
local scenario = require("lbench.scenario")

local M = {}

-- The event loop.  One pcall around the whole loop (not one per event):
-- an error that restarts the event (ignored SQL errors) leaves the loop,
-- is counted, and the loop is entered again with `resumed` set so the
-- same event is retried with its original start time.  One FFI call per
-- event: lb_ev_next records the previous event and starts the next.
local function event_loop(W, event, tid, resumed)
  if resumed and event(tid) then
    C.lb_ev_end(W)
    return
  end
  while C.lb_ev_next(W) ~= 0 do
    if event(tid) then
      C.lb_ev_end(W)
      return
    end
  end
end

local function run_events(W, lb, tid)
  local event = scenario.fn("event")
  if not event then error("the scenario does not define event()", 0) end
  local resumed = false
  while true do
    local ok, err = pcall(event_loop, W, event, tid, resumed)
    if ok then return end
    if api.is_restart(err) then
      C.lb_ev_restart(W)
      local hook = lb.hooks.before_restart_event
      if hook then hook(err) end
      resumed = true
    elseif C.lb_worker_should_stop(W) ~= 0 then
      -- The run was stopping (deadline or signal) and the in-flight
      -- event was abandoned, e.g. a hung query cut off at the deadline.
      return
    else
      error(err, 0)
    end
  end
end

local function traceback(e)
  if type(e) == "table" and e.lbench_message then return e.lbench_message end
  return debug.traceback(tostring(e), 2)
end

function M.main(wptr, boot, rtptr)
  local W = ffi.cast("lb_worker *", wptr)
  local cfg = assert(loadstring(boot, "=boot"))()
  local tid = C.lb_worker_tid(W)
  local ctx = { rt = ffi.cast("lb_runtime *", rtptr), W = W, tid = tid, opt = cfg.opt,
                command = cfg.command, script = cfg.script, argv = cfg.argv }
  local ok, err = xpcall(function()
    local lb = scenario.load(cfg.script, ctx)
    if cfg.mode == "command" then
      local fn = lb.cmdline.commands[cfg.command]
      fn = type(fn) == "table" and fn[1] or fn
      if C.lb_worker_ready(W) ~= 0 then fn(tid) end
      return
    end
    local thread_init = scenario.fn("thread_init")
    if thread_init then thread_init(tid) end
    if C.lb_worker_ready(W) ~= 0 then run_events(W, lb, tid) end
    local thread_done = scenario.fn("thread_done")
    if thread_done then thread_done(tid) end
  end, traceback)
  if not ok then
    C.lb_worker_fail(W, tostring(err))
    -- Meet the barrier anyway so the main thread is not left waiting.
    C.lb_worker_ready(W)
  end
end

return M
