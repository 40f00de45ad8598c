-- pgbench script files: the parser of pgbench 15's script syntax into a
-- list of commands, each checked once here, before anything runs.
--
--   SQL        ends at a ';' outside quotes, comments and parentheses
--              (the ';' is kept), may span lines, or ends where a
--              backslash command starts or the file ends; '\;' is a ';'
--              that does not end it (a compound statement); leading
--              blanks and '--' comments are dropped, a statement of
--              nothing else is none.  ':name' is a variable.
--   \set NAME EXPR, \if EXPR, \elif EXPR, \else, \endif
--   \sleep N [us|ms|s] (N or :var; seconds by default)
--   \gset [PREFIX], \aset [PREFIX]: belong to the SQL before them
--   \shell CMD..., \setshell VAR CMD...
--   \startpipeline, \syncpipeline, \endpipeline (no arguments)
-- A backslash command runs to the end of its line; '\' at the end of a
-- line continues it.
--
-- parse(text, source) returns the commands, or nil and one line
-- "SOURCE:LINE: what was wrong (what was expected)".  Commands:
--   { kind = "sql", sql = text, line = n, gset = prefix|nil, aset = prefix|nil, compound = bool }
--   { kind = "set", name = var, expr = tree, line = n }
--   { kind = "if" | "elif", expr = tree, line = n }, { kind = "else" | "endif", line = n }
--   { kind = "sleep", arg = "10" | ":var", unit = "us"|"ms"|"s", line = n }
--   { kind = "shell", argv = {...}, line = n }, { kind = "setshell", name = var, argv = {...}, line = n }
--   { kind = "startpipeline" | "syncpipeline" | "endpipeline", line = n }
-- Every command also has `first_line` (its text up to the first newline,
-- for messages).
local expr = require("pgbench.expr")

local M = {}

local META = { set = true, ["if"] = true, elif = true, ["else"] = true, endif = true, sleep = true, gset = true,
               aset = true, shell = true, setshell = true, startpipeline = true, syncpipeline = true,
               endpipeline = true }

local function line_of(text, pos)
  local n = 1
  for _ in text:sub(1, pos - 1):gmatch("\n") do n = n + 1 end
  return n
end

