-- The consistency of a pgbench database (lbench pgbench check): the row
-- counts `pgbench -i` makes, and the balances that every transaction
-- keeps equal to its history (TPC-B's consistency conditions, which
-- pgbench's scripts inherit).
--
-- tpcb-like adds its delta to an account, a teller and a branch and
-- records it in pgbench_history; simple-update adds it to the account and
-- the history only; select-only writes nothing.  So, whatever mix ran:
--   sum(abalance) = sum(delta)      (accounts against history)
--   sum(bbalance) = sum(tbalance)   (branches against tellers)
-- and when only tpcb-like wrote, also sum(bbalance) = sum(delta).  The
-- last one cannot be told from the database alone after simple-update
-- runs (their history rows look alike), so it is reported, not enforced:
-- its difference is the deltas of the simple-update transactions.
-- Everything is read in one snapshot, so a check during a run is exact.
local schema = require("pgbench.schema")

local M = {}

local function value(con, sql) return tonumber((con:query_row(sql))) or 0 end

-- Returns the lines to print and whether every enforced condition holds.
function M.run(con, opt, scale)
  local pg = schema.pg(opt)
  con:query(pg and "start transaction isolation level repeatable read" or "start transaction with consistent snapshot")
  local nb, nt, na = value(con, "select count(*) from pgbench_branches"),
    value(con, "select count(*) from pgbench_tellers"), value(con, "select count(*) from pgbench_accounts")
  local sa = value(con, "select coalesce(sum(abalance), 0) from pgbench_accounts")
  local st = value(con, "select coalesce(sum(tbalance), 0) from pgbench_tellers")
  local sb = value(con, "select coalesce(sum(bbalance), 0) from pgbench_branches")
  local sh = value(con, "select coalesce(sum(delta), 0) from pgbench_history")
  local nh = value(con, "select count(*) from pgbench_history")
  con:query("commit")
  local out, ok = {}, true
  local function cond(good, fmt, ...)
    out[#out + 1] = string.format("  %-6s " .. fmt, good and "OK" or "FAILED", ...)
    if not good then ok = false end
  end
  cond(nb == scale and nt == 10 * scale and na == 100000 * scale,
    "rows: %d branches, %d tellers, %d accounts (scale %d: %d, %d, %d)", nb, nt, na, scale, scale, 10 * scale,
    100000 * scale)
  cond(sa == sh, "sum(abalance) of pgbench_accounts = sum(delta) of pgbench_history: %.0f, %.0f (%d history rows)",
    sa, sh, nh)
  cond(sb == st, "sum(bbalance) of pgbench_branches = sum(tbalance) of pgbench_tellers: %.0f, %.0f", sb, st)
  if sb == sh then
    out[#out + 1] = string.format("  %-6s sum(bbalance) = sum(delta): %.0f (every write was tpcb-like, or the others summed to 0)",
      "OK", sb)
  else
    out[#out + 1] = string.format("  %-6s sum(bbalance) = sum(delta): %.0f, %.0f: differs by %.0f, the deltas of simple-update "
      .. "transactions (they update accounts and history only); holds when only tpcb-like wrote", "NOTE", sb, sh, sh - sb)
  end
  return out, ok
end

return M
