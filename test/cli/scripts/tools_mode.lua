-- Fixture of the tools suite: events are attributed to a type named after
-- --mode, so a sweep over --option mode=... shows which value each point ran.
lbench.cmdline.options = {
  mode = { "event type name", "a" },
  ms = { "sleep per event, ms (0: none)", 0 },
}
local T
function thread_init() T = lbench.stat.type(lbench.opt.mode) end
function event()
  lbench.stat.event(T)
  if lbench.opt.ms > 0 then lbench.sleep(lbench.opt.ms) end
end
