-- CPU cost of a run: the client's own CPU time and, when the database
-- server runs on this machine, the server's — per event and per query.
-- On a small machine the client steals CPU from the server; these figures
-- show how much (the seeds pin processes with taskset for this reason).
local ffi = require("ffi")
local util = require("lbench.util")

local M = {}

pcall(ffi.cdef, "long sysconf(int name);")
local CLK_TCK = tonumber(ffi.C.sysconf(2)) -- _SC_CLK_TCK on Linux
if not CLK_TCK or CLK_TCK <= 0 then CLK_TCK = 100 end

-- user+system CPU seconds of a process (all its threads), or nil.
function M.seconds(pid)
  local s = util.read_file("/proc/" .. tostring(pid) .. "/stat")
  if not s then return nil end
  -- Fields after the command name (which may hold spaces) start at 3.
  local rest = s:match("^%d+ %b() (.*)$")
  if not rest then return nil end
  local f = {}
  for w in rest:gmatch("%S+") do f[#f + 1] = w end
  local utime, stime = tonumber(f[12]), tonumber(f[13])
  if not utime or not stime then return nil end
  return (utime + stime) / CLK_TCK
end

function M.self_pid()
  local link = util.read_file("/proc/self/stat")
  return link and tonumber(link:match("^(%d+)")) or nil
end

-- The local server's PID: --server-pid, or for a MySQL server reached
-- through a local socket, the PID from its own pid file.
function M.server_pid(opt, lb)
  if opt.server_pid and opt.server_pid > 0 then
    if not M.seconds(opt.server_pid) then
      util.fail("--server-pid=%d: no such process on this machine", opt.server_pid)
    end
    return opt.server_pid
  end
  if opt.db_driver ~= "mysql" or not opt.mysql_socket or #opt.mysql_socket == 0 then return nil end
  local ok, pid = pcall(function()
    local con = lb.sql.driver():connect()
    local file = con:query_row("SELECT @@pid_file")
    con:disconnect()
    local s = file and util.read_file(file)
    return s and tonumber(s:match("%d+"))
  end)
  if ok and pid and M.seconds(pid) then return pid end
  return nil
end

-- A sampler: start() at the beginning of the measured period, stop() at
-- its end; result(events, queries) builds the result's `cpu` section.
function M.sampler(server_pid)
  local me = M.self_pid()
  local c0, s0, c1, s1
  local obj = {}
  function obj.start()
    c0 = M.seconds(me)
    s0 = server_pid and M.seconds(server_pid)
  end
  function obj.stop()
    c1 = M.seconds(me)
    s1 = server_pid and M.seconds(server_pid)
  end
  function obj.result(json, events, queries)
    if not (c0 and c1) then return nil end
    local o = json.object()
    o.client_s = c1 - c0
    o.client_us_per_event = events > 0 and (c1 - c0) / events * 1e6 or nil
    o.client_us_per_query = queries and queries > 0 and (c1 - c0) / queries * 1e6 or nil
    if s0 and s1 then
      o.server_pid = server_pid
      o.server_s = s1 - s0
      o.server_us_per_event = events > 0 and (s1 - s0) / events * 1e6 or nil
      o.server_us_per_query = queries and queries > 0 and (s1 - s0) / queries * 1e6 or nil
    end
    o.clock_ticks_per_s = CLK_TCK
    return o
  end
  return obj
end

return M
