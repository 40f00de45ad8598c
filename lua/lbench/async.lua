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
  loop = nil,      -- the worker's lb_loop
  yields = 0,      -- waits so far (the scheduler's fairness check reads it)
  go = false,      -- the barrier's answer, read by VUs after M.park()
  -- Yield kinds understood by the scheduler.
  WAIT = 1, PASS = 2, PARK = 3,
  -- Wait masks (LB_LOOP_* = LB_DB_WAIT_*).
  READ = 1, WRITE = 2, TIMEOUT = 8,
}

-- Is the running code a VU that may yield to the scheduler?
function M.active()
  local cur = M.current
  return cur ~= nil and co_running() == cur
end

-- Wait until `fd` (>= 0) is ready for `mask` or the monotonic time
-- `until_ns` (< 0: none) passes; returns what happened (LB_LOOP_* bits).
function M.wait(fd, mask, until_ns)
  M.yields = M.yields + 1
  return co_yield(1, fd, mask, until_ns)
end

-- Sleep `ns` nanoseconds in the event loop.  Returns early once the run
-- is stopping, so that a long think time does not hold up the end.
function M.sleep_ns(ns)
  return M.wait(-1, 8, C.lb_clock_ns() + ns)
end

-- The running VU is about to close or replace its socket (disconnect,
-- reconnect): the event loop must stop watching that descriptor first.
function M.forget()
  if M.active() then C.lb_loop_forget(M.loop, M.slot) end
end

-- Let the other ready VUs run first (after an event that never waited).
function M.pass()
  return co_yield(2)
end

-- Wait at the start barrier; returns true when the run goes ahead.
function M.park()
  co_yield(3)
  return M.go
end

return M
