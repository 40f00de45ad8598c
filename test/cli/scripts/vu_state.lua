-- Async mode keeps scenario state per virtual user: globals set in
-- thread_init (as sysbench scripts do) and module-level locals of a
-- required module (as lbench's oltp scenarios do), across yields.
local mod = require("vu_mod")
lbench.cmdline.options = { ms = { "sleep per event, ms", 1 } }

function thread_init(tid)
  my_vu = lbench.vu
  mod.set(lbench.vu)
  if sysbench.vu ~= lbench.vu or lbench.tid ~= tid then error("lbench/sysbench tables differ") end
  lbench.sleep(1)
end

function event(tid)
  if my_vu ~= lbench.vu then error(string.format("global shared: %s vs %s", tostring(my_vu), tostring(lbench.vu))) end
  if mod.get() ~= lbench.vu then error("module state shared between virtual users") end
  lbench.sleep(lbench.opt.ms)
  if my_vu ~= lbench.vu or mod.get() ~= lbench.vu then error("state changed across a yield") end
end

function thread_done()
  print("done vu " .. lbench.vu)
end
