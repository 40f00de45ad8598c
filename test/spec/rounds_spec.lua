-- Specs of lbench.rounds (rounds until steady state) and lbench.progress
-- (the single-threaded progress line), run under lbench's own runtime.
local json = require("lbench.json")
local rounds = require("lbench.run.rounds")
local progress = require("lbench.run.progress")

describe("lbench.run.rounds", function()
  local function series_runner(values)
    return function(k) return values[k], { round = k, v = values[k] } end
  end

  it("stops at the first steady window", function()
    local rows, v = rounds.until_steady({ max = 10, until_steady = true, window = 5, range_pct = 20, slope_pct = 10,
      round = series_runner({ 50, 200, 100, 101, 99, 100, 100, 100, 100, 100 }) })
    assert.is_true(v.steady)
    assert.are.equal(7, #rows)
    assert.are.equal(7, rows[7].round)
    assert.are.equal(5, v.window)
    assert.is_true(math.abs(v.avg - 100) < 1)
  end)

  it("runs every round when not asked to stop, and says when it never settled", function()
    local seen = 0
    local rows, v = rounds.until_steady({ max = 6, until_steady = false, window = 5, range_pct = 20, slope_pct = 10,
      round = series_runner({ 10, 20, 30, 40, 50, 60 }), after = function() seen = seen + 1 end })
    assert.are.equal(6, #rows)
    assert.are.equal(6, seen)
    assert.is_false(v.steady)
  end)

  it("gives null figures while the window is not full", function()
    local rows, v = rounds.until_steady({ max = 2, window = 5, range_pct = 20, slope_pct = 10,
      round = series_runner({ 100, 100 }) })
    assert.are.equal(2, #rows)
    assert.is_false(v.steady)
    assert.are.equal(json.null, v.avg)
    assert.are.equal(json.null, v.range_pct)
  end)
end)

describe("lbench.run.progress", function()
  it("formats the line with the amount, share, rate and ETA", function()
    local m = progress.meter({ total = 4 * 1048576, show = false, now = 0,
                               amount = function(n) return string.format("%d MiB", n / 1048576) end })
    assert.are.equal("  2 MiB of 4 MiB (50 %), 2.0 MiB/s, ETA 1s", m:line(2 * 1048576, 1))
    assert.are.equal("  4 MiB of 4 MiB (100 %), 4.0 MiB/s, ETA 0s", m:line(4 * 1048576, 1))
  end)

  it("prints nothing when not shown", function()
    local m = progress.meter({ total = 10, show = false })
    local printed = false
    local saved = _G.print
    _G.print = function() printed = true end
    m:update(5, 1e9)
    m:finish(10)
    _G.print = saved
    assert.is_false(printed)
  end)
end)
