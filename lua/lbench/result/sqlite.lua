-- A small SQLite binding through the FFI: open a database file, run
-- prepared statements with bound parameters (never SQL built from user
-- text), transactions.  result/history.lua is its user.
--
-- Where the library comes from: no C code of the core calls SQLite, so
-- the Makefile links it by name past --as-needed (the binary,
-- liblbench.so, and programs built with `pkg-config --libs lbench` carry
-- it) and its symbols are in the process (ffi.C).  A program linked some
-- other way (liblbench.a with its own flags, liblbench.so opened with
-- RTLD_LOCAL) may lack it: then it is loaded by its soname, at the first
-- use of a history.  Either way the core needs no C wrapper that would
-- exist only to keep the linker from dropping a library.
local ffi = require("ffi")
local bit = require("bit")

local M = {}

ffi.cdef [[
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
int sqlite3_close_v2(sqlite3 *db);
int sqlite3_busy_timeout(sqlite3 *db, int ms);
int sqlite3_extended_result_codes(sqlite3 *db, int onoff);
const char *sqlite3_errmsg(sqlite3 *db);
const char *sqlite3_errstr(int code);
int sqlite3_exec(sqlite3 *db, const char *sql, void *cb, void *arg, char **errmsg);
void sqlite3_free(void *p);
int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int nbytes, sqlite3_stmt **stmt, const char **tail);
int sqlite3_bind_text(sqlite3_stmt *s, int i, const char *v, int n, intptr_t destructor);
int sqlite3_bind_double(sqlite3_stmt *s, int i, double v);
int sqlite3_bind_int64(sqlite3_stmt *s, int i, int64_t v);
int sqlite3_bind_null(sqlite3_stmt *s, int i);
int sqlite3_step(sqlite3_stmt *s);
int sqlite3_reset(sqlite3_stmt *s);
int sqlite3_finalize(sqlite3_stmt *s);
int sqlite3_column_count(sqlite3_stmt *s);
int sqlite3_column_type(sqlite3_stmt *s, int i);
const char *sqlite3_column_name(sqlite3_stmt *s, int i);
const unsigned char *sqlite3_column_text(sqlite3_stmt *s, int i);
int sqlite3_column_bytes(sqlite3_stmt *s, int i);
double sqlite3_column_double(sqlite3_stmt *s, int i);
int64_t sqlite3_column_int64(sqlite3_stmt *s, int i);
int64_t sqlite3_last_insert_rowid(sqlite3 *db);
int sqlite3_changes(sqlite3 *db);
const char *sqlite3_libversion(void);
]]

local OK, ROW, DONE = 0, 100, 101
local OPEN_READWRITE, OPEN_CREATE = 0x2, 0x4
local INTEGER, FLOAT, NULL = 1, 2, 5
-- SQLITE_TRANSIENT: SQLite copies the bound text before the call returns.
local TRANSIENT = -1

local lib
local function library()
  if lib then return lib end
  if pcall(function() return ffi.C.sqlite3_open_v2 end) then
    lib = ffi.C
  else
    local ok, l = pcall(ffi.load, "libsqlite3.so.0")
    if not ok then return nil, "SQLite is not available (install libsqlite3-0): " .. tostring(l) end
    lib = l
  end
  return lib
end

local DB = {}
DB.__index = DB

local function errmsg(self) return ffi.string(lib.sqlite3_errmsg(self.handle)) end

-- Open (and with `create`, create) the database file at `path`; waits up
-- to `busy_ms` for a lock held by another process.  Returns a db or nil,
-- reason.
function M.open(path, create, busy_ms)
  local l, e = library()
  if not l then return nil, e end
  local pp = ffi.new("sqlite3*[1]")
  local flags = create and bit.bor(OPEN_READWRITE, OPEN_CREATE) or OPEN_READWRITE
  local rc = l.sqlite3_open_v2(path, pp, flags, nil)
  if rc ~= OK then
    local msg = pp[0] ~= nil and ffi.string(l.sqlite3_errmsg(pp[0])) or ffi.string(l.sqlite3_errstr(rc))
    if pp[0] ~= nil then l.sqlite3_close_v2(pp[0]) end
    return nil, msg
  end
  local self = setmetatable({ handle = ffi.gc(pp[0], l.sqlite3_close_v2) }, DB)
  l.sqlite3_busy_timeout(self.handle, busy_ms or 10000)
  return self
