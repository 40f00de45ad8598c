-- A progress line for a long job that the main state runs itself (one
-- thread, no workers): "  4 MiB of 16 MiB (25 %), 12.3 MiB/s, ETA 1s",
-- printed at most once a second and only when stdout is a terminal, so a
-- log or a pipe stays free of it.  A parallel command's workers report
-- through lbench.progress instead (run/runner.lua draws that bar); this is the
-- same idea for a loop that knows its own count.
local C = require("lbench.ffi").C

local M = {}

local Meter = {}
Meter.__index = Meter

-- One line a second is readable and costs nothing next to the job.
local EVERY_S = 1

-- A meter for a job of `o.total` (bytes unless said otherwise):
--   o.show    print at all (default: when stdout is a terminal); callers add
--             their own conditions (verbosity, text output) with `and`
--   o.amount  function formatting an amount for the line (default %d)
--   o.scale, o.rate_unit  the rate is amount/s divided by scale, shown with
--             this unit (default 1048576 and "MiB/s")
--   o.now     the job's start (clock seconds; default now)
function M.meter(o)
  local show = o.show
  if show == nil then show = C.lb_runtime_isatty() ~= 0 end
  local t0 = o.now or C.lb_clock_now()
  return setmetatable({ total = o.total, show = show, t0 = t0, last = t0,
                        amount = o.amount or function(n) return string.format("%d", n) end,
                        scale = o.scale or 1048576, rate_unit = o.rate_unit or "MiB/s" }, Meter)
end

-- The line for `done` of the total at clock time `now`.
function Meter:line(done, now)
  local rate = done / math.max(now - self.t0, 1e-9)
  return string.format("  %s of %s (%.0f %%), %.1f %s, ETA %ds", self.amount(done), self.amount(self.total),
    done / self.total * 100, rate / self.scale, self.rate_unit,
    math.floor((self.total - done) / math.max(rate, 1) + 0.5))
end

-- `done` so far at clock time `now` (default: now): prints when a second
-- has passed since the last line.
function Meter:update(done, now)
  if not self.show then return end
  now = now or C.lb_clock_now()
  if now - self.last >= EVERY_S then
    self.last = now
    print(self:line(done, now))
  end
end

-- The job ended with `done`: the last line, whatever the time since the
-- previous one (so a terminal always shows where it ended).
function Meter:finish(done)
  if self.show then print(self:line(done, C.lb_clock_now())) end
end

return M
