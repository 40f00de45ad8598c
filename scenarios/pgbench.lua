-- pgbench, PostgreSQL's standard benchmark (pgbench 15), on PostgreSQL and
-- MySQL/MariaDB:
--
--   lbench pgbench --db-driver=pgsql --scale=10 --threads=2 prepare       pgbench -i -s 10
--   lbench pgbench --db-driver=pgsql --builtin=tpcb-like --threads=8 --time=60 run
--                                                           pgbench -M prepared -b tpcb-like -c 8 -j 8 -T 60
--   lbench pgbench --db-driver=pgsql --builtin=select-only@9,simple-update@1 run
--   lbench pgbench --db-driver=pgsql --file=my.sql@3 --builtin=select-only --define=n=10 --random-seed=42 run
--                                                           pgbench -f my.sql@3 -b select-only -D n=10 --random-seed=42
--   lbench pgbench --db-driver=pgsql check                  balances against history
--   lbench pgbench --db-driver=pgsql cleanup
--
-- One connection per thread (or per virtual user with --connections), as
-- pgbench's clients.  The tables and the steps after the load are in
-- pgbench/schema.lua, the parallel load in pgbench/load.lua, the built-in
-- scripts and --builtin in pgbench/scripts.lua, the consistency check in
-- pgbench/check.lua and pgbench's report in pgbench/report.lua.  Each
-- script is an event type, so the engine's per-type table and the result's
-- `types` have each script's counts and latencies, as pgbench's
-- per-script report.  Custom scripts (--file) and the script language
-- are in pgbench/custom.lua and the modules it names.
local schema = require("pgbench.schema")
local scripts = require("pgbench.scripts")
local custom = require("pgbench.custom")
local txlog = require("pgbench.log")
local stats = require("pgbench.stats")
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local json = require("lbench.json")

