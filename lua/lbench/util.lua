-- Small helpers shared by the Lua half of the runtime.
local M = {}

-- A user-facing error: printed as one line, without a traceback, by the
-- runtime's message handler; tostring gives the line (for callers that
-- catch it and pass it on as text).
local FAIL_MT = { __tostring = function(e) return e.lbench_message end }

local function one_line(fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  -- One line whatever the user typed: control characters in an echoed
  -- value (a newline inside an argument or a config line) are escaped, and
  -- an echoed value of megabytes is cut.
  msg = msg:gsub("%c", function(c) return string.format("\\x%02x", c:byte()) end)
  if #msg > 2000 then msg = msg:sub(1, 2000) .. "..." end
  return msg
end

function M.fail(fmt, ...)
  error(setmetatable({ lbench_message = one_line(fmt, ...) }, FAIL_MT), 0)
end

-- M.fail carrying `fields` too, for a caller that catches the error and
-- words it its own way (a server's own report, for pgbench's words).
function M.fail_with(fields, fmt, ...)
  fields.lbench_message = one_line(fmt, ...)
  error(setmetatable(fields, FAIL_MT), 0)
end

function M.is_usage_error(e)
  return type(e) == "table" and e.lbench_message ~= nil
end

-- A frame of lbench's own in a traceback: its embedded modules (chunks
-- "@lua/lbench/[FOLDER/]NAME.lua" and "@lbench/cdef") and a worker's boot chunk.
local function internal_frame(line)
  return line:match("^\tlua/lbench/[%w_/]+%.lua:") or line:match("^\tlbench/cdef:") or line:match("^\tboot:")
end

-- A script error's text as the script's author needs it: the message
-- (file:line first) and the script's own frames.  lbench's frames (the
-- event loop, the runner, the command dispatch: eight lines around two of
-- the user's) are dropped, and so are the C frames and elisions after the
-- script's last frame (the xpcalls that caught it); C frames between the
-- script's own (a string.format it called) stay.  Text without a
-- traceback, or one with no frame of a script (an error of lbench itself),
-- is returned whole.
function M.user_traceback(text)
  local head, frames = tostring(text):match("^(.-\nstack traceback:)\n(.*)$")
  if not head then return text end
  local out, last = {}, 0
  for line in (frames .. "\n"):gmatch("(.-)\n") do
    if not internal_frame(line) then
      out[#out + 1] = line
      if not line:match("^\t%[C%]:") and not line:match("^\t%.%.%.") and not line:match("^\t%(tail call%)") then
        last = #out
      end
    end
  end
  if last == 0 then return text end
  return head .. "\n" .. table.concat(out, "\n", 1, last)
end

-- Two 32-bit FNV-1a lanes over `s`: a cheap fingerprint (of a scenario's
-- source, of a stored document's text).  x * 16777619 mod 2^32 is taken as
-- (x << 24) + x * 403: every partial product stays exact in a double, so
-- the hash is the same compiled or not.
function M.text_hash(s)
  local bit = require("bit")
  local h1, h2 = 0x811c9dc5, 0x050c5d1f
  for i = 1, #s do
    local b = s:byte(i)
    local x1, x2 = bit.bxor(h1, b), bit.bxor(h2, b)
    h1 = bit.tobit(bit.lshift(x1, 24) + x1 * 403)
    h2 = bit.tobit(bit.lshift(x2, 24) + x2 * 403 + i)
  end
  return bit.tohex(h1) .. bit.tohex(h2)
end

-- Edit distance, for "did you mean" suggestions.
function M.levenshtein(a, b)
  local la, lb = #a, #b
  if la == 0 then return lb end
  if lb == 0 then return la end
  local prev, cur = {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local ca = a:byte(i)
    for j = 1, lb do
      local cost = (ca == b:byte(j)) and 0 or 1
      local v = prev[j] + 1
      if cur[j - 1] + 1 < v then v = cur[j - 1] + 1 end
      if prev[j - 1] + cost < v then v = prev[j - 1] + cost end
      cur[j] = v
    end
    prev, cur = cur, prev
  end
  return prev[lb]
end

-- The closest of `names` to `name`, or nil when nothing is close.
function M.closest(name, names)
  local best, bestd
  for _, n in ipairs(names) do
    local d = M.levenshtein(name, n)
    if not bestd or d < bestd then best, bestd = n, d end
  end
  if best and bestd <= math.max(2, math.floor(#name / 3)) then return best end
  return nil
end

function M.sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end

function M.split(s, sep)
  local out = {}
  if s == nil or s == "" then return out end
  for item in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do
    out[#out + 1] = item
  end
  return out
end

function M.trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- Serialize plain data (numbers, strings, booleans, nested tables) as a Lua
-- chunk; used to hand the options to worker states.
function M.serialize(v)
  local t = type(v)
  if t == "number" then
    if v ~= v then return "0/0" end
    if v == math.huge then return "math.huge" end
    if v == -math.huge then return "-math.huge" end
    return string.format("%.17g", v)
  elseif t == "string" then return string.format("%q", v)
  elseif t == "boolean" or t == "nil" then return tostring(v)
  elseif t == "table" then
    local parts = {}
    for _, k in ipairs(M.sorted_keys(v)) do
      parts[#parts + 1] = "[" .. M.serialize(k) .. "]=" .. M.serialize(v[k])
    end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  error("cannot serialize a " .. t)
end

-- A file's contents, or nil and the reason without the path (callers
-- name the file themselves).  A directory opens but cannot be read.
function M.read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, (tostring(err):gsub("^.-: ", "", 1)) end
  local s, rerr = f:read("*a")
  f:close()
  if not s then return nil, rerr or "cannot read" end
  return s
end

function M.file_exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

function M.dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

function M.basename(path)
  return (path:match("([^/]*)$"):gsub("%.lua$", ""))
end

-- print() to stderr: for commands run while stdout carries a document
-- (lbench sweep --prepare-each --output=json), set as the global print
-- of the main state and, through opt._print_to_stderr, of the workers.
function M.stderr_print(...)
  local t = { ... }
  for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
  io.stderr:write(table.concat(t, "\t") .. "\n")
end

return M
