-- sysbench 0.5's sb_rand_uniq(a, b): 1000 draws, printed one a line.
sysbench.cmdline.options = { lo = { "lower bound", 1 }, hi = { "upper bound", 1000 } }
function event()
  for _ = 1, 1000 do print(string.format("%d", sb_rand_uniq(sysbench.opt.lo, sysbench.opt.hi))) end
end
