-- The consistency conditions of clause 3.3.2 (1 to 12), checked per
-- warehouse over a range of warehouses with one query per condition (each
-- thread of `check` takes a contiguous range, so a table without a useful
-- index, HISTORY, is scanned once per thread rather than per warehouse).
-- Every query returns the offending rows (warehouse first), so a failure
-- names the warehouse, district or count that broke the condition.
local M = {}

-- Condition 11 holds only for the initial population: (count of ORDER) -
-- (count of NEW-ORDER) = 2100 per district; deliveries change it.
M.CONDITIONS = {
  { 1, "W_YTD = sum(D_YTD)", [[
SELECT w_id, w_ytd, x.s FROM warehouse LEFT JOIN
  (SELECT d_w_id, SUM(d_ytd) s FROM district WHERE d_w_id BETWEEN %d AND %d GROUP BY d_w_id) x ON x.d_w_id = w_id
WHERE w_id BETWEEN %d AND %d AND (x.s IS NULL OR w_ytd <> x.s)]], "w_ytd %s, sum(d_ytd) %s" },
  { 2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", [[
SELECT d_w_id, d_id, d_next_o_id - 1, mo, mno FROM (SELECT d_w_id, d_id, d_next_o_id,
  (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) mo,
  (SELECT MAX(no_o_id) FROM new_orders WHERE no_w_id = d_w_id AND no_d_id = d_id) mno
  FROM district WHERE d_w_id BETWEEN %d AND %d) x
WHERE mo IS NULL OR d_next_o_id - 1 <> mo OR (mno IS NOT NULL AND mno <> mo)]],
    "district %s: d_next_o_id - 1 = %s, max(o_id) = %s, max(no_o_id) = %s" },
  { 3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count of NEW-ORDER rows", [[
SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_orders
WHERE no_w_id BETWEEN %d AND %d GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)]],
    "district %s: range %s, rows %s" },
  { 4, "sum(O_OL_CNT) = count of ORDER-LINE rows", [[
SELECT a.o_w_id, a.o_d_id, a.s, b.n FROM
  (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM orders WHERE o_w_id BETWEEN %d AND %d GROUP BY o_w_id, o_d_id) a
  LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) n FROM order_line WHERE ol_w_id BETWEEN %d AND %d
             GROUP BY ol_w_id, ol_d_id) b ON b.ol_w_id = a.o_w_id AND b.ol_d_id = a.o_d_id
WHERE b.n IS NULL OR a.s <> b.n]], "district %s: sum(o_ol_cnt) %s, order lines %s" },
  { 5, "O_CARRIER_ID is null exactly for orders with a NEW-ORDER row", [[
SELECT w, SUM(n) FROM (
  SELECT o_w_id w, COUNT(*) n FROM orders LEFT JOIN new_orders
    ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
  WHERE o_w_id BETWEEN %d AND %d AND (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL) GROUP BY o_w_id
  UNION ALL
  SELECT no_w_id, COUNT(*) FROM new_orders LEFT JOIN orders ON o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id
  WHERE no_w_id BETWEEN %d AND %d AND o_id IS NULL GROUP BY no_w_id) x GROUP BY w]], "%s orders or new-orders" },
  { 6, "O_OL_CNT = the order's ORDER-LINE rows", [[
SELECT o_w_id, COUNT(*) FROM orders LEFT JOIN
  (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) n FROM order_line WHERE ol_w_id BETWEEN %d AND %d
   GROUP BY ol_w_id, ol_d_id, ol_o_id) x ON x.ol_w_id = o_w_id AND x.ol_d_id = o_d_id AND x.ol_o_id = o_id
WHERE o_w_id BETWEEN %d AND %d AND (x.n IS NULL OR x.n <> o_ol_cnt) GROUP BY o_w_id]], "%s orders" },
  { 7, "OL_DELIVERY_D is null exactly when the order's O_CARRIER_ID is", [[
SELECT ol_w_id, COUNT(*) FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
WHERE ol_w_id BETWEEN %d AND %d AND (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL) GROUP BY ol_w_id]],
    "%s order lines" },
  { 8, "W_YTD = sum(H_AMOUNT) of the warehouse", [[
SELECT w_id, w_ytd, x.s FROM warehouse LEFT JOIN
  (SELECT h_w_id, SUM(h_amount) s FROM history WHERE h_w_id BETWEEN %d AND %d GROUP BY h_w_id) x ON x.h_w_id = w_id
WHERE w_id BETWEEN %d AND %d AND (x.s IS NULL OR w_ytd <> x.s)]], "w_ytd %s, sum(h_amount) %s" },
  { 9, "D_YTD = sum(H_AMOUNT) of the district", [[
SELECT d_w_id, d_id, d_ytd, x.s FROM district LEFT JOIN
  (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM history WHERE h_w_id BETWEEN %d AND %d GROUP BY h_w_id, h_d_id) x
  ON x.h_w_id = d_w_id AND x.h_d_id = d_id
WHERE d_w_id BETWEEN %d AND %d AND (x.s IS NULL OR d_ytd <> x.s)]], "district %s: d_ytd %s, sum(h_amount) %s" },
  { 10, "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", "customers", "%s customers" },
  { 11, "count(ORDER) - count(NEW-ORDER) = 2100 per district (initial population)", [[
SELECT a.o_w_id, a.o_d_id, a.n - COALESCE(b.n, 0) FROM
  (SELECT o_w_id, o_d_id, COUNT(*) n FROM orders WHERE o_w_id BETWEEN %d AND %d GROUP BY o_w_id, o_d_id) a
  LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) n FROM new_orders WHERE no_w_id BETWEEN %d AND %d
             GROUP BY no_w_id, no_d_id) b ON b.no_w_id = a.o_w_id AND b.no_d_id = a.o_d_id
WHERE a.n - COALESCE(b.n, 0) <> 2100]], "district %s: difference %s" },
  { 12, "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", "customers", "%s customers" },
}

