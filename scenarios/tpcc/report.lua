-- The TPC-C summary of a run, computed from the engine's result tree
-- (per-type counts, rollbacks, restarts and latency histograms):
-- tpmC, tpmTotal, efficiency, the dbt2-style response-time table, and the
-- spec's response-time (5.2.5.4) and mix (5.2.3) constraints.
local json = require("lbench.json")

local M = {}

-- type name, label, 90th-percentile limit (s), minimum share of the mix (%)
-- Delivery runs synchronously here, so its terminal response time is the
-- whole execution and the 5 s limit applies (80 s is for a queued one).
M.TYPES = {
  { "new_order", "New Order", 5, nil },
  { "payment", "Payment", 5, 43.0 },
  { "order_status", "Order Status", 5, 4.0 },
  { "delivery", "Delivery", 5, 4.0 },
  { "stock_level", "Stock Level", 20, 4.0 },
}
M.MAX_TPMC_PER_WAREHOUSE = 12.86

local function lat(ty, key)
  if not ty then return 0 end
  local l = ty.latency_ms
  if key == "avg" then return l.avg end
  if key == "max" then return l.max end
  local v = l.percentiles[key]
  if type(v) ~= "number" then return math.huge end -- among overflowed samples
  return v
end

-- Build r.tpcc (an ordered JSON object) from the result tree `r`;
-- `trx_level` is the run's isolation level (RC, RR, SER) if known.
function M.summary(r, opt, trx_level)
  local t = json.object()
  local types = r.types or {}
  local total = 0
  for _, d in ipairs(M.TYPES) do
    local ty = types[d[1]]
    if ty then total = total + ty.events end
  end
  local minutes = r.duration_s / 60
  local no = types.new_order
  local no_n = no and no.events or 0
  local no_rb = no and no.rollbacks or 0
  t.warehouses = opt.warehouses
  t.connections = (opt.connections or 0) > 0 and opt.connections or opt.threads
  t.threads = opt.threads
  t.terminal_mode = opt.terminal_mode
  t.think_time = opt.think_time
  t.trx_level = trx_level
  t.duration_s = r.duration_s
  t.rampup_s = r.warmup_s
  t.tpmC = minutes > 0 and no_n / minutes or 0
  t.notpm = minutes > 0 and (no_n - no_rb) / minutes or 0
  t.tpm_total = minutes > 0 and total / minutes or 0
  t.max_tpmC = M.MAX_TPMC_PER_WAREHOUSE * opt.warehouses
  t.efficiency_pct = 100 * t.tpmC / t.max_tpmC
  t.unknown_errors = (r.totals and r.totals.errors or 0) - (r.totals and r.totals.ignored_errors or 0)
  if t.unknown_errors < 0 then t.unknown_errors = 0 end
  t.retried = r.totals and r.totals.ignored_errors or 0
  local tx = json.object()
  local rt_ok, mix_ok = true, true
  for _, d in ipairs(M.TYPES) do
    local name, limit, min_share = d[1], d[3], d[4]
    local ty = types[name]
    local o = json.object()
    local n = ty and ty.events or 0
    o.count = n
    o.share_pct = total > 0 and 100 * n / total or 0
    o.rollbacks = ty and ty.rollbacks or 0
    o.rollback_pct = n > 0 and 100 * o.rollbacks / n or 0
    o.restarts = ty and ty.restarts or 0
    o.avg_s = lat(ty, "avg") / 1000
    o.p90_s = lat(ty, "90") / 1000
    o.max_s = lat(ty, "max") / 1000
    o.p90_limit_s = limit
    o.p90_ok = n == 0 or o.p90_s <= limit
    if not o.p90_ok then rt_ok = false end
    if min_share then
      o.min_share_pct = min_share
      -- The spec writes the minimums with one decimal: compare at that precision.
      o.share_ok = math.floor(o.share_pct * 10 + 0.5) / 10 >= min_share
      if not o.share_ok then mix_ok = false end
    end
    tx[name] = o
  end
  t.transactions = tx
  t.response_time_ok = rt_ok
  t.mix_ok = mix_ok
  return t
end

-- Districts that Delivery skipped for want of an outstanding order
-- (clause 2.7.4.2 asks for the count; whole run, warm-up included).
function M.set_skipped(t, n)
  t.delivery_skipped_districts = n
  local d = t.transactions.delivery.count
  t.delivery_skipped_pct = d > 0 and 100 * n / (10 * d) or 0
end

local function okf(b) return b and "OK" or "FAILED" end

