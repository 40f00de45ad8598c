-- The four pgbench tables (pgbench 15's `pgbench -i`), in PostgreSQL's and
-- MySQL/MariaDB's dialects: creation, the steps after the load (primary
-- keys, VACUUM/ANALYZE), the scale read back from pgbench_branches, and
-- the one-line explanations of a missing or an already existing table.
--
-- PostgreSQL gets pgbench's exact DDL: the tables without keys, with
-- `fillfactor`, and the primary keys added after the load (one sorted
-- build).  MySQL/MariaDB declares the primary keys in CREATE TABLE: InnoDB
-- clusters a table by its primary key, so adding it after the load would
-- copy the whole table again, while rows loaded in key order simply append.
local util = require("lbench.util")

local M = {}

-- Creation order is pgbench's (history first, branches last); cleanup
-- drops them all.
M.TABLES = { "pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches" }

-- pgbench switches aid to bigint from this scale on (SCALE_32BIT_THRESHOLD,
-- compared with >=, as its initCreateTables does).
M.SCALE_32BIT_THRESHOLD = 20000
M.ACCOUNTS, M.TELLERS, M.BRANCHES = 100000, 10, 1

function M.pg(opt) return opt.db_driver == "pgsql" end

-- A connection of the run's driver.  Under the name pgbench a failure is
-- libpq's own line, as pgbench prints it ("connection to server at ...
-- failed: FATAL:  ..."), not lbench's.
function M.connect(opt)
  local ok, con = pcall(function() return lbench.sql.driver():connect() end)
  if ok then return con end
  if opt.pgbench_compat and type(con) == "table" and con.sql_report then util.fail("%s", con.sql_report) end
  error(con, 0)
end
function M.big(scale) return scale >= M.SCALE_32BIT_THRESHOLD end

-- name -> columns (pgbench's own lists; `%s` is aid's type) and the key
-- that PostgreSQL adds after the load.
local COLUMNS = {
  pgbench_history = { "tid int, bid int, aid %s, delta int, mtime %s, filler char(22)" },
  pgbench_tellers = { "tid int not null, bid int, tbalance int, filler char(84)", "tid" },
  pgbench_accounts = { "aid %s not null, bid int, abalance int, filler char(84)", "aid" },
  pgbench_branches = { "bid int not null, bbalance int, filler char(88)", "bid" },
}

-- A name as PostgreSQL's quoted identifier (libpq's PQescapeIdentifier).
local function ident(s) return '"' .. s:gsub('"', '""') .. '"' end

-- " tablespace NAME" for --tablespace (kind "") or --index-tablespace
-- (kind "index_"), or "".
local function tablespace(opt, kind)
  local ts = opt[kind .. "tablespace"]
  if not ts or ts == "" then return "" end
  return (kind == "" and " tablespace " or " using index tablespace ") .. ident(ts)
end

-- The CREATE TABLE statement of table `name` for this driver.
function M.ddl(name, opt, scale)
  local pg = M.pg(opt)
  local aid = M.big(scale) and "bigint" or "int"
  -- pgbench's timestamp is PostgreSQL's "without time zone": MySQL's
  -- DATETIME (its TIMESTAMP is UTC-converted, ends in 2038 and may update
  -- itself on every UPDATE).
  local cols = string.format(COLUMNS[name][1], aid, pg and "timestamp" or "datetime")
  local key = COLUMNS[name][2]
  if pg then
    -- pgbench declares fillfactor on the three updated tables, not history;
    -- a partitioned accounts table declares its method instead (its
    -- partitions carry the fillfactor: M.partitions).
    local with = key and string.format(" with (fillfactor=%d)", opt.fillfactor) or ""
    if name == "pgbench_accounts" and (opt.partitions or 0) > 0 then
      with = string.format(" partition by %s (aid)", M.partition_method(opt))
    end
    return string.format("create %stable %s(%s)%s%s", opt.unlogged_tables and "unlogged " or "", name, cols, with,
      tablespace(opt, ""))
  end
  if key then cols = cols .. ", primary key (" .. key .. ")" end
  local extra = opt.create_table_options ~= "" and (" " .. opt.create_table_options) or ""
  return string.format("create table %s(%s) engine = %s%s", name, cols, opt.mysql_storage_engine, extra)
end

-- --partition-method, range by default once there are partitions.
function M.partition_method(opt)
  return (opt.partition_method or "") ~= "" and opt.partition_method or "range"
