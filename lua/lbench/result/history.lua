-- The run history: result documents in a SQLite database (--history=PATH
-- or LBENCH_HISTORY), one row per document with the columns people filter
-- and sort on, and the document itself, byte for byte.
--
-- Safe for several writers: WAL journal (readers never block the writer),
-- a busy timeout (a writer waits for another's transaction instead of
-- failing at once), one BEGIN IMMEDIATE transaction per insert.  Row ids
-- are never reused (AUTOINCREMENT), so an id a CI job names as its
-- baseline keeps meaning that run after deletions.
--
-- Identity of a document: its exact text (trailing white space aside).
-- Importing a file that a run with --history already stored, or importing
-- it twice, finds the stored row and adds nothing; a re-encoded copy of
-- the same run (other indentation) is a new row.
local json = require("lbench.json")
local util = require("lbench.util")
local result = require("lbench.result.document")
local catalogue = require("lbench.result.catalogue")
local sqlite = require("lbench.result.sqlite")
local C = require("lbench.ffi").C

local M = {}

M.SCHEMA_VERSION = 2

local SCHEMA = [[
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  doc_hash TEXT NOT NULL,
  started_at TEXT NOT NULL,
  started_unix INTEGER NOT NULL,
  added_unix INTEGER NOT NULL,
  scenario TEXT NOT NULL,
  command TEXT NOT NULL,
  tool TEXT,
  host TEXT,
  lbench_version TEXT,
  threads INTEGER,
  key_options TEXT NOT NULL,
  tps REAL, qps REAL, p95 REAL, p99 REAL, avg REAL, tpmc REAL, iops REAL, mibs REAL,
  hit REAL, diskreads REAL, written REAL, logwritten REAL, iowait REAL, util REAL, await REAL,
  status TEXT NOT NULL,
  source TEXT,
  options TEXT NOT NULL,
  document TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_unix);
CREATE INDEX IF NOT EXISTS runs_series ON runs (scenario, key_options, started_unix);
CREATE INDEX IF NOT EXISTS runs_host ON runs (host, started_unix);
CREATE INDEX IF NOT EXISTS runs_hash ON runs (doc_hash);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
CREATE INDEX IF NOT EXISTS runs_version ON runs (lbench_version);
]]

-- ---- what a row holds --------------------------------------------------------

-- The options that tell one series of runs from another: load shape
-- (threads, connections, rate), length, data size and the driver or engine.
-- Only those a document has, and not when 0/false/empty ("off"): two runs
-- with the same key options are the same experiment, run again.  Every
-- other option stays in the stored document (and --where reaches it).
-- The load shape counts only for a measured run (a fileio verify has
-- --threads and --time too, unused), the driver only for SQL (every
-- document has --db-driver, mysql by default, a fileio run too).
M.KEY_OPTIONS = { "threads", "connections", "rate", "time", "events", "db_driver", "tables", "table_size", "range_size",
  "warehouses", "scale", "builtin", "file_test_mode", "file_block_size", "file_total_size", "file_io_mode", "ioengine",
  "iodepth", "concurrency", "number_of_queries", "auto_generate_sql_load_type", "engine" }
local LOAD_SHAPE = { threads = true, connections = true, rate = true, time = true, events = true }

local function value_text(v)
  if type(v) == "number" then return tostring(v) end
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = value_text(x) end
    return table.concat(parts, ",")
  end
  return tostring(v)
end

