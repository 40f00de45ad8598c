-- One line per event, and the options as the script sees them.
sysbench.cmdline.options = { rows = { "a number the help lists", 10 } }
function init()
  print("threads " .. sysbench.opt.threads)
  print("rate " .. tostring(sysbench.opt.rate))
end
function event() print("event") end
