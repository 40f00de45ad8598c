-- Rounds until steady state: repeat a measured run, one figure per round
-- (IOPS, tps), until the last `window` rounds are steady or a cap is
-- reached.  A device or a server that is still settling (an SSD's garbage
-- collection, a cold buffer pool) gives numbers that describe nothing;
-- SNIA's PTS measures only once the figure stops moving.  fileio's
-- precondition drives this; any scenario with a warm-up it cannot size in
-- advance can do the same from a custom command with lbench.run{...}.
--
-- The arithmetic is the core's (core/io/steady.c, lb_io_steady_state), so
-- C tests and Lua callers apply one rule.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")

local M = {}

-- The core symbol, or nil in a core built without it (then asking for the
-- test fails with a clear message instead of an FFI error).
local function core_rule()
  local ok, f = pcall(function() return C.lb_io_steady_state end)
  return ok and f or nil
end

-- The steady-state test over `series` (numbers, oldest first): the last
-- `window` values are steady when max - min <= range_pct of their average
-- and the least-squares line moves <= slope_pct of it across the window
-- (SNIA PTS: window 5, 20 %, 10 %).  Returns { steady, window, avg, min,
-- max, range_pct, slope, excursion_pct }.
function M.steady(series, window, range_pct, slope_pct)
  local rule = core_rule()
  if not rule then util.fail("the steady-state test needs the core's lb_io_steady_state (core/io/steady.c)") end
  local n = #series
  local y = ffi.new("double[?]", math.max(n, 1))
  for i, v in ipairs(series) do y[i - 1] = v end
  local s = ffi.new("lb_io_steady")
  rule(y, n, window, range_pct, slope_pct, s)
  -- With fewer rounds than the window nothing was measured: null, not the
  -- zeros the C side leaves (an average of 0 IOPS would read as a result).
  local function v(x) return n >= s.window and x or json.null end
  return { steady = s.steady == 1, window = s.window, avg = v(s.avg), min = v(s.min), max = v(s.max),
           range_pct = v(s.range_pct), slope = v(s.slope), excursion_pct = v(s.excursion_pct) }
end

-- Run rounds.  o = {
--   round = function(k) -> figure, row   run round k (1, 2, ...) and return
--                                        the figure the test watches and
--                                        what to keep of the round
--   max = N                              at most this many rounds
--   until_steady = bool                  stop at the first steady window
--                                        (false: always `max` rounds)
--   window, range_pct, slope_pct         the rule, as in M.steady
--   after = function(k, row, verdict)    optional, after every round (a
--                                        progress line) }
-- Returns the rows (a JSON array, oldest first) and the verdict after the
-- last round.  An error in `round` (an interrupted run) goes to the caller.
function M.until_steady(o)
  local rows, series, verdict = json.array(), {}, nil
  for k = 1, o.max do
    local figure, row = o.round(k)
    rows[k] = row
    series[k] = figure
    verdict = M.steady(series, o.window, o.range_pct, o.slope_pct)
    if o.after then o.after(k, row, verdict) end
    if o.until_steady and verdict.steady then break end
  end
  return rows, verdict
end

return M
