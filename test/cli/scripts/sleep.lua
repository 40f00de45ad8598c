-- Each event sleeps a fixed time: latencies have a known lower bound.
lbench.cmdline.options = { ms = { "sleep per event, ms", 2 } }
function event() lbench.sleep(lbench.opt.ms) end
