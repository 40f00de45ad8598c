-- TPC-C data rules shared by the loader, the transactions and the tests:
-- last names (clause 4.3.2.3), the NURand run-time constants (2.1.6), and a
-- fast SQL text builder for multi-row INSERTs that writes random strings
-- straight into an FFI buffer (no Lua string per field).
local ffi = require("ffi")
local C = require("lbench.ffi").C

local M = {}

-- ---- last names (4.3.2.3) -----------------------------------------------
local SYLLABLES = { [0] = "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING" }
M.SYLLABLES = SYLLABLES

local names = {}
for n = 0, 999 do
  names[n] = SYLLABLES[math.floor(n / 100)] .. SYLLABLES[math.floor(n / 10) % 10] .. SYLLABLES[n % 10]
end

-- The last name of number n in 0..999.
function M.last_name(n) return names[n] end

-- ---- NURand constants (2.1.6) -------------------------------------------
-- A run's C for C_LAST must differ from the load's by a delta in 65..119,
-- excluding 96 and 112 (2.1.6.1).
function M.valid_c_last_delta(c_load, c_run)
  local d = math.abs(c_run - c_load)
  return d >= 65 and d <= 119 and d ~= 96 and d ~= 112
end

-- A run C for C_LAST given the load's; `uniform(a, b)` draws integers.
function M.pick_c_last_run(c_load, uniform)
  while true do
    local c = uniform(0, 255)
    if M.valid_c_last_delta(c_load, c) then return c end
  end
end

-- ---- money ----------------------------------------------------------------
-- "12.34" (or "-0.50", "7") -> 1234 cents, exact.
function M.cents(s)
  local neg, i, f = s:match("^(-?)(%d*)%.?(%d*)$")
  if not i then return tonumber(s) * 100 end
  f = (f .. "00"):sub(1, 2)
  local v = (tonumber(i) or 0) * 100 + tonumber(f)
  return neg == "-" and -v or v
end

-- 1234 -> "12.34"
function M.money(c)
  local neg = c < 0
  if neg then c = -c end
  return string.format("%s%d.%02d", neg and "-" or "", math.floor(c / 100), c % 100)
end

-- ---- the INSERT builder ---------------------------------------------------
-- One per loader thread.  `R` is the thread's lb_rand*.  Values are
-- appended field by field; `flush(con)` sends what was built as one
-- statement.  Random strings are alphanumeric (TPC-C "a-strings"), so no
-- quoting or escaping is ever needed.
local Buf = {}
Buf.__index = Buf

local CAP = 1024 * 1024 + 65536
local LIMIT = 1024 * 1024

function M.buffer(R)
  local b = setmetatable({ R = R, p = ffi.new("char[?]", CAP), n = 0, prefix = nil, rows = 0,
                           digits = ffi.new("char[24]") }, Buf)
  return b
end

-- Start a statement: `prefix` is "INSERT INTO t (cols) VALUES".
function Buf:start(prefix)
  self.prefix = prefix
  self.n = 0
  self.rows = 0
end

local copy = ffi.copy

function Buf:put(s)
  local n = #s
  copy(self.p + self.n, s, n)
  self.n = self.n + n
end

