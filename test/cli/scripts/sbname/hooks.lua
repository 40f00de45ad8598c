-- Report hooks: one line per call, with the threads still running.
function event() end
function sysbench.hooks.report_intermediate(stat) print("intermediate " .. stat.threads_running) end
function sysbench.hooks.report_cumulative(stat) print("cumulative " .. stat.threads_running) end