-- A module that only some commands or only the main thread use (prepare's
-- load, the report, pgbench's command line and output), required at its
-- first use: every worker state of a run loads this file, and these
-- modules are a sixth of the scenario's source (docs/benchmarks-pgscript.md).
local function on_first_use(name)
  return setmetatable({}, { __index = function(_, key) return require(name)[key] end })
end
local compat = on_first_use("pgbench.compat")

-- --random-seed=time (the default) must give every client the same seed:
-- the main state fixes it while the scenario loads, before the options
-- are resolved into this same table (a value given on the command line
-- then replaces it), and the workers receive the resolved options.
if lbench.opt.random_seed == nil then lbench.opt.random_seed = custom.resolve_seed("time") end

-- Was --scale given (command line or config file)?  An option's check
-- runs only on a value that was given, never on the default; `run` needs
-- to know, to say when the loaded scale overrides the one given.
local scale_given = false
-- --random-seed given: pgbench then says which seed it uses (the number
-- that "time" or "rand" became), so that a run can be repeated.
local seed_given = false

-- pgbench's query modes as lbench's --db-ps-mode: the text with the
-- variables' values in it, PostgreSQL's unnamed statement parsed at every
-- execution, a statement prepared once per connection.
local PS_MODE = { simple = "disable", extended = "extended", prepared = "auto" }
local QUERY_MODE = { disable = "simple", extended = "extended", auto = "prepared" }

lbench.cmdline.options = {
  scale = { "Scale factor: prepare loads scale branches, 10*scale tellers, 100000*scale accounts (run and "
    .. "check use the scale found in pgbench_branches)", 1, min = 1, max = 1000000,
    check = function(v) scale_given = true; return v end },
  builtin = { "Built-in scripts and weights, name[@weight],...: tpcb-like, simple-update, select-only "
    .. "(a unique prefix is enough; default tpcb-like when no --file is given)", "",
    check = function(v)
      local ok, why = scripts.parse(v)
      if not ok then return nil, why end
      return v
    end },
  file = { "A pgbench script file and its weight, FILE[@weight]; repeat the option for several (pgbench -f)", "" },
  define = { "A variable of the scripts, NAME=VALUE; repeat the option for several (pgbench -D)", "" },
  random_seed = { "Seed of the scripts' random numbers, as pgbench's --random-seed: an unsigned integer, time "
    .. "or rand", "time", check = function(v)
      local s, why = custom.resolve_seed(v)
      if not s then return nil, why end
      seed_given = true
      return s
    end },
  protocol = { "Query mode, pgbench's -M/--protocol: simple, extended or prepared (default: prepared, or simple "
    .. "with --db-ps-mode=disable, extended with --db-ps-mode=extended)", "", check = function(v)
      if v ~= "" and not PS_MODE[v] then return nil, "expected simple, extended or prepared" end
      return v
    end },
  log = { "Write each transaction to a log file, PREFIX.PID[.THREAD], in pgbench's format (pgbench -l)", false },
  sampling_rate = { "Fraction of the transactions to log, as pgbench's --sampling-rate (0: all)", 0, type = "double",
    min = 0, max = 1 },
  aggregate_interval = { "With --log, one line per this many seconds per thread, as pgbench's --aggregate-interval "
    .. "(0: a line per transaction)", 0, min = 0, max = 2147483647 },
  log_prefix = { "Prefix of the log files' names (pgbench's --log-prefix)", "pgbench_log" },
  vacuum = { "Before a run, VACUUM pgbench_branches and pgbench_tellers as pgbench does without -n (PostgreSQL)",
    true },
  progress_timestamp = { "Under the name pgbench: progress lines with the Unix time in place of the elapsed time "
    .. "(pgbench --progress-timestamp)", false },
  vacuum_all = { "With --vacuum, also VACUUM ANALYZE pgbench_accounts, as pgbench -v (PostgreSQL)", false },
  fillfactor = { "fillfactor of the accounts, tellers and branches tables (pgbench -F; PostgreSQL)", 100,
    min = 10, max = 100 },
  mysql_storage_engine = { "Storage engine, if MySQL is used", "innodb" },
  create_table_options = { "Extra options appended to CREATE TABLE (MySQL)", "" },
  load_method = { "How prepare loads rows: bulk (PostgreSQL COPY, MySQL LOAD DATA LOCAL INFILE from memory) "
    .. "or insert (prepared multi-row INSERTs)", "bulk", type = "enum", choices = { "bulk", "insert" } },
  -- pgbench's -i options, for lbench under the name pgbench (pgbench/compat.lua).
  init_steps = { "prepare as pgbench -i -I STEPS does (d drop, t create, g generate, G generate "
    .. "server-side, v vacuum, p primary keys, f foreign keys; PostgreSQL); empty: lbench's prepare", "",
    check = function(v)
      local bad = tostring(v):match("[^dtgGvpf ]")
      if bad then return nil, string.format("unknown step '%s' (expected the letters dtgGvpf)", bad) end
      return v
    end },
  unlogged_tables = { "create the tables UNLOGGED (pgbench --unlogged-tables; PostgreSQL)", false },
  partitions = { "Partition pgbench_accounts into this many parts (pgbench --partitions; PostgreSQL; 0: none)", 0,
    min = 0, max = 2147483647 },
  partition_method = { "How pgbench_accounts is partitioned: range or hash (pgbench --partition-method; default "
    .. "range)", "", check = function(v)
      local m = tostring(v):lower()
      if m ~= "" and m ~= "range" and m ~= "hash" then return nil, "expected range or hash" end
      return m
    end },
  tablespace = { "Tablespace of the tables (pgbench --tablespace; PostgreSQL)", "" },
  index_tablespace = { "Tablespace of the primary keys' indexes (pgbench --index-tablespace; PostgreSQL)", "" },
  init_quiet = { "fewer messages while loading (pgbench -i -q)", false },
  report_per_command = { "Per-statement latencies (pgbench -r): each script command's average in pgbench's "
    .. "report, its percentiles in lbench's and in the result document (runs every script through the script "
    .. "language)", false },
  connect_per_transaction = { "A new connection for each transaction, closed after it (pgbench -C/--connect): its "
    .. "opening and closing times are part of the transaction's latency and counted apart", false },
  latency_limit = { "Transactions over this many ms are counted as late; under --rate, one already this late at "
    .. "its scheduled start is skipped and counted (pgbench -L/--latency-limit; 0: none)", 0, type = "double",
    min = 0 },
  max_tries = { "Tries of a transaction that fails with a serialization failure or a deadlock, the same values each "
    .. "time (pgbench --max-tries); past them the transaction is counted as failed and the client goes on. 0: "
    .. "unlimited; -1 (default): pgbench's 1 under the name pgbench, else unlimited", -1, min = -1 },
  failures_detailed = { "split the failed transactions into serialization and deadlock failures "
    .. "(pgbench --failures-detailed)", false },
  verbose_errors = { "a line on stderr for each serialization failure or deadlock, and whether the "
    .. "transaction is tried again (pgbench --verbose-errors)", false },
  pgbench_debug = { "a trace of each client on stderr, as pgbench -d/--debug prints it: the scripts it executes, "
    .. "the statements it prepares and sends, the results it waits for, its meta-commands (runs every script "
    .. "through the script language)", false },
  pgbench_per_client = { "the transactions per client of pgbench -t, for its report under the name pgbench "
    .. "(--events holds their total)", 0, min = 0 },
}

local opt = lbench.opt

local function connect() return schema.connect(opt) end

-- pgbench -d's first line: where it connects (from the conninfo the
-- pgbench command line became, else the environment and libpq's
-- defaults), the clients, and the transactions or the duration.
local function debug_header()
  local ci = {}
  -- (pgcli quotes every value: key='value', a quote inside escaped)
  for k, v in tostring(opt.pgsql_conninfo or ""):gmatch("(%w+)='(.-)'") do ci[k] = v:gsub("\\(.)", "%1") end
  local n = (opt.connections or 0) > 0 and opt.connections or opt.threads
  io.stderr:write(string.format("pgbench: pghost: %s pgport: %s nclients: %d %s: %d dbName: %s\n",
    ci.host or os.getenv("PGHOST") or "/var/run/postgresql", ci.port or os.getenv("PGPORT") or "5432", n,
    opt.time > 0 and "duration" or "nxacts", opt.time > 0 and opt.time or opt.pgbench_per_client,
    ci.dbname or os.getenv("PGDATABASE") or ci.user or os.getenv("PGUSER") or ""))