-- Open a row: "(" after the prefix, ",(" after a previous row.
function Buf:row()
  if self.rows == 0 then
    local n = #self.prefix
    copy(self.p, self.prefix, n)
    self.p[n] = 40 -- (
    self.n = n + 1
  else
    local p, n = self.p, self.n
    p[n] = 44; p[n + 1] = 40 -- ,(
    self.n = n + 2
  end
  self.rows = self.rows + 1
end

-- Close a row; returns true when the statement is big enough to send.
function Buf:endrow()
  self.p[self.n] = 41 -- )
  self.n = self.n + 1
  return self.n >= LIMIT
end

-- A non-negative integer, then a comma unless `last`.
function Buf:int(v, last)
  local p, n, d = self.p, self.n, self.digits
  if v == 0 then
    p[n] = 48; n = n + 1
  else
    local k = 0
    while v > 0 do
      local q = math.floor(v / 10)
      d[k] = 48 + (v - q * 10)
      k = k + 1
      v = q
    end
    for i = k - 1, 0, -1 do p[n] = d[i]; n = n + 1 end
  end
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- Cents as a decimal with two places (non-negative), then a comma unless `last`.
function Buf:money(c, last)
  local whole = math.floor(c / 100)
  local frac = c - whole * 100
  self:int(whole, true)
  local p, n = self.p, self.n
  p[n] = 46
  p[n + 1] = 48 + math.floor(frac / 10)
  p[n + 2] = 48 + frac % 10
  n = n + 3
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- Ten-thousandths as 0.dddd (tax and discount rates < 1).
function Buf:rate4(v, last)
  local p, n = self.p, self.n
  p[n] = 48; p[n + 1] = 46
  n = n + 2
  local div = 1000
  for _ = 1, 4 do
    local dgt = math.floor(v / div) % 10
    p[n] = 48 + dgt
    n = n + 1
    div = div / 10
  end
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- A quoted literal string (no quotes inside), then a comma unless `last`.
function Buf:str(s, last)
  local p, n = self.p, self.n
  p[n] = 39
  local l = #s
  copy(p + n + 1, s, l)
  n = n + 1 + l
  p[n] = 39
  n = n + 1
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- A quoted random a-string of min..max characters; with `original`,
-- "ORIGINAL" is written at a random position (4.3.3.1 for I_DATA/S_DATA).
function Buf:astr(min, max, last, original)
  local p, n, R = self.p, self.n, self.R
  p[n] = 39
  local start = n + 1
  local len = tonumber(C.lb_rand_varstring(R, min, max, p + start))
  if original then
    local pos = C.lb_rand_uniform(R, 0, len - 8)
    copy(p + start + pos, "ORIGINAL", 8)
  end
  n = start + len
  p[n] = 39
  n = n + 1
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- A quoted string from a template ('#' digit, '@' letter).
function Buf:tmpl(t, last)
  local p, n = self.p, self.n
  p[n] = 39
  local l = #t
  C.lb_rand_string(self.R, t, l, p + n + 1)
  n = n + 1 + l
  p[n] = 39
  n = n + 1
  if not last then p[n] = 44; n = n + 1 end
  self.n = n
end

-- Raw SQL (NULL, a function call) then a comma unless `last`.
function Buf:raw(s, last)
  self:put(s)
  if not last then self.p[self.n] = 44; self.n = self.n + 1 end
end

-- Send the statement built so far (if any row) and start over.
function Buf:flush(con)
  if self.rows == 0 then return 0 end
  local rows = self.rows
  con:query(ffi.string(self.p, self.n))
  self.n = 0
  self.rows = 0
  return rows
end

-- ---- the prepared multi-row INSERT ------------------------------------------
-- Rows sent in the binary protocol: one statement of `per` rows (and one
-- for the tail), whose parameters are written straight into the C bind
-- array, random strings by the C generator into the bind buffers.  The
-- server then neither parses nor converts text literals: about half its
-- CPU per loaded row compared with a text INSERT of the same rows.
local Rows = {}
Rows.__index = Rows

local T_INT, T_VARCHAR = 3, 12

-- `cols`: list of parameter kinds per row: "int", or a string capacity
-- (number) for text; `tuple` is the row's SQL with its placeholders.
function M.rows(con, R, prefix, tuple, cols, max_params)
  local ncols = #cols
  local per = math.floor((max_params or 6000) / ncols)
  return setmetatable({ con = con, R = R, prefix = prefix, tuple = tuple, cols = cols, ncols = ncols,
                        per = per, full = nil, cur = nil, k = 0, left = 0, base = 0, col = 0, sent = 0 }, Rows)
end

function Rows:stmt(n)
  local st = self.con:prepare(self.prefix .. " " .. string.rep(self.tuple, n, ","))
  local ps = {}
  local T = lbench.sql.type
  for _ = 1, n do
    for _, c in ipairs(self.cols) do
      if c == "int" then ps[#ps + 1] = st:bind_create(T.INT) else ps[#ps + 1] = st:bind_create(T.VARCHAR, c) end
    end
  end
  st:bind_param(unpack(ps))
  return { st = st, B = st.binds, n = n, ps = ps }
end

-- Expect `total` rows from now on (the last statement holds the remainder).
function Rows:start(total)
  self.left = total
  self.cur = nil
end

function Rows:row()
  if not self.cur then
    local n = math.min(self.per, self.left)
    if n == self.per then
      self.full = self.full or self:stmt(n)
      self.cur = self.full
    else
      self.cur = self:stmt(n)
    end
    self.k = 0
  end
  self.base = self.k * self.ncols
  self.col = 0
  self.k = self.k + 1
  self.left = self.left - 1
end

-- Close the row; sends the statement when full.  Returns rows sent (or 0).
function Rows:endrow()
  local cur = self.cur
  if self.k < cur.n then return 0 end
  cur.st:execute()
  if cur ~= self.full then cur.st:close() end
  self.cur = nil
  return cur.n
end

local function slot(self)
  local b = self.cur.B[self.base + self.col]
  self.col = self.col + 1
  b.is_null = 0
  return b
end

function Rows:int(v) slot(self).i = v end
function Rows:null() local b = slot(self); b.is_null = 1 end

function Rows:str(s)
  local b = slot(self)
  local n = #s
  copy(b.buf, s, n)
  b.len = n
end

function Rows:astr(min, max, original)
  local b = slot(self)
  local R = self.R
  local len = tonumber(C.lb_rand_varstring(R, min, max, b.buf))
  if original then copy(b.buf + C.lb_rand_uniform(R, 0, len - 8), "ORIGINAL", 8) end
  b.len = len
end

function Rows:tmpl(t)
  local b = slot(self)
  local n = #t
  C.lb_rand_string(self.R, t, n, b.buf)
  b.len = n
end

-- Cents as "d.dd" (non-negative).
function Rows:money(c)
  local b = slot(self)
  local p = b.buf
  local whole = math.floor(c / 100)
  local frac = c - whole * 100
  local n = 0
  if whole == 0 then
    p[0] = 48; n = 1
  else
    local d, k = self.digits or ffi.new("char[24]"), 0
    self.digits = d
    while whole > 0 do
      local q = math.floor(whole / 10)
      d[k] = 48 + (whole - q * 10)
      k = k + 1
      whole = q
    end
    for i = k - 1, 0, -1 do p[n] = d[i]; n = n + 1 end
  end
  p[n] = 46
  p[n + 1] = 48 + math.floor(frac / 10)
  p[n + 2] = 48 + frac % 10
  b.len = n + 3
end

-- Ten-thousandths as "0.dddd".
function Rows:rate4(v)
  local b = slot(self)
  local p = b.buf
  p[0] = 48; p[1] = 46
  local div = 1000
  for i = 2, 5 do
    p[i] = 48 + math.floor(v / div) % 10
    div = div / 10
  end
  b.len = 6
end

function Rows:close()
  if self.full then self.full.st:close() end
  self.full = nil
end

-- ---- the bulk-load writer (COPY, LOAD DATA LOCAL INFILE) ----------------------
-- The same interface as Rows, for a COPY ... FROM STDIN of the table: the
-- row's fields as text, tab-separated, the tuple's constants (e.g. 'OE',
-- 50000.00) written in their place, sent in chunks of about 64 KiB; the
-- COPY starts with the first row of a start() and ends with its last row.
-- Random strings are alphanumeric and dates have no tab or backslash, so
-- nothing needs escaping.
local Copy = {}
Copy.__index = Copy
local CHUNK = 65536

-- "(?,?,'OE',50000.00,?)" -> { false, false, "OE", "50000.00", false }
-- (false: a value the generator writes).
local function tuple_slots(tuple)
  local slots = {}
  for item in tuple:sub(2, -2):gmatch("[^,]+") do
    slots[#slots + 1] = item ~= "?" and (item:gsub("^'(.*)'$", "%1")) or false
  end
  return slots
end

function M.copy_rows(con, R, prefix, tuple)
  local tbl, cols = prefix:match("^INSERT INTO ([%w_]+) (%b())")
  local sql = lbench.opt.db_driver == "pgsql" and string.format("COPY %s %s FROM STDIN", tbl, cols)
    or string.format("LOAD DATA LOCAL INFILE '%s' INTO TABLE %s %s", tbl, tbl, cols)
  return setmetatable({ con = con, R = R, sql = sql, tbl = tbl, total = 0,
                        slots = tuple_slots(tuple), p = ffi.new("char[?]", CHUNK + 4096), n = 0,
                        left = 0, pending = 0, open = false, col = 0 }, Copy)
end

function Copy:start(total)
  self.left = total
  self.total = total
  self.n, self.pending = 0, 0
  self.con:load_begin(self.sql)
  self.open = true
end

-- Write the constants that come before the next value; `last` ends a row.
local function advance(self)
  local slots = self.slots
  while self.col < #slots and slots[self.col + 1] do
    if self.col > 0 then self:byte(9) end
    self:put(slots[self.col + 1])
    self.col = self.col + 1
  end
end

function Copy:byte(b)
  self.p[self.n] = b
  self.n = self.n + 1
end

function Copy:put(s)
  local n = #s
  copy(self.p + self.n, s, n)
  self.n = self.n + n
end

-- The next value's place (after a tab unless it is the row's first).
local function field(self)
  advance(self)
  if self.col > 0 then self:byte(9) end
  self.col = self.col + 1
  return self.p + self.n
end

function Copy:row()
  self.col = 0
  self.left = self.left - 1
end

function Copy:endrow()
  advance(self)
  self:byte(10)
  self.pending = self.pending + 1
  if self.n < CHUNK and self.left > 0 then return 0 end
  self.con:load_data(ffi.string(self.p, self.n))
  self.n = 0
  if self.left == 0 then
    self.open = false
    -- LOAD DATA LOCAL turns a rejected row into a warning: count them.
    local loaded = self.con:load_end()
    if loaded ~= self.total then
      error(string.format("%s: the server loaded %d of the %d rows sent", self.tbl, loaded, self.total), 0)
    end
  end
  local sent = self.pending
  self.pending = 0
  return sent
end

function Copy:int(v) field(self); self:put(tostring(v)) end
function Copy:null() field(self); self:put("\\N") end
function Copy:str(s) field(self); self:put(s) end

function Copy:astr(min, max, original)
  local p = field(self)
  local R = self.R
  local len = tonumber(C.lb_rand_varstring(R, min, max, p))
  if original then copy(p + C.lb_rand_uniform(R, 0, len - 8), "ORIGINAL", 8) end
  self.n = self.n + len
end

function Copy:tmpl(t)
  local p = field(self)
  C.lb_rand_string(self.R, t, #t, p)
  self.n = self.n + #t
end

function Copy:money(c) field(self); self:put(M.money(c)) end
function Copy:rate4(v) field(self); self:put(string.format("0.%04d", v)) end

-- A unit cut short (a stop): end the COPY so that the transaction can be
-- rolled back.
function Copy:cancel()
  if self.open then
    self.con:load_end()
    self.open = false
  end
end

function Copy:close() self:cancel() end

local _ = T_INT + T_VARCHAR
return M
