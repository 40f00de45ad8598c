-- pgbench's values and functions, and the compiler of expression trees
-- (pgbench/expr.lua) into Lua closures: a script's expressions are
-- compiled once, and a transaction calls closures, never a tree walker.
--
-- Values are pgbench's four types, kept as Lua values whose Lua type
-- tells them apart:
--   int      int64_t cdata (exact over the whole int64 range)
--   double   a Lua number
--   boolean  a Lua boolean
--   NULL     expr.NULL (one table, compared by identity)
-- A variable set from text (--define, \gset, \setshell) holds a Lua
-- string until an expression reads it; it is then read as pgbench reads
-- it (null, a prefix of true/yes/false/no, on/off, an integer, a double).
--
-- A compiled expression is f(st) -> value, with st the client's state:
-- st.vars (name -> value or string), st.rs (its random state, an
-- lb_pg_prng *), st.script and st.command (what debug() prints).  A
-- run-time error (division by zero, overflow, an undefined variable, a
-- bad argument) is raised as { pgbench_error = message }, with pgbench's
-- wording; the caller says which command of which script failed.
local ffi = require("ffi")
local bit = require("bit")
local C = require("lbench.ffi").C
local expr = require("pgbench.expr")

local M = {}

local NULL = expr.NULL
local int64 = ffi.typeof("int64_t")
-- An integer that \set stores lives in a box of its own (one per client
-- and variable), written in place: an int64 put in the variables' table
-- is a new heap object at every \set (24 bytes each, per transaction),
-- the garbage that made the collector run and cost a tpcb-like
-- transaction 0.3k-3.8k instructions.  Readers of st.vars unbox with
-- M.unbox; a plain int64 (a built-in variable, \setshell) reads as well.
local IntBox = ffi.typeof("int64_t[1]")
M.IntBox = IntBox
local istype = ffi.istype
local function unbox(v)
  if istype(IntBox, v) then return v[0] end
  return v
end
M.unbox = unbox
local out_i = ffi.new("int64_t[1]")
local out_d = ffi.new("double[1]")
local fmt_buf = ffi.new("char[64]")
local rawequal, type, tonumber = rawequal, type, tonumber
local INT64_MIN = int64(-2 ^ 63)

local function fail(fmt, ...)
  error({ pgbench_error = select("#", ...) > 0 and string.format(fmt, ...) or fmt }, 0)
end
M.fail = fail

-- ---- values and text ----------------------------------------------------

local function type_name(v)
  if rawequal(v, NULL) then return "null" end
  local t = type(v)
  return t == "cdata" and "int" or t == "number" and "double" or t == "boolean" and "boolean" or "none"
end
M.type_name = type_name

local function fmt_double(d)
  return ffi.string(fmt_buf, C.lb_pg_format_double(d, fmt_buf, 64))
end

-- (in C: tostring() of a cdata is not compiled by the JIT)
local function fmt_int(i)
  return ffi.string(fmt_buf, C.lb_pg_format_int(i, fmt_buf, 64))
end
M.fmt_int = fmt_int