end

-- Where the library was found: "linked" (in the process) or "loaded"
-- (by its soname), or nil and why it is missing.
function M.origin()
  local l, e = library()
  if not l then return nil, e end
  return l == ffi.C and "linked" or "loaded"
end

function M.version()
  local l = library()
  return l and ffi.string(l.sqlite3_libversion()) or nil
end

function DB:close()
  if self.handle ~= nil then
    local h = ffi.gc(self.handle, nil)
    self.handle = nil
    lib.sqlite3_close_v2(h)
  end
end

-- Statements without parameters or results (schema, pragmas, BEGIN).
-- Returns true or nil, reason.
function DB:exec(sql)
  local ep = ffi.new("char*[1]")
  local rc = lib.sqlite3_exec(self.handle, sql, nil, nil, ep)
  if rc ~= OK then
    local msg = ep[0] ~= nil and ffi.string(ep[0]) or errmsg(self)
    if ep[0] ~= nil then lib.sqlite3_free(ep[0]) end
    return nil, msg
  end
  return true
end

local function bind(self, st, params)
  for i = 1, params.n or #params do
    local v, rc = params[i], nil
    if v == nil then rc = lib.sqlite3_bind_null(st, i)
    elseif type(v) == "number" then
      if v == math.floor(v) and math.abs(v) < 2 ^ 53 then rc = lib.sqlite3_bind_int64(st, i, v)
      else rc = lib.sqlite3_bind_double(st, i, v) end
    elseif type(v) == "boolean" then rc = lib.sqlite3_bind_int64(st, i, v and 1 or 0)
    else
      local s = tostring(v)
      rc = lib.sqlite3_bind_text(st, i, s, #s, TRANSIENT)
    end
    if rc ~= OK then return nil, errmsg(self) end
  end
  return true
end

local function column(st, i)
  local t = lib.sqlite3_column_type(st, i)
  if t == NULL then return nil end
  if t == INTEGER then return tonumber(lib.sqlite3_column_int64(st, i)) end
  if t == FLOAT then return lib.sqlite3_column_double(st, i) end
  return ffi.string(lib.sqlite3_column_text(st, i), lib.sqlite3_column_bytes(st, i))
end

-- Run one statement with parameters `params` (a list; nil entries bound
-- as NULL when params.n says how many).  Returns the rows (each a table
-- of column name -> value) or nil, reason.
function DB:query(sql, params)
  local sp = ffi.new("sqlite3_stmt*[1]")
  if lib.sqlite3_prepare_v2(self.handle, sql, #sql, sp, nil) ~= OK then return nil, errmsg(self) end
  local st = sp[0]
  local ok, e = bind(self, st, params or {})
  local rows = {}
  if ok then
    local ncol = lib.sqlite3_column_count(st)
    local names = {}
    for i = 0, ncol - 1 do names[i] = ffi.string(lib.sqlite3_column_name(st, i)) end
    while true do
      local rc = lib.sqlite3_step(st)
      if rc == DONE then break end
      if rc ~= ROW then ok, e = nil, errmsg(self) break end
      local row = {}
      for i = 0, ncol - 1 do row[names[i]] = column(st, i) end
      rows[#rows + 1] = row
    end
  end
  lib.sqlite3_finalize(st)
  if not ok then return nil, e end
  return rows
end

function DB:last_id() return tonumber(lib.sqlite3_last_insert_rowid(self.handle)) end
function DB:changes() return lib.sqlite3_changes(self.handle) end

-- fn() inside BEGIN IMMEDIATE ... COMMIT: the write lock is taken at the
-- start (waiting for the busy timeout), so two writers never deadlock
-- upgrading a read lock.  fn returns true or nil, reason; on failure the
-- transaction is rolled back.  Returns what fn returned.
function DB:transaction(fn)
  local ok, e = self:exec("BEGIN IMMEDIATE")
  if not ok then return nil, e end
  local pok, r, re = pcall(fn)
  if pok and r then
    ok, e = self:exec("COMMIT")
    if ok then return r, re end
  else
    e = pok and re or r
  end
  self:exec("ROLLBACK")
  if not pok then error(e, 0) end
  return nil, e
end

return M
