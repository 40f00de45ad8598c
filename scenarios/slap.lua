-- slap: mysqlslap's job as an lbench scenario -- same option names, same
-- three stages (create the schema and load it over one connection, run the
-- load over --concurrency connections, drop the schema), same "Benchmark"
-- block per concurrency level, plus what mysqlslap leaves out: per-query
-- latency percentiles, queries per second and a JSON result document.
--
--   lbench slap --auto-generate-sql --auto-generate-sql-load-type=mixed \
--               --concurrency=1,2,4,8 --iterations=5 --number-of-queries=10000 run
--   lbench slap --create=schema.sql --query=queries.sql --delimiter=';' \
--               --concurrency=50 --iterations=10 run
--
-- One event is one statement, so --number-of-queries is the exact number of
-- statements of a round, spread over the clients as they go.  Each round
-- (a concurrency level, one iteration) is an lbench.run with fresh worker
-- threads and fresh connections.  The statements a round runs are built in
-- the main state and handed to the workers with the round's options.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")

lbench.cmdline.options = {
  concurrency = { "number of clients; a list runs one round per value (1,2,4,8)", { "1" } },
  iterations = { "number of times to run each concurrency level", 1, min = 1 },
  number_of_queries = { "statements per round, divided over the clients (0: each client runs the statement list once)", 0, min = 0 },
  auto_generate_sql = { "generate the table t1, its initial rows and the statements", false },
  auto_generate_sql_load_type = { "generated statements: read (scan), write (insert), key (primary-key select), update, mixed (half inserts, half selects)",
    "mixed", type = "enum", choices = { "read", "write", "key", "update", "mixed" } },
  auto_generate_sql_add_autoincrement = { "add an AUTO_INCREMENT primary key (id serial) to t1", false },
  auto_generate_sql_guid_primary = { "add a GUID primary key (id varchar(36), uuid()) to t1", false },
  auto_generate_sql_secondary_indexes = { "number of GUID unique secondary indexes on t1", 0, min = 0 },
  auto_generate_sql_write_number = { "rows inserted into t1 before each round", 100, min = 0 },
  auto_generate_sql_unique_write_number = { "distinct INSERT statements used for the initial rows", 10, min = 1 },
  auto_generate_sql_unique_query_number = { "distinct statements generated for the load", 10, min = 1 },
  auto_generate_sql_execute_number = { "statements per client (instead of --number-of-queries)", 0, min = 0 },
  number_int_cols = { "INT(32) columns of t1 (intcol1..N)", 1, min = 0 },
  number_char_cols = { "VARCHAR(128) columns of t1 (charcol1..N)", 1, min = 0 },
  query = { "statements to run: a string or a file, separated by --delimiter", "" },
  create = { "statements that create the test tables: a string or a file", "" },
  create_schema = { "database the test runs in (created and dropped when something is created)", "mysqlslap" },
  delimiter = { "statement delimiter in --query/--create/--pre-query/--post-query ('\\n': one per line; default ';' when present, else one per line)", "" },
  commit = { "commit every N statements (autocommit off; 0: autocommit)", 0, min = 0 },
  detach = { "close and reopen a client's connection every N statements (0: never)", 0, min = 0 },
  pre_query = { "statements run before each round (string or file)", "" },
  post_query = { "statements run after each round (string or file)", "" },
  pre_system = { "shell command run before each round", "" },
  post_system = { "shell command run after each round", "" },
  no_drop = { "keep the schema after the test", false },
  engine = { "storage engines to test, one pass each (innodb,myisam; engine:table-options)", {} },
  sql_mode = { "sql_mode for every connection", "" },
  csv = { "write mysqlslap's CSV lines (engine,load type,avg,min,max,clients,queries per client) to this file ('-': stdout) instead of the Benchmark blocks", "" },
  silent = { "print no Benchmark blocks", false },
}

local opt = lbench.opt
local fail = util.fail

-- ---------------------------------------------------------------------------
-- Worker side: one statement per event.
-- ---------------------------------------------------------------------------
local W -- this thread's client: connection, cursor, counters

local function client_connect(p)
  local con = lbench.sql.driver():connect({ db = p.schema })
  if p.sql_mode ~= "" then con:query("SET SESSION sql_mode = '" .. p.sql_mode:gsub("'", "''") .. "'") end
  if p.commit > 0 then con:query("SET AUTOCOMMIT=0") end
  return con
end

