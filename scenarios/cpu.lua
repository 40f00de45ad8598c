-- cpu: sysbench's CPU test.  Each event counts the primes below
-- --cpu-max-prime by trial division up to the square root, in 64-bit
-- integers (the loop is C: core/kern.c), as sysbench's cpu test does; its
-- figure is events per second.
--
--   lbench cpu --cpu-max-prime=20000 --threads=4 --time=10 run
--   sysbench cpu --cpu-max-prime=20000 --threads=4 --time=10 run   (lbench as `sysbench`)
local C = require("lbench.ffi").C

-- Declared with sysbench's names: its help lists them so.
-- A CPU test: the supervising thread wakes 4 times a second, not 100 (docs/scenarios.md).
lbench.supervisor_tick_ms = 250

lbench.cmdline.options = {
  ["cpu-max-prime"] = { "upper limit for primes generator", 10000 },
}

local function limit()
  local n = lbench.opt.cpu_max_prime
  if n <= 0 or n > 0xffffffff then
    error({ lbench_message = string.format("Invalid value of cpu-max-prime: %d.", n) }, 0)
  end
  return n
end

function init() limit() end

local max

function thread_init() max = limit() end

function event() C.lb_kern_cpu_event(max) end

lbench.hooks.run_header = function()
  return string.format("Prime numbers limit: %d\n\n", limit())
end

-- sysbench's cpu test prints its speed before the report.
lbench.hooks.report_head = function(r)
  local secs = r.interval_s or r.duration_s   -- a checkpoint's period, or the run
  secs = secs > 0 and secs or 1
  return string.format("CPU speed:\n    events per second: %8.2f\n", r.totals.events / secs)
end

-- Under lbench's name: what an event computes, after lbench's report.
lbench.hooks.report_extra = function(_, fmt)
  if fmt ~= "text" then return nil end
  return string.format("CPU: %d primes below %d per event\n", tonumber(C.lb_kern_primes(limit())), limit())
end
