-- TPC-C (TPC Benchmark C, revision 5.11) on MySQL/MariaDB and PostgreSQL
-- (--db-driver=pgsql).
--
--   lbench tpcc --warehouses=10 --threads=8 prepare     parallel load, resumable
--   lbench tpcc --warehouses=10 --threads=16 --warmup-time=60 --time=600 --report-interval=10 run
--   lbench tpcc --warehouses=10 --threads=8 check       consistency conditions 3.3.2.1-12
--   lbench tpcc --warehouses=10 cleanup
--
-- The schema is in tpcc/schema.lua, the population in tpcc/load.lua, the
-- five transactions in tpcc/txn.lua, the consistency check in
-- tpcc/check.lua and the summary (tpmC, response times, constraints) in
-- tpcc/report.lua.  The dialects differ in the DDL (schema.lua), in a
-- few expressions and in how a transaction starts (txn.lua), and in the
-- bookkeeping statements here.
local schema = require("tpcc.schema")
local load = require("tpcc.load")
local gen = require("tpcc.gen")
local util = require("lbench.util")

-- Five non-negative integer weights, at least one positive.
local function check_weights(s)
  local ws, sum = util.split(s, ","), 0
  if #ws ~= 5 then
    return nil, "expected 5 comma-separated weights (New-Order,Payment,Order-Status,Delivery,Stock-Level)"
  end
  for _, v in ipairs(ws) do
    local n = tonumber(v)
    if not n or n < 0 or n ~= math.floor(n) then return nil, string.format("'%s' is not a non-negative integer", v) end
    sum = sum + n
  end
  if sum == 0 then return nil, "at least one weight must be positive" end
  return s
end

local LEVELS = { RC = true, RR = true, SER = true }
local function check_trx_level(s)
  local u = s:upper()
  if not LEVELS[u] then return nil, "expected RC, RR or SER" end
  return u
end

lbench.cmdline.options = {
  warehouses = { "Number of warehouses", 1, min = 1, max = 1000000 },
  weights = { "Transaction mix: New-Order,Payment,Order-Status,Delivery,Stock-Level weights", "45,43,4,4,4",
    check = check_weights },
  terminal_mode = { "fixed: each connection has a home warehouse (and Stock-Level district); random: both drawn per transaction", "fixed",
    type = "enum", choices = { "fixed", "random" } },
  think_time = { "spec: keying and think times of clause 5.2.5 (10 terminals per warehouse, one per thread); 0: none", "0",
    type = "enum", choices = { "0", "spec" } },
  use_fk = { "Add the foreign keys of clause 1.4 after loading", false },
  mysql_storage_engine = { "Storage engine", "innodb" },
  create_table_options = { "Extra options appended to CREATE TABLE (e.g. ROW_FORMAT=COMPRESSED, or WITH (fillfactor=90) on PostgreSQL)", "" },
  trx_level = { "Isolation level of the run's connections: RC, RR or SER (default: the server's own, "
    .. "RR on MySQL/MariaDB, RC on PostgreSQL)", "", check = check_trx_level },
  load_method = { "How prepare loads rows: bulk (MySQL LOAD DATA LOCAL INFILE, PostgreSQL COPY, from memory) "
    .. "or insert (prepared multi-row INSERTs)", "bulk", type = "enum", choices = { "bulk", "insert" } },
}

local opt = lbench.opt

local function pg() return opt.db_driver == "pgsql" end

-- The run's isolation level.  Each server's default is its own, and both
-- give a locking read (FOR UPDATE) the latest committed row, which the
-- profiles rely on; PostgreSQL's REPEATABLE READ instead fails such a read
-- with a serialization failure (40001) whenever another transaction
-- updated the row since the snapshot, as the district row of every
-- New-Order is.
local function trx_level()
  if opt.trx_level and opt.trx_level ~= "" then return opt.trx_level end
  return pg() and "RC" or "RR"
end