end

-- The CREATE TABLE statements of pgbench_accounts' partitions, as pgbench
-- 15 makes them: `range` cuts 1..accounts into equal ranges, the first and
-- the last open-ended; `hash` takes remainder p-1 of modulus N.
function M.partitions(opt, scale)
  local n, out = opt.partitions or 0, {}
  local size = math.floor((M.ACCOUNTS * scale + n - 1) / n)
  for p = 1, n do
    local bounds
    if M.partition_method(opt) == "hash" then
      bounds = string.format("for values with (modulus %d, remainder %d)", n, p - 1)
    else
      local lo = p == 1 and "minvalue" or string.format("%d", (p - 1) * size + 1)
      bounds = string.format("for values from (%s) to (%s)", lo, p < n and string.format("%d", p * size + 1) or "maxvalue")
    end
    out[p] = string.format("create%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n  %s"
      .. " with (fillfactor=%d)", opt.unlogged_tables and " unlogged" or "", p, bounds, opt.fillfactor)
  end
  return out
end

local function db_name(opt) return tostring(M.pg(opt) and opt.pgsql_db or opt.mysql_db) end

-- The error of `con` (raised as `e`) was about table `name`: a missing
-- table (1146, 42P01) says to run prepare, an existing one (1050, 42P07)
-- to run cleanup; anything else is raised again unchanged.
function M.explain(con, name, e, opt)
  local se = con and con.last_error
  local code, state = se and se.sql_errno, se and se.sql_state
  if code == 1146 or state == "42P01" then
    if opt.pgbench_compat then
      -- under pgbench's name the database comes from libpq (DBNAME, PGDATABASE),
      -- not from --pgsql-db: ask the server which one it is
      local ok, db = pcall(con.query_row, con, "select current_database()")
      util.fail("table %s does not exist: Perhaps you need to do initialization (\"pgbench -i\") in database \"%s\"",
        name, ok and tostring(db) or "?")
    end
    util.fail("table %s does not exist in database '%s': run prepare first (lbench pgbench --scale=N prepare)",
      name, db_name(opt))
  elseif code == 1050 or state == "42P07" then
    util.fail("table %s already exists in database '%s': run cleanup first, or use another --%s-db",
      name, db_name(opt), M.pg(opt) and "pgsql" or "mysql")
  end
  error(e, 0)
end

-- fn() with the errors about table `name` explained.
function M.explained(con, name, opt, fn)
  con.last_error = nil
  local ok, e = pcall(fn)
  if not ok then M.explain(con, name, e, opt) end
  return e
end

