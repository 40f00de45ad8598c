-- The five TPC-C transactions (clauses 2.4 to 2.8), one worker's view.
--
-- Each transaction runs the spec's profile in one database transaction,
-- with prepared statements and as few round trips as the profile allows:
-- rows the profile reads one by one are read as a set where the spec does
-- not order them (New-Order's items and stock rows, locked in key order,
-- so two New-Orders never deadlock on stock), and a row is read and locked
-- in one statement.  Money travels as integer cents and is divided in SQL
-- (MySQL's `?/100` is an exact DECIMAL), so the consistency conditions
-- hold to the cent.
--
-- Transactions: on MySQL the session runs with autocommit off, so the
-- first statement opens the transaction and COMMIT or ROLLBACK ends it.
-- PostgreSQL has no autocommit-off mode on the server (each statement
-- outside BEGIN is its own transaction, and a FOR UPDATE lock would end
-- with its statement): there every transaction starts with BEGIN.
--
-- PostgreSQL's dialect: parameters travel as text and the server infers
-- their types from the statement, so `?/100` would be an integer division
-- and a CASE of parameters only would be text: those parameters are cast.
local gen = require("tpcc.gen")
local C = require("lbench.ffi").C

local M = {}

local T = lbench.sql.type
local INT, VARCHAR = T.INT, T.VARCHAR
local rand = lbench.rand
local uniform = rand.uniform
local ITEMS = 100000

local con
local pg           -- the server is PostgreSQL
local level        -- isolation level: "RC", "RR" or "SER"
local W            -- number of warehouses
local K = {}       -- NURand run-time constants: c_last, c_id, ol_i_id
local S = {}       -- prepared statements: name -> { st = stmt, p = params }
local dyn = {}     -- statements prepared on first use, by key

-- A prepared statement with typed parameters.
local function prep(sql, types)
  local st = con:prepare(sql)
  local ps = {}
  for i, t in ipairs(types) do
    if type(t) == "table" then ps[i] = st:bind_create(t[1], t[2]) else ps[i] = st:bind_create(t) end
  end
  if #ps > 0 then st:bind_param(unpack(ps)) end
  return { st = st, p = ps }
end

local function rep(n, s, sep) return string.rep(s, n, sep) end

local function ints(n) local t = {} for i = 1, n do t[i] = INT end return t end

-- Cents to money in SQL, and an integer parameter whose type the
-- statement does not tell PostgreSQL (a CASE's operand or its results).
local function money() return pg and "CAST(? AS NUMERIC) / 100" or "? / 100" end
local function int_param() return pg and "CAST(? AS INTEGER)" or "?" end

-- The lock of a row read to be updated.  PostgreSQL's FOR UPDATE also
-- blocks the KEY SHARE lock of a foreign-key check (--use-fk): Payment's
-- HISTORY insert would wait for the district New-Order holds, and deadlock
-- when that New-Order's ORDERS insert checks the customer Payment holds.
-- These rows are updated, never their keys: NO KEY UPDATE is the lock
-- PostgreSQL's UPDATE itself takes.
local function for_update() return pg and " FOR NO KEY UPDATE" or " FOR UPDATE" end

-- ---- statements ------------------------------------------------------------
local function prepare_statements()
  -- New-Order
  S.no_wc = prep("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse "
    .. "WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?", { INT, INT, INT })
  S.no_d = prep("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?" .. for_update(), { INT, INT })
  S.no_d_upd = prep("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?", { INT, INT })
  S.no_o = prep("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) "
    .. "VALUES (?, ?, ?, ?, NOW(), NULL, ?, ?)", ints(6))
  S.no_no = prep("INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)", ints(3))
  -- Payment
  S.p_wd = prep("SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip, "
    .. "d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM warehouse, district "
    .. "WHERE w_id = ? AND d_w_id = w_id AND d_id = ?", { INT, INT })
  local m = money()
  S.p_w_upd = prep("UPDATE warehouse SET w_ytd = w_ytd + " .. m .. " WHERE w_id = ?", { INT, INT })
  S.p_d_upd = prep("UPDATE district SET d_ytd = d_ytd + " .. m .. " WHERE d_w_id = ? AND d_id = ?", ints(3))
  S.p_c_name = prep("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
    { INT, INT, { VARCHAR, 16 } })
  S.p_c = prep("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, "
    .. "c_since, c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN c_data END "
    .. "FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" .. for_update(), ints(3))
  local c_set = "UPDATE customer SET c_balance = c_balance - " .. m .. ", c_ytd_payment = c_ytd_payment + " .. m
    .. ", c_payment_cnt = c_payment_cnt + 1"
  S.p_c_upd = prep(c_set .. " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", ints(5))
  S.p_c_upd_bc = prep(c_set .. ", c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
    { INT, INT, { VARCHAR, 500 }, INT, INT, INT })
  S.p_h = prep("INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) "
    .. "VALUES (?, ?, ?, ?, ?, NOW(), " .. m .. ", ?)", { INT, INT, INT, INT, INT, INT, { VARCHAR, 24 } })
  -- Order-Status
  S.os_c_name = prep("SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer "
    .. "WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first", { INT, INT, { VARCHAR, 16 } })
  S.os_c = prep("SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer "
    .. "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", ints(3))
  S.os_o = prep("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? "
    .. "ORDER BY o_id DESC LIMIT 1", ints(3))
  S.os_ol = prep("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
    .. "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?", ints(3))
  -- Delivery (FOR UPDATE on both servers: the row is deleted)
  S.d_no = prep("SELECT no_o_id FROM new_orders WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE",
    ints(2))
  S.d_no_del = prep("DELETE FROM new_orders WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?", ints(3))
  S.d_o = prep("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?", ints(3))
  S.d_o_upd = prep("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?", ints(4))
  S.d_ol_upd = prep("UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
    ints(3))
  S.d_c_upd = prep("UPDATE customer SET c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line "
    .. "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?), c_delivery_cnt = c_delivery_cnt + 1 "
    .. "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", ints(6))
  -- Stock-Level
  S.sl_d = prep("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", ints(2))
  S.sl_count = prep("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
    .. "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?", ints(6))
  S.commit = prep("COMMIT", {})
  S.rollback = prep("ROLLBACK", {})
  if pg then S.begin = prep("BEGIN", {}) end
end

-- New-Order's set statements, one per row count (5..15 lines).
local function items_stmt(n)
  local k = "i" .. n
  if not dyn[k] then
    dyn[k] = prep("SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" .. rep(n, "?", ",") .. ")", ints(n))
  end
  return dyn[k]
end

-- The district's S_DIST_xx column: ELT on MySQL, a CASE on PostgreSQL.
-- PostgreSQL locks the rows in the order they leave the ORDER BY (its
-- index scan of an IN list is in key order too, a bitmap scan is not);
-- InnoDB locks them in the order of its primary-key scan.
local function stock_stmt(n)
  local k = "s" .. n
  if not dyn[k] then
    local dist, order = "ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, "
      .. "s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10)", ""
    if pg then
      dist = "CASE CAST(? AS INTEGER)"
      for i = 1, 10 do dist = dist .. string.format(" WHEN %d THEN s_dist_%02d", i, i) end
      dist, order = dist .. " END", " ORDER BY s_i_id"
    end
    dyn[k] = prep("SELECT s_i_id, s_quantity, s_data, " .. dist .. " FROM stock WHERE s_w_id = ? AND s_i_id IN ("
      .. rep(n, "?", ",") .. ")" .. order .. for_update(), ints(n + 2))
  end
  return dyn[k]
end

local function stock_upd_stmt(n)
  local k = "u" .. n
  if not dyn[k] then
    local case = "CASE s_i_id" .. rep(n, " WHEN ? THEN " .. int_param()) .. " END"
    dyn[k] = prep("UPDATE stock SET s_quantity = " .. case .. ", s_ytd = s_ytd + " .. case
      .. ", s_order_cnt = s_order_cnt + " .. case .. ", s_remote_cnt = s_remote_cnt + " .. case
      .. " WHERE s_w_id = ? AND s_i_id IN (" .. rep(n, "?", ",") .. ")", ints(9 * n + 1))
  end
  return dyn[k]
end

local function ol_stmt(n)
  local k = "o" .. n
  if not dyn[k] then
    local types = {}
    for i = 1, n do
      for j = 1, 8 do types[(i - 1) * 9 + j] = INT end
      types[i * 9] = { T.CHAR, 24 }
    end
    dyn[k] = prep("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
      .. "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES "
      .. rep(n, "(?, ?, ?, ?, ?, ?, NULL, ?, " .. money() .. ", ?)", ","), types)
  end
  return dyn[k]
end

-- Bind up to 7 parameters and execute (fixed arity: the JIT compiles it).
local function exec(s, a, b, c, d, e, f, g)
  local p = s.p
  local n = #p
  if n >= 1 then p[1]:set(a) end
  if n >= 2 then p[2]:set(b) end
  if n >= 3 then p[3]:set(c) end
  if n >= 4 then p[4]:set(d) end
  if n >= 5 then p[5]:set(e) end
  if n >= 6 then p[6]:set(f) end
  if n >= 7 then p[7]:set(g) end
  return s.st:execute()
end

local function commit() S.commit.st:execute() end

-- Set by init: BEGIN on PostgreSQL, nothing on MySQL (autocommit off).
local function no_begin() end
local begin = no_begin

-- ---- terminal inputs -------------------------------------------------------
local function other_warehouse(w)
  local x = uniform(1, W - 1)
  if x >= w then x = x + 1 end
  return x
end

local function c_last_name() return gen.last_name(rand.nurand(255, 0, 999, K.c_last)) end
local function c_id_rand() return rand.nurand(1023, 1, 3000, K.c_id) end

-- The customer of a by-name lookup: row ceil(n/2) of those with the name,
-- ordered by first name (2.5.2.2, 2.6.2.2).  Returns the row or nil.
local function middle_row(rs)
  if not rs or rs.nrows == 0 then return nil end
  local pick = math.ceil(rs.nrows / 2)
  local row
  for _ = 1, pick do row = rs:fetch_row() end
  return row
end

-- ---- New-Order (2.4) -------------------------------------------------------
-- New-Order runs in six steps, one helper each, in the order of the spec's
-- profile.  The helpers pass values as arguments and results, and the
-- order's lines live in the three module-level arrays below, reused by
-- every call: this hot path allocates no closure or table for its steps.
local lines_i, lines_w, lines_q = {}, {}, {}

-- The terminal's input (2.4.1): district, customer and the order lines
-- (item, supplying warehouse, quantity into lines_i/w/q).  The draws keep
-- their order, so a seed gives the same transactions.
local function draw_order(w)
  local d = uniform(1, 10)
  local c_id = c_id_rand()
  local ol_cnt = uniform(5, 15)
  local rbk = uniform(1, 100)
  local all_local = 1
  for i = 1, ol_cnt do
    lines_i[i] = (i == ol_cnt and rbk == 1) and ITEMS + 1 or rand.nurand(8191, 1, ITEMS, K.ol_i_id)
    if W > 1 and uniform(1, 100) == 1 then
      lines_w[i] = other_warehouse(w)
      all_local = 0
    else
      lines_w[i] = w
    end
    lines_q[i] = uniform(1, 10)
  end
  return d, c_id, ol_cnt, all_local
end

-- Customer and warehouse, then the district row locked while its next
-- order id is taken, then the ORDERS and NEW_ORDERS rows.  Returns the
-- order id and the three rates the total needs.
local function open_order(w, d, c_id, ol_cnt, all_local)
  begin()
  local rs = exec(S.no_wc, w, d, c_id)
  local row = rs and rs:fetch_row()
  if not row then error(string.format("New-Order: customer %d/%d/%d not found", w, d, c_id)) end
  local c_discount, w_tax = tonumber(row[1]), tonumber(row[4])
  rs = exec(S.no_d, w, d)
  row = rs:fetch_row()
  local d_tax, o_id = tonumber(row[1]), tonumber(row[2])
  exec(S.no_d_upd, w, d)
  exec(S.no_o, o_id, d, w, c_id, ol_cnt, all_local)
  exec(S.no_no, o_id, d, w)
  return o_id, c_discount, w_tax, d_tax
end

-- ITEM rows of the distinct items in one statement, by item id; nil when
-- one is missing (the unused item of the 1 %, 2.4.2.3).
local function read_items(ol_cnt)
  local ids, seen = {}, {}
  for i = 1, ol_cnt do
    local it = lines_i[i]
    if not seen[it] then seen[it] = true; ids[#ids + 1] = it end
  end
  local st = items_stmt(#ids)
  for i = 1, #ids do st.p[i]:set(ids[i]) end
  local rs = st.st:execute()
  local items = {}
  local row = rs:fetch_row()
  while row do
    items[tonumber(row[1])] = { price = gen.cents(row[2]), name = row[3], data = row[4] }
    row = rs:fetch_row()
  end
  for i = 1, #ids do
    if not items[ids[i]] then return nil end
  end
  return items
end

-- STOCK rows, locked per supplying warehouse in warehouse then item order
-- (one lock order for every New-Order: no deadlocks on stock).  Returns
-- the sorted warehouses, each one's sorted item set, and the rows by
-- warehouse and item.
local function lock_stock(d, ol_cnt)
  local whs, by_w = {}, {}
  for i = 1, ol_cnt do
    local sw = lines_w[i]
    local set = by_w[sw]
    if not set then set = { ids = {}, seen = {} }; by_w[sw] = set; whs[#whs + 1] = sw end
    local it = lines_i[i]
    if not set.seen[it] then set.seen[it] = true; set.ids[#set.ids + 1] = it end
  end
  table.sort(whs)
  local stock = {}
  for _, sw in ipairs(whs) do
    local set = by_w[sw]
    table.sort(set.ids)
    local n = #set.ids
    local ss = stock_stmt(n)
    ss.p[1]:set(d)
    ss.p[2]:set(sw)
    for i = 1, n do ss.p[i + 2]:set(set.ids[i]) end
    local rs = ss.st:execute()
    local rows = {}
    local row = rs:fetch_row()
    while row do
      rows[tonumber(row[1])] = { qty = tonumber(row[2]), data = row[3], dist = row[4], ytd = 0, cnt = 0 }
      row = rs:fetch_row()
    end
    stock[sw] = rows
  end
  return whs, by_w, stock
end

-- The lines, in order (an item twice sees its first line's update): the
-- stock rows' new figures in Lua, the ORDER_LINE insert bound.  Returns
-- that insert (it runs after the stock update) and the total in cents.
local function bind_lines(w, d, o_id, ol_cnt, items, stock)
  local total = 0
  local ol = ol_stmt(ol_cnt)
  local op = ol.p
  for i = 1, ol_cnt do
    local it, sw, q = lines_i[i], lines_w[i], lines_q[i]
    local s = stock[sw][it]
    if s.qty >= q + 10 then s.qty = s.qty - q else s.qty = s.qty - q + 91 end
    s.ytd = s.ytd + q
    s.cnt = s.cnt + 1
    local item = items[it]
    local amount = q * item.price
    total = total + amount
    local b = (i - 1) * 9
    op[b + 1]:set(o_id); op[b + 2]:set(d); op[b + 3]:set(w); op[b + 4]:set(i)
    op[b + 5]:set(it); op[b + 6]:set(sw); op[b + 7]:set(q); op[b + 8]:set(amount)
    op[b + 9]:set(s.dist)
    -- Brand/generic (2.4.2.2): computed for the output screen.
    s.brand = (item.data:find("ORIGINAL", 1, true) and s.data:find("ORIGINAL", 1, true)) and "B" or "G"
  end
  return ol, total
end

-- One UPDATE per supplying warehouse, its items' new figures in CASE
-- expressions (one round trip instead of one per line).
local function update_stock(w, whs, by_w, stock)
  for _, sw in ipairs(whs) do
    local set = by_w[sw]
    local n = #set.ids
    local us = stock_upd_stmt(n)
    local p = us.p
    local remote = sw ~= w
    for k = 1, n do
      local it = set.ids[k]
      local s = stock[sw][it]
      p[2 * k - 1]:set(it); p[2 * k]:set(s.qty)
      p[2 * n + 2 * k - 1]:set(it); p[2 * n + 2 * k]:set(s.ytd)
      p[4 * n + 2 * k - 1]:set(it); p[4 * n + 2 * k]:set(s.cnt)
      p[6 * n + 2 * k - 1]:set(it); p[6 * n + 2 * k]:set(remote and s.cnt or 0)
      p[8 * n + 1 + k]:set(it)
    end
    p[8 * n + 1]:set(sw)
    us.st:execute()
  end
end

function M.new_order(w)
  local d, c_id, ol_cnt, all_local = draw_order(w)
  local o_id, c_discount, w_tax, d_tax = open_order(w, d, c_id, ol_cnt, all_local)
  local items = read_items(ol_cnt)
  if not items then
    -- The unused item of the 1 % (2.4.2.3): roll the whole transaction back.
    S.rollback.st:execute()
    lbench.stat.rollback()
    return
  end
  local whs, by_w, stock = lock_stock(d, ol_cnt)
  local ol, total = bind_lines(w, d, o_id, ol_cnt, items, stock)
  update_stock(w, whs, by_w, stock)
  ol.st:execute()
  commit()
  -- The output screen's total (2.4.2.2); not shown by a benchmark.
  return total * (1 - c_discount) * (1 + w_tax + d_tax)
end

-- ---- Payment (2.5) -----------------------------------------------------------
function M.payment(w)
  local d = uniform(1, 10)
  local c_w, c_d = w, d
  if W > 1 and uniform(1, 100) > 85 then
    c_w = other_warehouse(w)
    c_d = uniform(1, 10)
  end
  local amount = uniform(100, 500000)

  begin()
  local rs = exec(S.p_wd, w, d)
  local wd = rs:fetch_row()
  local c_id
  if uniform(1, 100) <= 60 then
    local row = middle_row(exec(S.p_c_name, c_w, c_d, c_last_name()))
    if not row then error("Payment: no customer by that last name") end
    c_id = tonumber(row[1])
  else
    c_id = c_id_rand()
  end
  rs = exec(S.p_c, c_w, c_d, c_id)
  local c = rs:fetch_row()
  if c[11] == "BC" then
    local data = string.format("%d %d %d %d %d %s|", c_id, c_d, c_w, d, w, gen.money(amount)) .. (c[15] or "")
    if #data > 500 then data = data:sub(1, 500) end
    exec(S.p_c_upd_bc, amount, amount, data, c_w, c_d, c_id)
  else
    exec(S.p_c_upd, amount, amount, c_w, c_d, c_id)
  end
  exec(S.p_h, c_id, c_d, c_w, d, w, amount, (wd[1] .. "    " .. wd[7]):sub(1, 24))
  -- The hot rows last: the district and the warehouse stay locked only
  -- until the COMMIT that follows.
  exec(S.p_d_upd, amount, w, d)
  exec(S.p_w_upd, amount, w)
  commit()
end

-- ---- Order-Status (2.6) -----------------------------------------------------
function M.order_status(w)
  local d = uniform(1, 10)
  local c
  begin()
  if uniform(1, 100) <= 60 then
    c = middle_row(exec(S.os_c_name, w, d, c_last_name()))
  else
    local rs = exec(S.os_c, w, d, c_id_rand())
    c = rs and rs:fetch_row()
  end
  if not c then error("Order-Status: customer not found") end
  local rs = exec(S.os_o, w, d, tonumber(c[1]))
  local o = rs and rs:fetch_row()
  if o then
    rs = exec(S.os_ol, w, d, tonumber(o[1]))
    local n = 0
    local row = rs and rs:fetch_row()
    while row do n = n + 1; row = rs:fetch_row() end
  end
  commit()
end

-- ---- Delivery (2.7) ----------------------------------------------------------
-- Executed by the terminal itself (not queued), all 10 districts in one
-- database transaction.  Returns the number of districts skipped because
-- they had no outstanding order (2.7.4.2).
function M.delivery(w)
  local carrier = uniform(1, 10)
  local skipped = 0
  begin()
  for d = 1, 10 do
    local rs = exec(S.d_no, w, d)
    local row = rs and rs:fetch_row()
    if row then
      local o_id = tonumber(row[1])
      exec(S.d_no_del, w, d, o_id)
      rs = exec(S.d_o, w, d, o_id)
      local c_id = tonumber(rs:fetch_row()[1])
      exec(S.d_o_upd, carrier, w, d, o_id)
      exec(S.d_ol_upd, w, d, o_id)
      exec(S.d_c_upd, w, d, o_id, w, d, c_id)
    else
      skipped = skipped + 1
    end
  end
  commit()
  return skipped
end

-- ---- Stock-Level (2.8) -------------------------------------------------------
function M.stock_level(w, d)
  local threshold = uniform(10, 20)
  begin()
  local rs = exec(S.sl_d, w, d)
  local next_o = tonumber(rs:fetch_row()[1])
  rs = exec(S.sl_count, w, d, next_o, next_o - 20, w, threshold)
  local low = tonumber(rs:fetch_row()[1])
  commit()
  return low
end

-- ---- set-up ----------------------------------------------------------------
local LEVELS = { RC = "READ COMMITTED", RR = "REPEATABLE READ", SER = "SERIALIZABLE" }

-- The session's settings; again after a reconnect (a new session).
local function set_session()
  if pg then
    con:query("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " .. LEVELS[level])
  else
    con:query("SET SESSION TRANSACTION ISOLATION LEVEL " .. LEVELS[level])
    con:query("SET SESSION autocommit = 0")
  end
end

-- `consts`: { warehouses, c_last, c_id, ol_i_id, pg, trx_level }.
function M.init(connection, consts)
  con = connection
  W = consts.warehouses
  K.c_last, K.c_id, K.ol_i_id = consts.c_last, consts.c_id, consts.ol_i_id
  pg = consts.pg and true or false
  level = consts.trx_level or (pg and "RC" or "RR")
  assert(LEVELS[level], "unknown isolation level " .. tostring(level))
  set_session()
  prepare_statements()
  begin = pg and function() S.begin.st:execute() end or no_begin
end

local function rollback() con:query("ROLLBACK") end

-- After an error inside a transaction (`err`, as raised): roll back what
-- it did.  An ignored error (deadlock, lock wait timeout, serialization
-- failure) was already rolled back by lbench's SQL layer before the
-- restart, on every server.  A lost connection was re-opened by lbench:
-- the new session needs the settings again, and has no transaction.
function M.recover(err)
  local e = type(err) == "table" and err or {}
  if e.sql_errno and C.lb_db_error_is_connection_lost(e.sql_errno) ~= 0 then
    pcall(set_session)
  elseif e.errcode ~= lbench.error.RESTART_EVENT then
    pcall(rollback)
  end
end

function M.close()
  for _, s in pairs(S) do s.st:close() end
  for _, s in pairs(dyn) do s.st:close() end
  S, dyn = {}, {}
end

return M
