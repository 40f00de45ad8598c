-- What a result needs to be reproducible: the machine it ran on.
local json = require("lbench.json")

local M = {}

local function first_line(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local l = p:read("*l")
  p:close()
  return l
end

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

local cached
function M.collect()
  if cached then return cached end
  local h = json.object()
  h.hostname = first_line("uname -n")
  local cpuinfo = read("/proc/cpuinfo") or ""
  h.cpu_model = cpuinfo:match("model name%s*:%s*([^\n]+)")
  local cores = 0
  for _ in cpuinfo:gmatch("\nprocessor%s*:") do cores = cores + 1 end
  if cpuinfo:match("^processor%s*:") then cores = cores + 1 end
  h.cores = cores
  h.kernel = first_line("uname -sr")
  local mem = (read("/proc/meminfo") or ""):match("MemTotal:%s*(%d+) kB")
  h.memory_bytes = mem and tonumber(mem) * 1024 or nil
  cached = h
  return h
end

return M
