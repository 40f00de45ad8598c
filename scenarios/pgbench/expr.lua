-- pgbench's expression language (the argument of \set, \if and \elif),
-- parsed into a tree that pgbench/eval.lua compiles into closures.
--
-- The grammar is pgbench 15's: int64, double, boolean and NULL constants,
-- :variables, function calls, CASE WHEN ... THEN ... [ELSE ...] END, and
-- the operators by increasing precedence
--
--   OR   AND   NOT   IS / ISNULL / NOTNULL   < > = <= >= <> !=
--   | # & << >> (and prefix ~)   + -   * / %   unary + -
--
-- comparisons and IS do not chain (a < b < c is an error).  The tree is
-- the one pgbench evaluates: `a > b` is `b < a` (so b is evaluated
-- first), `-x` is `0 - x`, `~x` is `-1 # x`, `x ISNULL` is `x IS NULL`,
-- and hash(x) / permute(x, n) take the default_seed variable as their
-- missing seed.
--
-- parse(text) returns the tree, or nil, a message and the 1-based column
-- where the error was found.  Nodes: { k = "const", v = value },
-- { k = "var", name = n }, { k = "call", f = name, args = { ... } } (the
-- operators are calls too: "add", "lt", "and", "is", "case", ...).
local ffi = require("ffi")
local C = require("lbench.ffi").C

local M = {}

local int64 = ffi.typeof("int64_t")
local out_i = ffi.new("int64_t[1]")
local out_d = ffi.new("double[1]")

-- The NULL value: one table, told apart by identity.
M.NULL = setmetatable({}, { __tostring = function() return "NULL" end })

-- ---- lexer ---------------------------------------------------------------

local KEYWORDS = { ["and"] = true, ["or"] = true, ["not"] = true, ["is"] = true, isnull = true, notnull = true,
                   case = true, when = true, ["then"] = true, ["else"] = true, ["end"] = true, null = true,
                   ["true"] = true, ["false"] = true }
-- Two-character operators first: the longest match wins, as in flex.
local OPS2 = { ["<>"] = "<>", ["!="] = "<>", ["<="] = "<=", [">="] = ">=", ["<<"] = "<<", [">>"] = ">>" }
local OPS1 = "+-*/%=<>|&#~(),"