-- The text section: dbt2's table and lines, then lbench's additions.
function M.text(t)
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  line("TPC-C summary: %d warehouse(s), %d connection(s), terminal mode %s, think time %s%s", t.warehouses,
    t.connections, t.terminal_mode, t.think_time, t.trx_level and (", isolation " .. t.trx_level) or "")
  line("")
  line("  Response Time (s)")
  line(" Transaction      %%    Average :    90th %%        Total        Rollbacks      %%")
  line("------------  -----  ---------------------  -----------  ---------------  -----")
  local order = { "delivery", "new_order", "order_status", "payment", "stock_level" }
  local label = {}
  for _, d in ipairs(M.TYPES) do label[d[1]] = d[2] end
  for _, name in ipairs(order) do
    local o = t.transactions[name]
    line("%12s  %5.2f  %9.3f : %9.3f  %11d  %15d  %5.2f", label[name], o.share_pct, o.avg_s, o.p90_s, o.count,
      o.rollbacks, o.rollback_pct)
  end
  line("")
  line("%.2f new-order transactions per minute (NOTPM)", t.notpm)
  line("%.1f minute duration", t.duration_s / 60)
  line("%d total unknown errors", t.unknown_errors)
  line("%d second(s) ramping up", math.floor(t.rampup_s + 0.5))
  line("")
  line("tpmC:        %.2f (every completed New-Order, the %d rolled back on an unused item included; NOTPM above counts commits, as dbt2)",
    t.tpmC, t.transactions.new_order.rollbacks)
  line("tpmTotal:    %.2f (all five transaction types)", t.tpm_total)
  line("efficiency:  %.2f %% of the spec's maximum %.2f tpmC (12.86 per warehouse)", t.efficiency_pct, t.max_tpmC)
  local rs = {}
  for _, d in ipairs(M.TYPES) do
    local o = t.transactions[d[1]]
    if o.restarts > 0 then rs[#rs + 1] = string.format("%s %d", d[2], o.restarts) end
  end
  line("retried:     %d transaction(s) after deadlocks, lock wait timeouts or serialization failures%s", t.retried,
    #rs > 0 and (" (" .. table.concat(rs, ", ") .. ")") or "")
  if t.delivery_skipped_districts then
    line("skipped:     %d district(s) in Delivery had no outstanding order (%.2f %%)", t.delivery_skipped_districts,
      t.delivery_skipped_pct)
  end
  line("")
  line("Response time constraints (90th percentile, clause 5.2.5.4): %s", okf(t.response_time_ok))
  for _, d in ipairs(M.TYPES) do
    local o = t.transactions[d[1]]
    line("  %-13s %9.3f s <= %2d s   %s", d[2], o.p90_s, o.p90_limit_s, okf(o.p90_ok))
  end
  line("Mix constraints (minimum share, clause 5.2.3): %s", okf(t.mix_ok))
  for _, d in ipairs(M.TYPES) do
    local o = t.transactions[d[1]]
    if o.min_share_pct then
      line("  %-13s %9.2f %% >= %4.1f %%  %s", d[2], o.share_pct, o.min_share_pct, okf(o.share_ok))
    end
  end
  line("")
  return table.concat(out, "\n")
end

-- "metric,value" rows for the CSV totals.
function M.csv(t)
  local rows = require("lbench.result.render").metric_rows("tpcc_")
  local add = rows.add
  add("tpmC", t.tpmC)
  add("notpm", t.notpm)
  add("tpm_total", t.tpm_total)
  add("efficiency_pct", t.efficiency_pct)
  add("duration_s", t.duration_s)
  add("rampup_s", t.rampup_s)
  add("unknown_errors", t.unknown_errors)
  add("retried", t.retried)
  if t.delivery_skipped_districts then add("delivery_skipped_districts", t.delivery_skipped_districts) end
  for _, d in ipairs(M.TYPES) do
    local o = t.transactions[d[1]]
    for _, k in ipairs({ "count", "share_pct", "rollbacks", "restarts", "avg_s", "p90_s", "max_s" }) do
      add(d[1] .. "_" .. k, o[k])
    end
    add(d[1] .. "_p90_ok", o.p90_ok)
    if o.min_share_pct then add(d[1] .. "_share_ok", o.share_ok) end
  end
  add("response_time_ok", t.response_time_ok)
  add("mix_ok", t.mix_ok)
  return rows.text()
end

-- The interval line's TPC-C part: tpmC, counts per type, New-Order p95/p99/max.
local SHORT = { new_order = "NO", payment = "P", order_status = "OS", delivery = "D", stock_level = "SL" }
function M.interval(iv, secs)
  local types = iv.types or {}
  local no = types.new_order
  local parts = { string.format("tpmC: %.0f", no and no.events * 60 / secs or 0) }
  local cnt = {}
  for _, d in ipairs(M.TYPES) do
    local ty = types[d[1]]
    cnt[#cnt + 1] = string.format("%s %d", SHORT[d[1]], ty and ty.events or 0)
  end
  parts[#parts + 1] = table.concat(cnt, " ")
  if no and no.events > 0 then
    local p = no.latency_ms.percentiles
    local function f(v) return type(v) == "number" and string.format("%.2f", v) or "overflow" end
    parts[#parts + 1] = string.format("NO ms (95%%/99%%/max): %s/%s/%s", f(p["95"]), f(p["99"]), f(no.latency_ms.max))
  end
  return table.concat(parts, " | ")
end

return M