end

-- ---- prepare -----------------------------------------------------------------
local load = on_first_use("pgbench.load")

local function prepare_interrupted(created)
  print(string.format("prepare interrupted: %d of %d table(s) created, %.0f row(s) sent. The tables are "
    .. "incomplete: run cleanup, then prepare again.", created, #schema.TABLES, lbench.progress.done()))
end

-- pgbench -i: create the tables, load them over --threads, then VACUUM and
-- the primary keys; the same "done in" line with each step's time.
-- Options of the tables that only PostgreSQL's dialect has, refused in one
-- line elsewhere; a partition method needs partitions, as in pgbench.
local function check_table_options()
  if opt.partition_method ~= "" and opt.partitions == 0 then
    util.fail("--partition-method requires greater than zero --partitions")
  end
  if schema.pg(opt) then return end
  for _, o in ipairs({ { "partitions", opt.partitions > 0 }, { "tablespace", opt.tablespace ~= "" },
                       { "index-tablespace", opt.index_tablespace ~= "" } }) do
    if o[2] then util.fail("--%s: PostgreSQL only (this run uses --db-driver=%s)", o[1], opt.db_driver) end
  end
end

local function cmd_prepare()
  local scale = opt.scale
  check_table_options()
  local con = connect()
  if opt.init_steps ~= "" then
    compat.init(con, opt)
    con:disconnect()
    return
  end
  local t0 = lbench.clock.now()
  schema.refuse_existing(con, opt)
  print("creating tables...")
  local created = schema.create(con, opt, scale, print)
  local t_create = lbench.clock.now() - t0
  local ok = created == #schema.TABLES
  local nb, nt, na = load.rows(scale)
  local t_gen, t_vac, t_pk = 0, 0, 0
  if ok then
    print(string.format("generating data (client-side): %d branches, %d tellers, %.0f accounts with %d thread(s)...",
      nb, nt, na, opt.threads))
    lbench.progress.total(nb + nt + na, "rows")
    local t1 = lbench.clock.now()
    ok = lbench.run_parallel("_load") and not lbench.should_stop()
    t_gen = lbench.clock.now() - t1
  end
  if ok then
    print("vacuuming...")
    t_vac = schema.vacuum(con, opt)
    if schema.pg(opt) then print("creating primary keys...") end
    t_pk = schema.primary_keys(con, opt)
    ok = not lbench.should_stop()
  end
  con:disconnect()
  if not ok then prepare_interrupted(created); return end
  print(string.format("done in %.2f s (create tables %.2f s, client-side generate %.2f s, vacuum %.2f s, "
    .. "primary keys %.2f s).", lbench.clock.now() - t0, t_create, t_gen, t_vac, t_pk))
end

local function cmd_load()
  load.load_thread(opt, opt.scale, lbench.tid, opt.threads)
end

function cleanup()
  local con = connect()
  schema.drop(con)
  con:disconnect()
end

-- ---- check ---------------------------------------------------------------------
local function cmd_check()
  local con = connect()
  local scale = schema.loaded_scale(con, opt)
  print(string.format("Checking the pgbench tables (scale %d)...", scale))
  local lines, ok = require("pgbench.check").run(con, opt, scale)
  con:disconnect()
  print(table.concat(lines, "\n"))
  if not ok then util.fail("pgbench check FAILED (the conditions marked FAILED above)") end
  print("pgbench check PASSED.")
end

-- ---- run -----------------------------------------------------------------------
local report = on_first_use("pgbench.report")

-- Main state: what the report needs besides the result tree.
local run_info
-- Worker (or virtual user): its connection, scripts and drawn values;
-- its log writer, transactions logged, and the current one's times and tries.
local con, runner, pending
local W
-- The run-wide counter of the clients that aborted.
local ABORTED = stats.ABORTED
-- --report-per-command: this client's per-statement histograms, and each
-- script's first statement slot (pgbench/stats.lua).
local cmd_hists, cmd_off
local logw, client_no, ntx, tries = nil, 0, 0, 0
-- The transaction's scheduled start and its begin (ns), in a C array: an
-- int64 kept in a Lua upvalue is a fresh heap object per transaction, and
-- this garbage alone made the collector run every few thousand of them.
local tx_ns = ffi.new("int64_t[2]")
local list, TYPES = nil, {}
local values = {}

-- The event types of the scripts, in their order (the report lists them
-- so); every state registers the same names and gets the same ids.
local function register(l)
  for i, e in ipairs(l) do TYPES[i] = lbench.stat.type(e.builtin.name) end
end

-- With --file, every script runs through the script language
-- (pgbench/custom.lua); without, the built-ins run as prepared plans.
-- Decided when a run starts: the main state loads this file before its
-- options are resolved.
local argv = lbench.cmdline.argv
local scripted, commit

-- --max-tries as it applies: 0 unlimited (lbench's own default: retried
-- until it passes), else the tries after which a transaction fails.
local function max_tries()
  if opt.max_tries >= 0 then return opt.max_tries end
  return opt.pgbench_compat and 1 or 0
end

local function script_list()
  local files = #custom.files(argv, opt)
  -- (a transaction that may end failed runs in the script language, which
  -- knows the command that failed)
  scripted = files > 0 or opt.report_per_command or opt.connect_per_transaction or max_tries() > 0 or opt.pgbench_debug
  commit = schema.pg(opt) and "END" or "COMMIT"
  if scripted then
    return custom.load(opt, argv, commit, (opt.builtin == "" and files == 0) and "tpcb-like" or opt.builtin)
  end
  return scripts.parse(opt.builtin ~= "" and opt.builtin or "tpcb-like")
end

-- The scale: pgbench reads it from pgbench_branches when a built-in
-- script runs, and otherwise takes --scale (default 1) as it is.
local function run_scale(c)
  if scripted and opt.builtin == "" and #custom.files(argv, opt) > 0 then return opt.scale end
  return schema.loaded_scale(c, opt)
end

-- pgbench's vacuum before the run, of the tables that are there (custom
-- scripts need none of pgbench's tables).
local function vacuum(c)
  if scripted and schema.pg(opt) and c:query_row("select to_regclass('pgbench_branches') is not null "
      .. "and to_regclass('pgbench_tellers') is not null") ~= "t" then
    return false
  end
  return schema.vacuum_before_run(c, opt)
end

-- The scripts are parsed (a bad one refused in one line) before anything
-- connects; then the notice pgbench prints when -s is given to a run (it
-- always uses the loaded scale), and pgbench's vacuum before the run.
-- --protocol, when given, decides the connections' --db-ps-mode (set
-- before any connect, in the main state and in every worker).
local function apply_protocol()
  if opt.protocol ~= "" then opt.db_ps_mode = PS_MODE[opt.protocol] end
end

function init()
  apply_protocol()
  local bad = txlog.check(opt)
  if bad then util.fail("%s", bad) end
  local l, total = script_list()
  register(l)
  if scripted then custom.defines(argv, opt) end
  -- Pipelines are libpq's: refused on other servers before the run.
  if scripted and not schema.pg(opt) then
    for _, e in ipairs(l) do
      for _, c in ipairs(e.cmds) do
        if c.kind:match("pipeline$") then
          util.fail("%s:%d: \\%s needs PostgreSQL's pipeline mode (--db-driver=pgsql)", e.source, c.line, c.kind)
        end
      end
    end
  end
  local why
  cmd_off, why = stats.offsets(l)
  if not cmd_off then util.fail("%s", why) end
  if seed_given and opt.pgbench_compat then
    io.stderr:write("pgbench: setting random seed to " .. tostring(opt.random_seed) .. "\n")
  end
  local c = connect()
  local scale = run_scale(c)
  -- as pgbench, the accounts' partitioning when a built-in script runs
  local parts_method, parts = nil, 0
  if opt.builtin ~= "" or #custom.files(argv, opt) == 0 then parts_method, parts = schema.partition_info(c, opt) end
  -- pgbench warns whenever -s comes with a built-in script; lbench's own
  -- command line only when the two scales differ
  local from_table = not (scripted and opt.builtin == "" and #custom.files(argv, opt) > 0)
  if scale_given and from_table and (opt.pgbench_compat or scale ~= opt.scale) then
    io.stderr:write(string.format("%s: scale option ignored, using count from pgbench_branches table (%d)\n",
      opt.pgbench_compat and "pgbench: warning" or "note", scale))
  end
  if opt.pgbench_compat then print(compat.VERSION_LINE) end
  if opt.pgbench_debug and opt.pgbench_compat then debug_header() end
  -- (pgbench's words: on stderr under its name, in lbench's text report otherwise)
  local say = opt.pgbench_compat and function(s) io.stderr:write(s, "\n") end
    or opt.output == "text" and print or function() end
  if opt.vacuum and vacuum(c) then
    say("starting vacuum...end.")
    if opt.vacuum_all then
      schema.vacuum_accounts(c)
      say("starting vacuum pgbench_accounts...end.")
    end
  end
  c:disconnect()
  -- The workers add their connections' opening times (us) here: the one
  -- counter every state of a run shares; nothing draws it during a run.
  lbench.progress.total(0, "us")
  stats.clear()
  run_info = { scripts = l, total_weight = total, scale = scale, query_mode = QUERY_MODE[opt.db_ps_mode],
    partition_method = parts_method, partitions = parts,
    clients = (opt.connections or 0) > 0 and opt.connections or opt.threads }
end

function thread_init()
  W = lbench.worker_ptr()
  apply_protocol()
  local total
  list, total = script_list()
  register(list)
  cmd_off = stats.offsets(list)
  cmd_hists = opt.report_per_command and stats.worker_hists(list) or nil
  local t0 = lbench.clock.now()
  con = connect()
  lbench.progress.add(math.floor((lbench.clock.now() - t0) * 1e6 + 0.5))
  -- Each connection reads the scale itself, as pgbench's clients do.
  local scale = run_scale(con)
  local n = (opt.connections or 0) > 0 and opt.connections or opt.threads
  client_no = lbench.vu or lbench.tid
  logw = txlog.open({ opt = opt, tid = lbench.tid,
    sample = opt.sampling_rate ~= 0 and custom.sample_state(opt.random_seed, n, lbench.tid, custom.defines(argv, opt)) })
  if scripted then
    runner = custom.client(con, { list = list, total = total, seed = opt.random_seed, nclients = n,
      id = lbench.vu or lbench.tid, scale = scale, defines = custom.defines(argv, opt),
      mode = QUERY_MODE[opt.db_ps_mode], cmd_hists = cmd_hists,
      debug = opt.pgbench_debug and (opt.pgbench_compat and "pgbench: " or "lbench: debug: "),
      compat = opt.pgbench_compat })
    -- -C: this connection served the scale alone; each transaction opens its own.
    if opt.connect_per_transaction then
      con:disconnect()
      con = nil
    end
    return
  end
  runner = scripts.runner(con, list, scale, { big = schema.big(scale), commit = commit })
end

function thread_done()
  txlog.close(logw)
  logw = nil
  if cmd_hists then stats.flush(cmd_hists, cmd_off) end
  cmd_hists = nil
  if runner and runner.close then runner.close() end
  if con then con:disconnect() end
end

-- A client whose script fails (an expression, a \gset, a server error
-- that is not retried) aborts alone, as in pgbench: its line on stderr
-- now, the failed transaction left out of every count, and its event
-- loop left (event() returning true); the others go on, and the run's
-- status says it was aborted (done()).  A script that ended inside a
-- transaction block (err.counted) ran to its end: pgbench counts and logs
-- that transaction, then aborts.  Any other error goes on up.
local function client_aborted(err)
  if type(err) ~= "table" or not err.pgbench_abort then error(err, 0) end
  if not err.counted then
    C.lb_worker_ev_skip(W)
  elseif logw then
    ntx = ntx + 1
    txlog.txn(logw, client_no, ntx, pending - 1, tx_ns[0], tx_ns[1], C.lb_clock_ns(), tries)
  end
  io.stderr:write((opt.pgbench_compat and "pgbench: error: " or "lbench: ") .. err.lbench_message .. "\n")
  lbench.counter.add(ABORTED)
  pending = nil
  return true
end

-- -C: open the transaction's connection (closed by close_per_tx), the
-- time counted in CONN_NS and the connection in CONN_N.
local function open_per_tx()
  local t0 = C.lb_clock_ns()
  con = connect()
  runner.st.con = con
  lbench.counter.add(stats.CONN_NS, tonumber(C.lb_clock_ns() - t0))
  lbench.counter.add(stats.CONN_N)
end

local function close_per_tx()
  local t0 = C.lb_clock_ns()
  con:disconnect()
  con = nil
  lbench.counter.add(stats.CONN_NS, tonumber(C.lb_clock_ns() - t0))
end

-- -L under --rate: a transaction later than the limit at its scheduled
-- start is skipped (not run, not recorded) and counted.
local function skip_late()
  if opt.latency_limit <= 0 or (tonumber(opt.rate) or 0) <= 0 then return false end
  if C.lb_clock_ns() - C.lb_worker_ev_intended(W) <= opt.latency_limit * 1e6 then return false end
  C.lb_worker_ev_skip(W)
  lbench.counter.add(stats.SKIPPED)
  return true
end

-- -L: a transaction that ended later than the limit after its scheduled start.
local function count_late(i)
  if opt.latency_limit > 0 and C.lb_clock_ns() - tx_ns[0] > opt.latency_limit * 1e6 then
    lbench.counter.add(stats.LATE)
    lbench.counter.add(stats.script(i, stats.S_LATE))
  end
end

-- Serialization failures and deadlocks: what pgbench retries (SQLSTATE
-- 40001, MySQL's deadlock included, and 40P01).  Restarts for other
-- causes (a reconnect) are lbench's own and always retried.
local function retryable(err)
  return type(err) == "table" and err.errcode == lbench.error.RESTART_EVENT
    and (err.sql_state == "40001" or err.sql_state == "40P01")
end

-- The statement slot of the command that failed in script `i`.
local function failed_slot(i)
  return cmd_off and cmd_off[i] and runner.st and runner.st.command and cmd_off[i] + runner.st.command - 1
end

-- A retryable failure: counted on its statement; past --max-tries the
-- transaction ends failed (not processed: no latency, no event), counted
-- by kind, and the client goes on with the next; else it is retried.
-- --verbose-errors: pgbench's lines for a failure and what follows it.
local function verbose_error(err, limit, again)
  local st = runner.st
  local who = string.format("%sclient %d", opt.pgbench_compat and "pgbench: " or "lbench: ", st.client_id)
  local msg = tostring(err.sql_report or err.sql_errmsg or err.lbench_message or ""):gsub("%s+$", "")
  if not msg:match("^ERROR:") then msg = "ERROR:  " .. msg end
  local try = limit > 0 and string.format("%d/%d", tries, limit) or tostring(tries)
  io.stderr:write(string.format("%s got an error in command %d (SQL) of script %d; %s\n", who, st.command - 1,
    pending - 1, msg), string.format(again and "%s repeats the transaction after the error (try %s)\n"
    or "%s ends the failed transaction (try %s)\n", who, try))
end

local function failure(err)
  local slot = failed_slot(pending)
  local limit = max_tries()
  if opt.verbose_errors then verbose_error(err, limit, limit == 0 or tries < limit) end
  if limit == 0 or tries < limit then
    if slot then lbench.counter.add(stats.cmd_retry(slot)) end
    error(err, 0)
  end
  C.lb_worker_ev_skip(W)
  if slot then lbench.counter.add(stats.cmd_fail(slot)) end
  local dead = err.sql_state == "40P01"
  lbench.counter.add(dead and stats.DEAD or stats.SER)
  lbench.counter.add(stats.script(pending, stats.S_FAILED))
  lbench.counter.add(stats.script(pending, dead and stats.S_DEAD or stats.S_SER))
  if tries > 1 then
    lbench.counter.add(stats.RETRIED)
    lbench.counter.add(stats.script(pending, stats.S_RETRIED))
  end
  if logw then
    ntx = ntx + 1
    txlog.txn(logw, client_no, ntx, pending - 1, tx_ns[0], tx_ns[1], C.lb_clock_ns(), tries,
      dead and "deadlock" or "serialization")
  end
  if opt.connect_per_transaction and con then close_per_tx() end
  pending = nil
end

-- One transaction of a script drawn by weight.  An error of
-- --db-ignore-errors restarts the event: the retry runs the same script
-- with the same values, as pgbench's retries do (lbench's SQL layer rolls
-- the failed transaction back before the retry, on every server).
function event()
  local retry = pending ~= nil
  if not retry then
    if skip_late() then return end
    pending = runner.pick()
    if not scripted then runner.draw(values) end
    tries = 0
    tx_ns[0], tx_ns[1] = C.lb_worker_ev_intended(W), C.lb_clock_ns()
  end
  tries = tries + 1
  if retry then
    lbench.counter.add(stats.RETRIES)
    lbench.counter.add(stats.script(pending, stats.S_RETRIES))
  end
  lbench.stat.event(TYPES[pending])
  if opt.connect_per_transaction and not con then open_per_tx() end
  if scripted then
    local ok, err = pcall(runner.exec, pending, retry)
    if not ok and retryable(err) then return failure(err) end
    if not ok then return client_aborted(err) end
  else
    runner.exec(pending, values)
  end
  if logw then
    ntx = ntx + 1
    txlog.txn(logw, client_no, ntx, pending - 1, tx_ns[0], tx_ns[1], C.lb_clock_ns(), tries)
  end
  if opt.connect_per_transaction then close_per_tx() end
  count_late(pending)
  if tries > 1 then
    lbench.counter.add(stats.RETRIED)
    lbench.counter.add(stats.script(pending, stats.S_RETRIED))
  end
  pending = nil
  if scripted then custom.transaction_done() end   -- last: it may ask for the event loop's trace
end

lbench.hooks.result = function(r)
  if not run_info then return end
  local n = (opt.connections or 0) > 0 and opt.connections or opt.threads
  run_info.connect_ms = lbench.progress.done() / n / 1000
  run_info.aborted = lbench.counter.get(ABORTED)
  run_info.late = lbench.counter.get(stats.LATE)
  run_info.skipped = lbench.counter.get(stats.SKIPPED)
  run_info.max_tries = max_tries()
  run_info.ser, run_info.dead = lbench.counter.get(stats.SER), lbench.counter.get(stats.DEAD)
  run_info.retried, run_info.retries = lbench.counter.get(stats.RETRIED), lbench.counter.get(stats.RETRIES)
  run_info.script_counts = function(i, k) return lbench.counter.get(stats.script(i, stats[k])) end
  if opt.connect_per_transaction then
    run_info.connections = lbench.counter.get(stats.CONN_N)
    run_info.connection_ms = lbench.counter.get(stats.CONN_NS) / 1e6
  end
  if opt.report_per_command then run_info.commands = stats.commands(run_info.scripts, cmd_off, json) end
  r.pgbench = report.summary(r, opt, run_info)
end
-- After the report: clients that aborted fail the run (pgbench exits with
-- status 2 then), the report holding what the others did.
function done()
  local n = lbench.counter.get(ABORTED)
  if run_info and n > 0 and opt.pgbench_compat then
    compat.abort_run()
  end
  if run_info and n > 0 then
    error(string.format("run aborted: %d of %d client(s) aborted (above); the report holds the transactions of the "
      .. "others", n, run_info.clients), 0)
  end
end

lbench.hooks.report_extra = function(r, fmt)
  if not r.pgbench then return nil end
  if fmt == "text" then return report.text(r.pgbench) end
  if fmt == "csv" then return report.csv(r.pgbench) end
end
-- The progress line's counts since the previous line (the main state
-- reads the run-wide counters the workers add to).
local prog_last = { failed = 0, skipped = 0, retried = 0, retries = 0 }
local function progress_counts()
  local now = { failed = lbench.counter.get(stats.SER) + lbench.counter.get(stats.DEAD),
    skipped = lbench.counter.get(stats.SKIPPED), retried = lbench.counter.get(stats.RETRIED),
    retries = lbench.counter.get(stats.RETRIES) }
  local d = {}
  for k, v in pairs(now) do d[k] = v - prog_last[k] end
  prog_last = now
  d.max_tries = max_tries()
  return d
end

lbench.hooks.interval_extra = function(iv, secs)
  if run_info and opt.pgbench_compat then return compat.progress(iv, secs, opt, progress_counts()) end
  if run_info then iv.types_line = report.interval(iv, run_info.scripts) end
end
-- Under the name pgbench: pgbench's report and progress lines alone.
if opt.pgbench_compat then
  local last
  local result_hook = lbench.hooks.result
  lbench.hooks.result = function(r)
    result_hook(r)
    last = r
  end
  lbench.hooks.report_intermediate = function() end
  lbench.hooks.report_cumulative = function()
    if last and last.pgbench then print((compat.report(last.pgbench, last, opt):gsub("\n$", ""))) end
  end
end

lbench.cmdline.commands = {
  prepare = { cmd_prepare },
  check = { cmd_check },
  ["show-script"] = { function() compat.show_script(opt) end },
  _load = { cmd_load, lbench.cmdline.PARALLEL_COMMAND },
}
