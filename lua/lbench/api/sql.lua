-- The SQL API: sysbench 1.0's sysbench.sql.* on the core's DB layer
-- (core/db).  Connections, prepared statements and result sets are thin
-- wrappers over C handles; parameter values are written straight into the
-- C bind structs, so an execute costs one FFI call.
--
-- Errors: a code listed in --db-ignore-errors restarts the event (counted
-- per code by the DB layer); a lost connection is reconnected (counted) and
-- the event restarted; anything else stops the run with the server's
-- message and the query.
--
-- Every call that talks to the server starts one of the DB layer's
-- operations and finishes it (build_wait): a virtual user (async mode, see
-- lbench.async) yields to its worker's event loop while the operation
-- waits for the socket, anything else waits in C's poll() loop; scenario
-- code reads con:query(), stmt:execute() either way.  sysbench's bulk
-- inserts always wait in poll() (prepare-time operations).
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local async = require("lbench.api.async")
local sqlconnect = require("lbench.api.sqlconnect")
local band = require("bit").band

local M = {}

local types = { NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5, DOUBLE = 6,
                TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11, VARCHAR = 12 }
local is_string = { [7] = true, [8] = true, [9] = true, [10] = true, [11] = true, [12] = true }
local is_float = { [5] = true, [6] = true }

local vals_t = ffi.typeof("const char *const *[1]")
local lens_t = ffi.typeof("const unsigned long *[1]")

-- ---- error objects -------------------------------------------------------
local sql_error_mt = {
  __tostring = function(e)
    local q = e.query and e.query ~= "" and (" (query: " .. e.query .. ")") or ""
    if (e.sql_errno or 0) >= C.LB_DB_SQLSTATE_BASE then
      return string.format("SQL error, state = '%s': %s%s", e.sql_state or "", e.sql_errmsg or "", q)
    end
    return string.format("SQL error, errno = %d, state = '%s': %s%s", e.sql_errno or 0, e.sql_state or "",
      e.sql_errmsg or "", q)
  end,
}

-- A fatal SQL error raised as a one-line message; tostring gives the text.
local fatal_mt = { __tostring = function(e) return e.lbench_message end }

-- "file:line: " of the nearest caller outside lbench's own Lua modules (the
-- scenario or script that ran the query), or "".
local function caller_position()
  for level = 3, 40 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    local src = info.source or ""
    if info.currentline and info.currentline > 0 and src:sub(1, 1) == "@" and not src:find("lbench/[%w_]+%.lua$") then
      return string.format("%s:%d: ", src:sub(2), info.currentline)
    end
  end
  return ""
end

-- Waiting for database operations.  Every call starts an operation
-- (lb_db_*_start) and hands what it returned to finish(): a wait mask
-- means the operation waits for its socket, which a virtual user does in
-- its worker's event loop (yielding) and everything else in C's poll()
-- loop (lb_db_wait).  Both modes share this one path.
local function build_wait()
  -- Drive an operation to its end in the event loop.
  local function yield_until_done(c, rc)
    while rc > 0 do
      local until_ns = -1
      if band(rc, C.LB_DB_WAIT_TIMEOUT) ~= 0 then
        until_ns = C.lb_clock_ns() + C.lb_db_conn_timeout_ms(c) * 1000000LL
      end
      local ready = async.wait(C.lb_db_conn_fd(c), rc, until_ns)
      rc = C.lb_db_cont(c, ready)
    end
    return rc
  end
  local function finish(c, rc)
    if rc <= 0 then return rc end
    if async.active() then return (yield_until_done(c, rc)) end
    return (C.lb_db_wait(c, rc))
  end
  local function reconnect(c)
    -- The socket is replaced: the event loop must stop watching it.
    async.forget()
    return finish(c, C.lb_db_reconnect_start(c))
  end
  return finish, reconnect
end

