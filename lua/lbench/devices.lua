-- This host's block devices and CPU as the kernel counts them: which
-- device holds a path (its filesystem, mount options, model, rotational,
-- scheduler, size), and the counters of /proc/diskstats and /proc/stat,
-- turned into per-second figures between two samples.  What iostat and
-- vmstat print, read the same way, without a process of their own.
local ffi = require("ffi")

local M = {}

pcall(ffi.cdef, "char *realpath(const char *path, char *resolved); void free(void *p);")

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

local function trim(s) return s and (s:gsub("^%s+", ""):gsub("%s+$", "")) or nil end

-- The mount that holds `path` (absolute): the longest mount point that is
-- a prefix of it, from /proc/self/mountinfo; { dev = "MAJ:MIN", fs,
-- source, options (the mount's), super (the filesystem's), mount_point }.
local function mount_of(path)
  local best
  for line in (read("/proc/self/mountinfo") or ""):gmatch("[^\n]+") do
    local f = {}
    for w in line:gmatch("%S+") do f[#f + 1] = w end
    local mp = f[5] and f[5]:gsub("\\040", " ")
    local sep
    for i = 7, #f do if f[i] == "-" then sep = i break end end
    if mp and sep and (path == mp or path:sub(1, #mp + (mp == "/" and 0 or 1)) == (mp == "/" and "/" or mp .. "/")) then
      if not best or #mp >= #best.mount_point then
        best = { dev = f[3], mount_point = mp, fs = f[sep + 1], source = f[sep + 2], options = f[6], super = f[sep + 3] }
      end
    end
  end
  return best
end

-- The kernel's name of block device MAJ:MIN (sda, vda, nvme0n1p1, dm-0), or nil.
local function block_name(dev)
  local uevent = read("/sys/dev/block/" .. dev .. "/uevent")
  return uevent and uevent:match("DEVNAME=([^\n]+)")
end

-- The whole disk of a partition (nvme0n1p1 -> nvme0n1), else the name itself.
local function whole_disk(name)
  if read("/sys/class/block/" .. name .. "/partition") then
    local p = io.popen("readlink -f /sys/class/block/" .. name .. " 2>/dev/null")
    local link = p and p:read("*l")
    if p then p:close() end
    local parent = link and link:match("/([^/]+)/" .. name:gsub("%p", "%%%0") .. "$")
    if parent then return parent end
  end
  return name
end

-- Block device `name`'s own facts into `o`: device, disk, model,
-- rotational, scheduler, size_bytes.
local function describe_device(o, name)
  local disk = whole_disk(name)
  o.device, o.disk = name, disk
  o.model = trim(read("/sys/block/" .. disk .. "/device/model"))
  local rot = trim(read("/sys/block/" .. disk .. "/queue/rotational"))
  o.rotational = rot and rot == "1" or nil
  local sched = read("/sys/block/" .. disk .. "/queue/scheduler")
  o.scheduler = sched and (sched:match("%[([^%]]+)%]") or trim(sched)) or nil
  local sectors = tonumber(trim(read("/sys/class/block/" .. name .. "/size")) or "")
  o.size_bytes = sectors and sectors * 512 or nil
  return o
end

-- What holds `path`: { device, disk, fs, mount_point, mount_options,
-- fs_options, source, model, rotational, scheduler, size_bytes }, or nil when the path is on
-- no block device (tmpfs, overlay, a path on another host).
function M.of_path(path)
  if type(path) ~= "string" or path:sub(1, 1) ~= "/" then return nil end
  local m = mount_of(path)
  if not m then return nil end
  local name = block_name(m.dev)
  local o = { fs = m.fs, mount_point = m.mount_point, mount_options = m.options, fs_options = m.super, source = m.source }
  if not name then return o end
  return describe_device(o, name)
end

-- The absolute path of `path` with every link resolved, or nil when it
-- does not exist.
function M.real_path(path)
  local p = ffi.C.realpath(path, nil)
  if p == nil then return nil end
  local s = ffi.string(p)
  ffi.C.free(p)
  return s
end

-- What holds a benchmark's target: a directory or file (relative paths
-- too; of_path) or a block device itself (/dev/sdb, a /dev/disk/by-id
-- link), whose own name is then the device.  nil when unknown.
function M.of_target(path)
  local real = type(path) == "string" and M.real_path(path)
  if not real then return nil end
  local name = real:match("^/dev/([^/]+)$")
  if name and read("/sys/class/block/" .. name .. "/dev") then return describe_device({}, name) end
  return M.of_path(real)
end

-- Counters of devices `names` (a set) from /proc/diskstats: per device
-- { r, r_sect, r_ms, w, w_sect, w_ms, io_ms } (completed I/Os, sectors of
-- 512 bytes, milliseconds spent, time busy).
function M.disk_counters(names)
  local out = {}
  for line in (read("/proc/diskstats") or ""):gmatch("[^\n]+") do
    local f = {}
    for w in line:gmatch("%S+") do f[#f + 1] = w end
    if f[3] and names[f[3]] then
      out[f[3]] = { r = tonumber(f[4]), r_sect = tonumber(f[6]), r_ms = tonumber(f[7]), w = tonumber(f[8]),
                    w_sect = tonumber(f[10]), w_ms = tonumber(f[11]), io_ms = tonumber(f[13]) }
    end
  end
  return out
end

-- The CPU line of /proc/stat: { user, nice, system, idle, iowait, irq, softirq, steal } in ticks.
function M.cpu_counters()
  local l = (read("/proc/stat") or ""):match("^cpu%s+([^\n]+)")
  if not l then return nil end
  local v = {}
  for w in l:gmatch("%d+") do v[#v + 1] = tonumber(w) end
  return { user = v[1], nice = v[2], system = v[3], idle = v[4], iowait = v[5] or 0, irq = v[6] or 0,
           softirq = v[7] or 0, steal = v[8] or 0 }
end

local function r1(x) return math.floor(x * 10 + 0.5) / 10 end
local function r3(x) return math.floor(x * 1000 + 0.5) / 1000 end

-- Per-second figures of one device between samples `a` and `b`, `secs` apart:
-- what iostat -x shows (r/s, w/s, MB/s, await, %util).
function M.disk_figures(a, b, secs)
  local dr, dw = b.r - a.r, b.w - a.w
  local n = dr + dw
  return {
    reads_per_sec = r1(dr / secs), writes_per_sec = r1(dw / secs),
    read_mib_per_sec = r3((b.r_sect - a.r_sect) * 512 / 1048576 / secs),
    written_mib_per_sec = r3((b.w_sect - a.w_sect) * 512 / 1048576 / secs),
    await_ms = n > 0 and r3(((b.r_ms - a.r_ms) + (b.w_ms - a.w_ms)) / n) or 0,
    util_pct = r1(math.min(100, (b.io_ms - a.io_ms) / (secs * 1000) * 100)),
  }
end

-- Shares of the host's CPU time between samples `a` and `b`, in percent.
function M.cpu_figures(a, b)
  local d, total = {}, 0
  for k, v in pairs(b) do d[k] = v - (a[k] or 0); total = total + d[k] end
  if total <= 0 then return nil end
  local function pct(x) return r1(x / total * 100) end
  return { user_pct = pct(d.user + d.nice), system_pct = pct(d.system + d.irq + d.softirq),
           iowait_pct = pct(d.iowait), steal_pct = pct(d.steal), idle_pct = pct(d.idle) }
end

return M