-- Where the string or comment starting at `i` ends (the index after it).
local function skip_quoted(text, i)
  local c = text:sub(i, i)
  if c == "'" then
    -- E'...' takes backslash escapes; a plain '...' only doubled quotes.
    local escapes = i > 1 and text:sub(i - 1, i - 1):match("[eE]") and not text:sub(i - 2, i - 2):match("[%w_]")
    local j = i + 1
    while j <= #text do
      local d = text:sub(j, j)
      if escapes and d == "\\" then j = j + 2
      elseif d == "'" then
        if text:sub(j + 1, j + 1) ~= "'" then return j + 1 end
        j = j + 2
      else j = j + 1 end
    end
    return #text + 1
  elseif c == '"' then
    local j = i + 1
    while j <= #text do
      if text:sub(j, j) == '"' then
        if text:sub(j + 1, j + 1) ~= '"' then return j + 1 end
        j = j + 2
      else j = j + 1 end
    end
    return #text + 1
  elseif c == "-" then
    local nl = text:find("\n", i, true)
    return nl or #text + 1
  elseif c == "/" then
    local depth, j = 0, i
    while j <= #text do
      local two = text:sub(j, j + 1)
      if two == "/*" then depth = depth + 1; j = j + 2
      elseif two == "*/" then
        depth = depth - 1; j = j + 2
        if depth == 0 then return j end
      else j = j + 1 end
    end
    return #text + 1
  elseif c == "$" then
    local tag = text:match("^%$[%a_\128-\255][%w_\128-\255]*%$", i) or text:match("^%$%$", i)
    local close = text:find(tag, i + #tag, true)
    return close and close + #tag or #text + 1
  end
end

-- Does a string, comment or dollar quote start at i?
local function quote_at(text, i)
  local c = text:sub(i, i)
  if c == "'" or c == '"' then return true end
  local two = text:sub(i, i + 1)
  if two == "--" or two == "/*" then return true end
  if c == "$" and not text:sub(i - 1, i - 1):match("[%w_]") then
    return text:match("^%$[%a_\128-\255][%w_\128-\255]*%$", i) ~= nil or two == "$$"
  end
  return false
end

-- The SQL collected from `i`: its text (with '\;' as ';'), where it
-- stops (the index of the ';' + 1, of the backslash, or past the end),
-- whether a backslash command follows, and whether it is compound.
local function scan_sql(text, i)
  local parts, from, depth, compound = {}, i, 0, false
  local n = #text
  while i <= n do
    -- Straight to the next character that may open or close something:
    -- stepping over the others one by one was most of what reading a
    -- script cost, and every worker reads the scripts.
    i = text:find("[-'\"/$();\\]", i)
    if not i then break end
    local c = text:sub(i, i)
    if quote_at(text, i) then
      i = skip_quoted(text, i)
    elseif c == "(" then depth = depth + 1; i = i + 1
    elseif c == ")" then depth = math.max(0, depth - 1); i = i + 1
    elseif c == ";" and depth == 0 then
      parts[#parts + 1] = text:sub(from, i)
      return table.concat(parts), i + 1, false, compound
    elseif c == "\\" then
      local nx = text:sub(i + 1, i + 1)
      if nx == ";" or nx == ":" then
        -- '\;' and '\:' stand for the character itself.
        parts[#parts + 1] = text:sub(from, i - 1) .. nx
        compound = compound or nx == ";"
        i = i + 2
        from = i
      elseif nx == "\\" then
        i = i + 2
      else
        parts[#parts + 1] = text:sub(from, i - 1)
        return table.concat(parts), i, true, compound
      end
    else
      i = i + 1
    end
  end
  parts[#parts + 1] = text:sub(from)
  return table.concat(parts), n + 1, false, compound
end

-- The SQL text without its leading blanks and '--' comments, and how much
-- of it was dropped; nil when nothing is left.
local function strip_leading(sql)
  local p = 1
  while true do
    local ws = sql:match("^%s+", p)
    if ws then p = p + #ws
    elseif sql:sub(p, p + 1) == "--" then
      local nl = sql:find("\n", p, true)
      if not nl then return nil end
      p = nl + 1
    else break end
  end
  if p > #sql then return nil end
  return sql:sub(p), p - 1
end

-- Words of a backslash command's line (split at blanks; a line ending in
-- '\' goes on), with the column of each.
local function words(line)
  local out = {}
  local s = line:gsub("\\\r?\n", "  ")
  for pos, w in s:gmatch("()(%S+)") do out[#out + 1] = { w = w, col = pos } end
  return out
end

local function err(source, line, fmt, ...)
  error({ script_error = string.format("%s:%d: " .. fmt, source, line, ...) }, 0)
end

-- A backslash command starting at `i` (the backslash): the command (nil
-- for \gset / \aset, which are returned as the prefix) and where its
-- line ends.
local function meta_command(text, i, source)
  local line = line_of(text, i)
  local stop = expr.line_end(text, i)
  local body = text:sub(i + 1, stop - 1)
  local ws = words(body)
  local name = ws[1] and ws[1].w or ""
  local first_line = "\\" .. (body:match("^[^\r\n]*") or "")
  local lname = name:lower()
  if not META[lname] then
    err(source, line, "invalid command in command \"%s\"", name)
  end
  -- pgbench keeps a command's words in a fixed array of 256
  if #ws > 256 then err(source, line, "too many arguments in command \"%s\"", name) end
  local cmd = { kind = lname, line = line, first_line = first_line }
  -- What pgbench -d prints of it: its words, but for \set the variable
  -- alone and for \if and \elif none (not their expressions).
  local shown = lname == "set" and 2 or (lname == "if" or lname == "elif") and 1 or #ws
  cmd.words = {}
  for k = 1, math.min(shown, #ws) do cmd.words[k] = ws[k].w end
  local function expression(after)
    local etext = body:sub(after)
    local tree, msg, col = expr.parse(etext)
    if not tree then
      -- pgbench's words for a grammar error ("syntax error in command"),
      -- which its own tests and users' scripts grep for; ours add what was
      -- expected and where.
      local detail = msg:match("^syntax error: (.*)$")
      if detail then
        err(source, line, "syntax error in command \"%s\": %s at column %d: %s", name, detail, col + after, first_line)
      end
      err(source, line, "%s at column %d in command \"%s\": %s", msg, col + after, name, first_line)
    end
    return tree
  end
  if lname == "set" then
    if not ws[2] then err(source, line, "missing argument in command \"set\"") end
    cmd.name = ws[2].w
    if not ws[3] then err(source, line, "syntax error in command \"set\": expected an expression: %s", first_line) end
    cmd.expr = expression(ws[2].col + #ws[2].w)
  elseif lname == "if" or lname == "elif" then
    if not ws[2] then err(source, line, "syntax error in command \"%s\": expected an expression", name) end
    cmd.expr = expression(ws[1].col + #ws[1].w)
  elseif lname == "sleep" then
    if not ws[2] then err(source, line, "missing argument in command \"sleep\": %s", first_line) end
    if ws[4] then err(source, line, "too many arguments in command \"sleep\": %s", first_line) end
    local arg, unit = ws[2].w, ws[3] and ws[3].w
    if arg:sub(1, 1) ~= ":" then
      local num, rest = arg:match("^([+-]?%d+)(.*)$")
      if not num then
        err(source, line, "invalid sleep time, must be an integer (%s) in command \"sleep\"", arg)
      end
      if rest ~= "" then
        if unit then err(source, line, "invalid sleep time, must be an integer (%s) in command \"sleep\"", arg) end
        arg, unit = num, rest
      end
    end
    unit = unit and unit:lower() or "s"
    if unit ~= "us" and unit ~= "ms" and unit ~= "s" then
      err(source, line, "unrecognized time unit, must be us, ms or s (%s) in command \"sleep\"", unit)
    end
    cmd.arg, cmd.unit = arg, unit
  elseif lname == "setshell" then
    if not ws[3] then err(source, line, "missing argument in command \"setshell\"") end
    cmd.name, cmd.argv = ws[2].w, {}
    for k = 3, #ws do cmd.argv[#cmd.argv + 1] = ws[k].w end
  elseif lname == "shell" then
    if not ws[2] then err(source, line, "missing command in command \"shell\"") end
    cmd.argv = {}
    for k = 2, #ws do cmd.argv[#cmd.argv + 1] = ws[k].w end
  elseif lname == "else" or lname == "endif" or lname:match("pipeline$") then
    if ws[2] then err(source, line, "unexpected argument in command \"%s\"", name) end
  elseif lname == "gset" or lname == "aset" then
    if ws[3] then err(source, line, "too many arguments in command \"%s\"", name) end
    cmd.prefix = ws[2] and ws[2].w or ""
  end
  return cmd, stop + 1
end

-- \if ... \endif must nest, \else and \elif must not follow \else.
local function check_conditionals(cmds, source)
  local stack = {}
  for _, c in ipairs(cmds) do
    local k = c.kind
    if k == "if" then
      stack[#stack + 1] = { line = c.line }
    elseif k == "elif" or k == "else" then
      local top = stack[#stack]
      if not top then err(source, c.line, "\\%s without matching \\if", k) end
      if top.seen_else then err(source, c.line, "\\%s after \\else", k) end
      if k == "else" then top.seen_else = true end
    elseif k == "endif" then
      if not stack[#stack] then err(source, c.line, "\\endif without matching \\if") end
      stack[#stack] = nil
    end
  end
  if #stack > 0 then err(source, stack[#stack].line, "\\if without matching \\endif") end
end

local function parse(text, source)
  local cmds, i, n = {}, 1, #text
  while i <= n do
    local sql, stop, backslash, compound = scan_sql(text, i)
    local body, dropped = strip_leading(sql)
    if body then
      cmds[#cmds + 1] = { kind = "sql", sql = body, line = line_of(text, i + dropped), compound = compound,
                          first_line = body:match("^[^\r\n]*") }
    end
    i = stop
    if backslash then
      local cmd
      cmd, i = meta_command(text, i, source)
      if cmd.kind == "gset" or cmd.kind == "aset" then
        local prev = cmds[#cmds]
        if not prev or prev.kind ~= "sql" or prev.gset or prev.aset then
          err(source, cmd.line, "\\%s must follow an SQL command", cmd.kind)
        end
        prev[cmd.kind] = cmd.prefix
      else
        cmds[#cmds + 1] = cmd
      end
    end
  end
  if #cmds == 0 then error({ script_error = string.format("empty command list for script \"%s\"", source) }, 0) end
  check_conditionals(cmds, source)
  return cmds
end

function M.parse(text, source)
  local ok, res = pcall(parse, text, source)
  if ok then return res end
  if type(res) == "table" and res.script_error then return nil, res.script_error end
  error(res, 0)
end

-- The variables of an SQL text in order (':name', as pgbench finds them:
-- a letter or '_' first; '::' is not one), and the text with each
-- replaced by repl(k, name) (k = 1, 2, ...).
function M.variables(sql, repl)
  local names, out, i, k = {}, {}, 1, 0
  local n = #sql
  while i <= n do
    local c = sql:sub(i, i)
    if c == ":" then
      local name = sql:match("^[%a_\128-\255][%w_\128-\255]*", i + 1)
      if name then
        k = k + 1
        names[k] = name
        out[#out + 1] = repl(k, name)
        i = i + 1 + #name
      else
        local colons = sql:match("^:+", i)
        out[#out + 1] = colons
        i = i + #colons
      end
    else
      local j = sql:find(":", i, true) or n + 1
      out[#out + 1] = sql:sub(i, j - 1)
      i = j
    end
  end
  return names, table.concat(out)
end

return M