-- Result sets: one reusable object per connection or statement.
local function build_results()
  -- ---- results -----------------------------------------------------------
  -- One result-set object per connection or statement, reused by every
  -- query or execute.  It keeps only its owner; the C result is looked up
  -- when the script reads it, so an execute whose result is never read (the
  -- OLTP hot path) allocates nothing.
  local RS_methods = {}
  local RS = { __index = function(t, k)
    if k == "nrows" then return tonumber(C.lb_db_result_nrows(t.get(t.owner))) end
    if k == "nfields" then return C.lb_db_result_nfields(t.get(t.owner)) end
    if k == "r" then return t.get(t.owner) end
    return RS_methods[k]
  end }
  local function stmt_result(st) return C.lb_db_stmt_result(st.s) end
  local function conn_result(con) return C.lb_db_conn_result(con.c) end
  local function wrap_rs(has, owner, get)
    if not has then return nil end
    local rs = owner.rs
    if not rs then
      rs = setmetatable({ owner = owner, get = get }, RS)
      owner.rs = rs
    end
    return rs
  end
  local vals, lens = vals_t(), lens_t()
  function RS_methods:fetch_row()
    local r = self.get(self.owner)
    local n = C.lb_db_result_fetch(r, vals, lens)
    if n <= 0 then return nil end
    local row = {}
    local v, l = vals[0], lens[0]
    for i = 0, C.lb_db_result_nfields(r) - 1 do
      if v[i] ~= nil then row[i + 1] = ffi.string(v[i], l[i]) end
    end
    return row
  end
  function RS_methods:free() C.lb_db_result_free(self.get(self.owner)) end
  return wrap_rs, stmt_result, conn_result
end

local code_text = sqlconnect.code_text
M.code_text = code_text
local conn_opts, build_connect, build_park = sqlconnect.conn_opts, sqlconnect.build_connect, sqlconnect.build_park

-- Raise `err` as a restart of the event, counted here (as sysbench
-- counts an ignored error where it happens), so that a script that
-- catches it itself (its own thread_run, a pcall in event()) is counted
-- the same; the event loop then does not count it again.
local function raise_restart(W, RESTART, err)
  err.errcode = RESTART
  if W ~= nil then
    C.lb_worker_ev_restart(W)
    err.lbench_counted = true
  end
  error(err, 0)
end

-- sysbench.hooks.sql_error_ignorable(err): the script may downgrade an
-- error to a restart (the hooks of the running virtual user in async mode).
local function hook_ignores(lb, err)
  local hooks = async.active() and async.hooks or lb.hooks
  local hook = hooks and hooks.sql_error_ignorable
  return type(hook) == "function" and hook(err) and true or false
end