-- The pgbench tables that already exist in the connection's database
-- (PostgreSQL: in the first schema of the search path, where CREATE TABLE
-- puts them).
function M.existing(con, opt)
  local rs = con:query("select table_name from information_schema.tables where table_schema = "
    .. (M.pg(opt) and "current_schema()" or "database()")
    .. " and table_name in ('" .. table.concat(M.TABLES, "', '") .. "')")
  local found = {}
  local row = rs and rs:fetch_row()
  while row do
    found[#found + 1] = row[1]
    row = rs:fetch_row()
  end
  table.sort(found)
  return found
end

-- Tables left by an earlier prepare are refused before any is created, so
-- a refused prepare changes nothing.
function M.refuse_existing(con, opt)
  local old = M.existing(con, opt)
  if #old > 0 then
    util.fail("%s %s already exist%s in database '%s': run cleanup first, or use another --%s-db",
      #old == 1 and "table" or "tables", table.concat(old, ", "), #old == 1 and "s" or "", db_name(opt),
      M.pg(opt) and "pgsql" or "mysql")
  end
end

-- Create the four tables (and the accounts' partitions); returns how
-- many tables were created before a stop.  `say`: prints pgbench's
-- "creating N partitions..." line.
function M.create(con, opt, scale, say)
  local n = 0
  for _, name in ipairs(M.TABLES) do
    if lbench.should_stop() then break end
    M.explained(con, name, opt, function() con:query(M.ddl(name, opt, scale)) end)
    n = n + 1
  end
  if n == #M.TABLES and (opt.partitions or 0) > 0 then
    if say then say(string.format("creating %d partitions...", opt.partitions)) end
    for _, q in ipairs(M.partitions(opt, scale)) do con:query(q) end
  end
  return n
end

-- pgbench -I G: the rows generated by the server (generate_series) in one
-- transaction, after emptying the tables; pgbench's own statements.
function M.generate_server_side(con, opt, scale)
  local nb, nt, na = scale * M.BRANCHES, scale * M.TELLERS, scale * M.ACCOUNTS
  con:query("begin")
  con:query("truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers")
  con:query(string.format("insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, %d) as bid",
    nb))
  con:query(string.format("insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 "
    .. "from generate_series(1, %d) as tid", M.TELLERS, nt))
  con:query(string.format("insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, '' "
    .. "from generate_series(1, %.0f) as aid", M.ACCOUNTS, na))
  con:query("commit")
end

-- After the load: pgbench's "vacuuming..." step (VACUUM ANALYZE on
-- PostgreSQL, which also sets the hint bits the first run would otherwise
-- write; ANALYZE TABLE on MySQL), then "creating primary keys..." on
-- PostgreSQL.  Returns the seconds of each step.
function M.vacuum(con, opt)
  local t0 = lbench.clock.now()
  for _, name in ipairs(M.TABLES) do
    if lbench.should_stop() then break end
    con:query((M.pg(opt) and "vacuum analyze " or "analyze table ") .. name)
  end
  return lbench.clock.now() - t0
end

function M.primary_keys(con, opt)
  local t0 = lbench.clock.now()
  if M.pg(opt) then
    for _, name in ipairs({ "pgbench_branches", "pgbench_tellers", "pgbench_accounts" }) do
      if lbench.should_stop() then break end
      con:query(string.format("alter table %s add primary key (%s)%s", name, COLUMNS[name][2],
        tablespace(opt, "index_")))
    end
  end
  return lbench.clock.now() - t0
end

-- Before a run, as pgbench does unless -n: VACUUM the two small tables
-- that every tpcb-like transaction updates (their dead rows pile up
-- fastest).  pgbench also truncates pgbench_history: under its name
-- lbench does too; under its own it keeps it, so that `check` can still
-- compare it with the balances.
function M.vacuum_before_run(con, opt)
  if not M.pg(opt) then return false end
  con:query("vacuum pgbench_branches")
  con:query("vacuum pgbench_tellers")
  if opt.pgbench_compat and con:query_row("select to_regclass('pgbench_history') is not null") == "t" then
    con:query("truncate pgbench_history")
  end
  return true
end

-- pgbench -v: the big table too, and its statistics.
function M.vacuum_accounts(con)
  con:query("vacuum analyze pgbench_accounts")
end

-- The scale of the loaded database: pgbench's `select count(*) from
-- pgbench_branches`.  A missing table or an empty one says to run prepare.
function M.loaded_scale(con, opt)
  -- The null driver (which measures the engine alone) has no tables: the
  -- scale is the one given.
  if opt.db_driver == "null" then return opt.scale end
  local n = M.explained(con, "pgbench_branches", opt, function()
    return tonumber((con:query_row("select count(*) from pgbench_branches")))
  end)
  if not n or n < 1 then
    util.fail("table pgbench_branches in database '%s' is empty: run cleanup, then prepare", db_name(opt))
  end
  return n
end

-- How the first pgbench_accounts on the search path is partitioned, as
-- pgbench reads it before a run of its built-in scripts: "range" or
-- "hash" and the number of partitions attached, or nil (not partitioned,
-- or not PostgreSQL).
function M.partition_info(con, opt)
  if not M.pg(opt) then return nil, 0 end
  local rs = con:query("select p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c "
    .. "join pg_catalog.pg_namespace as n on n.oid = c.relnamespace "
    .. "cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) "
    .. "left join pg_catalog.pg_partitioned_table as p on p.partrelid = c.oid "
    .. "left join pg_catalog.pg_inherits as i on c.oid = i.inhparent "
    .. "where c.relname = 'pgbench_accounts' and o.n is not null group by o.n, p.partstrat order by o.n limit 1")
  local row = rs and rs:fetch_row()
  local strat = row and row[1]
  local method = ({ r = "range", h = "hash" })[strat or ""]
  if not method then return nil, 0 end
  return method, tonumber(row[2]) or 0
end

function M.drop(con)
  for _, name in ipairs(M.TABLES) do
    print(string.format("Dropping table '%s'...", name))
    con:query("drop table if exists " .. name)
  end
end

return M