local function connect() return lbench.sql.driver():connect() end

local function meta_get(con, name)
  local ok, v = pcall(con.query_row, con, "SELECT value FROM tpcc_meta WHERE name = '" .. name .. "'")
  if ok then return v end
  return nil
end

local function meta_set(con, name, value)
  if pg() then
    con:query(string.format("INSERT INTO tpcc_meta (name, value) VALUES ('%s', '%s') "
      .. "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value", name, tostring(value)))
  else
    con:query(string.format("REPLACE INTO tpcc_meta (name, value) VALUES ('%s', '%s')", name, tostring(value)))
  end
end

local function check_warehouses()
  if opt.warehouses < 1 then util.fail("--warehouses must be at least 1") end
end

-- ---- prepare ---------------------------------------------------------------
local function cmd_prepare()
  check_warehouses()
  local con = connect()
  if pg() then print("Creating the TPC-C tables...")
  else print(string.format("Creating the TPC-C tables (engine %s)...", opt.mysql_storage_engine)) end
  schema.create(con, opt, pg())
  -- The load's NURand constant for C_LAST: kept across resumed loads.
  local c_last = tonumber(meta_get(con, "c_last_load"))
  if not c_last then
    c_last = lbench.rand.uniform(0, 255)
    meta_set(con, "c_last_load", c_last)
  end
  local done = {}
  local rs = con:query("SELECT unit FROM tpcc_loaded")
  if rs then
    local row = rs:fetch_row()
    while row do done[row[1]] = true; row = rs:fetch_row() end
  end
  local pending, rows, skipped = {}, 0, 0
  for _, u in ipairs(load.units(opt.warehouses)) do
    if done[u.name] then skipped = skipped + 1 else pending[#pending + 1] = u.name; rows = rows + u.rows end
  end
  -- PostgreSQL: foreign keys found are dropped for the load and added
  -- back after it, also by the prepare that completes an interrupted one.
  local restore_fks = meta_get(con, "fks_dropped") == "1"
  if pg() and #pending > 0 and schema.drop_fks(con) then
    meta_set(con, "fks_dropped", 1)
    restore_fks = true
  end
  if #pending == 0 then
    print(string.format("All %d warehouse(s) are already loaded.", opt.warehouses))
  else
    if skipped > 0 then
      print(string.format("Resuming: %d of %d load units are already loaded.", skipped, skipped + #pending))
    end
    if opt.load_method == "bulk" and not pg() and opt.db_driver == "mysql" and not con:can_load() then
      io.stderr:write("note: the server refuses LOAD DATA LOCAL INFILE (local_infile=OFF): loading with INSERT "
        .. "instead (as --load-method=insert)\n")
    end
    local where = lbench.nranks > 1 and string.format(" over %d ranks, each loading its warehouses", lbench.nranks)
      or ""
    print(string.format("Loading %d warehouse(s) (about %.0f rows) with %d thread(s)%s...", opt.warehouses, rows,
      opt.threads, where))
    lbench.progress.total(rows, "rows")
    local t0 = lbench.clock.now()
    opt._tpcc_units = table.concat(pending, ",")
    opt._tpcc_c_last = c_last
    lbench.run_parallel("_load")
    opt._tpcc_units = nil
    local total = #load.units(opt.warehouses)
    local n = 0
    for _, u in ipairs(load.units(opt.warehouses)) do
      if con:query_row("SELECT 1 FROM tpcc_loaded WHERE unit = '" .. u.name .. "'") then n = n + 1 end
    end
    if n < total then
      util.fail("prepare stopped with %d of %d load units done: run it again to load the rest", n, total)
    end
    print(string.format("Loaded in %.1f s.", lbench.clock.now() - t0))
    if pg() then schema.finish_pg(con) end
  end
  local prev = tonumber(meta_get(con, "warehouses")) or 0
  if opt.warehouses > prev then meta_set(con, "warehouses", opt.warehouses) end
  if opt.use_fk or restore_fks then
    schema.add_fks(con, pg())
    if restore_fks then meta_set(con, "fks_dropped", 0) end
  end
  con:disconnect()
end

-- The rank that drives warehouse w in a run (lbench.rank_block).
local function owner(w)
  for r = 0, lbench.nranks - 1 do
    local lo, hi = lbench.rank_block(opt.warehouses, r)
    if w >= lo and w <= hi then return r end
  end
end

local function cmd_load()
  local names = util.split(opt._tpcc_units or "", ",")
  if lbench.nranks == 1 then
    load.load_thread(names, opt.warehouses, opt._tpcc_c_last, opt.threads, lbench.tid)
    return
  end
  -- lbench-mpi: each rank loads the warehouses it drives in a run.
  local per = opt.threads / lbench.nranks
  load.load_thread(names, opt.warehouses, opt._tpcc_c_last, per, lbench.tid - lbench.rank * per, { rank = lbench.rank,
    nranks = lbench.nranks, owner = owner })
end

function cleanup()
  local con = connect()
  schema.drop(con, pg())
  con:disconnect()
end

-- What the database holds (lbench sweep --prepare-each records it per
-- point): the warehouses loaded (tpcc_meta, which prepare only raises)
-- and the bytes the server reports for the nine tables.
lbench.hooks.loaded_size = function()
  local con = connect()
  local w = tonumber(meta_get(con, "warehouses"))
  local bytes = require("lbench.db.datasize").sql_tables_bytes(con, pg(), schema.TABLES)
  con:disconnect()
  return { warehouses = w, bytes = bytes }
end

-- ---- options checked before a run or a check ---------------------------------
local TYPE_NAMES = { "new_order", "payment", "order_status", "delivery", "stock_level" }

local function parse_weights()
  local ws = util.split(opt.weights, ",")
  local sum = 0
  if #ws ~= 5 then util.fail("--weights=%s: expected 5 comma-separated weights (New-Order,Payment,Order-Status,Delivery,Stock-Level)", opt.weights) end
  for i, v in ipairs(ws) do
    local n = tonumber(util.trim(v))
    if not n or n < 0 or n ~= math.floor(n) then util.fail("--weights: '%s' is not a non-negative integer", v) end
    ws[i] = n
    sum = sum + n
  end
  if sum == 0 then util.fail("--weights: at least one weight must be positive") end
  return ws
end

-- Emulated terminals: one per connection (async mode: --connections
-- virtual users; thread mode: one per thread).
local function terminals()
  return (opt.connections or 0) > 0 and opt.connections or opt.threads
end

-- lbench-mpi: every rank drives its own block of warehouses
-- (lbench.rank_block), each warehouse's terminals all on one rank, as
-- each client machine of a multi-client TPC-C lab drives its range.  One
-- rank (one process) has them all.  Checked on rank 0 (init) for every
-- rank: each needs a warehouse, and with think times 10 terminals for
-- each of its warehouses.
local function check_rank_shares(terms_needed)
  for r = 0, lbench.nranks - 1 do
    local lo, hi = lbench.rank_block(opt.warehouses, r)
    if hi < lo then
      util.fail("--warehouses=%d over %d ranks: each rank drives warehouses of its own, so there must be at "
        .. "least as many warehouses as ranks", opt.warehouses, lbench.nranks)
    end
    local _, n = lbench.rank_terminals(r)
    if terms_needed and n < 10 * (hi - lo + 1) then
      util.fail("--think-time=spec: rank %d drives warehouses %d..%d and needs 10 terminals for each (%d), got %d: "
        .. "use a multiple of %d connections", r, lo, hi, 10 * (hi - lo + 1), n, 10 * opt.warehouses)
    end
  end
end

local function check_run_options()
  check_warehouses()
  parse_weights()
  if opt.terminal_mode ~= "fixed" and opt.terminal_mode ~= "random" then
    util.fail("--terminal-mode=%s: expected fixed or random", opt.terminal_mode)
  end
  if opt.think_time ~= "spec" and opt.think_time ~= "0" then
    util.fail("--think-time=%s: expected spec or 0", opt.think_time)
  end
  local terms = terminals()
  if opt.think_time == "spec" and terms < 10 * opt.warehouses then
    util.fail("--think-time=spec emulates the spec's 10 terminals per warehouse, each with its own connection: "
      .. "it needs %d connections for %d warehouse(s), got %d (use --connections=%d for async mode, "
      .. "or --threads=%d)", 10 * opt.warehouses, opt.warehouses, terms, 10 * opt.warehouses, 10 * opt.warehouses)
  end
  if lbench.nranks > 1 then check_rank_shares(opt.think_time == "spec") end
end

-- The loaded database: how many warehouses, and the load's C for C_LAST.
local function loaded_meta(con)
  local w = tonumber(meta_get(con, "warehouses"))
  local c = tonumber(meta_get(con, "c_last_load"))
  if not w or not c then util.fail("no TPC-C database found (run 'lbench tpcc --warehouses=N prepare' first)") end
  if opt.warehouses > w then
    util.fail("--warehouses=%d but the database holds %d warehouse(s) (prepare loads more)", opt.warehouses, w)
  end
  return w, c
end

-- ---- run ----------------------------------------------------------------------
local report = require("tpcc.report")
local TYPES = {}
for i, n in ipairs(TYPE_NAMES) do TYPES[i] = lbench.stat.type(n) end

-- Main state, before the workers start: the run's NURand constants, the
-- same for every terminal (2.1.6), with C_LAST's delta to the load's
-- constant in the spec's range (2.1.6.1).  Workers read them back.
function init()
  check_run_options()
  local con = connect()
  local _, c_load = loaded_meta(con)
  local u = lbench.rand.uniform
  meta_set(con, "c_last_run", gen.pick_c_last_run(c_load, u))
  meta_set(con, "c_id_run", u(0, 1023))
  meta_set(con, "ol_i_id_run", u(0, 8191))
  meta_set(con, "runs", (tonumber(meta_get(con, "runs")) or 0) + 1)
  meta_set(con, "delivery_skipped", 0)
  con:disconnect()
  local terms = terminals()
  if opt.terminal_mode == "fixed" and opt.think_time ~= "spec" and terms < opt.warehouses then
    if lbench.nranks > 1 then
      io.stderr:write(string.format("note: --terminal-mode=fixed with %d connection(s) over %d ranks works on the first "
        .. "warehouses of each rank's block, not all %d (use --terminal-mode=random to spread over all)\n", terms,
        lbench.nranks, opt.warehouses))
    else
      io.stderr:write(string.format("note: --terminal-mode=fixed with %d connection(s) works on warehouses 1..%d of %d "
        .. "(use --terminal-mode=random to spread over all)\n", terms, terms, opt.warehouses))
    end
  end
  if opt.think_time == "spec" and terms > 10 * opt.warehouses then
    io.stderr:write(string.format("note: %d connections emulate %d terminals per warehouse (the spec has 10)\n",
      terms, math.ceil(terms / opt.warehouses)))
  end
end

local txn, con
local deck, deck_pos = {}, 0
local pending           -- type index of a transaction to retry after a restart
local home_w, sl_d      -- fixed terminal: home warehouse, Stock-Level district
local w_lo, w_hi        -- this rank's warehouses (all of them in one process)
local thinking = false  -- think-time mode: the next event is the think + keying time
local think_mode = false
local C = require("lbench.ffi").C
local Wp

-- A shuffled deck of the weights (5.2.4.2): each run of sum(weights)
-- transactions has the exact mix.
local function shuffle_deck()
  local ws = parse_weights()
  deck = {}
  for t, n in ipairs(ws) do for _ = 1, n do deck[#deck + 1] = t end end
  for i = #deck, 2, -1 do
    local j = lbench.rand.uniform(1, i)
    deck[i], deck[j] = deck[j], deck[i]
  end
  deck_pos = 0
end

local function draw()
  if deck_pos >= #deck then shuffle_deck() end
  deck_pos = deck_pos + 1
  return deck[deck_pos]
end

function thread_init()
  txn = require("tpcc.txn")
  con = connect()
  local function meta(n) return tonumber(con:query_row("SELECT value FROM tpcc_meta WHERE name = '" .. n .. "'")) end
  txn.init(con, { warehouses = opt.warehouses, c_last = meta("c_last_run"), c_id = meta("c_id_run"),
    ol_i_id = meta("ol_i_id_run"), pg = pg(), trx_level = trx_level() })
  -- MySQL: end the transaction the reads above may have opened (its
  -- snapshot would stay).  PostgreSQL ran them in autocommit.
  if not pg() then con:query("COMMIT") end
  -- The terminal (the virtual user in async mode, else the thread),
  -- numbered within this rank, whose home warehouse is in the rank's
  -- block (check_rank_shares: never empty).
  w_lo, w_hi = lbench.rank_block(opt.warehouses)
  local first = lbench.rank_terminals()
  local tid, nw = (lbench.vu or lbench.tid) - first, w_hi - w_lo + 1
  if nw < 1 then
    error(string.format("--warehouses=%d over %d ranks: rank %d has no warehouse of its own", opt.warehouses,
      lbench.nranks, lbench.rank), 0)
  end
  think_mode = opt.think_time == "spec"
  if think_mode then
    -- One terminal per thread: 10 per warehouse, one per district.
    home_w = w_lo + math.floor(tid / 10) % nw
    sl_d = tid % 10 + 1
    thinking = true
  else
    home_w = w_lo + tid % nw
    sl_d = math.floor(tid / nw) % 10 + 1
  end
  Wp = lbench.worker_ptr()
  shuffle_deck()
end

local skipped = 0       -- Delivery: districts without an outstanding order

function thread_done()
  if txn then txn.close() end
  if con then
    -- Skipped deliveries are rare: add this terminal's count to the run's.
    if skipped > 0 then
      pcall(function()
        if pg() then
          -- No transaction is open between events: this one autocommits.
          con:query("UPDATE tpcc_meta SET value = CAST(CAST(value AS INTEGER) + " .. skipped
            .. " AS VARCHAR) WHERE name = 'delivery_skipped'")
        else
          con:query("UPDATE tpcc_meta SET value = value + " .. skipped .. " WHERE name = 'delivery_skipped'")
          con:query("COMMIT")
        end
      end)
    end
    con:disconnect()
  end
end

-- Keying time (s) and mean think time (s) per type (5.2.5.2, 5.2.5.4).
local KEYING = { 18, 3, 2, 2, 2 }
local THINK = { 12, 12, 10, 5, 5 }

-- Sleep s seconds in slices, returning early when the run stops.
local function nap(s)
  local t_end = lbench.clock.now() + s
  while not lbench.should_stop() do
    local left = t_end - lbench.clock.now()
    if left <= 0 then return end
    lbench.sleep(math.min(left, 0.2) * 1000)
  end
end

local FN = { "new_order", "payment", "order_status", "delivery", "stock_level" }

function event()
  if thinking then
    -- Think time after the previous transaction, then keying time of the
    -- next one: an event of its own that is not recorded (lb_worker_ev_skip).
    C.lb_worker_ev_idle(Wp)
    pending = pending or draw()
    local mean = THINK[pending]
    local r = lbench.rand.uniform_double()
    if r < 1e-12 then r = 1e-12 end
    nap(math.min(-math.log(r) * mean, 10 * mean) + KEYING[pending])
    C.lb_worker_ev_skip(Wp)
    thinking = false
    return
  end
  local t = pending or draw()
  pending = t
  lbench.stat.event(TYPES[t])
  local w, d = home_w, sl_d
  if opt.terminal_mode == "random" then
    w = lbench.rand.uniform(w_lo, w_hi)
    d = lbench.rand.uniform(1, 10)
  end
  local ok, err = pcall(txn[FN[t]], w, d)
  if not ok then
    txn.recover(err)
    error(err, 0)
  end
  if t == 4 then skipped = skipped + err end
  pending = nil
  if think_mode then thinking = true end
end

lbench.hooks.result = function(r)
  r.tpcc = report.summary(r, opt, trx_level())
  local ok, n = pcall(function()
    local c = connect()
    local v = tonumber(meta_get(c, "delivery_skipped"))
    c:disconnect()
    return v
  end)
  if ok and n then report.set_skipped(r.tpcc, n) end
end
lbench.hooks.report_extra = function(r, fmt)
  if fmt == "text" then return report.text(r.tpcc) end
  if fmt == "csv" then return report.csv(r.tpcc) end
end
lbench.hooks.interval_extra = function(iv, secs)
  iv.types_line = report.interval(iv, secs)
end

-- ---- check --------------------------------------------------------------------
local check = require("tpcc.check")

local function cmd_check()
  check_warehouses()
  local con = connect()
  loaded_meta(con)
  local initial = (tonumber(meta_get(con, "runs")) or 0) == 0
  con:disconnect()
  print(string.format("Checking consistency conditions 3.3.2.1-3.3.2.12 on %d warehouse(s) with %d thread(s)...",
    opt.warehouses, math.min(opt.threads, opt.warehouses)))
  opt._tpcc_initial = initial
  local ok, err = pcall(lbench.run_parallel, "_check")
  if ok and not err then
    util.fail("check interrupted before every warehouse was checked: nothing was changed; run check again")
  end
  if not ok then
    local msg = tostring(err):match("^[^\n]*")
    if msg:find("consistency check FAILED", 1, true) then
      util.fail("consistency check FAILED (the warehouses marked FAILED above)")
    end
    util.fail("%s", msg)
  end
  print(string.format("Consistency check PASSED on all %d warehouse(s)%s.", opt.warehouses,
    initial and "" or " (condition 11 holds only for the initial population: not checked after a run)"))
end

local function cmd_check_thread()
  local n, threads, tid = opt.warehouses, opt.threads, lbench.tid
  if tid >= n then return end
  threads = math.min(threads, n)
  -- Contiguous ranges: warehouses lo..hi for this thread.
  local per, extra = math.floor(n / threads), n % threads
  local lo = tid * per + math.min(tid, extra) + 1
  local hi = lo + per - 1 + (tid < extra and 1 or 0)
  local con = connect()
  local fail, checked = check.check_range(con, lo, hi, opt._tpcc_initial, pg())
  con:disconnect()
  local out, bad = {}, {}
  for w = lo, hi do
    local f = fail[w]
    if #f == 0 then
      out[#out + 1] = string.format("Warehouse %d: PASSED (conditions %s)", w, table.concat(checked, ","))
    else
      bad[#bad + 1] = w
      out[#out + 1] = string.format("Warehouse %d: FAILED", w)
      for _, x in ipairs(f) do
        out[#out + 1] = string.format("  3.3.2.%d %s: FAILED: %s", x[1], check.title(x[1]), x[2])
      end
    end
  end
  io.write(table.concat(out, "\n") .. "\n")
  io.flush()
  if #bad > 0 then
    util.fail("consistency check FAILED on warehouse(s) %s", table.concat(bad, ", "))
  end
end

lbench.cmdline.commands = {
  prepare = { cmd_prepare },
  check = { cmd_check },
  _load = { cmd_load, lbench.cmdline.PARALLEL_COMMAND },
  _check = { cmd_check_thread, lbench.cmdline.PARALLEL_COMMAND },
}