function M.key_options(doc)
  local o = type(doc.options) == "table" and doc.options or {}
  local run = type(doc.points) == "table" and type(doc.points[1]) == "table" and doc.points[1] or doc
  local measured, sql = type(run.totals) == "table", result.is_sql(run)
  -- A sweep's swept options are its points' business, not the series'.
  local swept = {}
  local sw = type(doc.sweep) == "table" and type(doc.sweep.dimensions) == "table" and doc.sweep.dimensions or {}
  for _, d in ipairs(sw) do if type(d) == "table" and type(d.name) == "string" then swept[d.name:gsub("-", "_")] = true end end
  local parts = {}
  for _, k in ipairs(M.KEY_OPTIONS) do
    local v = o[k]
    if (LOAD_SHAPE[k] and not measured) or (k == "db_driver" and not sql) or swept[k] then v = nil end
    if v ~= nil and v ~= 0 and v ~= false and v ~= "" and v ~= json.null then parts[#parts + 1] = k .. "=" .. value_text(v) end
  end
  return table.concat(parts, " ")
end

-- The metrics of list, report and check: name -> label, unit, which way is
-- better, reader.  Reader and direction are the catalogue's (one reader
-- of documents, one list of which figures are better lower).
local function cmp_metric(label)
  for _, m in ipairs(catalogue.metrics) do if m[1] == label then return m end end
  error("no compare metric " .. label)
end
local function metric(label, unit, of)
  local m = cmp_metric(of)
  return { label = label, unit = unit, higher = not m.lower, get = m[3] }
end
local function tps(r)
  local v = cmp_metric("TPS")[3](r)
  if v == nil then v = cmp_metric("events/s")[3](r) end
  return v
end
local function mibs(r)
  local rd, wr = cmp_metric("read")[3](r), cmp_metric("written")[3](r)
  if rd == nil and wr == nil then return nil end
  return (rd or 0) + (wr or 0)
end
M.metrics = {
  tps = { label = "tps", unit = "", higher = not cmp_metric("TPS").lower, get = tps },
  qps = metric("qps", "", "QPS"),
  p95 = metric("p95", "ms", "latency p95"),
  p99 = metric("p99", "ms", "latency p99"),
  avg = metric("avg", "ms", "latency avg"),
  tpmc = metric("tpmC", "", "tpmC"),
  iops = metric("iops", "", "IOPS"),
  mibs = { label = "MiB/s", unit = "", higher = not cmp_metric("read").lower, get = mibs },
  -- What the server and its host did (result/observed.lua), schema 2.
  hit = metric("hit", "%", "server buffer hit"),
  diskreads = metric("disk-reads/s", "", "server disk reads/s"),
  written = metric("written", "MiB/s", "server written"),
  logwritten = metric("log-written", "MiB/s", "server log written"),
  iowait = metric("iowait", "%", "host iowait"),
  util = metric("util", "%", "device util"),
  await = metric("await", "ms", "device await"),
}
M.METRIC_ORDER = { "tps", "qps", "p95", "p99", "avg", "tpmc", "iops", "mibs", "hit", "diskreads", "written",
  "logwritten", "iowait", "util", "await" }
-- The server's and the host's metrics: the columns schema 2 added.
local OBS_METRICS = { "hit", "diskreads", "written", "logwritten", "iowait", "util", "await" }
M.METRIC_NAMES = "tps, qps, p95, p99, avg (latency, ms), tpmC, iops, MiB/s; the server's and the host's: hit, " ..
  "disk-reads, written, log-written, iowait, util, await"

-- A metric by the name the user gave (tps, p99, tpmC, MiB/s ...).
function M.metric(name)
  local n = tostring(name):lower():gsub("[/%s_%-]", "")
  if n == "mib" or n == "mibs" or n == "mibps" then n = "mibs" end
  return M.metrics[n] and n or nil
end

-- Days since 1970-01-01 of a civil date (proleptic Gregorian).
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- Unix seconds of an ISO 8601 UTC time (2026-12-03T14:09:34Z, or a date
-- alone), or nil.
function M.unix_time(s)
  local y, mo, d, rest = tostring(s):match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not y then return nil end
  local h, mi, se = 0, 0, 0
  if rest ~= "" then
    h, mi, se = rest:match("^[T ](%d%d):(%d%d):(%d%d)Z?$")
    if not h then return nil end
  end
  return days_from_civil(tonumber(y), tonumber(mo), tonumber(d)) * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(se)
end

