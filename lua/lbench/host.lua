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
  -- /proc first: no fork+exec (a few ms of CPU that I/O benchmarks count).
  local function proc1(path) local v = read(path); return v and v:match("^([^\n]*)") end
  h.hostname = proc1("/proc/sys/kernel/hostname") or first_line("uname -n")
  local cpuinfo = read("/proc/cpuinfo") or ""
  h.cpu_model = cpuinfo:match("model name%s*:%s*([^\n]+)")
  local cores = 0
  for _ in cpuinfo:gmatch("\nprocessor%s*:") do cores = cores + 1 end
  if cpuinfo:match("^processor%s*:") then cores = cores + 1 end
  h.cores = cores
  local ost, rel = proc1("/proc/sys/kernel/ostype"), proc1("/proc/sys/kernel/osrelease")
  h.kernel = (ost and rel) and (ost .. " " .. rel) or first_line("uname -sr")
  local mem = (read("/proc/meminfo") or ""):match("MemTotal:%s*(%d+) kB")
  h.memory_bytes = mem and tonumber(mem) * 1024 or nil
  -- cpufreq's governor where the kernel exposes it (not in most VMs).
  h.governor = proc1("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
  cached = h
  return h
end

return M