-- A lost connection (error `err` on `con`): reconnect (every attempt
-- counted by the DB layer, failed ones too, with the outage's time), then
-- restart the event; while the server is away keep trying until it
-- answers or the run stops.  When the run stops first, the outage ends
-- there, and:
--  - the error was not to be ignored and a reconnect was tried and
--    failed: the server did not come back, which fails the run with the
--    server's error and the last attempt's, in one line (raised so that
--    the worker reports it although the run is stopping);
--  - otherwise (a signal, or the connection cut at the deadline before
--    any attempt, or --db-ignore-errors listing the code) the event is
--    abandoned quietly.
-- With the code ignored, every failed attempt also counts as an ignored
-- error, so that the outage shows in the intervals' err/s.
local function build_lost(E, reconnect, restart)
  local ctx, lb, W, ignore_all, ignore = E.ctx, E.lb, E.W, E.ignore_all, E.ignore
  local function give_up(con, err, ignored, tries)
    local c = con.c
    C.lb_db_conn_outage_end(c)
    if ignored or tries == 0 or W == nil or C.lb_runtime_stop_requested(ctx.rt) ~= 0 then error(err, 0) end
    local last = C.lb_db_conn_error(c)
    local msg = string.format("%s%s; not reconnected before the end of the run (%d attempt%s, the last: error %s: %s)",
      caller_position(), tostring(err), tries, tries == 1 and "" or "s", code_text(last.code),
      ffi.string(last.message))
    error(setmetatable({ lbench_message = msg:gsub("\n", " "), lbench_fatal = true, sql_errno = err.sql_errno,
      sql_state = err.sql_state, sql_errmsg = err.sql_errmsg, query = err.query }, fatal_mt), 0)
  end
  return function(con, err)
    local ignored = ignore_all or ignore(err.sql_errno)
    local delay, tries = 0.01, 0
    while true do
      if lb.should_stop() then give_up(con, err, ignored, tries) end
      if reconnect(con.c) == 0 then restart(err) end
      tries = tries + 1
      if ignored and W ~= nil then C.lb_worker_ev_restart(W) end
      lb.sleep(delay * 1000)
      delay = math.min(delay * 2, 0.5)
    end
  end
end

-- Connections: connect (host/port rotation, options), queries, errors.
local function build_connections(E, finish, reconnect, wrap_rs, conn_result)
  local ctx, lb, opt, W, RESTART, rand, stats = E.ctx, E.lb, E.opt, E.W, E.RESTART, E.rand, E.stats
  local ignore_all, ignore, driver_name, ops = E.ignore_all, E.ignore, E.driver_name, E.ops
  -- A retried event starts a new transaction: end the failed one first.
  -- PostgreSQL refuses every statement of an aborted transaction; InnoDB
  -- undoes only the statement after a lock wait timeout (1205), so the
  -- retry's BEGIN would commit the half that ran.
  local rollback_on_retry = driver_name ~= "null"
  -- ---- connections ---------------------------------------------------
  local Con = {}
  Con.__index = Con

  local function restart(err) raise_restart(W, RESTART, err) end
  local function script_ignores(err) return hook_ignores(lb, err) end
  local on_lost = build_lost(E, reconnect, restart)

  local function raise(con, query)
    local e = C.lb_db_conn_error(con.c)
    local err = setmetatable({ sql_errno = e.code, sql_state = ffi.string(e.sqlstate),
      sql_errmsg = ffi.string(e.message), query = query and query:sub(1, 512) or ffi.string(e.query),
      sql_report = e.report[0] ~= 0 and ffi.string(e.report) or nil, connection = con }, sql_error_mt)
    -- Kept for callers that catch a fatal error (raised as a string) and
    -- explain it: a stock scenario turns 1146 into "run prepare".
    con.last_error = err
    if C.lb_db_error_is_connection_lost(e.code) ~= 0 then on_lost(con, err) end
    if ignore_all or ignore(e.code) then
      if rollback_on_retry then finish(con.c, C.lb_db_query_start(con.c, "ROLLBACK", 8)) end
      restart(err)
    end
    -- An error the script's hook ignores is the script's to clean up, as
    -- in sysbench (no ROLLBACK of ours, which would also count a query).
    if script_ignores(err) then restart(err) end
    -- A fatal server error is the server's answer, not a script bug: one
    -- line, with the script's file:line, and no traceback.
    error(setmetatable({ lbench_message = caller_position() .. tostring(err), sql_errno = err.sql_errno,
      sql_state = err.sql_state, sql_errmsg = err.sql_errmsg, sql_report = err.sql_report, query = err.query },
      fatal_mt), 0)
  end

  local connect = build_connect(E, finish, Con)
  local park = build_park(E, finish)

  function Con:query(q)
    local c = self.c
    if finish(c, C.lb_db_query_start(c, q, #q)) < 0 then return raise(self, q) end
    return (wrap_rs(C.lb_db_conn_result(c) ~= nil, self, conn_result))
  end

  -- A query read from `len` bytes at `p`, a buffer the caller keeps
  -- until the query completes: no Lua string is made per execution.
  function Con:query_buf(p, len)
    local c = self.c
    if finish(c, C.lb_db_query_start(c, p, len)) < 0 then return raise(self, ffi.string(p, len)) end
    return (wrap_rs(C.lb_db_conn_result(c) ~= nil, self, conn_result))
  end

  function Con:query_row(q)
    local rs = self:query(q)
    if not rs then return nil end
    local row = rs:fetch_row()
    if not row then return nil end
    return unpack(row, 1, rs.nfields)
  end

  function Con:reconnect()
    if reconnect(self.c) < 0 then raise(self, nil) end
  end

  function Con:disconnect()
    if self.c == nil then return end
    for st in pairs(self.stmts) do st.s = nil end
    async.forget()
    if W ~= nil then C.lb_worker_close(W, self.c)
    elseif not park(self) then C.lb_db_disconnect(ffi.gc(self.c, nil)) end
    self.c = nil
  end
  Con.close = Con.disconnect

  function Con:insert_id() return tonumber(C.lb_db_insert_id(self.c)) end
  function Con:affected_rows() return tonumber(C.lb_db_affected_rows(self.c)) end
  function Con:server_version() return ffi.string(C.lb_db_server_version(self.c)) end
  -- true inside a transaction block, false idle, nil when the driver cannot tell
  function Con:in_transaction()
    local r = C.lb_db_in_transaction(self.c)
    if r < 0 then return nil end
    return r == 1
  end
  return Con, connect, raise
end

-- Pipelines (pgbench's) and the further results of a multi-statement
-- query, on a connection.
local function build_pipeline(Con, finish, raise, wrap_rs, conn_result)
  -- A pipeline step (pgbench's \startpipeline, \syncpipeline,
  -- \endpipeline): "start", "sync" or "end"; the end raises the first
  -- error of the pipeline's statements as a query does.
  local PIPE = { start = C.LB_DB_PIPE_ENTER, sync = C.LB_DB_PIPE_SYNC, ["end"] = C.LB_DB_PIPE_END }
  function Con:pipeline(what)
    local c = self.c
    if finish(c, C.lb_db_pipeline_start(c, PIPE[what])) < 0 then return raise(self, nil) end
    return true
  end

  function Con:pipeline_supported() return C.lb_db_pipeline_supported(self.c) ~= 0 end

  function Con:next_result()
    local c = self.c
    if finish(c, C.lb_db_next_result_start(c)) < 0 then return raise(self, nil) end
    if C.lb_db_next_result_found(c) == 0 then return nil end
    return wrap_rs(C.lb_db_conn_result(c) ~= nil, self, conn_result) or true
  end
end

-- Queries whose answer is collected later (con:query_begin / query_end).
local function build_begun(Con, finish, raise, wrap_rs, conn_result)
  -- A query sent without waiting for the answer, so that the server works
  -- on it while this thread does something else (prepare builds a table's
  -- indexes on one connection while it loads the next table on another);
  -- query_end() waits for it and returns what query() would.
  function Con:query_begin(q)
    if self.begun then error("query_begin: the previous query_begin has not ended", 2) end
    self.begun = { C.lb_db_query_start(self.c, q, #q), q }
  end
  function Con:query_end()
    local b = self.begun
    if not b then error("query_end: no query_begin", 2) end
    self.begun = nil
    local c = self.c
    if finish(c, b[1]) < 0 then return raise(self, b[2]) end
    return (wrap_rs(C.lb_db_conn_result(c) ~= nil, self, conn_result))
  end

end

-- Bulk inserts (sysbench's) and bulk loads (COPY) on a connection.
local function build_bulk(Con, finish, raise, driver_name)
  function Con:bulk_insert_init(prefix)
    if C.lb_db_bulk_insert_init(self.c, prefix, #prefix) < 0 then raise(self, prefix) end
  end
  function Con:bulk_insert_next(v)
    if C.lb_db_bulk_insert_next(self.c, v, #v) < 0 then raise(self, v) end
  end
  function Con:bulk_insert_done()
    if C.lb_db_bulk_insert_done(self.c) < 0 then raise(self, nil) end
  end

  -- Bulk load (PostgreSQL COPY ... FROM STDIN, MySQL LOAD DATA LOCAL
  -- INFILE 'name' INTO TABLE t (cols), served from memory): load_begin(sql), then
  -- load_data(chunk) with rows in the statement's format, then load_end(),
  -- which returns the rows loaded.  can_load() tells whether the driver
  -- has it and the server takes it.
  -- MySQL's LOAD DATA LOCAL INFILE also needs the server's local_infile
  -- (asked once per connection).
  function Con:can_load()
    if C.lb_db_load_supported(self.c) == 0 then return false end
    if driver_name ~= "mysql" then return true end
    if self.local_infile == nil then
      local v = self:query_row("SELECT @@GLOBAL.local_infile")
      self.local_infile = v ~= nil and tonumber(v) == 1
    end
    return self.local_infile
  end
  function Con:load_begin(q)
    if finish(self.c, C.lb_db_load_start(self.c, q, #q)) < 0 then return raise(self, q) end
  end
  function Con:load_data(s)
    if finish(self.c, C.lb_db_load_data_start(self.c, s, #s)) < 0 then return raise(self, nil) end
  end
  function Con:load_end()
    if finish(self.c, C.lb_db_load_end_start(self.c)) < 0 then return raise(self, nil) end
    return tonumber(C.lb_db_affected_rows(self.c))
  end
  -- PostgreSQL's cheapest load of a whole table that the caller has just
  -- created (so it holds nobody else's rows): TRUNCATE and COPY ...
  -- (FREEZE) in one transaction, as pgbench -i loads.  The rows are
  -- written frozen and their pages all-visible, so index builds and first
  -- reads check no row's visibility and a VACUUM after the load skips
  -- every page.  load(clause) runs the COPY with `clause` after its FROM
  -- STDIN; what it returns is returned.
  function Con:load_frozen(tbl, load)
    self:query("BEGIN")
    self:query("TRUNCATE " .. tbl)
    local r = load(" (FREEZE)")
    self:query("COMMIT")
    return r
  end
  -- A whole load in one call, the rows generated in C (lbench.rand.
  -- sbtest_rows) straight into the client library's buffers; returns the
  -- rows the server loaded.
  function Con:load_rows(q, rows)
    if finish(self.c, C.lb_db_load_rows_start(self.c, q, #q, rows.src)) < 0 then return raise(self, q) end
    return tonumber(C.lb_db_affected_rows(self.c))
  end
end

-- A statement parameter's setters (Param, from build_statements).
local function add_param_methods(E, Param)
  local lb, rand = E.lb, E.rand
  function Param:set(v)
    local b = self.b
    if v == nil then b.is_null = 1 return end
    b.is_null = 0
    local ty = self.type
    if is_string[ty] then
      v = tostring(v)
      local n = #v
      if n > b.cap then error(string.format("param:set: value of %d bytes exceeds the parameter's %d", n, tonumber(b.cap)), 2) end
      ffi.copy(b.buf, v, n)
      b.len = n
    elseif is_float[ty] then
      b.d = v
    else
      b.i = v
    end
  end

  -- Fill a string parameter from a template ('#' digit, '@' letter)
  -- without creating a Lua string.
  function Param:set_rand_str(tmpl)
    local b = self.b
    local n = #tmpl
    if n > b.cap then error("param:set_rand_str: template longer than the parameter", 2) end
    b.is_null = 0
    if rand ~= nil then
      C.lb_rand_string(rand, tmpl, n, b.buf)
    else
      ffi.copy(b.buf, lb.rand.string(tmpl), n)
    end
    b.len = n
  end
end

-- Prepared statements and their parameters.
local function build_statements(E, Con, finish, raise, wrap_rs, stmt_result)
  local ctx, lb, opt, W, RESTART, rand, stats = E.ctx, E.lb, E.opt, E.W, E.RESTART, E.rand, E.stats
  local ignore_all, ignore, driver_name, ops = E.ignore_all, E.ignore, E.driver_name, E.ops
  -- ---- prepared statements ---------------------------------------------
  local Stmt = {}
  Stmt.__index = Stmt
  local Param = {}
  Param.__index = Param

  function Con:prepare(q)
    local c = self.c
    local s
    if finish(c, C.lb_db_prepare_start(c, q, #q)) >= 0 then s = C.lb_db_prepared(c) end
    if s == nil then return raise(self, q) end
    local st = setmetatable({ s = s, con = self, sql = q, nparams = C.lb_db_stmt_param_count(s) }, Stmt)
    self.stmts[st] = true
    return st
  end

  -- A parameter of `ty` (lbench.sql.type.*); `len` is the capacity of a
  -- string parameter.
  function Stmt:bind_create(ty, len)
    if is_string[ty] and not len then
      len = (ty == types.CHAR or ty == types.VARCHAR) and 255 or 32
    end
    local p = setmetatable({ type = ty, own = ffi.new("lb_db_bind") }, Param)
    p.b = p.own
    p.b.type = ty
    if is_string[ty] then
      p.buf = ffi.new("char[?]", len)
      p.b.buf, p.b.cap = p.buf, len
    end
    return p
  end

  function Stmt:bind_param(...)
    local params = { ... }
    local n = #params
    local arr = ffi.new("lb_db_bind[?]", math.max(n, 1))
    for i, p in ipairs(params) do
      ffi.copy(arr + (i - 1), p.b, ffi.sizeof("lb_db_bind"))
      p.b = arr + (i - 1)
    end
    self.binds, self.params = arr, params
    if C.lb_db_stmt_bind_param(self.s, arr, n) < 0 then return raise(self.con, self.sql) end
  end

  -- A thread executes in one call (lb_db_stmt_run: the driver's blocking
  -- form where it has one, and whether a result came back; the hot path of
  -- the OLTP scenarios); a virtual user starts the operation and yields
  -- while it waits.
  function Stmt:execute()
    local s = self.s
    local rc
    if async.active() then
      rc = finish(self.con.c, C.lb_db_stmt_execute_start(s))
      if rc == 0 and C.lb_db_stmt_result(s) ~= nil then rc = 1 end
    else
      rc = C.lb_db_stmt_run(s)
    end
    if rc < 0 then return raise(self.con, self.sql) end
    return (wrap_rs(rc > 0, self, stmt_result))
  end

  function Stmt:close()
    if self.s ~= nil and self.con.c ~= nil then C.lb_db_stmt_close(self.s) end
    self.con.stmts[self] = nil
    self.s = nil
  end
  add_param_methods(E, Param)
end

-- lbench.sql.driver(): the run's one driver.
local function build_driver(E, sql, connect)
  local ctx, lb, opt, W, RESTART, rand, stats = E.ctx, E.lb, E.opt, E.W, E.RESTART, E.rand, E.stats
  local ignore_all, ignore, driver_name, ops = E.ignore_all, E.ignore, E.driver_name, E.ops
  -- ---- driver --------------------------------------------------------
  local Drv = {}
  Drv.__index = Drv
  function Drv:name() return driver_name end
  function Drv:connect(over) return connect(over) end

  function sql.driver(name)
    if name and name ~= driver_name then
      util.fail("lbench.sql.driver('%s'): this run uses --db-driver=%s", name, driver_name)
    end
    return setmetatable({}, Drv)
  end
end

-- --db-ignore-errors: MySQL numbers, SQLSTATEs and SQLSTATE classes
-- ("40*"), as `all` (every code) and a test of one code.
local function ignore_list(list)
  local all, codes, classes = false, {}, {}
  for _, c in ipairs(list or {}) do
    if c == "all" then all = true
    elseif c:sub(-1) == "*" then classes[#classes + 1] = c:sub(1, -2)
    elseif c ~= "none" then
      -- Five digits may be either (40001: a SQLSTATE, or a MySQL number).
      if tonumber(c) then codes[tonumber(c)] = true end
      if #c == 5 then codes[tonumber(C.lb_db_sqlstate_code(c))] = true end
    end
  end
  local function ignored(code)
    if codes[code] then return true end
    if #classes == 0 then return false end
    local state = code_text(code)
    for _, p in ipairs(classes) do
      if #state == 5 and state:sub(1, #p) == p then return true end
    end
    return false
  end
  return all, ignored
end

-- The connection options of the run's driver: --pgsql-* for pgsql, else
-- --mysql-* (also for null, which ignores them).
local pg_sslmodes = { disable = "disabled", allow = "preferred", prefer = "preferred", require = "required",
                      ["verify-ca"] = "verify_ca", ["verify-full"] = "verify_identity" }
local function driver_conf(opt, driver_name)
  if driver_name == "pgsql" then
    return { hosts = opt.pgsql_host or { "localhost" }, ports = opt.pgsql_port or { "5432" }, sockets = {},
             user = opt.pgsql_user, password = opt.pgsql_password, db = opt.pgsql_db,
             ssl = C.lb_db_ssl_mode_parse(pg_sslmodes[opt.pgsql_sslmode or "prefer"]),
             connect_timeout = opt.pgsql_connect_timeout, conninfo = opt.pgsql_conninfo,
             app_name = opt.pgsql_application_name }
  end
  local ports = opt.mysql_port or { "3306" }
  for _, p in ipairs(ports) do
    if not tonumber(p) then util.fail("--mysql-port: '%s' is not a port number", p) end
  end
  return { hosts = opt.mysql_host or { "localhost" }, ports = ports, sockets = opt.mysql_socket or {},
           user = opt.mysql_user, password = opt.mysql_password, db = opt.mysql_db,
           ssl = C.lb_db_ssl_mode_parse(opt.mysql_ssl or "disabled"),
           ssl_key = opt.mysql_ssl_key, ssl_cert = opt.mysql_ssl_cert, ssl_ca = opt.mysql_ssl_ca,
           ssl_cipher = opt.mysql_ssl_cipher, compression = opt.mysql_compression,
           connect_timeout = opt.mysql_connect_timeout }
end

-- Give sysbench's C SQL API (ffi.C.db_create, db_query, ...: core/sbcompat/sbsql.h)
-- this thread's defaults: the run's driver, the options of this thread's
-- first connection, the ignorable error numbers.  Returns what must stay
-- alive while the thread may connect.
function M.bind_c(ctx)
  local opt = ctx.opt
  local driver_name = opt.db_driver or "mysql"
  local ops = C.lb_db_driver_find(driver_name)
  if ops == nil then return nil end
  local keep = {}
  local o = conn_opts(ctx, driver_conf(opt, driver_name), {}, ctx.tid or 0, keep)
  local codes, all = {}, false
  for _, c in ipairs(opt.db_ignore_errors or {}) do
    if c == "all" then all = true elseif tonumber(c) then codes[#codes + 1] = tonumber(c) end
  end
  local arr = ffi.new("int32_t[?]", math.max(#codes, 1), codes)
  C.lb_sb_sql_bind(driver_name, ops, o, arr, #codes, all and 1 or 0)
  keep.o, keep.arr = o, arr
  return keep
end

function M.new(ctx, lb)
  local sql = { type = types, error = { NONE = 0, IGNORABLE = 1, FATAL = 2 } }
  local opt = ctx.opt
  local W = ctx.W
  local RESTART = lb.error.RESTART_EVENT
  local rand = W ~= nil and C.lb_worker_rand(W) or nil

  -- Stats block for connections: the worker's (reported), or a private one
  -- in the main state (prepare, commands).
  local stats
  if W ~= nil then
    stats = ffi.cast("lb_db_stats *", C.lb_worker_stats(W).ext)
  else
    local holder = ffi.new("lb_db_stats")
    stats = holder
    sql._stats_holder = holder
  end

  local ignore_all, ignore = ignore_list(opt.db_ignore_errors)
  local driver_name = opt.mysql_dry_run and "null" or (opt.db_driver or "mysql")
  local ops = C.lb_db_driver_find(driver_name)
  if ops == nil then util.fail("--db-driver=%s: unknown driver (available: mysql, pgsql, null)", driver_name) end

  local E = { ctx = ctx, lb = lb, opt = opt, W = W, RESTART = RESTART, rand = rand, stats = stats,
              ignore_all = ignore_all, ignore = ignore, driver_name = driver_name, ops = ops,
              conf = driver_conf(opt, driver_name) }
  -- Each part's closures keep what they use as upvalues (copied from E at
  -- the top of each builder), so the per-query path reads no table.
  local finish, reconnect = build_wait()
  local wrap_rs, stmt_result, conn_result = build_results()
  local Con, connect, raise = build_connections(E, finish, reconnect, wrap_rs, conn_result)
  build_pipeline(Con, finish, raise, wrap_rs, conn_result)
  build_begun(Con, finish, raise, wrap_rs, conn_result)
  build_bulk(Con, finish, raise, E.driver_name)
  build_statements(E, Con, finish, raise, wrap_rs, stmt_result)
  build_driver(E, sql, connect)
  -- The connection parked for the server probe (build_park), now the
  -- caller's; or nil.
  function sql._take_parked()
    local c = ctx.rt ~= nil and C.lb_runtime_take_parked(ctx.rt) or nil
    if c == nil then return nil end
    return setmetatable({ c = ffi.gc(c, C.lb_db_disconnect), stmts = {}, server = {} }, Con)
  end
  return sql
end

return M
