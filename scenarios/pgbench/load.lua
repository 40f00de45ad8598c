-- pgbench's initial data (`pgbench -i`, "client-side generate"), loaded in
-- parallel, as pgbench 15's COPY rows make them: branches (bid, bbalance 0,
-- filler NULL), tellers (tid, bid of its branch, tbalance 0, filler NULL),
-- accounts (aid, bid of its branch, abalance 0, filler blank).
--
-- The rows are cut into units (id ranges of one table) that the --threads
-- loaders take in turn.  A unit is one bulk load (PostgreSQL's COPY, as
-- pgbench loads; MySQL's LOAD DATA LOCAL INFILE); with --load-method=insert
-- (or a server or driver without bulk load) it is prepared multi-row INSERTs whose ids are bound into the parameters (the
-- server parses no text, the client builds no strings), in one
-- transaction per unit, so InnoDB flushes its log once per unit, not per
-- statement.
local schema = require("pgbench.schema")

local M = {}

-- Rows per INSERT statement, and accounts per unit at most (a branch's).
local LOAD_ROWS = 100
local UNIT_ROWS = 100000

-- name -> INSERT prefix, one row's placeholders, and the bid of row `id`
-- (nil: the row has only its id bound).  Constants are literals: only
-- what differs between rows travels as a parameter.
local TABLE = {
  pgbench_branches = { "insert into pgbench_branches (bid, bbalance, filler) values ", "(?,0,NULL)" },
  pgbench_tellers = { "insert into pgbench_tellers (tid, bid, tbalance, filler) values ", "(?,?,0,NULL)",
    schema.TELLERS },
  pgbench_accounts = { "insert into pgbench_accounts (aid, bid, abalance, filler) values ", "(?,?,0,'')",
    schema.ACCOUNTS },
}

-- Rows of each table at scale `scale`.
function M.rows(scale)
  return scale * schema.BRANCHES, scale * schema.TELLERS, scale * schema.ACCOUNTS
end

-- The load units { table, lo, hi }: the two small tables whole, then the
-- accounts in ranges of UNIT_ROWS, smaller when that leaves a thread
-- without work (a small scale over many threads still loads in parallel).
-- `whole`: the accounts as one unit (one thread's COPY ... FREEZE).
function M.units(scale, threads, whole)
  local nb, nt, na = M.rows(scale)
  local units = { { "pgbench_branches", 1, nb }, { "pgbench_tellers", 1, nt } }
  if whole then
    units[3] = { "pgbench_accounts", 1, na }
    return units
  end
  local step = math.min(UNIT_ROWS, math.ceil(na / threads / LOAD_ROWS) * LOAD_ROWS)
  for lo = 1, na, step do
    units[#units + 1] = { "pgbench_accounts", lo, math.min(lo + step - 1, na) }
  end
  return units
end

-- A prepared INSERT of `rows` rows into `name`, and its parameters.
local function statement(con, name, rows, big)
  local T = lbench.sql.type
  local t = TABLE[name]
  local st = con:prepare(t[1] .. string.rep(t[2], rows, ","))
  local ps = {}
  local id_type = (big and name == "pgbench_accounts") and T.BIGINT or T.INT
  for _ = 1, rows do
    ps[#ps + 1] = st:bind_create(id_type)
    if t[3] then ps[#ps + 1] = st:bind_create(T.INT) end
  end
  st:bind_param(unpack(ps))
  return st, ps
end

-- Rows lo..hi of one table: first the remainder (fewer than LOAD_ROWS)
-- with a statement of its own size, then full statements.  Returns false
-- when the run was asked to stop.
local function load_unit(con, u, big)
  local name, lo, hi = u[1], u[2], u[3]
  local per = TABLE[name][3]
  local id, unsent = lo, 0
  local function send(st, ps, rows)
    local k = 1
    for _ = 1, rows do
      ps[k]:set(id)
      k = k + 1
      if per then
        -- pgbench's branch of row id: (id - 1) / per + 1 in integers.
        ps[k]:set(math.floor((id - 1) / per) + 1)
        k = k + 1
      end
      id = id + 1
    end
    st:execute()
    unsent = unsent + rows
    if unsent >= 10000 then lbench.progress.add(unsent); unsent = 0 end
  end
  local rem = (hi - lo + 1) % LOAD_ROWS
  if rem > 0 then
    local st, ps = statement(con, name, rem, big)
    send(st, ps, rem)
    st:close()
  end
  if id <= hi then
    local st, ps = statement(con, name, LOAD_ROWS, big)
    while id <= hi and not lbench.should_stop() do send(st, ps, LOAD_ROWS) end
    st:close()
  end
  lbench.progress.add(unsent)
  return id > hi
end

-- A bulk load of rows lo..hi (--load-method=bulk): PostgreSQL's COPY ...
-- FROM STDIN, as pgbench itself loads, or MySQL's LOAD DATA LOCAL INFILE
-- served from memory; pgbench's rows (the id, the branch, a zero balance,
-- the filler) as text, in chunks of COPY_ROWS rows.  The server neither
-- parses nor plans a statement per row batch: several times faster than
-- INSERTs.  A stop ends the load early, keeping the rows sent so far.
local COPY_ROWS = 1000
local COPY = {
  pgbench_branches = { "pgbench_branches (bid, bbalance, filler)", "%d\t0\t\\N\n" },
  pgbench_tellers = { "pgbench_tellers (tid, bid, tbalance, filler)", "%d\t%d\t0\t\\N\n" },
  pgbench_accounts = { "pgbench_accounts (aid, bid, abalance, filler)", "%d\t%d\t0\t\n" },
}

-- `freeze`: a whole table on PostgreSQL (this prepare created it, and
-- refused to start over existing tables), loaded frozen as pgbench -i
-- loads (con:load_frozen): the VACUUM after the load has nothing to do.
local function copy_unit(con, u, pg, freeze)
  local name, lo, hi = u[1], u[2], u[3]
  local per, fmt = TABLE[name][3], COPY[name][2]
  local format, floor = string.format, math.floor
  local function load(clause)
    con:load_begin(pg and "copy " .. COPY[name][1] .. " from stdin" .. clause
      or string.format("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s", name, COPY[name][1]))
    local buf, n = {}, 0
    local function flush()
      con:load_data(table.concat(buf, "", 1, n))
      lbench.progress.add(n)
      n = 0
    end
    for id = lo, hi do
      n = n + 1
      buf[n] = per and format(fmt, id, floor((id - 1) / per) + 1) or format(fmt, id)
      if n == COPY_ROWS then
        flush()
        if lbench.should_stop() then break end
      end
    end
    if n > 0 then flush() end
    con:load_end()
  end
  if freeze then con:load_frozen(name, load) else load("") end
  return not lbench.should_stop()
end

-- One loader thread (`tid` of `threads`): units tid+1, tid+1+threads, ...
-- each in its own transaction.  A stop rolls the unit in progress back
-- (the caller then says what is left).
function M.load_thread(opt, scale, tid, threads)
  local con = schema.connect(opt)
  local big = schema.big(scale)
  local copy = opt.load_method == "bulk" and con:can_load()
  local pg = schema.pg(opt)
  -- One loader on PostgreSQL: every table is one COPY FREEZE (pgbench -i's
  -- load); several: the accounts in ranges loaded side by side.
  local whole = copy and pg and threads == 1
  for i, u in ipairs(M.units(scale, threads, whole)) do
    if lbench.should_stop() then break end
    if (i - 1) % threads == tid and copy then
      -- (COPY FREEZE cannot load a partitioned table: pgbench leaves it out then)
      copy_unit(con, u, pg, whole and not (u[1] == "pgbench_accounts" and (opt.partitions or 0) > 0))
    elseif (i - 1) % threads == tid then
      con:query(schema.pg(opt) and "begin" or "start transaction")
      if load_unit(con, u, big) then con:query("commit") else con:query("rollback") end
    end
  end
  con:disconnect()
end

return M
