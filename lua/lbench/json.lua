-- JSON encoding and decoding.
--
-- Result documents are built as Lua trees and serialised once, so the output
-- is well formed by construction.  Objects made with json.object() keep the
-- order in which keys were first assigned (readable documents); plain tables
-- are arrays when they have a 1..n sequence and no other keys, otherwise
-- objects with sorted keys.  NaN and infinities become null; 64-bit
-- integer cdata are written exactly.  Decoding, a null is json.null inside
-- an array (the positions after it are kept) and an absent key inside an
-- object.
local ffi = require("ffi")
local M = {}

local order_mt = {}

-- An object that remembers key insertion order.  A key set to nil is
-- left out; set again, it keeps its first place (and is listed once).
function M.object()
  local keys, vals, known = {}, {}, {}
  return setmetatable({}, {
    __jsonorder = keys,
    __index = vals,
    __newindex = function(_, k, v)
      if v ~= nil and not known[k] then known[k] = true; keys[#keys + 1] = k end
      vals[k] = v
    end,
    __pairs_vals = vals,
  })
end

-- JSON null (a Lua nil cannot be stored in a table).
M.null = setmetatable({}, { __jsonnull = true, __tostring = function() return "null" end })

-- An explicitly empty array (a plain {} would be an object).
local array_mt = { __jsonarray = true }
function M.array(t) return setmetatable(t or {}, array_mt) end

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
                  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local function esc_str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function num(v)
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%d", v) end
  return string.format("%.17g", v)
end

local encode

local function is_array(t)
  local mt = getmetatable(t)
  if mt and mt.__jsonarray then return true end
  if mt and mt.__jsonorder then return false end
  local n = #t
  if n == 0 then return false end
  local count = 0
  for _ in pairs(t) do count = count + 1 end
  return count == n
end

encode = function(v, out, indent, depth)
  local t = type(v)
  if t == "nil" then out[#out + 1] = "null"
  elseif t == "boolean" then out[#out + 1] = tostring(v)
  elseif t == "number" then out[#out + 1] = num(v)
  elseif t == "string" then out[#out + 1] = esc_str(v)
  elseif t == "cdata" then
    -- A 64-bit counter past 2^53 would lose its last digits as a double.
    if ffi.istype("int64_t", v) or ffi.istype("uint64_t", v) then out[#out + 1] = (tostring(v):gsub("U?LL$", ""))
    else out[#out + 1] = num(tonumber(v)) end
  elseif t == "table" and v == M.null then out[#out + 1] = "null"
  elseif t == "table" then
    local nl, pad, pad1 = "", "", ""
    if indent then
      nl = "\n"
      pad = string.rep(indent, depth)
      pad1 = string.rep(indent, depth + 1)
    end
    if is_array(v) then
      if #v == 0 then out[#out + 1] = "[]" return end
      out[#out + 1] = "[" .. nl
      for i = 1, #v do
        out[#out + 1] = pad1
        encode(v[i], out, indent, depth + 1)
        out[#out + 1] = (i < #v and "," or "") .. nl
      end
      out[#out + 1] = pad .. "]"
    else
      local mt = getmetatable(v)
      local keys, vals
      if mt and mt.__jsonorder then
        keys, vals = mt.__jsonorder, mt.__pairs_vals
      else
        keys, vals = {}, v
        for k in pairs(v) do keys[#keys + 1] = k end
        table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      end
      local present = {}
      for _, k in ipairs(keys) do if vals[k] ~= nil then present[#present + 1] = k end end
      if #present == 0 then out[#out + 1] = "{}" return end
      out[#out + 1] = "{" .. nl
      for i, k in ipairs(present) do
        out[#out + 1] = pad1 .. esc_str(tostring(k)) .. (indent and ": " or ":")
        encode(vals[k], out, indent, depth + 1)
        out[#out + 1] = (i < #present and "," or "") .. nl
      end
      out[#out + 1] = pad .. "}"
    end
  else
    error("cannot encode a " .. t .. " as JSON")
  end
end

-- Encode `v`; `indent` (e.g. "  ") pretty-prints.
function M.encode(v, indent)
  local out = {}
  encode(v, out, indent, 0)
  return table.concat(out)
end

-- Iterate an object made by json.object() (in its order, keys set to nil
-- left out) or a plain table.
function M.pairs(t)
  local mt = getmetatable(t)
  if mt and mt.__jsonorder then
    local i, keys, vals = 0, mt.__jsonorder, mt.__pairs_vals
    return function()
      while true do
        i = i + 1
        local k = keys[i]
        if k == nil then return nil end
        if vals[k] ~= nil then return k, vals[k] end
      end
    end
  end
  return pairs(t)
end

-- ---- decoding --------------------------------------------------------
local function decode_error(s, i, what)
  local line = 1
  for _ in s:sub(1, i):gmatch("\n") do line = line + 1 end
  error({ lbench_message = string.format("invalid JSON at line %d: %s", line, what) }, 0)
end

local decode_value

local function skip(s, i)
  return s:find("[^ \t\r\n]", i) or #s + 1
end

-- The UTF-8 bytes of code point cp.
local function utf8(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64, 0x80 + math.floor(cp / 64) % 64,
    0x80 + cp % 64)
end

local function decode_string(s, i)
  local out, j = {}, i + 1
  while true do
    local c = s:sub(j, j)
    if c == "" then decode_error(s, j, "unterminated string") end
    if c == '"' then return table.concat(out), j + 1 end
    if c == "\\" then
      local e = s:sub(j + 1, j + 1)
      local map = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
      if map[e] then out[#out + 1] = map[e]; j = j + 2
      elseif e == "u" then
        local hex = s:match("^%x%x%x%x", j + 2)
        if not hex then decode_error(s, j, "bad \\u escape (expected four hex digits)") end
        local cp = tonumber(hex, 16)
        j = j + 6
        -- Beyond the BMP: a UTF-16 surrogate pair, one character.
        if cp >= 0xD800 and cp <= 0xDBFF then
          local lo = s:match("^\\u([dD][c-fC-F]%x%x)", j)
          if not lo then decode_error(s, j, "bad \\u escape (a high surrogate without its low one)") end
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (tonumber(lo, 16) - 0xDC00)
          j = j + 6
        elseif cp >= 0xDC00 and cp <= 0xDFFF then
          decode_error(s, j - 6, "bad \\u escape (a low surrogate without its high one)")
        end
        out[#out + 1] = utf8(cp)
      else decode_error(s, j, "bad escape") end
    else
      local k = s:find('["\\]', j) or #s + 1
      out[#out + 1] = s:sub(j, k - 1)
      j = k
    end
  end
end

decode_value = function(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    local obj = M.object()
    i = skip(s, i + 1)
    if s:sub(i, i) == "}" then return obj, i + 1 end
    while true do
      if s:sub(i, i) ~= '"' then decode_error(s, i, "expected a key") end
      local k
      k, i = decode_string(s, i)
      i = skip(s, i)
      if s:sub(i, i) ~= ":" then decode_error(s, i, "expected ':'") end
      local v
      v, i = decode_value(s, i + 1)
      obj[k] = v
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "}" then return obj, i + 1 end
      if d ~= "," then decode_error(s, i, "expected ',' or '}'") end
      i = skip(s, i + 1)
    end
  elseif c == "[" then
    local arr, n = M.array(), 0
    i = skip(s, i + 1)
    if s:sub(i, i) == "]" then return arr, i + 1 end
    while true do
      local v
      v, i = decode_value(s, i)
      n = n + 1
      if v == nil then v = M.null end
      arr[n] = v
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "]" then return arr, i + 1 end
      if d ~= "," then decode_error(s, i, "expected ',' or ']'") end
      i = i + 1
    end
  elseif c == '"' then return decode_string(s, i)
  elseif s:sub(i, i + 3) == "true" then return true, i + 4
  elseif s:sub(i, i + 4) == "false" then return false, i + 5
  elseif s:sub(i, i + 3) == "null" then return nil, i + 4
  else
    local numstr = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
    if c == "" then decode_error(s, i, "unexpected end of the document (truncated?)") end
    if not numstr or numstr == "" then decode_error(s, i, "unexpected character '" .. c .. "'") end
    local v = tonumber(numstr)
    if not v then decode_error(s, i, "bad number '" .. numstr .. "'") end
    return v, i + #numstr
  end
end

function M.decode(s)
  local v, i = decode_value(s, 1)
  i = skip(s, i)
  if i <= #s then decode_error(s, i, "trailing characters") end
  return v
end

return M
