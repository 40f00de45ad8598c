-- sysbench's report functions on fixed stats (no run): what a script's
-- report hooks print, for comparison with sysbench's own output.
local stats = {
  { time_total = 1, time_interval = 1, threads_running = 4, events = 1234, reads = 17276, writes = 4936,
    other = 2468, latency_pct = 0.00845, errors = 3, reconnects = 1 },
  { time_total = 2.0004, time_interval = 0.5, threads_running = 2, events = 10, reads = 0, writes = 0,
    other = 0, latency_pct = 0, errors = 0, reconnects = 0 },
}

local function each(fn) for _, st in ipairs(stats) do fn(st) end end

sysbench.cmdline.commands = {
  json = {function() each(sysbench.report_json) end},
  csv = {function() each(sysbench.report_csv) end},
  default = {function() each(sysbench.report_default) end},
}

function event() end
