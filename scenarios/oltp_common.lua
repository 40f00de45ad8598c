-- The sysbench OLTP workload family, shared by the oltp_* scenarios.
--
-- Same tables, queries, option names and defaults as sysbench 1.0's OLTP
-- scripts, so results compare one to one; the machinery differs: prepare
-- creates every table first, loads them in parallel over --threads (a table
-- is split into id ranges when there are more threads than tables), then
-- builds the secondary indexes, with a progress bar on a terminal.  Ids are
-- BIGINT when --table-size exceeds 2^31 - 1.
local M = {}

lbench.cmdline.options = {
  -- Bounds (checked when the options are parsed): --table-size=0 makes
  -- empty tables (an insert-only benchmark); ids beyond 2^53 are not exact.
  -- Per-transaction counts may be 0 (that query is left out).
  table_size = { "Number of rows per table", 10000, min = 0, max = 2 ^ 53 },
  range_size = { "Range size for range SELECT queries", 100, min = 1 },
  tables = { "Number of tables", 1, min = 1, max = 100000 },
  point_selects = { "Number of point SELECT queries per transaction", 10, min = 0 },
  simple_ranges = { "Number of simple range SELECT queries per transaction", 1, min = 0 },
  sum_ranges = { "Number of SELECT SUM() queries per transaction", 1, min = 0 },
  order_ranges = { "Number of SELECT ORDER BY queries per transaction", 1, min = 0 },
  distinct_ranges = { "Number of SELECT DISTINCT queries per transaction", 1, min = 0 },
  index_updates = { "Number of UPDATE index queries per transaction", 1, min = 0 },
  non_index_updates = { "Number of UPDATE non-index queries per transaction", 1, min = 0 },
  delete_inserts = { "Number of DELETE/INSERT combinations per transaction", 1, min = 0 },
  range_selects = { "Enable/disable all range SELECT queries", true },
  auto_inc = { "Use AUTO_INCREMENT column as Primary Key; when disabled, use client-generated IDs", true },
  skip_trx = { "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", false },
  secondary = { "Use a secondary index in place of the PRIMARY KEY", false },
  create_secondary = { "Create a secondary index in addition to the PRIMARY KEY", true },
  create_table_options = { "Extra options appended to CREATE TABLE (e.g. ROW_FORMAT=COMPRESSED)", "" },
  mysql_storage_engine = { "Storage engine, if MySQL is used", "innodb" },
  reconnect = { "Reconnect after every N events (0: never)", 0, min = 0 },
  load_chunk = { "Rows per parallel load unit when tables are split across threads", 1000000, min = 1 },
  rank_tables = { "lbench-mpi: shared (every rank's threads use every table) or split (each rank's threads use, "
    .. "and in prepare load, only its own block of the tables)", "shared", type = "enum", choices = { "shared", "split" } },
  load_method = { "How prepare loads rows: bulk (MySQL LOAD DATA LOCAL INFILE, PostgreSQL COPY, rows generated "
    .. "in C) or insert (prepared multi-row INSERTs)", "bulk", type = "enum", choices = { "bulk", "insert" } },
}

-- sysbench's templates: 10 and 5 groups of 11 random digits.
local C_TMPL = string.rep("###########-", 9) .. "###########"
local PAD_TMPL = string.rep("###########-", 4) .. "###########"
M.C_TMPL, M.PAD_TMPL = C_TMPL, PAD_TMPL

local opt = lbench.opt
local util = require("lbench.util")
local function big() return opt.table_size > 2147483647 end
-- PostgreSQL's dialect (sysbench's pgsql driver): SERIAL ids, no engine.
local function pg() return opt.db_driver == "pgsql" end

-- The tables this process uses: all of them, or under lbench-mpi with
-- --rank-tables=split its rank's contiguous block (lbench.rank_block), so
-- that each client host works on tables of its own, as a partitioned
-- multi-client setup does.
local function rank_tables()
  if opt.rank_tables ~= "split" or lbench.nranks == 1 then return 1, opt.tables end
  local lo, hi = lbench.rank_block(opt.tables)
  if hi < lo then
    util.fail("--rank-tables=split: --tables=%d over %d ranks leaves rank %d without a table: use at least %d tables",
      opt.tables, lbench.nranks, lbench.rank, lbench.nranks)
  end
  return lo, hi
