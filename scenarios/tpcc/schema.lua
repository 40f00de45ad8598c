-- The nine TPC-C tables (clause 1.3) with their primary keys and the two
-- secondary indexes the transactions need: customers by last name
-- (Payment, Order-Status) and orders by customer (Order-Status).  Money is
-- DECIMAL, so the consistency conditions compare exact sums.  Foreign keys
-- (1.4, optional here) are added after the load with --use-fk.
--
-- The DDL is written in MySQL's types; on PostgreSQL (`pg` below) TINYINT
-- becomes SMALLINT and DATETIME TIMESTAMP, there is no ENGINE clause, and
-- the secondary indexes are built after the load (one sorted build instead
-- of maintaining them row by row; MySQL declares them in CREATE TABLE).
local M = {}

M.TABLES = { "warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock" }

local DDL = {
  warehouse = [[
  w_id INT NOT NULL,
  w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20),
  w_state CHAR(2), w_zip CHAR(9),
  w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2),
  PRIMARY KEY (w_id)]],
  district = [[
  d_id TINYINT NOT NULL, d_w_id INT NOT NULL,
  d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20),
  d_state CHAR(2), d_zip CHAR(9),
  d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id)]],
  customer = [[
  c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id INT NOT NULL,
  c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),
  c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9),
  c_phone CHAR(16), c_since DATETIME, c_credit CHAR(2),
  c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2),
  c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)]],
  history = [[
  h_c_id INT, h_c_d_id TINYINT, h_c_w_id INT, h_d_id TINYINT, h_w_id INT,
  h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24)]],
  new_orders = [[
  no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)]],
  orders = [[
  o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id INT NOT NULL,
  o_c_id INT, o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT,
  PRIMARY KEY (o_w_id, o_d_id, o_id)]],
  order_line = [[
  ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id INT NOT NULL, ol_number TINYINT NOT NULL,
  ol_i_id INT, ol_supply_w_id INT, ol_delivery_d DATETIME, ol_quantity TINYINT,
  ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)]],
  item = [[
  i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50),
  PRIMARY KEY (i_id)]],
  stock = [[
  s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity SMALLINT,
  s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24),
  s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24),
  s_ytd DECIMAL(8,0), s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50),
  PRIMARY KEY (s_w_id, s_i_id)]],
}

-- The secondary indexes: table, name, columns.
M.INDEXES = {
  { "customer", "idx_customer_name", "(c_w_id, c_d_id, c_last, c_first)" },
  { "orders", "idx_orders_customer", "(o_w_id, o_d_id, o_c_id, o_id)" },
}

-- Bookkeeping: the load's NURand constant for C_LAST (needed by every run,
-- 2.1.6.1) and one row per finished load unit (resumable prepare).
local META = {
  tpcc_meta = [[
  name VARCHAR(32) NOT NULL, value VARCHAR(64),
  PRIMARY KEY (name)]],
  tpcc_loaded = [[
  unit VARCHAR(32) NOT NULL, w_id INT NOT NULL, finished_at DATETIME,
  PRIMARY KEY (unit)]],
}

-- Foreign keys (1.4); InnoDB creates the indexes they need.  PostgreSQL
-- needs none on the referencing columns: no referenced row is ever deleted.
M.FKS = {
  { "district", "fk_district_warehouse", "(d_w_id)", "warehouse (w_id)" },
  { "customer", "fk_customer_district", "(c_w_id, c_d_id)", "district (d_w_id, d_id)" },
  { "history", "fk_history_customer", "(h_c_w_id, h_c_d_id, h_c_id)", "customer (c_w_id, c_d_id, c_id)" },
  { "history", "fk_history_district", "(h_w_id, h_d_id)", "district (d_w_id, d_id)" },
  { "new_orders", "fk_new_orders_orders", "(no_w_id, no_d_id, no_o_id)", "orders (o_w_id, o_d_id, o_id)" },
  { "orders", "fk_orders_customer", "(o_w_id, o_d_id, o_c_id)", "customer (c_w_id, c_d_id, c_id)" },
  { "order_line", "fk_order_line_orders", "(ol_w_id, ol_d_id, ol_o_id)", "orders (o_w_id, o_d_id, o_id)" },
  { "order_line", "fk_order_line_stock", "(ol_supply_w_id, ol_i_id)", "stock (s_w_id, s_i_id)" },
  { "stock", "fk_stock_warehouse", "(s_w_id)", "warehouse (w_id)" },
  { "stock", "fk_stock_item", "(s_i_id)", "item (i_id)" },
}