function thread_init(tid)
  local p = opt.slap_plan
  if not p then
    -- Started by something other than slap's own run command (lbench sweep).
    fail("slap runs its rounds itself: use 'lbench slap ... run' (--concurrency=1,2,4 is its thread sweep)")
  end
  -- Every client walks the statement list from the top, as mysqlslap's do,
  -- and runs its own share of the round's statements.
  W = { p = p, stmts = p.stmts, n = #p.stmts, i = 0, sent = 0, pending = 0, con = client_connect(p),
        quota = p.quota[tid + 1] }
  W.keys = p.keys
  W.nkeys = p.keys and #p.keys or 0
end

local function key_value()
  local p = W.p
  if p.kmin then return tostring(lbench.rand.uniform(p.kmin, p.kmax)) end
  if W.nkeys == 0 then return "NULL" end
  return W.keys[lbench.rand.uniform(1, W.nkeys)]
end

function event()
  local p = W.p
  if p.detach > 0 and W.sent > 0 and W.sent % p.detach == 0 and not W.detached then
    if p.commit > 0 and W.pending > 0 then W.con:query("COMMIT"); W.pending = 0 end
    W.con:disconnect()
    W.con = client_connect(p)
    W.detached = true
  end
  local s = W.stmts[W.i % W.n + 1]
  local con = W.con
  local q = s[1]
  if s[2] then q = q .. key_value() end
  con:query(q)
  if s[3] then while con:next_result() do end end
  W.i = W.i + 1
  W.sent = W.sent + 1
  W.detached = false
  if p.commit > 0 then
    W.pending = W.pending + 1
    if W.pending >= p.commit then con:query("COMMIT"); W.pending = 0 end
  end
  -- This client's share is done (the event that returns true still counts).
  if W.sent >= W.quota then return true end
end

function thread_done()
  if not W then return end
  if W.p.commit > 0 and W.con.c ~= nil then pcall(W.con.query, W.con, "COMMIT") end
  W.con:disconnect()
  W = nil
end

-- ---------------------------------------------------------------------------
-- Main state: statements, schema stage, rounds, report.
-- ---------------------------------------------------------------------------

-- A --query/--create/... value: a file when it names one, else the text.
local function text_of(name, v)
  if v == nil or v == "" then return nil end
  local f = io.open(v, "rb")
  if f then
    local s, e = f:read("*a")
    f:close()
    if s then return s end
    if not v:find("%s") then fail("--%s=%s: cannot read the file: %s", name, v, tostring(e)) end
  elseif not v:find("%s") and v:match("%.[%w]+$") and v:find("/") then
    fail("--%s=%s: no such file", name, v)
  end
  return v
end