end
local t_lo, t_hi = 1, 1 -- this thread's tables (rank_tables), set by thread_init

-- The one-line explanations of the two SQL errors a user meets first: a
-- table that prepare has not made (1146; sbtest`t` is the first missing
-- one, since tables are used in order) and one that a previous prepare
-- left (1050).  Any other error is raised again unchanged.
local ER_TABLE_EXISTS, ER_NO_SUCH_TABLE = 1050, 1146
function M.explain_sql_error(con, t, e)
  local se = con and con.last_error
  local code = se and se.sql_errno
  -- PostgreSQL: undefined_table, duplicate_table.
  if se and se.sql_state == "42P01" then code = ER_NO_SUCH_TABLE end
  if se and se.sql_state == "42P07" then code = ER_TABLE_EXISTS end
  if code == ER_NO_SUCH_TABLE then
    if t > 1 then
      util.fail("table sbtest%d does not exist (%s): use --tables=%d, or run cleanup, then prepare with --tables=%d",
        t, t == 2 and "sbtest1 does" or ("sbtest1..sbtest" .. (t - 1) .. " do"), t - 1, opt.tables)
    end
    util.fail("table sbtest1 does not exist in database '%s': run prepare first (with the same --tables and --table-size)",
      tostring(pg() and opt.pgsql_db or opt.mysql_db))
  elseif code == ER_TABLE_EXISTS then
    util.fail("table sbtest%d already exists in database '%s': run cleanup first (with the --tables of the earlier "
      .. "prepare), or use another --%s-db", t, tostring(pg() and opt.pgsql_db or opt.mysql_db), pg() and "pgsql" or "mysql")
  end
  error(e, 0)
end

-- fn(con, t), with the errors above explained.
local function explained(con, t, fn)
  local ok, e = pcall(fn, con, t)
  if not ok then M.explain_sql_error(con, t, e) end
end

-- ---- prepare -------------------------------------------------------------

-- PostgreSQL, as pgbench -i: the id key is built once after the load,
-- which costs less than maintaining it row by row during the COPY.
function M.deferred_key() return pg() and opt.table_size > 0 end

