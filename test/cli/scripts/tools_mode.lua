-- Fixture of the tools suite: events are attributed to a type named after
-- --mode, so a sweep over --option mode=... shows which value each point ran.
lbench.cmdline.options = {
  mode = { "event type name", "a" },
  ms = { "sleep per event, ms (0: none)", 0 },
  fail = { "raise an error in event() when --mode has this value", "" },
}
local T
function thread_init() T = lbench.stat.type(lbench.opt.mode) end
function event()
  lbench.stat.event(T)
  if lbench.opt.mode == lbench.opt.fail then error("failing on purpose in mode " .. lbench.opt.mode) end
  if lbench.opt.ms > 0 then lbench.sleep(lbench.opt.ms) end
end
