-- The async side of a worker state: which virtual user (VU) is running,
-- and how library code (SQL, sleep) waits without blocking the thread.
--
-- In async mode (--connections) a worker thread serves many VUs, each a
-- Lua coroutine.  Code that would block (a query waiting for the server,
-- lbench.sleep) calls M.wait, which yields to the worker's scheduler
-- (lbench.worker); the scheduler arms the event loop (core/loop.c) for the
-- socket or the timer and resumes the VU when it is ready, with what
-- happened.  Outside a VU coroutine (thread mode, the main state, the
-- load of a script, a coroutine of the script's own) M.active() is false
-- and callers use the blocking calls instead.
local C = require("lbench.ffi").C

local co_running, co_yield = coroutine.running, coroutine.yield

local M = {
  current = nil,   -- the coroutine of the VU being resumed (set by the scheduler)
  slot = -1,       -- its slot in the worker's event loop
  hooks = nil,     -- its lbench.hooks (the SQL layer asks sql_error_ignorable)
  loop = nil,      -- the worker's lb_loop
  yields = 0,      -- waits so far (the scheduler's fairness check reads it)
  go = false,      -- the barrier's answer, read by VUs after M.park()
  -- Yield kinds understood by the scheduler.
  WAIT = 1, PASS = 2, PARK = 3, HOLD = 4,
  -- Wait masks (LB_LOOP_* = LB_DB_WAIT_*), and STOP: a sleep cut short
  -- because the run stops.
  READ = 1, WRITE = 2, TIMEOUT = 8, STOP = 16,
}

-- Raised by a sleep cut short by the end of the run: the event in
-- progress is abandoned (not recorded), as an event cut off by the
-- deadline watchdog is in thread mode.
M.STOPPED = setmetatable({ lbench_stopped = true }, {
  __tostring = function() return "the run stopped during lbench.sleep" end })

local band = require("bit").band

-- Is the running code a VU that may yield to the scheduler?
function M.active()
  local cur = M.current
  return cur ~= nil and co_running() == cur
end

-- Wait until `fd` (>= 0) is ready for `mask` or the monotonic time
-- `until_ns` (< 0: none) passes; returns what happened (LB_LOOP_* bits).
function M.wait(fd, mask, until_ns)
  M.yields = M.yields + 1
  return co_yield(M.WAIT, fd, mask, until_ns)
end

-- Sleep `ns` nanoseconds in the event loop.  Once the run is stopping a
-- sleep inside an event ends at once and abandons the event (M.STOPPED),
-- so that long think times neither hold up the end of the run nor record
-- events with cut-short latencies.
function M.sleep_ns(ns)
  local m = M.wait(-1, M.TIMEOUT, C.lb_clock_ns() + ns)
  if band(m, M.STOP) ~= 0 then error(M.STOPPED, 0) end
  return m
end

-- The running VU is about to close or replace its socket (disconnect,
-- reconnect): the event loop must stop watching that descriptor first.
function M.forget()
  if M.active() then C.lb_loop_forget(M.loop, M.slot) end
end

-- Let the other ready VUs run first (after an event that never waited).
function M.pass()
  return co_yield(M.PASS)
end

-- Wait at the start barrier; returns true when the run goes ahead.
function M.park()
  co_yield(M.PARK)
  return M.go
end

-- Done with events: wait until every user of this worker is, so that no
-- user closes its connection while another still has a query in flight
-- (closing thousands of them would hold up those queries' completion).
function M.hold()
  co_yield(M.HOLD)
end

return M