-- Conditions 10 and 12 in one pass over the customers of the range.
-- (CASE rather than a SUM of the comparison: PostgreSQL has no SUM of
-- booleans.)
local CUSTOMERS = [[
SELECT c_w_id, SUM(CASE WHEN c_balance <> COALESCE(o.s, 0) - COALESCE(h.s, 0) THEN 1 ELSE 0 END),
       SUM(CASE WHEN c_balance + c_ytd_payment <> COALESCE(o.s, 0) THEN 1 ELSE 0 END) FROM customer
  LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) s FROM history WHERE h_c_w_id BETWEEN %d AND %d
             GROUP BY h_c_w_id, h_c_d_id, h_c_id) h ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id
  LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) s FROM orders JOIN order_line
               ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
             WHERE o_w_id BETWEEN %d AND %d AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) o
    ON o.o_w_id = c_w_id AND o.o_d_id = c_d_id AND o.o_c_id = c_id
WHERE c_w_id BETWEEN %d AND %d GROUP BY c_w_id]]

local function rows(con, sql)
  local out = {}
  local rs = con:query(sql)
  if not rs then return out end
  local row = rs:fetch_row()
  while row do
    for i = 1, rs.nfields do if row[i] == nil then row[i] = "NULL" end end
    row.n = rs.nfields
    out[#out + 1] = row
    row = rs:fetch_row()
  end
  return out
end

local function fmt_row(fmtstr, row, from)
  local vals = {}
  for i = from, row.n do vals[#vals + 1] = row[i] end
  local ok, s = pcall(string.format, fmtstr, unpack(vals))
  return ok and s or table.concat(vals, " ")
end

-- Check warehouses lo..hi.  `initial`: the database has not run
-- transactions (condition 11 applies); `pg`: the server is PostgreSQL.
-- Returns failures[w] = list of { condition, message } and the list of
-- conditions checked.
function M.check_range(con, lo, hi, initial, pg)
  local fail = {}
  for w = lo, hi do fail[w] = {} end
  local function add(w, cond, msg)
    w = tonumber(w)
    if fail[w] then fail[w][#fail[w] + 1] = { cond, msg } end
  end
  local checked = {}
  -- Every query of the range reads one snapshot, whatever the session's
  -- isolation level (PostgreSQL's REPEATABLE READ is a snapshot).
  con:query(pg and "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    or "START TRANSACTION WITH CONSISTENT SNAPSHOT")
  for _, c in ipairs(M.CONDITIONS) do
    local n, title, sql, msg = c[1], c[2], c[3], c[4]
    if n == 11 and not initial then goto continue end
    checked[#checked + 1] = n
    if sql == "customers" then
      if n == 10 then
        for _, r in ipairs(rows(con, string.format(CUSTOMERS, lo, hi, lo, hi, lo, hi))) do
          if tonumber(r[2]) > 0 then add(r[1], 10, string.format(M.CONDITIONS[10][4], r[2])) end
          if tonumber(r[3]) > 0 then add(r[1], 12, string.format(M.CONDITIONS[12][4], r[3])) end
        end
      end
    else
      local q = string.format(sql, lo, hi, lo, hi)
      for _, r in ipairs(rows(con, q)) do add(r[1], n, fmt_row(msg, r, 2)) end
    end
    ::continue::
    local _ = title
  end
  con:query("COMMIT")
  table.sort(checked)
  return fail, checked
end

function M.title(n)
  for _, c in ipairs(M.CONDITIONS) do if c[1] == n then return c[2] end end
  return ""
end

return M
