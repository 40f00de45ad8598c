-- TPC-C data rules: last names, NURand, money, load plan, summary.
package.path = "scenarios/?.lua;" .. package.path
local gen = require("tpcc.gen")
local load = require("tpcc.load")
local report = require("tpcc.report")

describe("tpcc last names (4.3.2.3)", function()
  it("concatenates the syllables of the three digits", function()
    assert.are.equal("BARBARBAR", gen.last_name(0))
    assert.are.equal("OUGHTABLEPRI", gen.last_name(123))
    assert.are.equal("PRICALLYOUGHT", gen.last_name(371))
    assert.are.equal("EINGEINGEING", gen.last_name(999))
    assert.are.equal("ANTIBARATION", gen.last_name(608))
  end)
  it("gives 1000 distinct names of at most 16 characters", function()
    local seen, n = {}, 0
    for i = 0, 999 do
      local s = gen.last_name(i)
      assert.is_true(#s <= 16)
      if not seen[s] then seen[s] = true; n = n + 1 end
    end
    assert.are.equal(1000, n)
  end)
end)

describe("tpcc NURand (2.1.6)", function()
  it("stays in [x, y] for the three constants", function()
    for _, a in ipairs({ { 255, 0, 999 }, { 1023, 1, 3000 }, { 8191, 1, 100000 } }) do
      local c = lbench.rand.uniform(0, a[1])
      for _ = 1, 20000 do
        local v = lbench.rand.nurand(a[1], a[2], a[3], c)
        assert.is_true(v >= a[2] and v <= a[3] and v == math.floor(v))
      end
    end
  end)
  it("is non-uniform: some last names are far more frequent than others", function()
    local counts = {}
    for i = 0, 999 do counts[i] = 0 end
    local n = 200000
    for _ = 1, n do
      local v = lbench.rand.nurand(255, 0, 999, 123)
      counts[v] = counts[v] + 1
    end
    local max, min = 0, n
    for i = 0, 999 do
      if counts[i] > max then max = counts[i] end
      if counts[i] < min then min = counts[i] end
    end
    -- Uniform would give about 200 each; NURand(255) concentrates on OR patterns.
    assert.is_true(max > 3 * n / 1000)
    assert.is_true(min < n / 1000)
  end)
  it("matches the definition ((rand(0,A) | rand(x,y)) + C) % (y-x+1) + x in distribution", function()
    -- With C = 0, x = 0, y = 1023, A = 1023: (a | b) over uniform a, b has
    -- P(bit set) = 3/4, so the mean is 3/4 of 1023.
    local sum, n = 0, 100000
    for _ = 1, n do sum = sum + lbench.rand.nurand(1023, 0, 1023, 0) end
    local mean = sum / n
    assert.is_true(math.abs(mean - 0.75 * 1023) < 10, "mean " .. mean)
  end)
  it("keeps C_LAST's run constant at a valid delta from the load's (2.1.6.1)", function()
    for c_load = 0, 255 do
      local c = gen.pick_c_last_run(c_load, lbench.rand.uniform)
      local d = math.abs(c - c_load)
      assert.is_true(d >= 65 and d <= 119 and d ~= 96 and d ~= 112)
      assert.is_true(c >= 0 and c <= 255)
    end
    assert.is_false(gen.valid_c_last_delta(100, 196))
    assert.is_false(gen.valid_c_last_delta(100, 212))
    assert.is_false(gen.valid_c_last_delta(100, 164))
    assert.is_true(gen.valid_c_last_delta(100, 165))
    assert.is_true(gen.valid_c_last_delta(200, 81))
  end)
end)

describe("tpcc money", function()
  it("converts decimals to cents exactly and back", function()
    assert.are.equal(1234, gen.cents("12.34"))
    assert.are.equal(-1000, gen.cents("-10.00"))
    assert.are.equal(50, gen.cents("0.5"))
    assert.are.equal(700, gen.cents("7"))
    assert.are.equal("12.34", gen.money(1234))
    assert.are.equal("-0.05", gen.money(-5))
    assert.are.equal("5000.00", gen.money(500000))
  end)
end)

describe("tpcc load plan", function()
  it("has the spec's row counts per warehouse", function()
    local rows = 0
    for _, u in ipairs(load.units(1)) do rows = rows + u.rows end
    -- items + warehouse + districts + 3000 x (customer, history, order, ~10 lines) x 10 + 900 x 10 new orders
    assert.are.equal(100000 + 11 + 100000 + 10 * (3000 * 2 + 3000 * 11 + 900), rows)
  end)
  it("gives every unit to exactly one thread, balanced", function()
    local units = load.units(3)
    for _, threads in ipairs({ 1, 2, 3, 7, 64 }) do
      local seen, n, costs = {}, 0, {}
      for tid = 0, threads - 1 do
        costs[tid] = 0
        for _, u in ipairs(load.assign(units, threads, tid)) do
          assert.is_nil(seen[u.name])
          seen[u.name] = true
          n = n + 1
          costs[tid] = costs[tid] + u.cost
        end
      end
      assert.are.equal(#units, n)
      if threads == 2 then assert.is_true(math.abs(costs[0] - costs[1]) <= 8250000) end
    end
  end)
  it("gives each rank the units of its own warehouses and shares the items (lbench-mpi)", function()
    -- Warehouses 1-2 on rank 0, 3 on rank 1, 4 on rank 2 (lbench.rank_block).
    local owner = function(w) return w <= 2 and 0 or w - 2 end
    local units = load.units(4)
    local seen, n, items = {}, 0, {}
    for rank = 0, 2 do
      items[rank] = 0
      for _, u in ipairs(load.rank_units(units, 3, rank, owner)) do
        assert.is_nil(seen[u.name])
        seen[u.name] = true
        n = n + 1
        if u.w > 0 then assert.are.equal(owner(u.w), rank) else items[rank] = items[rank] + 1 end
      end
    end
    assert.are.equal(#units, n)
    -- The items go to the lighter ranks, 1 and 2 (one warehouse each).
    assert.are.equal(0, items[0])
    assert.are.equal(load.ITEM_CHUNKS, items[1] + items[2])
  end)
end)

describe("tpcc summary", function()
  local function ty(events, rollbacks, p90)
    return { events = events, rollbacks = rollbacks, restarts = 0,
             latency_ms = { avg = p90 / 2, max = p90 * 2, percentiles = { ["90"] = p90 } } }
  end
  it("computes tpmC, tpmTotal, efficiency and the constraints", function()
    local r = { duration_s = 120, warmup_s = 10, totals = { errors = 0, ignored_errors = 3 },
      types = { new_order = ty(4500, 45, 10), payment = ty(4300, 0, 4), order_status = ty(400, 0, 2),
                delivery = ty(400, 0, 30), stock_level = ty(400, 0, 6000) } }
    local t = report.summary(r, { warehouses = 2, threads = 4, terminal_mode = "fixed", think_time = "0" })
    assert.are.equal(2250, t.tpmC)
    assert.are.equal((4500 - 45) / 2, t.notpm)
    assert.are.equal(5000, t.tpm_total)
    assert.is_true(math.abs(t.efficiency_pct - 100 * 2250 / 25.72) < 1e-9)
    assert.is_true(t.mix_ok)
    assert.is_true(t.response_time_ok)
    assert.are.equal(45, t.transactions.new_order.share_pct)
    -- A 90th percentile over the limit fails its constraint.
    r.types.stock_level = ty(400, 0, 21000)
    t = report.summary(r, { warehouses = 2, threads = 4, terminal_mode = "fixed", think_time = "0" })
    assert.is_false(t.response_time_ok)
    assert.is_false(t.transactions.stock_level.p90_ok)
    -- Too few Payments fail the mix.
    r.types.payment = ty(4000, 0, 4)
    t = report.summary(r, { warehouses = 2, threads = 4, terminal_mode = "fixed", think_time = "0" })
    assert.is_false(t.mix_ok)
    assert.is_true(report.text(t):find("NOTPM", 1, true) ~= nil)
    assert.is_true(report.csv(t):find("tpcc_tpmC,", 1, true) ~= nil)
  end)
end)
