-- The Prometheus text exposition format (version 0.0.4, what a node
-- exporter serves for Accept: text/plain), read into samples by metric
-- name.  A line is a comment (`# HELP name text`, `# TYPE name type`, any
-- other `#`), blank, or a sample:
--   name{label="value",...} value [timestamp]
-- with label values escaped as \\, \" and \n, and values any float Go
-- writes (1.5e+09, NaN, +Inf, -Inf).
local M = {}

local SPECIAL = { nan = 0 / 0, ["+inf"] = math.huge, inf = math.huge, ["-inf"] = -math.huge }

-- A sample's value or timestamp as a number, or nil.
function M.number(w)
  if w == nil then return nil end
  local s = SPECIAL[w:lower()]
  if s then return s end
  -- Lua's tonumber would also take hex ("0x1p4") and a trailing space;
  -- the format's floats are decimal.
  if not w:match("^[+-]?[%d.]") or w:match("^[+-]?0[xX]") then return nil end
  return tonumber(w)
end

local ESC = { n = "\n", ["\\"] = "\\", ['"'] = '"' }

-- The label set starting at s[i] == "{": the labels and the index past "}",
-- or nil and the reason.
local function labels_at(s, i)
  local labels = {}
  i = i + 1
  while true do
    i = s:find("[^ \t]", i) or #s + 1
    if s:sub(i, i) == "}" then return labels, i + 1 end
    local name, j = s:match("^([%a_][%w_]*)[ \t]*=[ \t]*\"()", i)
    if not name then return nil, "bad label name at column " .. i end
    local parts = {}
    while true do
      local q = s:find('[\\"]', j)
      if not q then return nil, "unterminated label value of '" .. name .. "'" end
      parts[#parts + 1] = s:sub(j, q - 1)
      if s:sub(q, q) == '"' then j = q + 1 break end
      local e = s:sub(q + 1, q + 1)
      if not ESC[e] then return nil, "bad escape '\\" .. e .. "' in label '" .. name .. "'" end
      parts[#parts + 1] = ESC[e]
      j = q + 2
    end
    labels[name] = table.concat(parts)
    i = s:find("[^ \t]", j) or #s + 1
    local c = s:sub(i, i)
    if c == "," then i = i + 1
    elseif c ~= "}" then return nil, "expected ',' or '}' after label '" .. name .. "'" end
  end
end

-- One sample line: name, labels, value, timestamp; or nil and the reason.
-- With `want` (a set of names) a line of another metric gives false.
function M.sample(line, want)
  local name, i = line:match("^[ \t]*([%a_:][%w_:]*)()")
  if not name then return nil, "not a metric name" end
  if want and not want[name] then return false end
  local labels = {}
  if line:sub(i, i) == "{" then
    labels, i = labels_at(line, i)
    if not labels then return nil, i end
  end
  local rest = line:sub(i)
  local v, ts, extra = rest:match("^[ \t]+(%S+)[ \t]*(%S*)[ \t]*(%S*)")
  if not v then return nil, "no value" end
  local value = M.number(v)
  if value == nil then return nil, "bad value '" .. v .. "'" end
  local t
  if ts ~= "" then
    t = M.number(ts)
    if t == nil then return nil, "bad timestamp '" .. ts .. "'" end
  end
  if extra ~= "" then return nil, "unexpected '" .. extra .. "' after the value" end
  return name, labels, value, t
end

-- A whole page: { samples = { [name] = { {labels, value, timestamp}, ... } },
-- types = { [name] = "counter" ... }, help = { [name] = text },
-- bad = nil or { count, first = "line N: why" } }.  Lines that are not
-- samples are counted in `bad` and skipped, so that one odd line (a
-- textfile collector's) spoils nothing else.  `want` (a set of metric
-- names, optional) keeps only those samples and skips the rest unread.
function M.parse(text, want)
  local page = { samples = {}, types = {}, help = {} }
  local n = 0
  for line in (text or ""):gmatch("([^\n]*)\n?") do
    n = n + 1
    line = line:gsub("\r$", "")
    if line:match("^[ \t]*#") then
      local kw, name, rest = line:match("^[ \t]*#[ \t]+(%u+)[ \t]+([%a_:][%w_:]*)[ \t]*(.*)$")
      if kw == "TYPE" then page.types[name] = rest
      elseif kw == "HELP" then page.help[name] = rest:gsub("\\n", "\n"):gsub("\\\\", "\\") end
    elseif line:match("[^ \t]") then
      local name, labels, value, ts = M.sample(line, want)
      if name then
        local list = page.samples[name] or {}
        page.samples[name] = list
        list[#list + 1] = { labels = labels, value = value, timestamp = ts }
      elseif name == nil then
        page.bad = page.bad or { count = 0, first = string.format("line %d: %s", n, labels) }
        page.bad.count = page.bad.count + 1
      end
    end
  end
  return page
end

return M
