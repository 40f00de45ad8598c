-- A server's global variables, changed between measured runs (`lbench
-- sweep --server-var=NAME=v1,v2`): MySQL/MariaDB's SET GLOBAL on a
-- connection of its own, each original value read first and put back at
-- the end, a buffer pool resize waited for, and the server's refusals
-- (read-only, session-only, unknown, not privileged) each said in one
-- line.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local options = require("lbench.options")

local M = {}

-- The server's error number in whatever form the SQL layer raised it.
local function errno_of(e)
  if type(e) == "table" then
    if e.sql_errno then return tonumber(e.sql_errno), tostring(e.sql_errmsg or e) end
    if e.lbench_message then return tonumber(e.lbench_message:match("error (%d+)")), e.lbench_message end
  end
  local s = tostring(e)
  return tonumber(s:match("errno = (%d+)")), s
end

-- A value as an SQL literal: sizes (2G) become bytes, numbers and bare
-- words (ON, OFF, O_DIRECT) stay as they are, anything else is quoted.
function M.sql_literal(v)
  v = tostring(v)
  if v:match("^%d+%.?%d*[kKmMgGtT]$") then return tostring(options.parse_size(v)) end
  if v:match("^%-?%d+%.?%d*$") or v:match("^[%a_][%w_]*$") then return v end
  return "'" .. v:gsub("\\", "\\\\"):gsub("'", "''") .. "'"
end

local SV = {}
SV.__index = SV

-- A connection for the global variables `names` of the server that the
-- scenario API `lb` reaches with options `opt`; `timeout`: the longest
-- wait for a buffer pool resize, `rt`: the runtime whose stop ends it.
function M.new(lb, opt, names, timeout, rt)
  local self = setmetatable({ names = names, original = {}, current = {}, timeout = timeout or 3600,
                              user = opt.mysql_user, rt = rt }, SV)
  local ok, e = pcall(function()
    local drv = lb.sql.driver()
    self.driver = drv:name()
    self.con = drv:connect()
  end)
  if not ok then
    local code, msg = errno_of(e)
    if code == 1045 then
      util.fail("--server-var: access denied for user '%s' (error 1045; check --mysql-user and the password): " ..
        "SET GLOBAL needs an account with the SUPER (MariaDB) or SYSTEM_VARIABLES_ADMIN (MySQL) privilege (%s)",
        tostring(opt.mysql_user), msg)
    end
    util.fail("--server-var: %s", msg)
  end
  return self
end

function SV:query(sql)
  local ok, a, b = pcall(self.con.query_row, self.con, sql)
  if not ok and type(a) == "table" and a.errcode then
    -- The connection was lost and re-established by the SQL layer: retry once.
    ok, a, b = pcall(self.con.query_row, self.con, sql)
  end
  if not ok then return nil, a end
  return true, a, b
end

function SV:refuse(name, value, e)
  local code, msg = errno_of(e)
  if code == 1238 then
    util.fail("--server-var %s: the variable is read-only on this server (not dynamic, error 1238); set it in the " ..
      "server's configuration and restart the server between runs instead", name)
  elseif code == 1227 or code == 1045 or code == 1044 then
    util.fail("--server-var %s: user '%s' may not change global variables (error %d); it needs the SUPER (MariaDB) " ..
      "or SYSTEM_VARIABLES_ADMIN (MySQL) privilege", name, tostring(self.user), code)
  elseif code == 1193 then
    util.fail("--server-var %s: unknown system variable on this server (error 1193)", name)
  elseif code == 1228 then
    util.fail("--server-var %s: a session-only variable, SET GLOBAL cannot change it (error 1228)", name)
  end
  util.fail("--server-var %s%s: %s", name, value and ("=" .. value) or "", msg)
end

function SV:get(name)
  local ok, v = self:query("SELECT @@GLOBAL." .. name)
  if not ok then self:refuse(name, nil, v) end
  return v
end

-- Read every original value and check, before the first point, that each
-- variable can be set (setting it to its own value changes nothing).
function SV:start()
  for _, name in ipairs(self.names) do
    local v = self:get(name)
    self.original[name] = v
    self.current[name] = v
    if v ~= nil then
      local ok, e = self:query("SET GLOBAL " .. name .. " = " .. M.sql_literal(v))
      if not ok then self:refuse(name, nil, e) end
    end
  end
end

local function bp_status(self)
  local ok, _, v = self:query("SHOW STATUS LIKE 'Innodb_buffer_pool_resize_status'")
  return ok and v or ""
end

-- Servers that resize the buffer pool in the background (MySQL 5.7+, older
-- MariaDB) set Innodb_buffer_pool_resize_status when SET
-- GLOBAL returns and end it with "Completed resizing buffer pool ...":
-- wait for that.  Servers that resize within the SET statement itself leave
-- the status as it was: nothing to wait for.
function SV:wait_resize(before, t0, say)
  if self.driver == "null" then return end
  local told = false
  while true do
    local st = bp_status(self)
    local now = C.lb_clock_now()
    local low = st:lower()
    if st ~= before then
      if low:find("completed") or st == "" then return end
      if low:find("fail") or low:find("error") or low:find("abort") then
        util.fail("--server-var innodb_buffer_pool_size: the resize failed: %s", st)
      end
    elseif now - t0 >= 0.5 then
      return
    end
    if now - t0 > self.timeout then
      util.fail("--server-var innodb_buffer_pool_size: the resize has not completed after %g s (status: %s)",
        self.timeout, st)
    end
    if not told and now - t0 > 2 then
      told = true
      say(string.format("  waiting for the buffer pool resize (%s)\n", st))
    end
    -- A stop ends the wait before a point, never the restore after the
    -- sweep: that one puts the server back and is bounded by the timeout.
    if not self.restoring and C.lb_runtime_stop_requested(self.rt) ~= 0 then
      util.fail("interrupted while waiting for the buffer pool resize")
    end
    C.lb_clock_sleep_ns(100e6)
  end
end

function SV:set(name, value, say)
  if self.current[name] ~= nil and tostring(self.current[name]) == tostring(value) then return end
  local lit = M.sql_literal(value)
  local is_bp = name:lower() == "innodb_buffer_pool_size"
  local before = is_bp and bp_status(self) or nil
  say(string.format("  SET GLOBAL %s = %s\n", name, lit))
  local ok, e = self:query("SET GLOBAL " .. name .. " = " .. lit)
  if not ok then self:refuse(name, value, e) end
  self.current[name] = value
  if is_bp then self:wait_resize(before, C.lb_clock_now(), say) end
end

-- The values in effect now (what the server made of the requested ones).
function SV:effective()
  local o = json.object()
  for _, name in ipairs(self.names) do
    local ok, v = self:query("SELECT @@GLOBAL." .. name)
    o[name] = ok and v or json.null
  end
  return o
end

-- Put every variable back; returns a list of problems (never raises).
function SV:restore(say)
  local problems = {}
  self.restoring = true
  for _, name in ipairs(self.names) do
    local orig = self.original[name]
    if orig == nil then
      problems[#problems + 1] = string.format("%s: the original value could not be read; not restored", name)
    elseif tostring(self.current[name]) ~= tostring(orig) then
      local ok, e = pcall(self.set, self, name, orig, say)
      if not ok then
        problems[#problems + 1] = string.format("%s: could not restore %s: %s", name, tostring(orig),
          util.is_usage_error(e) and e.lbench_message or tostring(e))
      end
    end
  end
  if self.con then pcall(self.con.disconnect, self.con) end
  return problems
end

return M
