-- threads: sysbench's threads test, the scheduler under lock contention.
-- Each event takes the next of --thread-locks mutexes in turn (one counter
-- shared by the threads) and --thread-yields times locks it, yields the
-- CPU and unlocks it.  The loop is C (core/kern.c).
--
--   lbench threads --thread-yields=1000 --thread-locks=8 --threads=16 --time=10 run
local ffi = require("ffi")
local C = require("lbench.ffi").C

-- A CPU test: the supervising thread wakes 4 times a second, not 100 (docs/scenarios.md).
lbench.supervisor_tick_ms = 250

lbench.cmdline.options = {
  ["thread-yields"] = { "number of yields to do per request", 1000, order = 1 },
  ["thread-locks"] = { "number of locks per thread", 8, order = 2 },
}

local KEY = "lbench.threads"

local function settings()
  local o = lbench.opt
  for _, n in ipairs({ "thread_yields", "thread_locks" }) do
    if o[n] < (n == "thread_locks" and 1 or 0) or o[n] > 0x7fffffff then
      error({ lbench_message = string.format("Invalid value for %s: %d", n:gsub("_", "-"), o[n]) }, 0)
    end
  end
  return o.thread_yields, o.thread_locks
end

local S = {}   -- main state: the mutexes of the current run

function init()
  local _, locks = settings()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end   -- left by a failed run
  local err = ffi.new("char[256]")
  S.k = C.lb_kern_open(KEY, locks, 0, 0, 0, 0, err, 256)
  if S.k == nil then error({ lbench_message = ffi.string(err) }, 0) end
end

function done()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end
end

local k, yields

function thread_init()
  yields = settings()
  k = C.lb_kern_lookup(KEY)
end

function event() C.lb_kern_threads(k, yields) end

-- sysbench prints its mode at --verbosity=4 and above; lbench always.
lbench.hooks.run_header = function()
  if lbench.opt.sysbench_compat and lbench.opt.verbosity < 4 then return nil end
  local yields_, locks = settings()
  return string.format("Doing thread subsystem performance test\nThread yields per test: %d Locks used: %d\n",
    yields_, locks)
end
