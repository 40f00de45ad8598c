-- mutex: sysbench's mutex test.  Each thread runs one event: --mutex-locks
-- times it spins --mutex-loops empty iterations, then increments a shared
-- counter under one of --mutex-num mutexes chosen at random (each mutex on
-- cache lines of its own).  The figure is the time the threads take.  The
-- loop is C (core/kern.c).
--
--   lbench mutex --mutex-num=4096 --mutex-locks=50000 --mutex-loops=10000 --threads=8 run
local ffi = require("ffi")
local C = require("lbench.ffi").C

-- A CPU test: the supervising thread wakes 4 times a second, not 100 (docs/scenarios.md).
lbench.supervisor_tick_ms = 250

lbench.cmdline.options = {
  ["mutex-num"] = { "total size of mutex array", 4096, order = 1 },
  ["mutex-locks"] = { "number of mutex locks to do per thread", 50000, order = 2 },
  ["mutex-loops"] = { "number of empty loops to do outside mutex lock", 10000, order = 3 },
}

local KEY = "lbench.mutex"

local function settings()
  local o = lbench.opt
  for _, n in ipairs({ "mutex_num", "mutex_locks", "mutex_loops" }) do
    if o[n] < (n == "mutex_num" and 1 or 0) or o[n] > 0x7fffffff then
      error({ lbench_message = string.format("Invalid value for %s: %d", n:gsub("_", "-"), o[n]) }, 0)
    end
  end
  return o.mutex_num, o.mutex_locks, o.mutex_loops
end

local S = {}   -- main state: the mutexes of the current run

function init()
  local num = settings()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end   -- left by a failed run
  local err = ffi.new("char[256]")
  S.k = C.lb_kern_open(KEY, num, 1, 0, 0, 0, err, 256)
  if S.k == nil then error({ lbench_message = ffi.string(err) }, 0) end
end

function done()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end
end

local W, k, R, locks, loops, ran

function thread_init()
  local _
  _, locks, loops = settings()
  W = lbench.worker_ptr()
  R = C.lb_worker_rand(W)
  k = C.lb_kern_lookup(KEY)
  ran = false
end

-- One event per thread, as in sysbench.
function event()
  if ran then
    C.lb_worker_ev_skip(W)
    return true
  end
  ran = true
  C.lb_kern_mutex(k, locks, loops, R)
end

lbench.hooks.run_header = function()
  if lbench.opt.sysbench_compat and lbench.opt.verbosity < 4 then return nil end
  return "Doing mutex performance test\n"
end
