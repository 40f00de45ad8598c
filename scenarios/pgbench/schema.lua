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

-- pgbench switches aid to bigint beyond this scale (SCALE_32BIT_THRESHOLD):
-- 100000 * 20000 accounts still fit an int.
M.SCALE_32BIT_THRESHOLD = 20000
M.ACCOUNTS, M.TELLERS, M.BRANCHES = 100000, 10, 1

function M.pg(opt) return opt.db_driver == "pgsql" end
function M.big(scale) return scale > M.SCALE_32BIT_THRESHOLD end

-- name -> columns (pgbench's own lists; `%s` is aid's type) and the key
-- that PostgreSQL adds after the load.
local COLUMNS = {
  pgbench_history = { "tid int, bid int, aid %s, delta int, mtime %s, filler char(22)" },
  pgbench_tellers = { "tid int not null, bid int, tbalance int, filler char(84)", "tid" },
  pgbench_accounts = { "aid %s not null, bid int, abalance int, filler char(84)", "aid" },
  pgbench_branches = { "bid int not null, bbalance int, filler char(88)", "bid" },
}

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
    -- pgbench declares fillfactor on the three updated tables, not history.
    local with = key and string.format(" with (fillfactor=%d)", opt.fillfactor) or ""
    return string.format("create %stable %s(%s)%s", opt.unlogged_tables and "unlogged " or "", name, cols, with)
  end
  if key then cols = cols .. ", primary key (" .. key .. ")" end
  local extra = opt.create_table_options ~= "" and (" " .. opt.create_table_options) or ""
  return string.format("create table %s(%s) engine = %s%s", name, cols, opt.mysql_storage_engine, extra)
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

-- Create the four tables; returns how many were created before a stop.
function M.create(con, opt, scale)
  local n = 0
  for _, name in ipairs(M.TABLES) do
    if lbench.should_stop() then break end
    M.explained(con, name, opt, function() con:query(M.ddl(name, opt, scale)) end)
    n = n + 1
  end
  return n
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
      con:query(string.format("alter table %s add primary key (%s)", name, COLUMNS[name][2]))
    end
  end
  return lbench.clock.now() - t0
end

-- Before a run, as pgbench does unless -n: VACUUM the two small tables
-- that every tpcb-like transaction updates (their dead rows pile up
-- fastest).  pgbench also truncates pgbench_history; lbench keeps it, so
-- that `check` can still compare it with the balances.
function M.vacuum_before_run(con, opt)
  if not M.pg(opt) then return false end
  con:query("vacuum pgbench_branches")
  con:query("vacuum pgbench_tellers")
  if opt.vacuum_accounts then con:query("vacuum pgbench_accounts") end
  return true
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

function M.drop(con)
  for _, name in ipairs(M.TABLES) do
    print(string.format("Dropping table '%s'...", name))
    con:query("drop table if exists " .. name)
  end
end

return M