-- The row of a document: its indexed columns.
function M.row_of(doc)
  local row = {
    started_at = doc.started_at, started_unix = M.unix_time(doc.started_at), scenario = doc.scenario,
    command = doc.command, tool = type(doc.tool) == "string" and doc.tool or nil,
    host = type(doc.host) == "table" and type(doc.host.hostname) == "string" and doc.host.hostname or nil,
    lbench_version = doc.lbench_version, key_options = M.key_options(doc), status = doc.status,
    threads = type(doc.threads) == "number" and doc.threads
      or (type(doc.options.threads) == "number" and doc.options.threads or nil),
  }
  -- A sweep has no one figure: its points are in the document.
  if not result.is_sweep(doc) then
    for name, m in pairs(M.metrics) do
      local ok, v = pcall(m.get, doc)
      row[name] = ok and type(v) == "number" and v == v and v or nil
    end
  end
  return row
end

-- The index that finds a stored copy of a text; equality of the text
-- itself decides.
local text_hash = util.text_hash

-- Decode and check a document's text; returns doc or nil, reason.
function M.decode(text)
  local ok, doc = pcall(json.decode, text)
  if not ok then return nil, "not a JSON document (" .. (util.is_usage_error(doc) and doc.lbench_message or tostring(doc)) .. ")" end
  local valid, why = result.validate(doc)
  if not valid then return nil, "not an lbench result document (" .. tostring(why) .. ")" end
  return doc
end

-- ---- the store ----------------------------------------------------------------

local Store = {}
Store.__index = Store

local function busy_ms()
  local s = tonumber(os.getenv("LBENCH_HISTORY_TIMEOUT") or "")
  return s and math.floor(s * 1000) or 10000
end

-- Open the history at `path`; `create` makes a missing file (and its
-- schema).  Returns a store or nil, reason (the caller names the file).
function M.open(path, create)
  if not create and not util.file_exists(path) then return nil, "no such file" end
  local db, e = sqlite.open(path, create, busy_ms())
  if not db then return nil, e end
  local self = setmetatable({ db = db, path = path }, Store)
  -- Two processes creating the same new file: while one holds its write
  -- lock for the schema, SQLite refuses the other's switch to WAL at once
  -- ("database is locked"), without the busy handler (it would deadlock
  -- waiting), so the setup is tried again for up to the busy timeout.
  local ok, err
  local deadline = C.lb_clock_ns() + busy_ms() * 1e6
  repeat
    ok, err = self:setup(create)
    if ok or not tostring(err):find("database is locked", 1, true) then break end
    C.lb_clock_sleep_ns(20e6)
  until C.lb_clock_ns() > deadline
  if not ok then db:close() return nil, err end
  return self
end

function Store:setup(create)
  local db = self.db
  -- journal_mode needs the file readable as a database: a file that is
  -- not one fails here, before anything is written to it.
  local rows, e = db:query("PRAGMA journal_mode=WAL")
  if not rows then return nil, e end
  local have, e2 = db:query("SELECT name FROM sqlite_master WHERE type='table' AND name IN ('runs','schema_version')")
  if not have then return nil, e2 end
  if #have < 2 then
    if not create then return nil, "not an lbench history (no runs table)" end
    local ok, e3 = db:transaction(function()
      local ok, e4 = db:exec(SCHEMA)
      if not ok then return nil, e4 end
      local v = db:query("SELECT version FROM schema_version")
      if v and #v == 0 then return db:query("INSERT INTO schema_version (version) VALUES (?)", { M.SCHEMA_VERSION }) end
      return true
    end)
    if not ok then return nil, e3 end
  end
  local v, e5 = db:query("SELECT max(version) AS v FROM schema_version")
  if not v then return nil, e5 end
  if v[1].v == 1 then
    local ok, e6 = self:migrate_1_2()
    if not ok then return nil, "cannot bring the history to schema version 2: " .. tostring(e6) end
    v[1].v = 2
  end
  if v[1].v ~= M.SCHEMA_VERSION then
    return nil, string.format("history schema version %s, this lbench reads version %d", tostring(v[1].v), M.SCHEMA_VERSION)
  end
  return true
