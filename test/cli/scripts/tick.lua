-- How often the supervising thread wakes during a run: lbench.supervisor_tick_ms
-- (--tick, 0: not set) and the main thread's voluntary context switches over
-- the run, read in init() and done() (both run on the main thread).
lbench.cmdline.options = { tick = { "lbench.supervisor_tick_ms (0: leave it unset)", 0 } }

local function switches()
  local f = assert(io.open("/proc/thread-self/status"))
  local n = tonumber(f:read("*a"):match("\nvoluntary_ctxt_switches:%s*(%d+)"))
  f:close()
  return n
end

local before
function init()
  if lbench.opt.tick ~= 0 then lbench.supervisor_tick_ms = lbench.opt.tick end
  before = switches()
end
function done() print("supervisor wake-ups: " .. (switches() - before)) end
function event() lbench.sleep(1) end