-- Split a script into statements (trimmed, empty ones and full-line
-- comments dropped).
local function split_statements(text)
  local d = opt.delimiter
  if d == "\\n" then d = "\n" end
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    if not line:match("^%s*%-%-") and not line:match("^%s*#") then lines[#lines + 1] = line end
  end
  text = table.concat(lines, "\n")
  if d == "" then d = text:find(";", 1, true) and ";" or "\n" end
  local out, pos = {}, 1
  while true do
    local a, b = text:find(d, pos, true)
    local piece = text:sub(pos, (a or #text + 1) - 1)
    piece = util.trim(piece)
    if piece ~= "" then out[#out + 1] = piece end
    if not a then break end
    pos = b + 1
  end
  return out
end

local function statements(name)
  local t = text_of(name, opt[name:gsub("-", "_")])
  if not t then return nil end
  local s = split_statements(t)
  if #s == 0 then fail("--%s: no statements found", name) end
  return s
end

-- ---- auto-generated SQL (mysqlslap's table t1) ----------------------------

local RAND_STR = string.rep("@#@@", 32):sub(1, 126)

local function col_names()
  local cols = {}
  for i = 1, opt.number_int_cols do cols[#cols + 1] = "intcol" .. i end
  for i = 1, opt.number_char_cols do cols[#cols + 1] = "charcol" .. i end
  return table.concat(cols, ",")
end

local function has_key() return opt.auto_generate_sql_add_autoincrement or opt.auto_generate_sql_guid_primary end

local function create_table_sql()
  local cols = {}
  if opt.auto_generate_sql_add_autoincrement then cols[#cols + 1] = "id serial" end
  if opt.auto_generate_sql_guid_primary then cols[#cols + 1] = "id varchar(36) primary key" end
  for i = 0, opt.auto_generate_sql_secondary_indexes - 1 do cols[#cols + 1] = "id" .. i .. " varchar(36) unique key" end
  for i = 1, opt.number_int_cols do cols[#cols + 1] = "intcol" .. i .. " INT(32)" end
  for i = 1, opt.number_char_cols do cols[#cols + 1] = "charcol" .. i .. " VARCHAR(128)" end
  return "CREATE TABLE `t1` (" .. table.concat(cols, ",") .. ")"
end

local function insert_values()
  local v = {}
  if opt.auto_generate_sql_add_autoincrement then v[#v + 1] = "NULL" end
  if opt.auto_generate_sql_guid_primary then v[#v + 1] = "uuid()" end
  for _ = 1, opt.auto_generate_sql_secondary_indexes do v[#v + 1] = "uuid()" end
  for _ = 1, opt.number_int_cols do v[#v + 1] = tostring(lbench.rand.uniform(0, 2147483647)) end
  for _ = 1, opt.number_char_cols do v[#v + 1] = "'" .. lbench.rand.string(RAND_STR) .. "'" end
  return "(" .. table.concat(v, ",") .. ")"
end

local function insert_sql() return "INSERT INTO t1 VALUES " .. insert_values() end

-- Statement entries: { sql, needs_key, may_return_several_results }.
local function select_stmt(key)
  local s = "SELECT " .. col_names() .. " FROM t1"
  if key and has_key() then return { s .. " WHERE id = ", true } end
  return { s }
end

local function update_stmt()
  local set = {}
  for i = 1, opt.number_int_cols do set[#set + 1] = "intcol" .. i .. " = " .. lbench.rand.uniform(0, 2147483647) end
  for i = 1, opt.number_char_cols do set[#set + 1] = "charcol" .. i .. " = '" .. lbench.rand.string(RAND_STR) .. "'" end
  local s = "UPDATE t1 SET " .. table.concat(set, ",")
  if has_key() then return { s .. " WHERE id = ", true } end
  return { s }
end

local function generated_statements()
  local lt, n, out = opt.auto_generate_sql_load_type, opt.auto_generate_sql_unique_query_number, {}
  for i = 1, n do
    if lt == "read" then out[i] = select_stmt(false)
    elseif lt == "key" then out[i] = select_stmt(true)
    elseif lt == "write" then out[i] = { insert_sql() }
    elseif lt == "update" then out[i] = update_stmt()
    else out[i] = (i % 2 == 1) and { insert_sql() } or select_stmt(true) end
  end
  return out
end

-- ---- checks ------------------------------------------------------------

local function concurrency_levels()
  local levels = {}
  for _, v in ipairs(opt.concurrency) do
    local n = tonumber(v)
    if not n or n < 1 or n ~= math.floor(n) then
      fail("--concurrency=%s: '%s' is not a number of clients (expected positive integers such as 1,2,4,8)",
        table.concat(opt.concurrency, ","), v)
    end
    levels[#levels + 1] = n
  end
  if #levels == 0 then fail("--concurrency: empty list (expected positive integers such as 1,2,4,8)") end
  return levels
end

local function check_options()
  if opt.auto_generate_sql then
    if opt.query ~= "" or opt.create ~= "" then
      fail("--auto-generate-sql cannot be combined with --query or --create (it generates both)")
    end
    if opt.auto_generate_sql_add_autoincrement and opt.auto_generate_sql_guid_primary then
      fail("use either --auto-generate-sql-guid-primary or --auto-generate-sql-add-autoincrement, not both")
    end
    if opt.auto_generate_sql_load_type == "key" and not has_key() then
      fail("--auto-generate-sql-load-type=key needs a primary key: add --auto-generate-sql-add-autoincrement or --auto-generate-sql-guid-primary")
    end
    if opt.number_int_cols + opt.number_char_cols == 0 then
      fail("--number-int-cols and --number-char-cols are both 0: t1 needs at least one column")
    end
    if opt.number_of_queries > 0 and opt.auto_generate_sql_execute_number > 0 then
      fail("use either --auto-generate-sql-execute-number or --number-of-queries, not both")
    end
  elseif opt.query == "" then
    fail("nothing to run: give --query=SQL|FILE or --auto-generate-sql")
  end
  if opt.create_schema == "" or opt.create_schema:find("[`%z]") then
    fail("--create-schema=%s: expected a database name without backquotes", opt.create_schema)
  end
  for _, e in ipairs(opt.engine) do
    if not e:match("^[%w_]+") or e:find("`") then fail("--engine: '%s' is not a storage engine name", e) end
  end
end

-- ---- statistics ----------------------------------------------------------


local function pct_keys()
  if opt.percentiles and #opt.percentiles > 0 then return opt.percentiles end
  return { "50", "95", "99" }
end

local function new_hist()
  return lbench.histogram.new()
end

local function add_buckets(h, r)
  for _, b in ipairs(r.histogram and r.histogram.buckets or {}) do
    C.lb_hist_record_n(h.h, b[1], b[3])
  end
end

-- Latency summary (ms) of a histogram of ns: the result module's, so
-- slap's documents have the same latency shape as a run's.
local result = require("lbench.result.document")
local function lat_summary(h)
  return result.plain(result.summary(h.h, pct_keys(), true))
end

local function fmt_ms(v)
  if type(v) ~= "number" then return "overflow" end
  if v >= 100 then return string.format("%.1f", v) end
  if v >= 10 then return string.format("%.2f", v) end
  if v >= 0.1 or v == 0 then return string.format("%.3f", v) end
  return string.format("%.4f", v)
end

-- mysqlslap prints seconds truncated to milliseconds.
local function secs3(s)
  local ms = math.floor(s * 1000 + 1e-9)
  return string.format("%d.%03d", math.floor(ms / 1000), ms % 1000)
end


-- ---- the job -----------------------------------------------------------

local function sql_error(e)
  if util.is_usage_error(e) then return e.lbench_message end
  return (tostring(e):gsub("\n.*", ""))
end

-- Statements per client: --auto-generate-sql-execute-number each, or
-- --number-of-queries shared out (the first N mod c clients run one more,
-- so the round's total is exact), or the statement list once.
local function quotas(c, nstmts)
  local total, quota = 0, {}
  for i = 1, c do
    if opt.auto_generate_sql_execute_number > 0 then quota[i] = opt.auto_generate_sql_execute_number
    elseif opt.number_of_queries > 0 then
      quota[i] = math.floor(opt.number_of_queries / c) + ((i - 1) < opt.number_of_queries % c and 1 or 0)
    else quota[i] = nstmts end
    total = total + quota[i]
  end
  if quota[c] == 0 then
    fail("--number-of-queries=%d is less than --concurrency=%d: every client needs at least one query",
      opt.number_of_queries, c)
  end
  return quota, total
end

-- Did a signal cut the job short (its document then says "interrupted")?
local function interrupted_by_signal()
  return C.lb_runtime_stop_requested(lbench.runtime_ptr()) ~= 0
end

-- A --create statement gets the --engine=name:options table options when
-- it creates a table.
local function add_engine_opts(q, eopts)
  if eopts and eopts ~= "" and q:match("^%s*[Cc][Rr][Ee][Aa][Tt][Ee]%s+[Tt][Aa][Bb][Ll][Ee]") then
    return q .. " " .. eopts
  end
  return q
end

-- --pre-system/--post-system: a failing command is a warning, as in
-- mysqlslap, not the end of the job.
local function system(cmd, what)
  if cmd == "" then return end
  local rc = os.execute(cmd)
  if rc ~= 0 and rc ~= true then io.stderr:write(string.format("Warning: --%s returned %s\n", what, tostring(rc))) end
end

-- Statements of the load: generated once (as mysqlslap does), or given
-- (a CALL may return several result sets: the client reads them all).
local function load_statements(auto, query)
  if auto then return generated_statements() end
  local stmts = {}
  for i, q in ipairs(query) do
    local multi = q:match("^%s*[Cc][Aa][Ll][Ll]%s") ~= nil or nil
    stmts[i] = { q, nil, multi }
  end
  return stmts
end

-- --csv's file, opened for appending as mysqlslap does ('-': stdout).
local function open_csv()
  if opt.csv == "" then return nil end
  if opt.csv == "-" then return io.stdout end
  local f, e = io.open(opt.csv, "ab")
  if not f then fail("--csv: cannot write '%s': %s", opt.csv, tostring(e)) end
  return f
end

-- The job: its statements, the main connection (schema stage, pre/post
-- queries, key lookups), the figures accumulated over the rounds and the
-- state of the schema.  One method per stage; run_job below strings them
-- together.
local Job = {}
Job.__index = Job

local function new_job()
  check_options()
  -- Outputs are checked before anything runs, so nothing measured is lost.
  lbench.check_result_path(opt.result_file)
  if opt.csv ~= "" and opt.csv ~= "-" then require("lbench.result.document").check_writable(opt.csv, "--csv") end
  local levels = concurrency_levels()
  for _, c in ipairs(levels) do quotas(c, 1) end
  local auto = opt.auto_generate_sql
  local self = setmetatable({ levels = levels, schema = opt.create_schema, auto = auto }, Job)
  self.qschema = "`" .. self.schema .. "`"
  self.create = auto and nil or statements("create")
  self.creates = auto or self.create ~= nil
  local query = not auto and statements("query") or nil
  self.pre, self.post = statements("pre-query"), statements("post-query")
  -- As in mysqlslap, --csv replaces the Benchmark blocks.
  self.text = opt.output == "text" and not opt.silent and opt.csv == ""
  self.keys = pct_keys()
  self.stmts = load_statements(auto, query)
  -- Initial rows: --auto-generate-sql-unique-write-number distinct rows,
  -- cycled up to --auto-generate-sql-write-number, in multi-row inserts.
  self.initial_rows = {}
  if auto then
    for i = 1, opt.auto_generate_sql_unique_write_number do self.initial_rows[i] = insert_values() end
  end
  self.csv_out = open_csv()
  local ok, c = pcall(function() return lbench.sql.driver():connect({ db = self.creates and "" or self.schema }) end)
  if not ok then fail("%s", sql_error(c)) end
  self.main = c
  if opt.sql_mode ~= "" then self:exec("SET SESSION sql_mode = '" .. opt.sql_mode:gsub("'", "''") .. "'", "--sql-mode") end

  self.created, self.first_create = false, true
  self.started = os.time()
  self.runs, self.summary = json.array(), json.array()
  self.all_hist = new_hist()
  self.tot = { events = 0, read = 0, write = 0, other = 0, select = 0, insert = 0, update = 0, delete = 0, qother = 0,
               errors = 0, ignored = 0, reconnects = 0, duration = 0 }
  self.status, self.failure = "ok", nil
  self.load_type = auto and opt.auto_generate_sql_load_type or "query"
  self.interrupted = false
  return self
end

-- A statement on the main connection, every result read; fails the job
-- with `what` and the server's message.
function Job:exec(q, what)
  local main = self.main
  local ok, e = pcall(function()
    main:query(q)
    while main:next_result() do end
  end)
  if not ok then fail("%s: %s", what or "query failed", sql_error(e)) end
end

function Job:run_statements(list, what)
  for _, q in ipairs(list or {}) do self:exec(q, what .. ": cannot run '" .. q:sub(1, 200) .. "'") end
end

function Job:drop_schema()
  self:exec("DROP SCHEMA IF EXISTS " .. self.qschema, "cannot drop schema " .. self.schema)
  self.created = false
end

-- mysqlslap drops the schema before loading it; with --no-drop an
-- existing schema is never dropped: the first create refuses instead.
function Job:create_schema()
  local main, schema = self.main, self.schema
  if not (opt.no_drop and self.first_create) then self:drop_schema() end
  local ok, e = pcall(main.query, main, "CREATE SCHEMA " .. self.qschema)
  if not ok then
    local m = sql_error(e)
    if m:find("1007") then
      fail("schema '%s' exists; --no-drop never drops it: drop it first or give another --create-schema", schema)
    end
    fail("cannot create schema %s: %s", schema, m)
  end
  self.first_create = false
  self.created = true
  self:exec("USE " .. self.qschema)
end

-- The schema stage of a round: the schema, then t1 and its initial rows
-- (in batches of 1000 rows) or the --create statements, in the --engine
-- given (engine:table-options adds the options to each CREATE TABLE).
function Job:create_stage(engine)
  self:create_schema()
  local ename, eopts
  if engine then
    ename, eopts = engine:match("^([^:]+):?(.*)$")
    self:exec("SET SESSION default_storage_engine = `" .. ename .. "`", "--engine=" .. ename)
  end
  if self.auto then
    self:exec(add_engine_opts(create_table_sql(), eopts), "cannot create t1")
    local initial_rows = self.initial_rows
    local n, done, batch = opt.auto_generate_sql_write_number, 0, 1000
    local k = 0
    while done < n do
      local rows = {}
      for _ = 1, math.min(batch, n - done) do
        k = k % #initial_rows + 1
        rows[#rows + 1] = initial_rows[k]
      end
      self:exec("INSERT INTO t1 VALUES " .. table.concat(rows, ","), "cannot load t1")
      done = done + #rows
    end
  else
    for _, q in ipairs(self.create) do
      self:exec(add_engine_opts(q, eopts), "--create: cannot run '" .. q:sub(1, 200) .. "'")
    end
  end
end

-- Primary keys the key/update statements pick from (read after loading):
-- a range when the AUTO_INCREMENT ids have no gap, else the list.
function Job:key_plan(plan)
  plan.keys, plan.kmin, plan.kmax = nil, nil, nil
  if not (self.auto and has_key()) then return end
  local need = false
  for _, s in ipairs(self.stmts) do if s[2] then need = true end end
  if not need then return end
  local main = self.main
  local ok, err = pcall(function()
    if opt.auto_generate_sql_add_autoincrement then
      local n, lo, hi = main:query_row("SELECT COUNT(*), MIN(id), MAX(id) FROM t1")
      n, lo, hi = tonumber(n), tonumber(lo), tonumber(hi)
      if n and n > 0 and hi - lo + 1 == n then plan.kmin, plan.kmax = lo, hi; return end
    end
    local rs = main:query("SELECT id FROM t1")
    local list, quote = {}, opt.auto_generate_sql_guid_primary
    while rs do
      local row = rs:fetch_row()
      if not row then break end
      list[#list + 1] = quote and ("'" .. row[1] .. "'") or row[1]
    end
    plan.keys = list
  end)
  if not ok then fail("cannot read the primary keys of t1: %s", sql_error(err)) end
end

-- A round's entry in the document's runs, and its figures added to the
-- level's and the job's.
function Job:record_round(pass, lv, it, r, run_status)
  local c = lv.c
  local o = json.object()
  o.engine = pass.name
  o.concurrency = c
  o.iteration = it
  o.duration_s = r.duration_s
  o.statements = r.totals.events
  o.statements_per_client = r.totals.events / c
  o.statements_per_sec = r.duration_s > 0 and r.totals.events / r.duration_s or 0
  o.queries = r.totals.queries
  o.queries_by_type = r.totals.queries_by_type
  o.queries_per_sec = r.totals.queries_per_sec
  o.errors = r.totals.errors
  o.ignored_errors = r.totals.ignored_errors
  o.reconnects = r.totals.reconnects
  o.latency_ms = r.latency_ms
  o.status = run_status
  -- What the server and the host did in this round (--server-stats); the
  -- server's identity once, for the document.
  if r.server then
    o.server = r.server.stats
    if not self.server then
      self.server = r.server
      self.server.stats = nil
    end
  end
  o.host = r.host_stats
  self.runs[#self.runs + 1] = o
  add_buckets(lv.hist, r)
  add_buckets(self.all_hist, r)
  lv.times[#lv.times + 1] = r.duration_s
  lv.tsum = lv.tsum + r.duration_s
  lv.qsum = lv.qsum + r.totals.events
  local tot, tq, bq = self.tot, r.totals.queries or {}, r.totals.queries_by_type or {}
  tot.events = tot.events + r.totals.events
  tot.duration = tot.duration + r.duration_s
  tot.read, tot.write, tot.other = tot.read + (tq.read or 0), tot.write + (tq.write or 0), tot.other + (tq.other or 0)
  tot.select, tot.insert = tot.select + (bq.select or 0), tot.insert + (bq.insert or 0)
  tot.update, tot.delete, tot.qother = tot.update + (bq.update or 0), tot.delete + (bq.delete or 0), tot.qother + (bq.other or 0)
  tot.errors = tot.errors + (r.totals.errors or 0)
  tot.ignored = tot.ignored + (r.totals.ignored_errors or 0)
  tot.reconnects = tot.reconnects + (r.totals.reconnects or 0)
end

-- Iteration `it` of a level: schema stage, pre-round commands, the run
-- itself, post-round commands.  Returns true when the level's iterations
-- end here (a stop, a failed or cut-short run, or nothing measured).
function Job:round(pass, lv, it)
  if lbench.should_stop() then self.interrupted = true return true end
  if self.creates then self:create_stage(pass.engine or nil) end
  if not pass.name and self.creates then
    local ok, _, e = pcall(self.main.query_row, self.main, "SHOW VARIABLES LIKE 'default_storage_engine'")
    if ok and e then pass.name = e:lower() end
  end
  local plan = { schema = self.schema, stmts = self.stmts, quota = lv.quota, commit = opt.commit, detach = opt.detach,
                 sql_mode = opt.sql_mode }
  self:key_plan(plan)
  system(opt.pre_system, "pre-system")
  self:run_statements(self.pre, "--pre-query")
  local r, failed, err = lbench.run({ threads = lv.c, events = lv.total, time = 0, warmup_time = 0,
    verbosity = math.min(opt.verbosity, 2), slap_plan = plan })
  if failed then
    -- The server's message and the query, without the worker's traceback.
    self.status, self.failure = "error", (tostring(err):gsub("\n.*", ""))
  end
  if not r then return true end -- nothing measured: the clients did not start
  local run_status = failed and "error" or r.status
  if run_status == "interrupted" then self.interrupted = true end
  self:record_round(pass, lv, it, r, run_status)
  if failed or run_status ~= "ok" then self.interrupted = true return true end
  self:run_statements(self.post, "--post-query")
  system(opt.post_system, "post-system")
  if lbench.should_stop() then self.interrupted = true end
  return false
end

-- mysqlslap's "Benchmark" block of a level, with lbench's latency line.
function Job:benchmark_block(asked, s)
  local lat = s.latency_ms
  local lines = { "Benchmark" }
  if asked then lines[#lines + 1] = "\tRunning for engine " .. asked end
  lines[#lines + 1] = "\tAverage number of seconds to run all queries: " .. secs3(s.avg_s) .. " seconds"
  lines[#lines + 1] = "\tMinimum number of seconds to run all queries: " .. secs3(s.min_s) .. " seconds"
  lines[#lines + 1] = "\tMaximum number of seconds to run all queries: " .. secs3(s.max_s) .. " seconds"
  lines[#lines + 1] = "\tNumber of clients running queries: " .. s.concurrency
  lines[#lines + 1] = "\tAverage number of queries per client: " .. s.statements_per_client
  lines[#lines + 1] = string.format("\tQueries per second: %.2f", s.statements_per_sec)
  local ps = {}
  for _, k in ipairs(self.keys) do ps[#ps + 1] = "p" .. k .. " " .. fmt_ms(lat.percentiles[k]) end
  lines[#lines + 1] = string.format("\tQuery latency (ms): min %s  avg %s  %s  max %s", fmt_ms(lat.min),
    fmt_ms(lat.avg), table.concat(ps, "  "), fmt_ms(lat.max))
  print(table.concat(lines, "\n") .. "\n")
end

-- A level's entry in the document's summary, its Benchmark block and its
-- --csv line (once its iterations ran; nothing when none did).
function Job:level_summary(pass, lv)
  local times, c = lv.times, lv.c
  if #times == 0 then return end
  local mn, mx = math.huge, 0
  for _, t in ipairs(times) do mn = math.min(mn, t); mx = math.max(mx, t) end
  local s = json.object()
  s.engine = pass.name
  s.concurrency = c
  s.iterations = #times
  s.avg_s, s.min_s, s.max_s = lv.tsum / #times, mn, mx
  s.clients = c
  s.statements_per_client = math.floor(lv.qsum / #times / c)
  s.statements_per_sec = lv.tsum > 0 and lv.qsum / lv.tsum or 0
  s.latency_ms = lat_summary(lv.hist)
  self.summary[#self.summary + 1] = s
  if self.text then self:benchmark_block(pass.asked, s) end
  if self.csv_out then
    self.csv_out:write(string.format("%s,%s,%s,%s,%s,%d,%d\n", pass.asked or "", self.load_type, secs3(s.avg_s),
      secs3(mn), secs3(mx), c, s.statements_per_client))
    self.csv_out:flush()
  end
end

-- One pass per --engine (or one in the server's default engine): every
-- concurrency level, --iterations rounds each.  The schema goes at the end
-- of each pass (mysqlslap), unless --no-drop; the next pass recreates it
-- anyway.
function Job:engine_pass(engine)
  -- mysqlslap names an engine (its "Running for engine" line, the --csv
  -- file's first column) only when --engine asked for one; the server's
  -- default that `name` falls back to goes only into lbench's own outputs
  -- (the result document, --output=csv).
  local name = engine and engine:match("^[^:]+") or nil
  local pass = { engine = engine, name = name, asked = name }
  for _, c in ipairs(self.levels) do
    if self.interrupted then break end
    local lv = { c = c }
    lv.quota, lv.total = quotas(c, #self.stmts)
    lv.hist = new_hist()
    lv.times, lv.qsum, lv.tsum = {}, 0, 0
    for it = 1, opt.iterations do
      if self:round(pass, lv, it) then break end
    end
    self:level_summary(pass, lv)
  end
  if self.created and not opt.no_drop then self:drop_schema() end
end

-- The result document: a run's header and totals over every round, and
-- slap's own section (each round, each level).
function Job:finish_doc()
  local status, tot = self.status, self.tot
  local st = (status == "ok" and interrupted_by_signal()) and "interrupted" or status
  local doc = lbench.result_header("run", self.started, st, st == "interrupted" and "signal" or nil, self.failure)
  local maxc = 0
  for _, c in ipairs(self.levels) do if c > maxc then maxc = c end end
  doc.threads = maxc
  doc.duration_s = tot.duration
  local secs = tot.duration > 0 and tot.duration or 1
  -- A statement is slap's event: the run's totals, counted the same way.
  local t = lbench.result_sql_totals({ events = tot.events, reads = tot.read, writes = tot.write, other = tot.other,
    inserts = tot.insert, updates = tot.update, deletes = tot.delete, restarts = tot.ignored,
    reconnects = tot.reconnects, db_errors = tot.errors }, secs)
  t.statements = tot.events
  t.statements_per_sec = tot.events / secs
  doc.totals = t
  doc.latency_ms = lat_summary(self.all_hist)
  doc.server = self.server -- identity, settings, storage; each run's figures in slap.runs
  local s = json.object()
  s.load_type = self.load_type
  s.schema = self.schema
  s.engines = json.array(#opt.engine > 0 and opt.engine or {})
  s.concurrency = json.array(self.levels)
  s.iterations = opt.iterations
  s.statements = #self.stmts
  s.runs = self.runs
  s.summary = self.summary
  doc.slap = s
  return doc
end

-- --output=csv: one row per level (engine, load type, times, latency).
function Job:csv_report()
  local keys, h = self.keys, {}
  for _, k in ipairs(keys) do h[#h + 1] = "lat_p" .. k .. "_ms" end
  local rows = { "engine,load_type,concurrency,iterations,avg_s,min_s,max_s,statements_per_client,statements_per_sec,"
    .. "lat_min_ms,lat_avg_ms," .. table.concat(h, ",") .. ",lat_max_ms" }
  for _, s in ipairs(self.summary) do
    local ps = {}
    for _, k in ipairs(keys) do
      local v = s.latency_ms.percentiles[k]
      ps[#ps + 1] = type(v) == "number" and string.format("%.6g", v) or ""
    end
    rows[#rows + 1] = string.format("%s,%s,%d,%d,%.6f,%.6f,%.6f,%d,%.6g,%.6g,%.6g,%s,%.6g", s.engine or "",
      self.load_type, s.concurrency, s.iterations, s.avg_s, s.min_s, s.max_s, s.statements_per_client,
      s.statements_per_sec, s.latency_ms.min, s.latency_ms.avg, table.concat(ps, ","), s.latency_ms.max)
  end
  return table.concat(rows, "\n") .. "\n"
end

-- After the passes: the schema dropped (unless --no-drop), the outputs
-- written, and a failed round failing the job.
function Job:finish()
  if self.created and not opt.no_drop then self:drop_schema() end
  if self.csv_out and self.csv_out ~= io.stdout then self.csv_out:close() end
  self.main:disconnect()
  -- The document on stdout (JSON), or the CSV table (the text report was
  -- printed as the rounds ran), then the result file and the history: a
  -- failure of either fails the job after its report.
  lbench.publish(self:finish_doc(), { csv = function() return self:csv_report() end, file = opt.result_file })
  if self.failure then fail("%s", self.failure) end
  if self.interrupted and self.status == "ok" and self.text then
    print("Interrupted: the rounds run so far are reported.")
  end
end

local function run_job()
  local job = new_job()
  for _, engine in ipairs(#opt.engine > 0 and opt.engine or { false }) do
    if job.interrupted then break end
    job:engine_pass(engine)
  end
  job:finish()
end

lbench.cmdline.commands = {
  run = { run_job },
}

-- `lbench slap` alone: say what to type rather than do nothing.
if lbench.cmdline.command == nil and lbench.worker_ptr() == nil then
  fail("slap: give the command: lbench slap [options] run (mysqlslap's job), or lbench slap help")
end
