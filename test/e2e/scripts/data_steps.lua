-- A scenario whose data steps say what they were given: prepare and
-- cleanup append "<command> <size> threads=<threads>" to --log; prepare
-- waits for a signal when --size equals --wait-at (the sweep's
-- SIGINT-in-prepare test) and fails when it equals --fail-at.  The loaded
-- size is --size rows.  No precondition command.
local C = require("lbench.ffi").C
lbench.cmdline.options = {
  size = { "rows prepare makes", 1 },
  wait_at = { "prepare waits for a signal at this --size (0: never)", 0 },
  fail_at = { "prepare fails at this --size (0: never)", 0 },
  log = { "file the data steps append to", "" },
}
local opt = lbench.opt

local function note(what)
  local f = assert(io.open(opt.log, "a"))
  f:write(what, " ", opt.size, " threads=", opt.threads, "\n")
  f:close()
end

function prepare()
  note("prepare")
  if opt.size == opt.fail_at then error("failing on purpose at size " .. opt.size, 0) end
  if opt.size == opt.wait_at then
    print("prepare: waiting for a signal")
    io.stdout:flush()
    while not lbench.should_stop() do C.lb_clock_sleep_ns(10e6) end
    print("prepare interrupted")
  end
end

function cleanup() note("cleanup") end

function event() end

lbench.hooks.loaded_size = function() return { rows = opt.size } end
