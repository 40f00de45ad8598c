function event() end
function sysbench.hooks.report_intermediate(stat)
  print(string.format("HOOK interval events=%d", stat.events))
end
function sysbench.hooks.report_cumulative(stat)
  print(string.format("HOOK total events=%d", stat.events))
end