local function create_table(con, n)
  local id_type = big() and "BIGINT" or "INTEGER"
  local id_def, engine = id_type .. " NOT NULL" .. (opt.auto_inc and " AUTO_INCREMENT" or ""), "ENGINE = " .. opt.mysql_storage_engine
  if pg() then
    engine = ""
    if opt.auto_inc then
      id_def = opt.pgsql_variant == "redshift" and (id_type .. " IDENTITY(1,1)") or (big() and "BIGSERIAL" or "SERIAL")
    end
  end
  local cols = { "id " .. id_def, "k " .. id_type .. " DEFAULT '0' NOT NULL", "c CHAR(120) DEFAULT '' NOT NULL",
                 "pad CHAR(60) DEFAULT '' NOT NULL" }
  if not M.deferred_key() then
    cols[#cols + 1] = (opt.secondary and (pg() and "UNIQUE" or "KEY xid") or "PRIMARY KEY") .. " (id)"
  end
  print(string.format("Creating table 'sbtest%d'...", n))
  con.last_error = nil
  explained(con, n, function() con:query(string.format("CREATE TABLE sbtest%d(\n  %s\n) %s %s", n,
    table.concat(cols, ",\n  "), engine, opt.create_table_options or "")) end)
end

-- PostgreSQL: the rows came with their ids, so the SERIAL sequence must
-- start after them for the server-assigned ids of oltp_insert.
local function sync_sequence(con, t)
  if pg() and opt.auto_inc and opt.pgsql_variant ~= "redshift" then
    con:query(string.format("SELECT setval(pg_get_serial_sequence('sbtest%d', 'id'), "
      .. "COALESCE((SELECT MAX(id) FROM sbtest%d), 0) + 1, false)", t, t))
  end
end

-- Load units: whole tables when there are at least as many tables as
-- threads (each then loads in one transaction into an empty table, which
-- InnoDB bulk-loads), otherwise id ranges of --load-chunk rows.
local function load_units()
  local units = {}
  if opt.tables >= opt.threads or opt.table_size <= opt.load_chunk then
    for t = 1, opt.tables do units[#units + 1] = { t, 1, opt.table_size } end
  else
    for t = 1, opt.tables do
      for lo = 1, opt.table_size, opt.load_chunk do
        units[#units + 1] = { t, lo, math.min(lo + opt.load_chunk - 1, opt.table_size) }
      end
    end
  end
  return units
end

-- Rows per load statement: a prepared multi-row INSERT whose values go
-- into the C bind array (binary protocol: the server parses no text and
-- the client builds no strings).
local LOAD_ROWS = 100

local function load_statement(con, t, rows)
  local T = lbench.sql.type
  local id_type = big() and T.BIGINT or T.INT
  local st = con:prepare(string.format("INSERT INTO sbtest%d(id, k, c, pad) VALUES ", t) ..
    string.rep("(?,?,?,?),", rows - 1) .. "(?,?,?,?)")
  local ps = {}
  for _ = 1, rows do
    ps[#ps + 1] = st:bind_create(id_type)
    ps[#ps + 1] = st:bind_create(id_type)
    ps[#ps + 1] = st:bind_create(T.CHAR, #C_TMPL)
    ps[#ps + 1] = st:bind_create(T.CHAR, #PAD_TMPL)
  end
  st:bind_param(unpack(ps))
  return st, ps
end

-- --load-method=bulk where the server takes it (a MySQL server may refuse
-- LOAD DATA LOCAL INFILE: prepare then says so once and inserts instead).
function M.bulk_load_ok(con) return opt.load_method == "bulk" and con:can_load() end

-- PostgreSQL, a unit that is a whole table (created empty by this
-- prepare) loads frozen (con:load_frozen; 4-7 % less server CPU for the
-- load of 4 x 100k rows).
local function freeze_unit(u)
  return pg() and opt.pgsql_variant ~= "redshift" and u[2] == 1 and u[3] == opt.table_size
end

-- Rows lo..hi of table t as one bulk load, generated in C straight into
-- the client library's buffers: PostgreSQL's COPY ... FROM STDIN, MySQL's
-- LOAD DATA LOCAL INFILE served from memory.  The server skips parsing and
-- planning an INSERT per row batch, the client builds no strings.  One
-- statement: a stop ends it early and keeps the rows sent so far, which
-- the progress count (kept by the generator) matches.
local function bulk_unit(con, u)
  local t, lo, hi = u[1], u[2], u[3]
  local rows = lbench.rand.sbtest_rows(lo, hi, opt.table_size, C_TMPL, PAD_TMPL)
  local function load(clause)
    return con:load_rows(pg() and string.format("COPY sbtest%d (id, k, c, pad) FROM STDIN%s", t, clause)
      or string.format("LOAD DATA LOCAL INFILE 'sbtest%d' INTO TABLE sbtest%d (id, k, c, pad)", t, t), rows)
  end
  local loaded
  if freeze_unit(u) then loaded = con:load_frozen("sbtest" .. t, load) else loaded = load("") end
  -- LOAD DATA LOCAL turns a rejected row into a warning: count them.
  if loaded ~= rows.generated() then
    util.fail("sbtest%d: the server loaded %d of the %d rows sent (%s)", t, loaded, rows.generated(),
      pg() and "COPY" or "LOAD DATA LOCAL INFILE; see SHOW WARNINGS")
  end
end

-- Rows lo..hi of table t: first the remainder (fewer than LOAD_ROWS) with a
-- statement of its own size, then full statements.
local function load_unit(con, u)
  if M.bulk_load_ok(con) then return bulk_unit(con, u) end
  local t, lo, hi = u[1], u[2], u[3]
  local rand, size = lbench.rand, opt.table_size
  local total = hi - lo + 1
  local rem = total % LOAD_ROWS
  local id = lo
  local function fill(ps, rows)
    for r = 0, rows - 1 do
      local b = r * 4
      ps[b + 1]:set(id)
      ps[b + 2]:set(rand.default(1, size))
      ps[b + 3]:set_rand_str(C_TMPL)
      ps[b + 4]:set_rand_str(PAD_TMPL)
      id = id + 1
    end
  end
  if rem > 0 then
    local st, ps = load_statement(con, t, rem)
    fill(ps, rem)
    st:execute()
    st:close()
    lbench.progress.add(rem)
  end
  if total >= LOAD_ROWS then
    local st, ps = load_statement(con, t, LOAD_ROWS)
    local n = 0
    while id <= hi do
      fill(ps, LOAD_ROWS)
      st:execute()
      n = n + LOAD_ROWS
      if n >= 10000 then lbench.progress.add(n); n = 0 end
      -- Each statement commits on its own: a stop leaves whole statements.
      if lbench.should_stop() then break end
    end
    st:close()
    lbench.progress.add(n)
  end
end

-- The indexes built after the load: the deferred id key, the secondary
-- index on k.
local function indexes_after_load() return opt.create_secondary or M.deferred_key() end

-- The statements that index table t after its load, each with what to print.
local function index_statements(t)
  local list = {}
  if M.deferred_key() then
    list[#list + 1] = { opt.secondary and string.format("CREATE UNIQUE INDEX xid_%d ON sbtest%d(id)", t, t)
      or string.format("ALTER TABLE sbtest%d ADD PRIMARY KEY (id)", t) }
  end
  if opt.create_secondary then
    list[#list + 1] = { string.format("CREATE INDEX k_%d ON sbtest%d(k)", t, t),
                        string.format("Creating a secondary index on 'sbtest%d'...", t) }
  end
  return list
end

local function create_indexes(con, t)
  for _, st in ipairs(index_statements(t)) do
    if st[2] then print(st[2]) end
    con:query(st[1])
  end
end

-- Index builds overlapped with loading: a loader's second connection runs
-- the statements that index the table just loaded while the loader streams
-- the next one, so the server works on both (a single loader thread
-- keeps two server threads busy).  step() is called between tables: it
-- waits for the statement in progress, then starts the next queued one.
local function new_indexer(loader)
  local ix = { queue = {}, busy = false }
  -- On PostgreSQL a table's statements go as one query string: the server
  -- runs them one after the other, so the k index is built as soon as the
  -- key is, not only when the loader reaches the next table boundary.
  function ix.add(t)
    local list = index_statements(t)
    if pg() and #list > 1 then
      local sqls, note = {}, nil
      for _, st in ipairs(list) do sqls[#sqls + 1], note = st[1], note or st[2] end
      list = { { table.concat(sqls, "; "), note } }
    end
    for _, st in ipairs(list) do ix.queue[#ix.queue + 1] = st end
    ix.step()
  end
  function ix.step()
    if ix.busy then
      ix.con:query_end()
      ix.busy = false
    end
    local st = table.remove(ix.queue, 1)
    if not st then return end
    if not ix.con then
      ix.con = lbench.sql.driver():connect(loader.server)
      -- These builds run beside the loads, which already keep the server's
      -- CPUs busy: PostgreSQL's parallel workers would only add their
      -- coordination (7-12 % more server CPU for 4 x 100k rows on 2 vCPUs).
      if pg() then ix.con:query("SET max_parallel_maintenance_workers = 0") end
    end
    if st[2] then print(st[2]) end
    ix.con:query_begin(st[1])
    ix.busy = true
  end
  function ix.finish()
    while ix.busy do ix.step() end
    if ix.con then ix.con:disconnect() end
  end
  return ix
end

-- Whole tables are loaded by one thread each: that thread indexes its table
-- while it loads the next (new_indexer), overlapping the index builds with
-- all the loading.  Tables split across threads are indexed at the end.
local function whole_tables() return opt.tables >= opt.threads or opt.table_size <= opt.load_chunk end

-- What an interrupted prepare leaves behind, and what to do about it.
local function prepare_interrupted(created)
  print(string.format("prepare interrupted: %d of %d table(s) created, %.0f of %.0f row(s) inserted. "
    .. "The tables are incomplete: run cleanup (with --tables=%d), then prepare again.", created, opt.tables,
    lbench.progress.done(), opt.table_size * opt.tables, opt.tables))
end

local function cmd_prepare()
  local drv = lbench.sql.driver()
  local con = drv:connect()
  local created = 0
  for t = 1, opt.tables do
    if lbench.should_stop() then break end
    create_table(con, t)
    created = t
  end
  local ok = created == opt.tables
  if ok and opt.table_size > 0 then
    if opt.load_method == "bulk" and opt.db_driver == "mysql" and not M.bulk_load_ok(con) then
      io.stderr:write("note: the server refuses LOAD DATA LOCAL INFILE (local_infile=OFF): loading with INSERT "
        .. "instead (as --load-method=insert)\n")
    end
    print(string.format("Inserting %.0f records into %d table(s) with %d thread(s)", opt.table_size * opt.tables,
      opt.tables, opt.threads))
    lbench.progress.total(opt.table_size * opt.tables, "rows")
    ok = lbench.run_parallel("_load")
  end
  if ok and indexes_after_load() and not (whole_tables() and opt.table_size > 0) then
    ok = lbench.run_parallel("_index")
  end
  if ok then
    for t = 1, opt.tables do sync_sequence(con, t) end
  end
  con:disconnect()
  if not ok or lbench.should_stop() then prepare_interrupted(created) end
end

-- The load units of this loader: every unit of the job's taken in turn
-- by its threads, or with --rank-tables=split those of its rank's tables
-- taken in turn by the rank's threads (each host loads what it will use).
local function my_units()
  local units, threads, tid = load_units(), opt.threads, lbench.tid
  if opt.rank_tables == "split" and lbench.nranks > 1 then
    local lo, hi = rank_tables()
    local mine = {}
    for _, u in ipairs(units) do if u[1] >= lo and u[1] <= hi then mine[#mine + 1] = u end end
    units, threads = mine, opt.threads / lbench.nranks
    tid = lbench.tid - lbench.rank * threads
  end
  local out = {}
  for i, u in ipairs(units) do if (i - 1) % threads == tid then out[#out + 1] = u end end
  return out
end

local function cmd_load()
  local con = lbench.sql.driver():connect()
  local indexer = indexes_after_load() and whole_tables() and new_indexer(con)
  for _, u in ipairs(my_units()) do
    if lbench.should_stop() then break end
    do
      load_unit(con, u)
      if indexer and not lbench.should_stop() then indexer.add(u[1]) end
    end
  end
  if indexer and not lbench.should_stop() then indexer.finish() end
  con:disconnect()
end

local function cmd_index()
  local con = lbench.sql.driver():connect()
  for t = lbench.tid + 1, opt.tables, opt.threads do
    if lbench.should_stop() then break end
    create_indexes(con, t)
  end
  con:disconnect()
end

-- Read every table's pages into the buffer pool.
local function cmd_prewarm()
  local con = lbench.sql.driver():connect()
  for t = lbench.tid % opt.threads + 1, opt.tables, opt.threads do
    if lbench.should_stop() then break end
    print(string.format("Prewarming table sbtest%d", t))
    if pg() then
      -- The heap, then the indexes through index-only scans.
      con:query("ANALYZE sbtest" .. t)
      con:query(string.format("SELECT SUM(LENGTH(c)) FROM sbtest%d", t))
      con:query(string.format("SELECT COUNT(*) FROM (SELECT id FROM sbtest%d ORDER BY id) t", t))
      if opt.create_secondary then
        con:query(string.format("SELECT COUNT(*) FROM (SELECT k FROM sbtest%d ORDER BY k) t", t))
      end
    else
      con:query("ANALYZE TABLE sbtest" .. t)
      con:query(string.format("SELECT AVG(id) FROM (SELECT * FROM sbtest%d FORCE KEY (PRIMARY) LIMIT %.0f) t", t,
        opt.table_size))
    end
    if opt.create_secondary and not pg() then
      con:query(string.format("SELECT COUNT(*) FROM (SELECT k FROM sbtest%d FORCE KEY (k_%d) LIMIT %.0f) t", t, t,
        opt.table_size))
    end
  end
  con:disconnect()
end

function cleanup()
  local con = lbench.sql.driver():connect()
  for t = 1, opt.tables do
    print(string.format("Dropping table 'sbtest%d'...", t))
    con:query("DROP TABLE IF EXISTS sbtest" .. t)
  end
  con:disconnect()
end

-- What the tables hold (lbench sweep --prepare-each records it per
-- point): the rows prepare loads, and the bytes the server reports for
-- data and indexes.  The rows are --tables x --table-size, not a count:
-- counting would scan every table.
lbench.hooks.loaded_size = function()
  local con = lbench.sql.driver():connect()
  local names = {}
  for t = 1, opt.tables do names[t] = "sbtest" .. t end
  local bytes = require("lbench.db.datasize").sql_tables_bytes(con, pg(), names)
  con:disconnect()
  return { tables = opt.tables, table_size = opt.table_size, rows = opt.tables * opt.table_size, bytes = bytes }
end

lbench.cmdline.commands = {
  prepare = { cmd_prepare },
  prewarm = { cmd_prewarm, lbench.cmdline.PARALLEL_COMMAND },
  _load = { cmd_load, lbench.cmdline.PARALLEL_COMMAND },
  _index = { cmd_index, lbench.cmdline.PARALLEL_COMMAND },
}

-- ---- run -----------------------------------------------------------------

local T = lbench.sql.type
-- name -> SQL and parameter types ("id" params are INT or BIGINT).
local defs = {
  point_selects = { "SELECT c FROM sbtest%d WHERE id=?", "id" },
  simple_ranges = { "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?", "id", "id" },
  sum_ranges = { "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?", "id", "id" },
  order_ranges = { "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c", "id", "id" },
  distinct_ranges = { "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c", "id", "id" },
  index_updates = { "UPDATE sbtest%d SET k=k+1 WHERE id=?", "id" },
  non_index_updates = { "UPDATE sbtest%d SET c=? WHERE id=?", { T.CHAR, 120 }, "id" },
  deletes = { "DELETE FROM sbtest%d WHERE id=?", "id" },
  inserts = { "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)", "id", "id", { T.CHAR, 120 }, { T.CHAR, 60 } },
  -- PostgreSQL assigns a SERIAL id only when the column is left out.
  auto_inserts = { "INSERT INTO sbtest%d (k, c, pad) VALUES (?, ?, ?)", "id", { T.CHAR, 120 }, { T.CHAR, 60 } },
}

local con, stmts, params, begin_stmt, commit_stmt
M.used = {}

-- Scenarios call M.use("point_selects", ...) at load time to declare the
-- statements their event needs.
function M.use(...)
  for _, name in ipairs({ ... }) do
    M.used[name] = true
    if name == "inserts" and pg() and opt.auto_inc then M.used.auto_inserts = true end
  end
end

local function prepare_statements()
  stmts, params = {}, {}
  local id_type = big() and T.BIGINT or T.INT
  for t = t_lo, t_hi do
    M.preparing = t -- for the error explanation
    stmts[t], params[t] = {}, {}
    for name in pairs(M.used) do
      local d = defs[name]
      local st = con:prepare(string.format(d[1], t))
      local ps = {}
      for i = 2, #d do
        local ty = d[i]
        ps[#ps + 1] = ty == "id" and st:bind_create(id_type) or st:bind_create(ty[1], ty[2])
      end
      st:bind_param(unpack(ps))
      stmts[t][name], params[t][name] = st, ps
    end
  end
end

local function close_statements()
  for _, by_name in pairs(stmts) do
    for _, st in pairs(by_name) do st:close() end
  end
  if begin_stmt then begin_stmt:close(); commit_stmt:close() end
  begin_stmt, commit_stmt = nil, nil
end

local events = 0
function thread_init()
  t_lo, t_hi = rank_tables()
  con = lbench.sql.driver():connect()
  local ok, e = pcall(prepare_statements)
  if not ok then M.explain_sql_error(con, M.preparing or 1, e) end
end

function thread_done()
  close_statements()
  con:disconnect()
end

-- sysbench's hook, kept for scripts that expect it; the core re-prepares
-- statements itself after a reconnect, so nothing is needed here.
function lbench.hooks.before_restart_event(err) end

local rand = lbench.rand
local function table_num() return rand.uniform(t_lo, t_hi) end
local function id() return rand.default(1, opt.table_size) end

-- BEGIN and COMMIT are prepared at the first transaction: a scenario
-- without transactions (oltp_point_select) then holds no statement for
-- them, which counts at 10,000 connections.
function M.begin()
  if opt.skip_trx then return end
  if not begin_stmt then begin_stmt, commit_stmt = con:prepare("BEGIN"), con:prepare("COMMIT") end
  begin_stmt:execute()
end
function M.commit()
  if not opt.skip_trx then commit_stmt:execute() end
  if opt.reconnect > 0 then
    events = events + 1
    if events % opt.reconnect == 0 then con:reconnect() end
  end
end

-- `count` executions of a one-parameter statement keyed by a random id,
-- all on one randomly chosen table (as sysbench does).
local function by_id(name, count)
  local t = table_num()
  local st, p = stmts[t][name], params[t][name][1]
  for _ = 1, count do
    p:set(id())
    st:execute()
  end
end

function M.point_selects() by_id("point_selects", opt.point_selects) end

local function ranges(name, count)
  local t = table_num()
  local st, p = stmts[t][name], params[t][name]
  for _ = 1, count do
    local lo = id()
    p[1]:set(lo)
    p[2]:set(lo + opt.range_size - 1)
    st:execute()
  end
end
function M.simple_ranges() ranges("simple_ranges", opt.simple_ranges) end
function M.sum_ranges() ranges("sum_ranges", opt.sum_ranges) end
function M.order_ranges() ranges("order_ranges", opt.order_ranges) end
function M.distinct_ranges() ranges("distinct_ranges", opt.distinct_ranges) end

function M.range_selects()
  if not opt.range_selects then return end
  M.simple_ranges(); M.sum_ranges(); M.order_ranges(); M.distinct_ranges()
end

function M.index_updates() by_id("index_updates", opt.index_updates) end

function M.non_index_updates()
  local t = table_num()
  local st, p = stmts[t].non_index_updates, params[t].non_index_updates
  for _ = 1, opt.non_index_updates do
    p[1]:set_rand_str(C_TMPL)
    p[2]:set(id())
    st:execute()
  end
end

function M.deletes() by_id("deletes", 1) end

-- Client-generated ids for --auto-inc=off.  sysbench 1.0 inserts
-- rand.unique() - 2^31, which fits its INT column; but lbench's unique()
-- streams are per thread (two threads may draw the same value) and
-- prepare leaves rows 1..table_size in place, so the id must also be
-- disjoint across writers and from the prepared rows.  INT tables: the
-- negative half [-2^31, 0), which prepared rows never use, cut into one
-- 2^b slice per writer (a thread, or a virtual user in async mode, since
-- each VU has its own copy of these locals); within its slice a writer
-- walks a keyed permutation, so ids are scattered as sysbench's are and
-- never repeat (2^b ids per writer).  BIGINT tables (--table-size beyond
-- 2^31 - 1) have room for 2^32 * (tid + 1) + unique() on the shared
-- per-thread stream.
local PC = require("lbench.ffi").C
local next_id
local function id_source()
  if big() then
    local base = 2 ^ 32 * (lbench.tid + 1)
    return function() return base + rand.unique() end
  end
  local async = (opt.connections or 0) > 0
  local writers, me = async and opt.connections or opt.threads, async and lbench.vu or lbench.tid
  local b = 31
  while b > 1 and 2 ^ (31 - b) < writers do b = b - 1 end
  local size, base = 2 ^ b, -2 ^ 31 + me * 2 ^ b
  -- lb_rand_permute works on even widths: walk 2^width (b rounded up to
  -- even) and skip the values past the slice (at most half of them).
  local width, key, ctr = b + b % 2, rand.uniform(0, 2 ^ 52), 0
  return function()
    local v
    repeat
      v = tonumber(PC.lb_rand_permute(key, ctr, width))
      ctr = ctr + 1
    until v < size
    return base + v
  end
end

-- One INSERT: with --auto-inc the server assigns the id, otherwise the
-- writer's next client-generated id.
function M.insert()
  local t = table_num()
  if opt.auto_inc and pg() then
    local p = params[t].auto_inserts
    p[1]:set(id())
    p[2]:set_rand_str(C_TMPL)
    p[3]:set_rand_str(PAD_TMPL)
    stmts[t].auto_inserts:execute()
    return
  end
  local p = params[t].inserts
  if opt.auto_inc then
    p[1]:set(nil)
  else
    next_id = next_id or id_source()
    p[1]:set(next_id())
  end
  p[2]:set(id())
  p[3]:set_rand_str(C_TMPL)
  p[4]:set_rand_str(PAD_TMPL)
  stmts[t].inserts:execute()
end

function M.delete_inserts()
  local t = table_num()
  local ds, dp = stmts[t].deletes, params[t].deletes[1]
  local is, ip = stmts[t].inserts, params[t].inserts
  for _ = 1, opt.delete_inserts do
    local i = id()
    dp:set(i)
    ds:execute()
    ip[1]:set(i)
    ip[2]:set(id())
    ip[3]:set_rand_str(C_TMPL)
    ip[4]:set_rand_str(PAD_TMPL)
    is:execute()
  end
end

return M