end

function Store:close() self.db:close() end

local COLUMNS = { "doc_hash", "started_at", "started_unix", "added_unix", "scenario", "command", "tool", "host",
  "lbench_version", "threads", "key_options", "tps", "qps", "p95", "p99", "avg", "tpmc", "iops", "mibs", "hit",
  "diskreads", "written", "logwritten", "iowait", "util", "await", "status", "source", "options", "document" }
local INSERT = string.format("INSERT INTO runs (%s) VALUES (%s)", table.concat(COLUMNS, ", "),
  string.rep("?", #COLUMNS, ", "))

-- Store the document `text` (already checked by M.decode into `doc`),
-- from `source` (a file name, or the command that wrote it).  Returns id,
-- true when added (false: it was stored already) or nil, reason.
function Store:add(text, doc, source)
  text = text:gsub("%s+$", "")
  local hash = text_hash(text)
  local row = M.row_of(doc)
  row.doc_hash, row.added_unix, row.source, row.document = hash, os.time(), source, text
  row.options = json.encode(doc.options)
  local params = { n = #COLUMNS }
  for i, c in ipairs(COLUMNS) do params[i] = row[c] end
  local db = self.db
  local id, added = nil, false
  local ok, e = db:transaction(function()
    local same, e1 = db:query("SELECT id FROM runs WHERE doc_hash = ? AND document = ? LIMIT 1", { hash, text })
    if not same then return nil, e1 end
    if #same > 0 then id = same[1].id return true end
    local r, e2 = db:query(INSERT, params)
    if not r then return nil, e2 end
    id, added = db:last_id(), true
    return true
  end)
  if not ok then return nil, e end
  return id, added
end

-- The rows matching `f` (scenario, host, command, status, since and
-- until (Unix seconds, inclusive), where = { {key, value} }, key_options, ids, exclude_hash), oldest
-- first, `f.limit` newest when given.  Columns as in the table, without
-- the document unless f.with_document.
function Store:select(f)
  local cond, params = {}, {}
  local function add(sql, ...)
    cond[#cond + 1] = sql
    for _, v in ipairs({ ... }) do params[#params + 1] = v end
  end
  if f.scenario then add("scenario = ?", f.scenario) end
  if f.host then add("host = ?", f.host) end
  if f.command then add("command = ?", f.command) end
  if f.status then add("status = ?", f.status) end
  if f.since then add("started_unix >= ?", f.since) end
  if f["until"] then add("started_unix <= ?", f["until"]) end
  if f.key_options then add("key_options = ?", f.key_options) end
  if f.exclude_hash then add("doc_hash <> ?", f.exclude_hash) end
  for _, w in ipairs(f.where or {}) do
    -- The path is a bound parameter too: '$."table_size"'.
    local path = '$."' .. w[1]:gsub('"', "") .. '"'
    local v = w[2]
    if v == "true" or v == "on" then v = 1 elseif v == "false" or v == "off" then v = 0 end
    add("json_extract(options, ?) = ?", path, tonumber(v) or v)
  end
  local cols = "id, started_at, started_unix, scenario, command, tool, host, lbench_version, threads, key_options, "
    .. "tps, qps, p95, p99, avg, tpmc, iops, mibs, hit, diskreads, written, logwritten, iowait, util, await, "
    .. "status, source" .. (f.with_document and ", document" or "")
  local sql = "SELECT " .. cols .. " FROM runs" .. (#cond > 0 and (" WHERE " .. table.concat(cond, " AND ")) or "")
  if f.limit then
    sql = "SELECT * FROM (" .. sql .. " ORDER BY started_unix DESC, id DESC LIMIT ?) ORDER BY started_unix, id"
    params[#params + 1] = f.limit
  else
    sql = sql .. " ORDER BY started_unix, id"
  end
  return self.db:query(sql, params)
end

-- The stored document of run `id`, or nil.
function Store:document(id)
  local rows, e = self.db:query("SELECT document FROM runs WHERE id = ?", { id })
  if not rows then return nil, e end
  return rows[1] and rows[1].document or nil
end

-- Delete the runs `ids`; returns the ids that were not there, or nil, reason.
function Store:delete(ids)
  local missing = {}
  local db = self.db
  local ok, e = db:transaction(function()
    for _, id in ipairs(ids) do
      local r, e1 = db:query("DELETE FROM runs WHERE id = ?", { id })
      if not r then return nil, e1 end
      if db:changes() == 0 then missing[#missing + 1] = id end
    end
    return true
  end)
  if not ok then return nil, e end
  return missing
end

M.text_hash = text_hash

-- Schema 1 to 2: the server's and the host's metrics as columns, filled
-- from the stored documents (a run without them keeps NULLs).
function Store:migrate_1_2()
  local db = self.db
  return db:transaction(function()
    for _, c in ipairs(OBS_METRICS) do
      local ok, e = db:exec("ALTER TABLE runs ADD COLUMN " .. c .. " REAL")
      if not ok then return nil, e end
    end
    local rows, e = db:query("SELECT id, document FROM runs")
    if not rows then return nil, e end
    local set = {}
    for i, c in ipairs(OBS_METRICS) do set[i] = c .. " = ?" end
    local sql = "UPDATE runs SET " .. table.concat(set, ", ") .. " WHERE id = ?"
    for _, r in ipairs(rows) do
      local okd, doc = pcall(json.decode, r.document)
      local okr, row = false, nil
      if okd and type(doc) == "table" then okr, row = pcall(M.row_of, doc) end
      if okr then
        local params = { n = #OBS_METRICS + 1 }
        for i, c in ipairs(OBS_METRICS) do params[i] = row[c] end
        params[#OBS_METRICS + 1] = r.id
        local u, e2 = db:query(sql, params)
        if not u then return nil, e2 end
      end
    end
    return db:query("UPDATE schema_version SET version = 2")
  end)
end

-- ---- recording a command's result ----------------------------------------------

-- The history a command writes to: --history, else LBENCH_HISTORY; nil
-- when neither is set (or set empty).
function M.path_of(opt)
  local p = opt and opt.history
  if p == nil then p = os.getenv("LBENCH_HISTORY") end
  if p == nil or p == "" then return nil end
  return p
end

-- Before a command measures anything: a history that is a directory, or
-- in a directory that does not exist, is refused at once.  A locked or
-- damaged history is found only when the result is stored (the run is
-- kept in its result file then).
function M.check_path(path)
  local f = io.open(path, "rb")
  if f then
    local _, _, code = f:read(1)
    f:close()
    if code == 21 then util.fail("--history=%s: is a directory, expected a SQLite file", path) end
    return
  end
  local dir = util.dirname(path)
  local d = io.open(dir .. "/.", "rb")
  if not d then util.fail("--history=%s: directory '%s' does not exist", path, dir) end
  d:close()
end

-- SQLite's reason, with what it means here when that is not obvious.
function M.explain(msg)
  if msg == "database is locked" then
    return string.format("database is locked (another process held it for %g s; LBENCH_HISTORY_TIMEOUT=S waits longer)",
      busy_ms() / 1000)
  end
  return msg
end

-- Store the result document `text` in the history `path`, from the
-- command `source`.  Returns true, or false and one line naming the
-- history and the reason.
function M.record(path, text, source)
  local function failed(why) return false, string.format("--history=%s: the result was not stored: %s", path, why) end
  local doc, e = M.decode(text)
  if not doc then return failed(e) end
  local st, e2 = M.open(path, true)
  if not st then return failed(M.explain(e2)) end
  local id, e3 = st:add(text, doc, source)
  st:close()
  if not id then return failed(M.explain(e3)) end
  return true
end

return M