-- PostgreSQL's spelling of the MySQL types used above.
local function pg_types(body)
  return (body:gsub("TINYINT", "SMALLINT"):gsub("DATETIME", "TIMESTAMP"))
end

-- Create whatever is missing (a rerun of prepare keeps what exists).
-- --create-table-options goes after the column list on both servers
-- (ROW_FORMAT=... on MySQL, WITH (fillfactor=...) on PostgreSQL).
function M.create(con, opt, pg)
  local extra = opt.create_table_options or ""
  local function create(name, body)
    if pg then
      con:query(string.format("CREATE TABLE IF NOT EXISTS %s (\n%s\n) %s", name, pg_types(body), extra))
      return
    end
    for _, ix in ipairs(M.INDEXES) do
      if ix[1] == name then body = body .. ",\n  KEY " .. ix[2] .. " " .. ix[3] end
    end
    con:query(string.format("CREATE TABLE IF NOT EXISTS %s (\n%s\n) ENGINE = %s %s", name, body,
      opt.mysql_storage_engine, extra))
  end
  for _, t in ipairs(M.TABLES) do create(t, DDL[t]) end
  create("tpcc_meta", META.tpcc_meta)
  create("tpcc_loaded", META.tpcc_loaded)
end

-- PostgreSQL, after the load: the secondary indexes (kept by a rerun) and
-- fresh planner statistics (the tables were empty when last analyzed).
function M.finish_pg(con)
  for _, ix in ipairs(M.INDEXES) do
    con:query(string.format("CREATE INDEX IF NOT EXISTS %s ON %s %s", ix[2], ix[1], ix[3]))
  end
  print("Analyzing the tables...")
  con:query("ANALYZE " .. table.concat(M.TABLES, ", "))
end

-- Names of the foreign keys that already exist.
local function existing_fks(con, pg)
  local have = {}
  local rs = con:query("SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = "
    .. (pg and "current_schema()" or "DATABASE()") .. " AND CONSTRAINT_TYPE = 'FOREIGN KEY'")
  if rs then
    local row = rs:fetch_row()
    while row do have[row[1]] = true; row = rs:fetch_row() end
  end
  return have
end

function M.add_fks(con, pg)
  local have = existing_fks(con, pg)
  for _, fk in ipairs(M.FKS) do
    if not have[fk[2]] then
      print(string.format("Adding foreign key %s on %s...", fk[2], fk[1]))
      con:query(string.format("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY %s REFERENCES %s", fk[1], fk[2], fk[3], fk[4]))
    end
  end
end

-- PostgreSQL checks foreign keys row by row and has no per-session switch
-- like MySQL's foreign_key_checks (session_replication_role needs a
-- superuser), and the parallel loaders commit units in no particular
-- order: a load into a database that has them drops them first.  Returns
-- whether there were any (prepare adds them back after the load).
function M.drop_fks(con)
  local have = existing_fks(con, true)
  local any = false
  for _, fk in ipairs(M.FKS) do
    if have[fk[2]] then
      any = true
      con:query(string.format("ALTER TABLE %s DROP CONSTRAINT %s", fk[1], fk[2]))
    end
  end
  if any then print("Dropped the foreign keys for the load (added back after it)") end
  return any
end

function M.drop(con, pg)
  if not pg then con:query("SET foreign_key_checks = 0") end
  for _, t in ipairs(M.TABLES) do
    print(string.format("Dropping table '%s'...", t))
    -- CASCADE: on PostgreSQL the foreign keys of other tables depend on it.
    con:query("DROP TABLE IF EXISTS " .. t .. (pg and " CASCADE" or ""))
  end
  con:query("DROP TABLE IF EXISTS tpcc_meta")
  con:query("DROP TABLE IF EXISTS tpcc_loaded")
  if not pg then con:query("SET foreign_key_checks = 1") end
end

return M