-- Tokens of `text`: { kind, value, col } with kinds op, int, double,
-- maxint (9223372036854775808, only valid after a unary minus), var,
-- name (a function), the keywords, and eof.  nil, message, column on a
-- character that starts no token or a constant out of range.
local function tokens(text)
  local toks, i, n = {}, 1, #text
  local function add(kind, value, col) toks[#toks + 1] = { kind = kind, value = value, col = col } end
  while i <= n do
    local c = text:sub(i, i)
    local cont = text:match("^\\\r?\n", i)
    if cont then
      i = i + #cont
    elseif c:match("[ \t\r\f\v]") then
      i = i + 1
    elseif c == "\n" then
      break
    elseif OPS2[text:sub(i, i + 1)] then
      add("op", OPS2[text:sub(i, i + 1)], i)
      i = i + 2
    elseif OPS1:find(c, 1, true) then
      add("op", c, i)
      i = i + 1
    elseif c == ":" and text:match("^[%w_\128-\255]", i + 1) then
      local name = text:match("^[%w_\128-\255]+", i + 1)
      add("var", name, i)
      i = i + 1 + #name
    elseif c:match("[%d.]") then
      local num = text:match("^%d+%.?%d*[eE][-+]?%d+", i) or text:match("^%d+%.?%d*", i)
        or text:match("^%.%d+[eE][-+]?%d+", i) or text:match("^%.%d+", i)
      if not num then return nil, "unexpected character (" .. c .. ")", i end
      if num == "9223372036854775808" then
        add("maxint", nil, i)
      elseif num:match("^%d+$") then
        if C.lb_pg_parse_int(num, out_i) ~= 0 then return nil, "bigint constant overflow (" .. num .. ")", i end
        add("int", out_i[0], i)
      else
        if C.lb_pg_parse_double(num, out_d) ~= 0 then return nil, "double constant overflow (" .. num .. ")", i end
        add("double", out_d[0], i)
      end
      i = i + #num
    elseif c:match("[%a_\128-\255]") then
      local word = text:match("^[%w_\128-\255]+", i)
      local lw = word:lower()
      if KEYWORDS[lw] then add(lw, nil, i) else add("name", word, i) end
      i = i + #word
    else
      return nil, "unexpected character (" .. c .. ")", i
    end
  end
  add("eof", nil, i)
  return toks
end

-- ---- parser ---------------------------------------------------------------

local OR, AND, NOT, IS, CMP, BIT, ADD, MUL, UNARY = 1, 2, 3, 4, 5, 6, 7, 8, 9
local BINARY = {
  ["or"] = { OR, "or" }, ["and"] = { AND, "and" },
  ["<"] = { CMP, "lt" }, [">"] = { CMP, "gt" }, ["="] = { CMP, "eq" }, ["<="] = { CMP, "le" },
  [">="] = { CMP, "ge" }, ["<>"] = { CMP, "ne" },
  ["|"] = { BIT, "bitor" }, ["#"] = { BIT, "bitxor" }, ["&"] = { BIT, "bitand" }, ["<<"] = { BIT, "lshift" },
  [">>"] = { BIT, "rshift" },
  ["+"] = { ADD, "add" }, ["-"] = { ADD, "sub" },
  ["*"] = { MUL, "mul" }, ["/"] = { MUL, "div" }, ["%"] = { MUL, "mod" },
}

-- Functions by (lower-case) name: the number of arguments (-1: one or
-- more; "seed": the last one may be left out, for default_seed).
M.FUNCTIONS = {
  abs = 1, mod = 2, least = -1, greatest = -1, debug = 1, pi = 0, sqrt = 1, ln = 1, exp = 1, int = 1, double = 1,
  random = 2, random_gaussian = 3, random_exponential = 3, random_zipfian = 3, pow = 2, power = 2,
  hash = { 1, 2 }, hash_murmur2 = { 1, 2 }, hash_fnv1a = { 1, 2 }, permute = { 2, 3 },
}

local function const(v) return { k = "const", v = v } end
local function call(f, ...) return { k = "call", f = f, args = { ... } } end

local function describe(t)
  if t.kind == "eof" then return "end of line" end
  if t.kind == "op" then return "'" .. t.value .. "'" end
  if t.kind == "var" then return "variable :" .. t.value end
  if t.kind == "name" then return "'" .. t.value .. "'" end
  if t.kind == "int" or t.kind == "double" or t.kind == "maxint" then return "a number" end
  return t.kind:upper()
end

local Parser = {}
Parser.__index = Parser

function Parser:peek() return self.toks[self.pos] end
function Parser:next()
  local t = self.toks[self.pos]
  self.pos = self.pos + 1
  return t
end
function Parser:fail(msg, t)
  t = t or self:peek()
  error({ parse_error = msg, col = t.col }, 0)
end
function Parser:expect(kind, value, what)
  local t = self:peek()
  if t.kind ~= kind or (value and t.value ~= value) then
    self:fail(string.format("syntax error: expected %s, found %s", what, describe(t)))
  end
  return self:next()
end

function Parser:args(name, t)
  local lname = name:lower()
  local want = M.FUNCTIONS[lname]
  if want == nil then self:fail("unexpected function name (" .. name .. ")", t) end
  self:expect("op", "(", "'(' after the function name")
  local args = {}
  if not (self:peek().kind == "op" and self:peek().value == ")") then
    repeat
      args[#args + 1] = self:expr(OR)
      local more = self:peek().kind == "op" and self:peek().value == ","
      if more then self:next() end
    until not more
  end
  self:expect("op", ")", "',' or ')' in the arguments of " .. name)
  if want == -1 then
    if #args == 0 then self:fail("at least one argument expected (" .. lname .. ")", t) end
  elseif type(want) == "table" then
    if #args < want[1] or #args > want[2] then self:fail("unexpected number of arguments (" .. lname .. ")", t) end
    if #args == want[1] then args[#args + 1] = { k = "var", name = "default_seed" } end
  elseif #args ~= want then
    self:fail("unexpected number of arguments (" .. lname .. ")", t)
  end
  if lname == "power" then lname = "pow" elseif lname == "hash" then lname = "hash_murmur2" end
  return { k = "call", f = lname, args = args }
end

function Parser:case()
  local args = {}
  self:expect("when", nil, "WHEN after CASE")
  repeat
    args[#args + 1] = self:expr(OR)
    self:expect("then", nil, "THEN")
    args[#args + 1] = self:expr(OR)
  until self:peek().kind ~= "when" or not self:next()
  if self:peek().kind == "else" then
    self:next()
    args[#args + 1] = self:expr(OR)
  else
    args[#args + 1] = const(M.NULL)
  end
  self:expect("end", nil, "WHEN, ELSE or END in CASE")
  return { k = "call", f = "case", args = args }
end

-- An operand: a constant, a variable, a call, a parenthesised
-- expression, CASE, or a prefix operator and its operand.
function Parser:primary()
  local t = self:next()
  local k, v = t.kind, t.value
  if k == "int" or k == "double" then return const(v) end
  if k == "null" then return const(M.NULL) end
  if k == "true" or k == "false" then return const(k == "true") end
  if k == "var" then return { k = "var", name = v } end
  if k == "name" then return self:args(v, t) end
  if k == "case" then return self:case() end
  if k == "not" then return call("not", self:expr(IS)) end
  if k == "op" then
    if v == "(" then
      local e = self:expr(OR)
      self:expect("op", ")", "')'")
      return e
    elseif v == "+" then
      return self:expr(UNARY)
    elseif v == "-" then
      if self:peek().kind == "maxint" then
        self:next()
        return const(int64(-2 ^ 63))
      end
      return call("sub", const(int64(0)), self:expr(UNARY))
    elseif v == "~" then
      return call("bitxor", const(int64(-1)), self:expr(BIT + 1))
    end
  end
  self.pos = self.pos - 1
  self:fail("syntax error: expected an operand, found " .. describe(t), t)
end

-- The IS forms after an operand: ISNULL, NOTNULL, IS [NOT] NULL|TRUE|FALSE.
function Parser:is_suffix(left)
  local t = self:next()
  if t.kind == "isnull" then return call("is", left, const(M.NULL)) end
  if t.kind == "notnull" then return call("not", call("is", left, const(M.NULL))) end
  local negate = self:peek().kind == "not"
  if negate then self:next() end
  local w = self:next()
  local what
  if w.kind == "null" then what = M.NULL
  elseif w.kind == "true" or w.kind == "false" then what = w.kind == "true"
  else self:fail("syntax error: expected NULL, TRUE or FALSE after IS, found " .. describe(w), w) end
  local e = call("is", left, const(what))
  return negate and call("not", e) or e
end

-- Operators of precedence `min` and above, by precedence climbing.
function Parser:expr(min)
  local left = self:primary()
  local last
  while true do
    local t = self:peek()
    local k = t.kind
    if (k == "is" or k == "isnull" or k == "notnull") and IS >= min then
      if last == IS then self:fail("syntax error: IS cannot follow IS without parentheses", t) end
      left, last = self:is_suffix(left), IS
    else
      local b = (k == "op" and BINARY[t.value]) or ((k == "and" or k == "or") and BINARY[k])
      if not b or b[1] < min then break end
      if b[1] == CMP and last == CMP then
        self:fail("syntax error: comparisons cannot be chained without parentheses", t)
      end
      self:next()
      local right = self:expr(b[1] + 1)
      if b[2] == "gt" then left = call("lt", right, left)
      elseif b[2] == "ge" then left = call("le", right, left)
      else left = call(b[2], left, right) end
      last = b[1]
    end
  end
  return left
end

-- The tree of `text` (an expression up to the end of its line), or nil,
-- the message and the column of the error.
function M.parse(text)
  local toks, msg, col = tokens(text)
  if not toks then return nil, msg, col end
  local p = setmetatable({ toks = toks, pos = 1 }, Parser)
  local ok, res = pcall(function()
    local e = p:expr(OR)
    p:expect("eof", nil, "an operator or the end of the line")
    return e
  end)
  if ok then return res end
  if type(res) == "table" and res.parse_error then return nil, res.parse_error, res.col end
  error(res, 0)
end

-- How far the expression of `text` goes: the offset of its newline (not
-- counting continuation lines), or #text + 1.
function M.line_end(text, from)
  local i = from or 1
  while true do
    local nl = text:find("\n", i, true)
    if not nl then return #text + 1 end
    local before = text:sub(math.max(1, nl - 2), nl - 1)
    if not (before:sub(-1) == "\\" or before == "\\\r") then return nl end
    i = nl + 1
  end
end

return M
