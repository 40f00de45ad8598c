-- sysbench's report functions in its formats: report_default, report_csv
-- and report_json, which a script may call or install as its hooks.  Every
-- state, worker threads' too, adds them to its scenario API, so this file
-- needs nothing of the result document (result/render.lua).
local C = require("lbench.ffi").C

local M = {}

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end

-- sysbench's report functions that a script may call or install as its
-- hooks (lbench.report_default, report_csv, report_json), added to the
-- scenario API of every state (api/base.lua's ctx.extend_api).
function M.add_hooks(lb, ctx)
  lb.report_default = function(stat_) M.hook_default(ctx.rt, stat_, ctx.opt) end
  lb.report_csv = function(stat_) M.hook_csv(ctx.rt, stat_) end
  lb.report_json = function(stat_) M.hook_json(ctx.rt, stat_) end
end

-- sysbench's report_default and report_csv, in its formats (a script that
-- calls them gets the lines sysbench prints for the same stat).
function M.hook_default(rt, stat, opt)
  local secs = stat.time_interval > 0 and stat.time_interval or 1
  out(rt, string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%u%%): %4.2f "
    .. "err/s %4.2f reconn/s: %4.2f\n", stat.time_total, stat.threads_running, stat.events / secs,
    (stat.reads + stat.writes + stat.other) / secs, stat.reads / secs, stat.writes / secs, stat.other / secs,
    (opt and opt.percentile) or stat.percentile or 95, (stat.latency_pct or 0) * 1000, stat.errors / secs,
    stat.reconnects / secs))
end

function M.hook_csv(rt, stat)
  local secs = stat.time_interval > 0 and stat.time_interval or 1
  out(rt, string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f\n", stat.time_total,
    stat.threads_running, stat.events / secs, (stat.reads + stat.writes + stat.other) / secs, stat.reads / secs,
    stat.writes / secs, stat.other / secs, (stat.latency_pct or 0) * 1000, stat.errors / secs, stat.reconnects / secs))
end

-- sysbench's report_json: the reports of one series (the intervals of a
-- run, or the final report) form one JSON array, "[" before the first,
-- "," between, and "]" once the series is over (json_close).  The numbers
-- are sysbench's: events and queries per second, the percentile latency
-- in ms, errors and reconnects per second.
local json_open = false

function M.hook_json(rt, stat)
  out(rt, json_open and ",\n" or "[\n")
  json_open = true
  local secs = stat.time_interval > 0 and stat.time_interval or 1
  out(rt, string.format('  {\n    "time": %4.0f,\n    "threads": %d,\n    "tps": %4.2f,\n    "qps": {\n'
    .. '      "total": %4.2f,\n      "reads": %4.2f,\n      "writes": %4.2f,\n      "other": %4.2f\n    },\n'
    .. '    "latency": %4.2f,\n    "errors": %4.2f,\n    "reconnects": %4.2f\n  }',
    stat.time_total, stat.threads_running, stat.events / secs, (stat.reads + stat.writes + stat.other) / secs,
    stat.reads / secs, stat.writes / secs, stat.other / secs, (stat.latency_pct or 0) * 1000, stat.errors / secs,
    stat.reconnects / secs))
end

-- End the series report_json is writing, if any.
function M.json_close(rt)
  if json_open then out(rt, "\n]\n") end
  json_open = false
end

return M
