-- The TPC-C initial population (clause 4.3.3.1), loaded in parallel.
--
-- The load is cut into units: ITEM in 4 chunks (loaded once), and per
-- warehouse: the WAREHOUSE row with its 10 DISTRICTs, STOCK in 4 chunks,
-- and one unit per district (its CUSTOMERs, HISTORY, ORDERs, ORDER-LINEs,
-- NEW-ORDERs).  The main state lists the units not yet loaded (a row in
-- tpcc_loaded marks a finished unit) and every loader thread takes its
-- share of that list, balanced by size.  Each unit is one transaction of
-- multi-row INSERTs (or bulk loads of the same rows) that ends by
-- writing its marker, so an interrupted
-- prepare leaves whole units or nothing, and a rerun loads exactly what is
-- missing.  (For a storage engine without transactions a unit found
-- half-loaded is deleted first.)
local ffi = require("ffi")
local C = require("lbench.ffi").C
local gen = require("tpcc.gen")

local M = {}

M.ITEMS = 100000
M.STOCK_CHUNKS = 4
M.ITEM_CHUNKS = 4
local CUST, ORDERS, NEW_FROM = 3000, 3000, 2101

-- ---- units ---------------------------------------------------------------
-- name, warehouse, rows (expected, for the progress bar), cost (bytes, for balancing)
function M.units(warehouses)
  local units = {}
  local step = M.ITEMS / M.ITEM_CHUNKS
  for k = 0, M.ITEM_CHUNKS - 1 do
    units[#units + 1] = { name = string.format("item:%d", k + 1), kind = "item", w = 0,
      lo = k * step + 1, hi = (k + 1) * step, rows = step, cost = step * 90 }
  end
  local sstep = M.ITEMS / M.STOCK_CHUNKS
  for w = 1, warehouses do
    units[#units + 1] = { name = string.format("warehouse:%d", w), kind = "warehouse", w = w, rows = 11, cost = 2000 }
    for k = 0, M.STOCK_CHUNKS - 1 do
      units[#units + 1] = { name = string.format("stock:%d:%d", w, k + 1), kind = "stock", w = w,
        lo = k * sstep + 1, hi = (k + 1) * sstep, rows = sstep, cost = sstep * 330 }
    end
    for d = 1, 10 do
      units[#units + 1] = { name = string.format("district:%d:%d", w, d), kind = "district", w = w, d = d,
        rows = CUST * 2 + ORDERS * 11 + (ORDERS - NEW_FROM + 1), cost = 5000000 }
    end
  end
  return units
end

-- Units of `names` (a list) that thread `tid` of `threads` loads: largest
-- first, each to the least loaded thread (every thread computes the same
-- plan).
function M.assign(units, threads, tid)
  local sorted = {}
  for i, u in ipairs(units) do sorted[i] = u end
  table.sort(sorted, function(a, b)
    if a.cost ~= b.cost then return a.cost > b.cost end
    return a.name < b.name
  end)
  local load = {}
  for t = 0, threads - 1 do load[t] = 0 end
  local mine = {}
  for _, u in ipairs(sorted) do
    local best = 0
    for t = 1, threads - 1 do if load[t] < load[best] then best = t end end
    load[best] = load[best] + u.cost
    if best == tid then mine[#mine + 1] = u end
  end
  -- Load in key order within the thread (appends to the B-trees).
  table.sort(mine, function(a, b)
    if a.w ~= b.w then return a.w < b.w end
    return a.name < b.name
  end)
  return mine
end

-- ---- generators ----------------------------------------------------------
local function now_literal() return os.date("%Y-%m-%d %H:%M:%S") end

local L -- per-thread loader state: buffer, rand, connection
local gen_rows -- gen.rows or gen.copy_rows

local function uni(a, b) return C.lb_rand_uniform(L.R, a, b) end

-- The prepared multi-row INSERTs of this thread, one per table; with
-- --load-method=bulk the same rows go as text through COPY (PostgreSQL)
-- or LOAD DATA LOCAL INFILE from memory (MySQL): gen.copy_rows.
local function rows_of(con, name)
  local rs = L.rows[name]
  if rs then return rs end
  local R = L.R
  local use_copy = lbench.opt.load_method == "bulk" and con:can_load()
  gen_rows = use_copy and function(c, r, prefix, tuple) return gen.copy_rows(c, r, prefix, tuple) end or gen.rows
  if name == "item" then
    rs = gen_rows(con, R, "INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data) VALUES",
      "(?,?,?,?,?)", { "int", "int", 24, 8, 50 })
  elseif name == "stock" then
    rs = gen_rows(con, R, "INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, "
      .. "s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, "
      .. "s_remote_cnt, s_data) VALUES", "(?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,0,?)",
      { "int", "int", "int", 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 50 })
  elseif name == "customer" then
    rs = gen_rows(con, R, "INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, "
      .. "c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, "
      .. "c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data) VALUES",
      "(?,?,?,?,'OE',?,?,?,?,?,?,?,?,?,50000.00,?,-10.00,10.00,1,0,?)",
      { "int", "int", "int", 16, 16, 20, 20, 20, 2, 9, 16, 19, 2, 6, 500 })
  elseif name == "history" then
    rs = gen_rows(con, R, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, "
      .. "h_data) VALUES", "(?,?,?,?,?,?,10.00,?)", { "int", "int", "int", "int", "int", 19, 24 })
  elseif name == "orders" then
    rs = gen_rows(con, R, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
      .. "o_all_local) VALUES", "(?,?,?,?,?,?,?,1)", { "int", "int", "int", "int", 19, "int", "int" })
  elseif name == "order_line" then
    rs = gen_rows(con, R, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
      .. "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES", "(?,?,?,?,?,?,?,5,?,?)",
      { "int", "int", "int", "int", "int", "int", 19, 8, 24 })
  elseif name == "new_orders" then
    rs = gen_rows(con, R, "INSERT INTO new_orders (no_o_id, no_d_id, no_w_id) VALUES", "(?,?,?)",
      { "int", "int", "int" })
  end
  L.rows[name] = rs
  return rs
end

-- Raised out of a unit's generator when the run stops: load_thread rolls
-- the unit back (a later prepare loads it again).
local STOPPED = setmetatable({}, { __tostring = function() return "load stopped" end })

-- After each batch sent: progress, and a look at the stop flag, so that a
-- signal stops the load within one batch.
local function sent(n)
  if n > 0 then
    lbench.progress.add(n)
    if lbench.should_stop() then error(STOPPED, 0) end
  end
end

local function gen_item(con, _, u)
  local r = rows_of(con, "item")
  r:start(u.hi - u.lo + 1)
  for i = u.lo, u.hi do
    r:row()
    r:int(i)
    r:int(uni(1, 10000))
    r:astr(14, 24)
    r:money(uni(100, 10000))
    r:astr(26, 50, uni(1, 10) == 1)
    sent(r:endrow())
  end
end

local function address(b)
  b:astr(10, 20); b:astr(10, 20); b:astr(10, 20)
  b:tmpl("@@")
  b:tmpl("####11111")
end

local function send(con, b)
  sent(b:flush(con))
end

local function gen_warehouse(con, b, u)
  local w = u.w
  b:start("INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd) VALUES")
  b:row()
  b:int(w); b:astr(6, 10); address(b); b:rate4(uni(0, 2000)); b:raw("300000.00", true)
  b:endrow()
  send(con, b)
  b:start("INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id) VALUES")
  for d = 1, 10 do
    b:row()
    b:int(d); b:int(w); b:astr(6, 10); address(b); b:rate4(uni(0, 2000)); b:raw("30000.00"); b:int(3001, true)
    b:endrow()
  end
  send(con, b)
end

local function gen_stock(con, _, u)
  local w = u.w
  local r = rows_of(con, "stock")
  r:start(u.hi - u.lo + 1)
  for i = u.lo, u.hi do
    r:row()
    r:int(i); r:int(w); r:int(uni(10, 100))
    for _ = 1, 10 do r:astr(24, 24) end
    r:astr(26, 50, uni(1, 10) == 1)
    sent(r:endrow())
  end
end

local function gen_district(con, _, u)
  local w, d = u.w, u.d
  local now = now_literal()
  local c_last = L.c_last
  -- CUSTOMER: names 0..999 in order for the first 1000, NURand for the rest.
  local r = rows_of(con, "customer")
  r:start(CUST)
  for c = 1, CUST do
    r:row()
    r:int(c); r:int(d); r:int(w)
    r:astr(8, 16)
    r:str(gen.last_name(c <= 1000 and c - 1 or C.lb_rand_nurand(L.R, 255, 0, 999, c_last)))
    address(r)
    r:tmpl("################")
    r:str(now)
    r:str(uni(1, 10) == 1 and "BC" or "GC")
    r:rate4(uni(0, 5000))
    r:astr(300, 500)
    sent(r:endrow())
  end
  -- HISTORY: one row per customer.
  r = rows_of(con, "history")
  r:start(CUST)
  for c = 1, CUST do
    r:row()
    r:int(c); r:int(d); r:int(w); r:int(d); r:int(w)
    r:str(now)
    r:astr(12, 24)
    sent(r:endrow())
  end
  -- ORDER: customers in a random permutation.
  local perm = {}
  for i = 1, CUST do perm[i] = i end
  for i = CUST, 2, -1 do
    local j = uni(1, i)
    perm[i], perm[j] = perm[j], perm[i]
  end
  local cnt, lines = {}, 0
  r = rows_of(con, "orders")
  r:start(ORDERS)
  for o = 1, ORDERS do
    r:row()
    r:int(o); r:int(d); r:int(w); r:int(perm[o])
    r:str(now)
    if o < NEW_FROM then r:int(uni(1, 10)) else r:null() end
    local n = uni(5, 15)
    cnt[o] = n
    lines = lines + n
    r:int(n)
    sent(r:endrow())
  end
  -- ORDER-LINE
  r = rows_of(con, "order_line")
  r:start(lines)
  for o = 1, ORDERS do
    local delivered = o < NEW_FROM
    for n = 1, cnt[o] do
      r:row()
      r:int(o); r:int(d); r:int(w); r:int(n)
      r:int(uni(1, M.ITEMS))
      r:int(w)
      if delivered then r:str(now) else r:null() end
      if delivered then r:str("0.00") else r:money(uni(1, 999999)) end
      r:astr(24, 24)
      r:endrow()
    end
    -- Progress: an order's lines count as the 10 the total (M.units)
    -- expects, not their random 5..15, so the bar ends at its total.
    sent(10)
  end
  -- NEW-ORDER: the last 900 orders.
  r = rows_of(con, "new_orders")
  r:start(ORDERS - NEW_FROM + 1)
  for o = NEW_FROM, ORDERS do
    r:row()
    r:int(o); r:int(d); r:int(w)
    sent(r:endrow())
  end
end

-- Rows a half-loaded unit may have left (non-transactional engines):
-- a cheap indexed probe, then the delete.
local CLEAN = {
  item = { "SELECT 1 FROM item WHERE i_id BETWEEN %d AND %d LIMIT 1", { "DELETE FROM item WHERE i_id BETWEEN %d AND %d" } },
  warehouse = { "SELECT 1 FROM district WHERE d_w_id = %d UNION ALL SELECT 1 FROM warehouse WHERE w_id = %d LIMIT 1",
    { "DELETE FROM warehouse WHERE w_id = %d", "DELETE FROM district WHERE d_w_id = %d" } },
  stock = { "SELECT 1 FROM stock WHERE s_w_id = %d AND s_i_id BETWEEN %d AND %d LIMIT 1",
    { "DELETE FROM stock WHERE s_w_id = %d AND s_i_id BETWEEN %d AND %d" } },
  district = { "SELECT 1 FROM customer WHERE c_w_id = %d AND c_d_id = %d UNION ALL "
    .. "SELECT 1 FROM orders WHERE o_w_id = %d AND o_d_id = %d LIMIT 1",
    { "DELETE FROM customer WHERE c_w_id = %d AND c_d_id = %d", "DELETE FROM history WHERE h_w_id = %d AND h_d_id = %d",
      "DELETE FROM orders WHERE o_w_id = %d AND o_d_id = %d", "DELETE FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d",
      "DELETE FROM new_orders WHERE no_w_id = %d AND no_d_id = %d" } },
}

local function unit_args(u)
  if u.kind == "item" then return u.lo, u.hi end
  if u.kind == "warehouse" then return u.w, u.w end
  if u.kind == "stock" then return u.w, u.lo, u.hi end
  return u.w, u.d, u.w, u.d
end

local function clean(con, u)
  local c = CLEAN[u.kind]
  local a1, a2, a3, a4 = unit_args(u)
  if con:query_row(string.format(c[1], a1, a2, a3, a4)) then
    print(string.format("Unit %s was partly loaded: deleting its rows", u.name))
    for _, q in ipairs(c[2]) do con:query(string.format(q, a1, a2, a3, a4)) end
  end
end

local GEN = { item = gen_item, warehouse = gen_warehouse, stock = gen_stock, district = gen_district }

-- Parse a unit name back into a unit.
function M.parse(name, warehouses)
  for _, u in ipairs(M.units(warehouses)) do
    if u.name == name then return u end
  end
  error("unknown load unit " .. name)
end

-- lbench-mpi: the units that rank `rank` of `nranks` loads: those of the
-- warehouses it drives in a run (owner(w) is the rank of warehouse w), so
-- each client host loads its own block, and the item units, which belong
-- to no warehouse, each to the rank with the least cost so far (every
-- rank computes the same plan).  No rank waits for the items: nothing in
-- the load reads them (stock rows name items by id, and the foreign keys
-- are added, or on PostgreSQL restored, after the whole load).
function M.rank_units(units, nranks, rank, owner)
  local cost, mine = {}, {}
  for r = 0, nranks - 1 do cost[r] = 0 end
  for _, u in ipairs(units) do
    if u.w > 0 then
      local r = owner(u.w)
      cost[r] = cost[r] + u.cost
      if r == rank then mine[#mine + 1] = u end
    end
  end
  for _, u in ipairs(units) do
    if u.w == 0 then
      local best = 0
      for r = 1, nranks - 1 do if cost[r] < cost[best] then best = r end end
      cost[best] = cost[best] + u.cost
      if best == rank then mine[#mine + 1] = u end
    end
  end
  return mine
end

-- The parallel part of prepare: load this thread's share of `names`.
-- `share` (lbench-mpi) is { rank, nranks, owner }: the thread loads its
-- rank's units (M.rank_units), balanced over the rank's threads, `tid`
-- and `threads` then being the rank's own.
function M.load_thread(names, warehouses, c_last, threads, tid, share)
  local all = {}
  local by = {}
  for _, u in ipairs(M.units(warehouses)) do by[u.name] = u end
  for _, n in ipairs(names) do all[#all + 1] = assert(by[n], n) end
  if share then all = M.rank_units(all, share.nranks, share.rank, share.owner) end
  local mine = M.assign(all, threads, tid)
  if #mine == 0 then return end
  local W = lbench.worker_ptr()
  local con = lbench.sql.driver():connect()
  -- MySQL: the units of one warehouse commit in any order across loaders.
  -- (PostgreSQL has no such switch: prepare drops its foreign keys first.)
  if lbench.opt.db_driver ~= "pgsql" then con:query("SET SESSION foreign_key_checks = 0") end
  L = { R = C.lb_worker_rand(W), c_last = c_last, rows = {} }
  local b = gen.buffer(L.R)
  for _, u in ipairs(mine) do
    if lbench.should_stop() then break end
    clean(con, u)
    con:query("BEGIN")
    local ok, e = pcall(GEN[u.kind], con, b, u)
    if not ok then
      if e ~= STOPPED then error(e, 0) end
      for _, r in pairs(L.rows) do if r.cancel then r:cancel() end end
      con:query("ROLLBACK")
      break
    end
    con:query(string.format("INSERT INTO tpcc_loaded (unit, w_id, finished_at) VALUES ('%s', %d, NOW())", u.name, u.w))
    con:query("COMMIT")
  end
  for _, r in pairs(L.rows) do r:close() end
  con:disconnect()
end

local _ = ffi
return M
