-- What the database server says of itself, on a connection of its own
-- (never a worker's, so that no sample is counted as the workload's):
-- its product, version and the settings that decide a result, and its
-- counters (MySQL/MariaDB's SHOW GLOBAL STATUS, PostgreSQL's statistics
-- views), turned into per-second figures between two samples.
local ffi = require("ffi")
local bit = require("bit")
local C = require("lbench.ffi").C

local M = {}

-- ---- bounded queries ---------------------------------------------------------
-- The reporter samples between its collections: a server that stops
-- answering (SIGSTOP, a network gone) must not hold it.  So the probe's
-- queries go straight to the C layer with a wait bounded by SAMPLE_NS,
-- and never reconnect: the first failure ends the probe (the run, whose
-- workers see the same server, reports the server's state itself).
local SAMPLE_NS = 1e9
pcall(ffi.cdef, [[
struct lb_probe_pollfd { int fd; short events; short revents; };
int poll(struct lb_probe_pollfd *fds, unsigned long nfds, int timeout);
]])
local POLLIN, POLLOUT = 1, 4
local pfd = ffi.new("struct lb_probe_pollfd[1]")
local vals, lens = ffi.new("const char *const *[1]"), ffi.new("const unsigned long *[1]")

-- The rows of `sql` on connection `c` (lb_db_conn*), or nil and why.
local function bounded_rows(c, sql)
  local deadline = C.lb_clock_ns() + SAMPLE_NS
  local rc = C.lb_db_query_start(c, sql, #sql)
  while rc > 0 do
    local left_ms = tonumber(deadline - C.lb_clock_ns()) / 1e6
    if left_ms <= 0 then
      C.lb_db_conn_abort(c)
      return nil, string.format("the server did not answer within %g s", SAMPLE_NS / 1e9)
    end
    local ms = math.ceil(left_ms)
    if bit.band(rc, C.LB_DB_WAIT_TIMEOUT) ~= 0 then ms = math.min(ms, C.lb_db_conn_timeout_ms(c)) end
    pfd[0].fd = C.lb_db_conn_fd(c)
    pfd[0].events = (bit.band(rc, C.LB_DB_WAIT_READ) ~= 0 and POLLIN or 0) + (bit.band(rc, C.LB_DB_WAIT_WRITE) ~= 0 and POLLOUT or 0)
    pfd[0].revents = 0
    local n = ffi.C.poll(pfd, 1, ms)
    local ready = 0
    if n > 0 then
      if bit.band(pfd[0].revents, POLLIN) ~= 0 then ready = ready + C.LB_DB_WAIT_READ end
      if bit.band(pfd[0].revents, POLLOUT) ~= 0 then ready = ready + C.LB_DB_WAIT_WRITE end
      if ready == 0 then ready = C.LB_DB_WAIT_READ end -- an error or hang-up: let the driver read it
    else
      ready = C.LB_DB_WAIT_TIMEOUT
    end
    rc = C.lb_db_cont(c, ready)
  end
  if rc < 0 then
    local e = C.lb_db_conn_error(c)
    return nil, string.format("error %d: %s", tonumber(e.code), ffi.string(e.message))
  end
  local out, r = {}, C.lb_db_conn_result(c)
  local nf = C.lb_db_result_nfields(r)
  while C.lb_db_result_fetch(r, vals, lens) == 1 do
    local row = {}
    for i = 0, nf - 1 do
      if vals[0][i] ~= nil then row[i + 1] = ffi.string(vals[0][i], lens[0][i]) end
    end
    out[#out + 1] = row
  end
  C.lb_db_result_free(r)
  return out
end

-- ---- MySQL / MariaDB -------------------------------------------------------

local MY_SETTINGS = { "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "innodb_log_file_size",
  "innodb_flush_method", "innodb_flush_log_at_trx_commit", "innodb_doublewrite", "innodb_io_capacity",
  "innodb_io_capacity_max", "sync_binlog", "log_bin", "max_connections", "thread_handling",
  "transaction_isolation", "tx_isolation", "datadir" }

-- Counters (deltas) and gauges (the value at the sample) of SHOW GLOBAL STATUS.
local MY_COUNTERS = { "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_data_reads",
  "Innodb_data_writes", "Innodb_data_fsyncs", "Innodb_data_read", "Innodb_data_written", "Innodb_os_log_written",
  "Innodb_os_log_fsyncs", "Innodb_buffer_pool_pages_flushed", "Innodb_row_lock_waits", "Innodb_row_lock_time",
  "Innodb_rows_read", "Rows_read", "Innodb_lsn_current", "Questions", "Aborted_connects" }
local MY_GAUGES = { "Innodb_buffer_pool_pages_dirty", "Threads_running" }
local MY_STATUS = {}
for _, l in ipairs({ MY_COUNTERS, MY_GAUGES }) do for _, n in ipairs(l) do MY_STATUS[#MY_STATUS + 1] = n end end

local function in_list(names)
  local q = {}
  for i, n in ipairs(names) do q[i] = "'" .. n .. "'" end
  return "(" .. table.concat(q, ",") .. ")"
end

local function rows(con, sql)
  local out, why = bounded_rows(con.c, sql)
  if not out then error(why, 0) end
  return out
end

local function row(con, sql) return unpack(rows(con, sql)[1] or {}) end

-- Every variable when `all` (--server-stats=all): { name = value }.
local function all_variables(con, sql)
  local v = {}
  for _, r in ipairs(rows(con, sql)) do v[r[1]:lower()] = r[2] or "" end
  return v
end

local function mysql_identity(con, all)
  local o = { settings = {} }
  if all then o.variables = all_variables(con, "SHOW GLOBAL VARIABLES") end
  for _, r in ipairs(rows(con, "SHOW GLOBAL VARIABLES WHERE Variable_name IN " ..
      in_list({ "version", "version_comment", "pid_file", unpack(MY_SETTINGS) }))) do
    local k, v = r[1]:lower(), r[2]
    if k == "version" then o.version = v
    elseif k == "pid_file" then o.pid_file = v
    elseif k == "version_comment" then o.comment = v
    elseif k == "datadir" then o.data_directory = v
    else o.settings[k] = v end
  end
  o.product = (o.version or ""):find("MariaDB", 1, true) and "MariaDB" or "MySQL"
  return o
end

local function mysql_sample(con)
  local s = {}
  for _, r in ipairs(rows(con, "SHOW GLOBAL STATUS WHERE Variable_name IN " ..
      in_list(MY_STATUS))) do
    s[r[1]] = tonumber(r[2])
  end
  return s
end

local function mysql_figures(a, b, secs)
  local function rate(k) return a[k] and b[k] and (b[k] - a[k]) / secs or nil end
  local function delta(k) return a[k] and b[k] and b[k] - a[k] or nil end
  local req, reads = delta("Innodb_buffer_pool_read_requests"), delta("Innodb_buffer_pool_reads")
  return {
    buffer_pool_hit_pct = req and reads and req > 0 and (1 - reads / req) * 100 or nil,
    buffer_pool_reads_per_sec = rate("Innodb_buffer_pool_reads"),
    buffer_pool_read_requests_per_sec = rate("Innodb_buffer_pool_read_requests"),
    data_reads_per_sec = rate("Innodb_data_reads"), data_writes_per_sec = rate("Innodb_data_writes"),
    data_fsyncs_per_sec = rate("Innodb_data_fsyncs"),
    data_read_mib_per_sec = rate("Innodb_data_read") and rate("Innodb_data_read") / 1048576,
    data_written_mib_per_sec = rate("Innodb_data_written") and rate("Innodb_data_written") / 1048576,
    -- MariaDB 10.8+ has no Innodb_os_log_written: the log sequence number
    -- counts the same bytes.
    redo_written_mib_per_sec = (rate("Innodb_os_log_written") or rate("Innodb_lsn_current") or 0) / 1048576,
    redo_fsyncs_per_sec = rate("Innodb_os_log_fsyncs"),
    pages_flushed_per_sec = rate("Innodb_buffer_pool_pages_flushed"),
    row_lock_waits_per_sec = rate("Innodb_row_lock_waits"),
    row_lock_time_ms_per_sec = rate("Innodb_row_lock_time"),
    -- MySQL counts InnoDB's rows, MariaDB every engine's (Rows_read).
    rows_read_per_sec = rate("Innodb_rows_read") or rate("Rows_read"),
    questions_per_sec = rate("Questions"), aborted_connects = delta("Aborted_connects"),
    dirty_pages = b.Innodb_buffer_pool_pages_dirty, threads_running = b.Threads_running,
  }
end

-- ---- PostgreSQL ----------------------------------------------------------------

local PG_SETTINGS = { "shared_buffers", "wal_level", "wal_buffers", "max_wal_size", "min_wal_size",
  "synchronous_commit", "fsync", "full_page_writes", "checkpoint_timeout", "checkpoint_completion_target",
  "effective_io_concurrency", "max_connections", "default_transaction_isolation", "work_mem", "data_directory" }

local PG_DB = { "xact_commit", "xact_rollback", "blks_read", "blks_hit", "tup_returned", "tup_fetched",
  "tup_inserted", "tup_updated", "tup_deleted", "deadlocks", "temp_bytes" }
local PG_BGWRITER = { "checkpoints_timed", "checkpoints_req", "buffers_checkpoint", "buffers_clean", "buffers_backend" }

local function pgsql_identity(con, all)
  local o = { settings = {}, product = "PostgreSQL" }
  if all then o.variables = all_variables(con, "SELECT name, current_setting(name) FROM pg_settings") end
  o.version = row(con, "SHOW server_version")
  -- current_setting's form (128MB, 5min) is the one people write in the
  -- configuration.  data_directory is shown to privileged accounts only.
  for _, r in ipairs(rows(con, "SELECT name, current_setting(name) FROM pg_settings WHERE name IN " ..
      in_list(PG_SETTINGS))) do
    if r[1] == "data_directory" then o.data_directory = r[2] else o.settings[r[1]] = r[2] end
  end
  o.has_wal_view = row(con, "SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'pg_stat_wal'") == "1"
  return o
end

local function pgsql_sample(con, ident)
  local s = {}
  local r = { row(con, "SELECT " .. table.concat(PG_DB, ", ") ..
    " FROM pg_stat_database WHERE datname = current_database()") }
  for i, k in ipairs(PG_DB) do s[k] = tonumber(r[i]) end
  r = { row(con, "SELECT " .. table.concat(PG_BGWRITER, ", ") .. " FROM pg_stat_bgwriter") }
  for i, k in ipairs(PG_BGWRITER) do s[k] = tonumber(r[i]) end
  if ident.has_wal_view then
    local fpi, bytes = row(con, "SELECT wal_fpi, wal_bytes FROM pg_stat_wal")
    s.wal_fpi, s.wal_bytes = tonumber(fpi), tonumber(bytes)
  end
  return s
end

local function pgsql_figures(a, b, secs)
  local function delta(k) return a[k] and b[k] and b[k] - a[k] or nil end
  local function rate(k) local d = delta(k) return d and d / secs end
  local hit, read = delta("blks_hit"), delta("blks_read")
  local f = {
    buffer_hit_pct = hit and read and hit + read > 0 and hit / (hit + read) * 100 or nil,
    blocks_read_per_sec = rate("blks_read"), blocks_hit_per_sec = rate("blks_hit"),
    commits_per_sec = rate("xact_commit"), rollbacks_per_sec = rate("xact_rollback"),
    tuples_returned_per_sec = rate("tup_returned"), tuples_fetched_per_sec = rate("tup_fetched"),
    tuples_inserted_per_sec = rate("tup_inserted"), tuples_updated_per_sec = rate("tup_updated"),
    tuples_deleted_per_sec = rate("tup_deleted"), deadlocks = delta("deadlocks"),
    temp_mib_per_sec = rate("temp_bytes") and rate("temp_bytes") / 1048576,
    checkpoints_timed = delta("checkpoints_timed"), checkpoints_requested = delta("checkpoints_req"),
    buffers_checkpoint_per_sec = rate("buffers_checkpoint"), buffers_clean_per_sec = rate("buffers_clean"),
    buffers_backend_per_sec = rate("buffers_backend"),
    wal_mib_per_sec = rate("wal_bytes") and rate("wal_bytes") / 1048576, wal_fpi_per_sec = rate("wal_fpi"),
  }
  return f
end

-- ---- the probe ------------------------------------------------------------------

local Probe = {}
Probe.__index = Probe

-- A probe of the server that `lb` (the main state's API) reaches with its
-- options, or nil and why (a driver without statistics, a connection or
-- a query refused: the caller prints one line and the run goes on).
-- `all`: the identity carries every server variable too.
function M.open(lb, driver, all)
  if driver ~= "mysql" and driver ~= "pgsql" then return nil end
  local self = setmetatable({ driver = driver }, Probe)
  local ok, e = pcall(function()
    -- the scenario's own connection when it closed one for us to take
    -- over (api/sql.lua, PostgreSQL only), else a login of our own
    self.con = lb.sql._take_parked() or lb.sql.driver():connect()
    self.ident = (driver == "mysql" and mysql_identity or pgsql_identity)(self.con, all)
    self:sample() -- refused here (no privilege, no view) rather than at the first interval
  end)
  if not ok then
    if self.con then pcall(self.con.disconnect, self.con) end
    local msg = type(e) == "table" and (e.lbench_message or e.sql_errmsg) or e
    return nil, tostring(msg):match("^[^\n]*")
  end
  return self
end

-- Product, version, the settings that decide a result, the data directory.
function Probe:identity() return self.ident end

-- The counters now: a table for figures(); nil once a query failed or
-- went unanswered (self.dead says why; no later sample is tried).
function Probe:sample()
  if self.dead then return nil end
  local ok, s = pcall(self.driver == "mysql" and mysql_sample or pgsql_sample, self.con, self.ident)
  if ok then return s end
  self.dead = tostring(s)
  return nil
end

-- Per-second figures between two samples `secs` apart.
function Probe:figures(a, b, secs)
  if not (a and b) or secs <= 0 then return nil end
  return (self.driver == "mysql" and mysql_figures or pgsql_figures)(a, b, secs)
end

function Probe:close()
  if self.con then pcall(self.con.disconnect, self.con) end
  self.con = nil
end

return M
