-- Known answers for the figures over time: every event writes down when it
-- ended (the monotonic clock, once its work is done) and the first one
-- when it began, so that a test can count the true completions of every
-- interval and hold lbench's intervals, warm-up and phases against them
-- (ends_check.lua).  The event blocks in one of three ways: a C call that
-- blocks the thread (usleep through the FFI), lbench.sleep (a virtual
-- user yields meanwhile), or a server-side wait (SELECT SLEEP).
local ffi = require("ffi")
ffi.cdef [[int usleep(unsigned int usec);]]
lbench.cmdline.options = {
  kind = { "usleep (a blocking C call), sleep (lbench.sleep) or sql (SELECT SLEEP)", "usleep" },
  ms = { "how long one event blocks, ms", 30 },
  log = { "directory for the logs (one file per thread or virtual user)", "" },
}

local f, con, started
function thread_init(tid)
  local name = lbench.vu and string.format("%s/ends.%d.%d", lbench.opt.log, tid, lbench.vu)
    or string.format("%s/ends.%d", lbench.opt.log, tid)
  f = assert(io.open(name, "w"))
  if lbench.opt.kind == "sql" then con = lbench.sql.driver():connect() end
end

function event()
  if not started then
    started = true
    f:write("S ", lbench.clock.ns(), "\n")
  end
  local kind, ms = lbench.opt.kind, lbench.opt.ms
  if kind == "usleep" then
    ffi.C.usleep(ms * 1000)
  elseif kind == "sleep" then
    lbench.sleep(ms)
  else
    con:query(string.format("SELECT SLEEP(%g)", ms / 1000))
  end
  f:write(lbench.clock.ns(), "\n")
end

function thread_done()
  f:close()
  if con then con:disconnect() end
end
