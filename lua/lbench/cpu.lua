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

-- ---- --cpu-affinity ---------------------------------------------------------
-- CPUs a worker may be pinned to: those in this process's affinity mask
-- (taskset, cgroups' cpusets), read once.  Pinning to any other CPU fails
-- in pthread_setaffinity_np only after the run has started, so the list is
-- checked against this set when the options are parsed.
pcall(ffi.cdef, "int sched_getaffinity(int pid, size_t cpusetsize, void *mask);")
local MASK_BYTES = 1024 -- 8192 CPUs, the kernel's largest NR_CPUS
local allowed_set

function M.allowed()
  if allowed_set then return allowed_set end
  local set, mask = { n = 0 }, ffi.new("uint8_t[?]", MASK_BYTES)
  if ffi.C.sched_getaffinity(0, MASK_BYTES, mask) == 0 then
    for byte = 0, MASK_BYTES - 1 do
      local b = mask[byte]
      for bitno = 0, 7 do
        if b % 2 == 1 then set[byte * 8 + bitno] = true; set.n = set.n + 1 end
        b = math.floor(b / 2)
      end
    end
  end
  if set.n == 0 then
    -- No mask (an odd libc): trust the online count.
    for c = 0, tonumber(ffi.C.sysconf(84)) - 1 do set[c] = true; set.n = set.n + 1 end -- _SC_NPROCESSORS_ONLN
  end
  allowed_set = set
  return set
end

local function allowed_text(set)
  local cpus = {}
  for c = 0, MASK_BYTES * 8 - 1 do if set[c] then cpus[#cpus + 1] = c end end
  -- Shown as ranges: "0-1", "0-3,8-11".
  local parts, i = {}, 1
  while i <= #cpus do
    local j = i
    while j < #cpus and cpus[j + 1] == cpus[j] + 1 do j = j + 1 end
    parts[#parts + 1] = i == j and tostring(cpus[i]) or (cpus[i] .. "-" .. cpus[j])
    i = j + 1
  end
  return table.concat(parts, ",")
end

-- Refuses (util.fail, one line) a list of CPU numbers naming a CPU this
-- process cannot run on.  The runner calls it on the parsed list.
function M.check_affinity(list)
  local set = M.allowed()
  for _, c in ipairs(list) do
    if not set[c] then
      util.fail("--cpu-affinity: CPU %s does not exist or is not available to this process (available: %s)",
        tostring(c), allowed_text(set))
    end
  end
end

-- The option's check (see options.lua): the text "0,2-3" is well formed
-- and every CPU it names is available; nil + reason otherwise.  Ranges are
-- checked by their ends, never expanded, so "0-99999999999" costs nothing.
function M.check_list(s)
  local set = M.allowed()
  local expect = "expected a list of CPU numbers or ranges such as 0,2-3"
  if util.trim(s) == "" then return nil, expect end
  for _, item in ipairs(util.split(s, ",")) do
    local a, b = item:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if not a then a = item:match("^%s*(%d+)%s*$"); b = a end
    if not a then return nil, expect end
    a, b = tonumber(a), tonumber(b)
    if a > b then return nil, string.format("range %d-%d runs backwards", a, b) end
    for _, c in ipairs({ a, b }) do
      if not set[c] then
        return nil, string.format("CPU %.0f does not exist or is not available to this process (available: %s)",
          c, allowed_text(set))
      end
    end
    -- Inside a range every CPU must be available too (a mask with holes).
    for c = a, b do
      if not set[c] then
        return nil, string.format("CPU %d is not available to this process (available: %s)", c, allowed_text(set))
      end
    end
  end
  return s
end

-- The PID written in a server's pid file, when that process runs on this
-- host (nil otherwise, or when the file cannot be read).
function M.pid_from_file(path)
  local s = path and util.read_file(path)
  local pid = s and tonumber(s:match("%d+"))
  return pid and M.seconds(pid) and pid or nil
end

-- The local server's PID: --server-pid, or for a MySQL server reached
-- through a local socket, the PID from its own pid file.  `in_job`: this
-- process is one rank of several (lbench-mpi).
function M.server_pid(opt, lb, in_job)
  if opt.server_pid and opt.server_pid > 0 then
    if not M.seconds(opt.server_pid) then
      -- lbench-mpi: every rank has the same options, and the server runs
      -- on one host at most; the ranks elsewhere measure nothing.
      if in_job then return nil end
      util.fail("--server-pid=%d: no such process on this machine", opt.server_pid)
    end
    return opt.server_pid
  end
  if opt.db_driver ~= "mysql" or not opt.mysql_socket or #opt.mysql_socket == 0 then return nil end
  local ok, file = pcall(function()
    local con = lb.sql.driver():connect()
    local f = con:query_row("SELECT @@pid_file")
    con:disconnect()
    return f
  end)
  return ok and M.pid_from_file(file) or nil
end

-- o.<who>_us_per_event and _per_query: `secs` of CPU over the counts
-- (left out where the count is 0 or unknown).
local function per_unit(o, who, secs, events, queries)
  o[who .. "_us_per_event"] = events > 0 and secs / events * 1e6 or nil
  o[who .. "_us_per_query"] = queries and queries > 0 and secs / queries * 1e6 or nil
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
    per_unit(o, "client", c1 - c0, events, queries)
    if s0 and s1 then
      o.server_pid = server_pid
      o.server_s = s1 - s0
      per_unit(o, "server", s1 - s0, events, queries)
    end
    o.clock_ticks_per_s = CLK_TCK
    return o
  end
  return obj
end

-- Several ranks (cluster/ranks.lua): the job's `cpu` from every rank's own
-- (`parts`: { host, cpu } per rank, cpu as obj.result built it, or nil).
-- The client's CPU is every rank's, summed; a server is counted once per
-- (host, PID), however many ranks on its host measured it, with the
-- largest figure among them: the ranks measured it over windows that all
-- start at the job's barrier, and the longest holds the others.  Per event
-- and per query over the job's `events` and `queries`.
function M.merged(json, parts, events, queries)
  local client, ticks, any = 0, nil, false
  local servers, order = {}, {}
  for _, p in ipairs(parts) do
    local c = p.cpu
    if c and c.client_s then
      any, client, ticks = true, client + c.client_s, ticks or c.clock_ticks_per_s
      if c.server_pid and c.server_s then
        local key = tostring(p.host) .. "\0" .. tostring(c.server_pid)
        local s = servers[key]
        if not s then
          s = { host = p.host, pid = c.server_pid, server_s = c.server_s }
          servers[key] = s; order[#order + 1] = s
        elseif c.server_s > s.server_s then
          s.server_s = c.server_s
        end
      end
    end
  end
  if not any then return nil end
  local o = json.object()
  o.client_s = client
  per_unit(o, "client", client, events, queries)
  if #order > 0 then
    local server = 0
    for _, s in ipairs(order) do server = server + s.server_s end
    if #order == 1 then
      o.server_pid = order[1].pid
      o.server_host = order[1].host
    else
      o.servers = json.array()
      for _, s in ipairs(order) do
        local e = json.object()
        e.host = s.host
        e.pid = s.pid
        e.server_s = s.server_s
        o.servers[#o.servers + 1] = e
      end
    end
    o.server_s = server
    per_unit(o, "server", server, events, queries)
  end
  o.clock_ticks_per_s = ticks
  return o
end

return M