-- A value as SQL and the shell see it (pgbench's string form).
function M.text(v)
  v = unbox(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "cdata" then return fmt_int(v) end
  if t == "number" then return fmt_double(v) end
  if t == "boolean" then return v and "true" or "false" end
  return "NULL"
end

-- A variable's text read as a value (pgbench's makeVariableValue).
local function is_prefix(s, word) return #s <= #word and word:sub(1, #s) == s end
function M.from_text(name, s)
  if s == "" then fail("empty value of variable \"%s\"", name) end
  local l = s:lower()
  if l == "null" then return NULL end
  if is_prefix(l, "true") or is_prefix(l, "yes") or l == "on" then return true end
  if is_prefix(l, "false") or is_prefix(l, "no") or l == "off" or l == "of" then return false end
  if s:match("^%s*[+-]?%d*$") then
    local rc = C.lb_pg_parse_int(s, out_i)
    if rc == 1 then fail("value \"%s\" is out of range for type bigint", s) end
    if rc ~= 0 then fail("invalid input syntax for type bigint: \"%s\"", s) end
    return out_i[0]
  end
  if C.lb_pg_parse_double(s, out_d) ~= 0 then fail("malformed variable \"%s\" value: \"%s\"", name, s) end
  return out_d[0]
end

-- ---- coercions -------------------------------------------------------------

local function to_int(v)
  local t = type(v)
  if t == "cdata" then return v end
  if t == "number" then
    if C.lb_pg_double_to_int(v, out_i) ~= 0 then fail("double to int overflow for %f", C.lb_pg_rint(v)) end
    return out_i[0]
  end
  fail("cannot coerce %s to int", type_name(v))
end

local function to_double(v)
  local t = type(v)
  if t == "number" then return v end
  if t == "cdata" then return tonumber(v) end
  fail("cannot coerce %s to double", type_name(v))
end

local function to_bool(v)
  if type(v) == "boolean" then return v end
  fail("cannot coerce %s to boolean", type_name(v))
end

-- pgbench's truth of a condition (\if, CASE WHEN): NULL is false, a
-- number is true when not zero.
local function truth(v)
  local t = type(v)
  if t == "boolean" then return v end
  if t == "cdata" then return v ~= 0 end
  if t == "number" then return v ~= 0 end
  return false
end
M.truth = truth

-- ---- operators --------------------------------------------------------------

local function either_double(a, b) return type(a) == "number" or type(b) == "number" end

local function checked(fn, what)
  return function(a, b)
    if either_double(a, b) then return nil end
    if fn(to_int(a), to_int(b), out_i) ~= 0 then fail("bigint %s out of range", what) end
    return out_i[0]
  end
end
local int_add, int_sub, int_mul = checked(C.lb_pg_add, "add"), checked(C.lb_pg_sub, "sub"),
  checked(C.lb_pg_mul, "mul")

local function divide(a, b, is_mod)
  local li, ri = to_int(a), to_int(b)
  if ri == 0 then fail("division by zero") end
  if ri == -1 then
    if is_mod then return int64(0) end
    if li == INT64_MIN then fail("bigint div out of range") end
    return -li
  end
  if is_mod then return li % ri end   -- int64 cdata: C's truncating % and /
  return li / ri
end

-- Binary operators: each takes two non-NULL values.  "Double if either
-- is double", except %, which is always integer.
local OPS = {
  add = function(a, b) return int_add(a, b) or to_double(a) + to_double(b) end,
  sub = function(a, b) return int_sub(a, b) or to_double(a) - to_double(b) end,
  mul = function(a, b) return int_mul(a, b) or to_double(a) * to_double(b) end,
  div = function(a, b)
    if either_double(a, b) then return to_double(a) / to_double(b) end
    return divide(a, b, false)
  end,
  mod = function(a, b) return divide(a, b, true) end,
  eq = function(a, b)
    if either_double(a, b) then return to_double(a) == to_double(b) end
    return to_int(a) == to_int(b)
  end,
  ne = function(a, b)
    if either_double(a, b) then return to_double(a) ~= to_double(b) end
    return to_int(a) ~= to_int(b)
  end,
  le = function(a, b)
    if either_double(a, b) then return to_double(a) <= to_double(b) end
    return to_int(a) <= to_int(b)
  end,
  lt = function(a, b)
    if either_double(a, b) then return to_double(a) < to_double(b) end
    return to_int(a) < to_int(b)
  end,
  bitand = function(a, b) return bit.band(to_int(a), to_int(b)) end,
  bitor = function(a, b) return bit.bor(to_int(a), to_int(b)) end,
  bitxor = function(a, b) return bit.bxor(to_int(a), to_int(b)) end,
  -- The shift count is taken modulo 64, as the machine pgbench runs on
  -- does (C leaves larger counts undefined).
  lshift = function(a, b) return bit.lshift(to_int(a), tonumber(bit.band(to_int(b), 63))) end,
  rshift = function(a, b) return bit.arshift(to_int(a), tonumber(bit.band(to_int(b), 63))) end,
  pow = function(a, b) return C.lb_pg_pow(to_double(a), to_double(b)) end,
  hash_murmur2 = function(a, b) return C.lb_pg_hash_murmur2(to_int(a), to_int(b)) end,
  hash_fnv1a = function(a, b) return C.lb_pg_hash_fnv1a(to_int(a), to_int(b)) end,
}

local UNARY = {
  ["not"] = function(a) return not to_bool(a) end,
  abs = function(a)
    if type(a) == "cdata" then return a < 0 and -a or a end
    local d = to_double(a)
    return d < 0 and -d or d
  end,
  double = function(a) return to_double(a) end,
  sqrt = function(a) return math.sqrt(to_double(a)) end,
  ln = function(a) return C.lb_pg_ln(to_double(a)) end,
  exp = function(a) return C.lb_pg_exp(to_double(a)) end,
  int = function(a) return to_int(a) end,
}

-- least / greatest: double if any argument is, else int (a boolean is an
-- error either way).
local function extremum(vals, greatest)
  local any_double = false
  for i = 1, #vals do if type(vals[i]) == "number" then any_double = true end end
  local conv = any_double and to_double or to_int
  local e = conv(vals[1])
  for i = 2, #vals do
    local v = conv(vals[i])
    if greatest then e = (e > v) and e or v else e = (e < v) and e or v end
  end
  return e
end

-- random*(min, max[, param]) with pgbench's checks and messages.
local function random_range(a, b)
  local lo, hi = to_int(a), to_int(b)
  if lo > hi then fail("empty range given to random") end
  if C.lb_pg_sub(hi, lo, out_i) ~= 0 or C.lb_pg_add(out_i[0], 1, out_i) ~= 0 then
    fail("random range is too large")
  end
  return lo, hi
end

local RANDOM3 = {
  random_gaussian = function(rs, lo, hi, p)
    if p < 2.0 then fail("gaussian parameter must be at least 2.000000 (not %f)", p) end
    return C.lb_pg_random_gaussian(rs, lo, hi, p)
  end,
  random_zipfian = function(rs, lo, hi, p)
    if p < 1.001 or p > 1000.0 then fail("zipfian parameter must be in range [1.001, 1000] (not %f)", p) end
    return C.lb_pg_random_zipfian(rs, lo, hi, p)
  end,
  random_exponential = function(rs, lo, hi, p)
    if p <= 0.0 then fail("exponential parameter must be greater than zero (not %f)", p) end
    return C.lb_pg_random_exponential(rs, lo, hi, p)
  end,
}

-- debug(): pgbench's line on stderr, then the value unchanged.
function M.debug_line(st, v)
  local t = type(v)
  local s
  if rawequal(v, NULL) then s = "null"
  elseif t == "boolean" then s = "boolean " .. (v and "true" or "false")
  elseif t == "cdata" then s = "int " .. fmt_int(v)
  else s = "double " .. fmt_double(v) end
  return string.format("debug(script=%d,command=%d): %s\n", st.script, st.command, s)
end

-- ---- compiler ------------------------------------------------------------------

local compile

-- Variables: a string (text set by --define or \gset) is read on each
-- use, as pgbench reads it once and caches it; the value is the same.
local function compile_var(name)
  local from_text = M.from_text
  return function(st)
    local v = st.vars[name]
    if v == nil then fail("undefined variable \"%s\"", name) end
    if type(v) == "string" then return from_text(name, v) end
    return unbox(v)
  end
end

-- The lazy forms: AND / OR (a NULL first operand gives NULL), CASE.
local function compile_lazy(node)
  local f = node.f
  if f == "case" then
    local parts = {}
    for i, a in ipairs(node.args) do parts[i] = compile(a) end
    local n = #parts
    return function(st)
      for i = 1, n - 1, 2 do
        if truth(parts[i](st)) then return parts[i + 1](st) end
      end
      return parts[n](st)
    end
  end
  local a, b = compile(node.args[1]), compile(node.args[2])
  local is_and = f == "and"
  return function(st)
    local x = a(st)
    if rawequal(x, NULL) then return NULL end
    if to_bool(x) ~= is_and then return x end
    local y = b(st)
    if rawequal(y, NULL) then return NULL end
    return to_bool(y)
  end
end

local function compile_call(node)
  local f, args = node.f, node.args
  if f == "and" or f == "or" or f == "case" then return compile_lazy(node) end
  local c = {}
  for i, a in ipairs(args) do c[i] = compile(a) end
  if f == "pi" then return function() return math.pi end end
  if f == "debug" then
    local a, line = c[1], M.debug_line
    return function(st)
      local v = a(st)
      io.stderr:write(line(st, v))
      return v
    end
  end
  if f == "is" then
    local a, b = c[1], c[2]
    return function(st)
      local x, y = a(st), b(st)
      if rawequal(y, NULL) then return rawequal(x, NULL) end
      return type(x) == "boolean" and x == y
    end
  end
  if f == "least" or f == "greatest" then
    local n, greatest = #c, f == "greatest"
    return function(st)
      local vals = {}
      for i = 1, n do vals[i] = c[i](st) end
      for i = 1, n do if rawequal(vals[i], NULL) then return NULL end end
      return extremum(vals, greatest)
    end
  end
  if f == "random" or RANDOM3[f] then
    local a, b, p, draw = c[1], c[2], c[3], RANDOM3[f]
    return function(st)
      local x, y, z = a(st), b(st), p and p(st)
      if rawequal(x, NULL) or rawequal(y, NULL) or rawequal(z, NULL) then return NULL end
      local lo, hi = random_range(x, y)
      if not draw then return C.lb_pg_random(st.rs, lo, hi) end
      return draw(st.rs, lo, hi, to_double(z))
    end
  end
  if f == "permute" then
    local a, b, s = c[1], c[2], c[3]
    return function(st)
      local x, y, z = a(st), b(st), s(st)
      if rawequal(x, NULL) or rawequal(y, NULL) or rawequal(z, NULL) then return NULL end
      local v, size, seed = to_int(x), to_int(y), to_int(z)
      if size <= 0 then fail("permute size parameter must be greater than zero") end
      return C.lb_pg_permute(v, size, seed)
    end
  end
  if UNARY[f] then
    local a, op = c[1], UNARY[f]
    return function(st)
      local x = a(st)
      if rawequal(x, NULL) then return NULL end
      return op(x)
    end
  end
  local op = OPS[f]
  if not op then error("pgbench expression: no function " .. f) end
  local a, b = c[1], c[2]
  return function(st)
    local x, y = a(st), b(st)
    if rawequal(x, NULL) or rawequal(y, NULL) then return NULL end
    return op(x, y)
  end
end

function compile(node)
  if node.k == "const" then
    local v = node.v
    return function() return v end
  end
  if node.k == "var" then return compile_var(node.name) end
  return compile_call(node)
end

-- A closure f(st) -> value for the tree `node` (expr.parse).
M.compile = compile

return M
