-- Opening the SQL API's connections (api/sql.lua): the connection options
-- of the run (--mysql-*/--pgsql-*, hosts and ports in rotation), connect
-- with its retries (a full listen backlog, a handshake cut short, the
-- server's connection limit), and the main state's connection parked for
-- the server probe.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local async = require("lbench.api.async")

local M = {}

-- An error code as users know it: a SQLSTATE for PostgreSQL's, else the
-- number.
local sqlstate_buf = ffi.new("char[6]")
function M.code_text(code)
  if C.lb_db_code_sqlstate(code, sqlstate_buf) ~= 0 then return ffi.string(sqlstate_buf) end
  return tostring(code)
end
local code_text = M.code_text

-- The lb_db_conn_opts of connection number `k` (the host/port rotation)
-- with `over` overriding the run's options `conf`; its strings are kept
-- alive in `keep`.
function M.conn_opts(ctx, conf, over, k, keep)
  local opt = ctx.opt
  local hosts, ports, sockets = conf.hosts, conf.ports, conf.sockets
  local o = ffi.new("lb_db_conn_opts")
  C.lb_db_conn_opts_init(o)
  local function s(v) if v == nil then return nil end v = tostring(v) keep[#keep + 1] = v return v end
  o.host = s(over.host or hosts[k % #hosts + 1])
  o.port = tonumber(over.port or ports[k % #ports + 1])
  if over.socket or #sockets > 0 then o.socket = s(over.socket or sockets[k % #sockets + 1]) end
  o.user = s(over.user or conf.user)
  o.password = s(over.password or conf.password)
  o.db = s(over.db or conf.db)
  o.ssl_mode = conf.ssl
  o.ssl_key, o.ssl_cert = s(conf.ssl_key), s(conf.ssl_cert)
  o.ssl_ca, o.ssl_cipher = s(conf.ssl_ca), s(conf.ssl_cipher)
  o.compression = conf.compression and 1 or 0
  o.connect_timeout = conf.connect_timeout or 10
  o.conninfo = s(over.conninfo or conf.conninfo)
  o.app_name = s(conf.app_name)
  o.ps_mode = opt.db_ps_mode == "disable" and C.LB_DB_PS_DISABLE
    or opt.db_ps_mode == "extended" and C.LB_DB_PS_EXTENDED or C.LB_DB_PS_AUTO
  if opt.db_debug then
    o.debug = C.lb_runtime_debug_sink
    o.debug_ud = ctx.rt
  end
  return o
end

-- connect(over): a connection object of class Con, with the run's options
-- (--mysql-* or --pgsql-*: E.conf, hosts and ports in rotation) overridden
-- by `over`.
local CONNECT_TRIES = 8

function M.build_connect(E, finish, Con)
  local ctx, opt, W, stats, lb, rand = E.ctx, E.opt, E.W, E.stats, E.lb, E.rand
  local driver_name, ops, conf = E.driver_name, E.ops, E.conf
  local nconn = 0   -- connections made so far: the host/port rotation

  -- One attempt: the connection, or nil with `err` filled.  A worker's
  -- connection is tracked from the start, so that a stop can abort it
  -- even while it connects.
  local function connect_once(o, err)
    -- A worker thread's own connection (not a virtual user's: their worker
    -- runs --connections) waits in each call, so the driver may use its
    -- library's blocking calls.
    o.blocking = (W ~= nil and (opt.connections or 0) == 0 and not async.active()) and 1 or 0
    local c = C.lb_db_conn_new(ops, o, stats, err)
    if c == nil then return nil end
    if W ~= nil and C.lb_worker_track(W, c, C.lb_db_conn_handle) ~= 0 then
      C.lb_db_disconnect(c)
      error("out of memory")
    end
    if finish(c, C.lb_db_connect_start(c)) < 0 then
      ffi.copy(err, C.lb_db_conn_error(c), ffi.sizeof("lb_db_error"))
      if W ~= nil then C.lb_worker_close(W, c) else C.lb_db_disconnect(c) end
      return nil
    end
    return c
  end
  -- Failures worth another try: the server's listen backlog was full
  -- (EAGAIN on a loopback connect) or it dropped the handshake (MySQL 2013
  -- "reading initial communication packet"), as when thousands of
  -- connections open at once.
  local function transient(err)
    local msg = ffi.string(err.message)
    return err.code == 2013 or msg:find("system error: 11", 1, true) ~= nil
      or msg:find("Resource temporarily unavailable", 1, true) ~= nil
  end
  -- The server's own connection limit (MySQL 1040, PostgreSQL 53300).
  local function too_many(err)
    return err.code == 1040 or (driver_name == "pgsql" and ffi.string(err.sqlstate) == "53300")
  end
  local function limit_hint(msg)
    if msg:find("for role", 1, true) or msg:find("for database", 1, true) then
      return " (the role's or the database's CONNECTION LIMIT: raise it, or use fewer connections)"
    end
    return " (the server's connection limit: raise max_connections, or use fewer --connections)"
  end

  local function connect(over)
    over = over or {}
    local k = nconn + (ctx.tid or 0)
    nconn = nconn + 1
    local keep = {} -- strings must live until lb_db_connect returns (it copies them)
    local o = M.conn_opts(ctx, conf, over, k, keep)
    local err = ffi.new("lb_db_error")
    local c
    local freed = false
    for attempt = 1, CONNECT_TRIES do
      c = connect_once(o, err)
      -- The main state's connection parked for the server probe may hold
      -- the server's last slot: it goes first (the probe logs in anew),
      -- and the slot is free once its server process has exited.  A worker
      -- refused at the same moment as the one that closed it waits too.
      if c == nil and not freed and too_many(err) and ctx.rt ~= nil then
        freed = C.lb_runtime_drop_parked(ctx.rt) == 1
      end
      local again = transient(err) or (freed and too_many(err))
      if c ~= nil or attempt == CONNECT_TRIES or not again or lb.should_stop() then break end
      -- A full listen backlog or a handshake cut short: try again after a
      -- short, growing, jittered pause (counted, reported with the run).
      C.lb_runtime_count_connect_retry(ctx.rt)
      lb.sleep(10 * 2 ^ (attempt - 1) * (0.5 + (rand ~= nil and C.lb_rand_double(rand) or math.random())))
    end
    if c == nil then
      local where = o.conninfo ~= nil and "the --pgsql-conninfo server" or o.socket ~= nil and ffi.string(o.socket)
        or (ffi.string(o.host) .. ":" .. o.port)
      -- (with the client library's own words, sql_report, for a caller that rewords it)
      util.fail_with({ sql_report = err.report[0] ~= 0 and ffi.string(err.report) or nil },
        "cannot connect to %s as '%s' (%s): error %s: %s%s", driver_name == "null" and driver_name or where,
        o.user ~= nil and ffi.string(o.user) or "", driver_name, code_text(err.code), ffi.string(err.message),
        too_many(err) and limit_hint(ffi.string(err.message)) or "")
    end
    -- The main state's connections (prepare, commands) close when the
    -- collector finds them unused, as in sysbench; a worker's are closed
    -- with the worker (core/worker.c).
    if W == nil then c = ffi.gc(c, C.lb_db_disconnect) end
    -- Where it went, for another connection to the same server
    -- (drv:connect(con.server)): a host list rotates otherwise.
    local server = { host = o.host ~= nil and ffi.string(o.host) or nil, port = o.port ~= 0 and o.port or nil,
                     socket = o.socket ~= nil and ffi.string(o.socket) or nil }
    return setmetatable({ c = c, stmts = {}, server = server, own_options = next(over) == nil }, Con)
  end
  return connect
end

-- While the run's server probe is about to log in (ctx.park_for_probe,
-- set by run/runner.lua from before init() until the probe has opened),
-- the first PostgreSQL connection the main state closes that was opened
-- with the run's own options and is idle is parked in the runtime
-- instead, for the probe to take over (sql._take_parked): one login
-- fewer per run, where a SCRAM login costs the client some 60M
-- instructions, as much as 2 000 pgbench transactions.  DISCARD ALL first:
-- nothing of the scenario's session (its settings, locks, temporary
-- tables) outlives its close, as when the connection really closed.
-- Returns true when `con`'s connection was parked.
function M.build_park(E, finish)
  local ctx, driver_name = E.ctx, E.driver_name
  local RESET = "DISCARD ALL"
  return function(con)
    if not (ctx.park_for_probe and driver_name == "pgsql" and con.own_options and ctx.rt ~= nil) then return false end
    local c = con.c
    if C.lb_db_in_transaction(c) ~= 0 or finish(c, C.lb_db_query_start(c, RESET, #RESET)) < 0 then return false end
    if C.lb_runtime_park_conn(ctx.rt, ffi.gc(c, nil)) == 1 then return true end
    ffi.gc(c, C.lb_db_disconnect) -- one is kept already: the caller closes this one
    return false
  end
end

return M
