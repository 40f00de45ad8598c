-- Another host's CPU and block devices, read from its Prometheus node
-- exporter (--node-exporter=http://host:9100/metrics): the page fetched
-- with a hard timeout (core/httpget.c), parsed (promtext.lua), and turned
-- into the same counters as this host's /proc/stat and /proc/diskstats
-- (devices.lua), so that the figures between two samples have the same
-- keys as the local ones.  After one failure an exporter is not asked
-- again during the run: a tick never waits twice for a dead host.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local promtext = require("lbench.promtext")
local devices = require("lbench.devices")

local M = {}

M.TIMEOUT_MS = 1000

local CPU = "node_cpu_seconds_total"
-- node_disk_* counter -> devices.lua's counter key and its scale to it
-- (sectors of 512 bytes, milliseconds).
local DISK = {
  node_disk_reads_completed_total = { "r", 1 },
  node_disk_writes_completed_total = { "w", 1 },
  node_disk_read_bytes_total = { "r_sect", 1 / 512 },
  node_disk_written_bytes_total = { "w_sect", 1 / 512 },
  node_disk_read_time_seconds_total = { "r_ms", 1000 },
  node_disk_write_time_seconds_total = { "w_ms", 1000 },
  node_disk_io_time_seconds_total = { "io_ms", 1000 },
}
local WANT = { [CPU] = true }
for k in pairs(DISK) do WANT[k] = true end
local MODES = { "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" }

-- Devices left out: RAM disks, loop devices, floppies and partitions (their
-- I/O is their disk's), as the exporter's own default exclusion does.
function M.skip_device(name)
  return name:match("^z?ram%d+$") or name:match("^loop%d+$") or name:match("^fd%d+$")
    or name:match("^[hsv]d%a+%d+$") or name:match("^xvd%a+%d+$") or name:match("^nvme%d+n%d+p%d+$")
    or name:match("^mmcblk%d+p%d+$") or false
end

-- The counters of a page's text: { cpu = {user, nice, ...} in seconds,
-- disks = { [device] = {r, w, r_sect, w_sect, r_ms, w_ms, io_ms} } }, or
-- nil and the reason.
function M.counters(text)
  local page = promtext.parse(text, WANT)
  local cpu_samples = page.samples[CPU]
  if not cpu_samples then
    return nil, "no " .. CPU .. " on the page" .. (page.bad and " (" .. page.bad.first .. ")" or "")
  end
  local cpu = {}
  for _, m in ipairs(MODES) do cpu[m] = 0 end
  for _, s in ipairs(cpu_samples) do
    local m = s.labels.mode
    if cpu[m] and s.value == s.value then cpu[m] = cpu[m] + s.value end
  end
  local disks = {}
  for metric, to in pairs(DISK) do
    for _, s in ipairs(page.samples[metric] or {}) do
      local d = s.labels.device
      if d and not M.skip_device(d) then
        disks[d] = disks[d] or { r = 0, w = 0, r_sect = 0, w_sect = 0, r_ms = 0, w_ms = 0, io_ms = 0 }
        disks[d][to[1]] = s.value * to[2]
      end
    end
  end
  return { cpu = cpu, disks = disks }
end

-- Did any counter go down between `a` and `b` (the exporter restarted)?
local function went_back(a, b)
  for k, v in pairs(b) do if a[k] and v < a[k] then return true end end
  return false
end

-- The figures between two counter samples `secs` apart: { cpu = {user_pct,
-- ...}, devices = { [name] = {reads_per_sec, ...} } }, as this host's.
function M.figures(a, b, secs)
  local o = {}
  if not went_back(a.cpu, b.cpu) then o.cpu = devices.cpu_figures(a.cpu, b.cpu) end
  for name, c in pairs(b.disks) do
    if a.disks[name] and not went_back(a.disks[name], c) then
      o.devices = o.devices or {}
      o.devices[name] = devices.disk_figures(a.disks[name], c, secs)
    end
  end
  return o
end

-- The key of an exporter in the figures: HOST:PORT of its URL.
function M.key(url)
  local hp = url:match("^[hH][tT][tT][pP]://([^/?#]+)") or url
  if not hp:match(":%d+$") then hp = hp .. ":80" end
  return hp
end

-- Is `url` one the fetch takes?  url, or nil and the reason.
function M.check_url(url)
  local err = ffi.new("char[256]")
  if C.lb_http_url_check(url, err, 256) == 0 then return nil, ffi.string(err) end
  return url
end

-- The page at `url`, or nil and the reason.
function M.fetch(url, timeout_ms)
  local err = ffi.new("char[256]")
  local len = ffi.new("size_t[1]")
  local body = C.lb_http_get(url, timeout_ms or M.TIMEOUT_MS, len, err, 256)
  if body == nil then return nil, ffi.string(err) end
  local s = ffi.string(body, len[0])
  C.lb_http_free(body)
  return s
end

local Probe = {}
Probe.__index = Probe

-- A probe of the exporter at `url`: probe:sample() gives counters (nil
-- once it failed: probe.dead says why and when).
function M.open(url, timeout_ms)
  return setmetatable({ url = url, key = M.key(url), timeout_ms = timeout_ms or M.TIMEOUT_MS, samples = 0 }, Probe)
end

function Probe:sample()
  if self.dead then return nil end
  local text, why = M.fetch(self.url, self.timeout_ms)
  local c
  if text then c, why = M.counters(text) end
  if not c then
    self.dead = why
    self.dead_after = self.samples
    return nil
  end
  self.samples = self.samples + 1
  return c
end

-- One line on what went wrong, or nil.
function Probe:notice()
  if not self.dead then return nil end
  local msg = "node exporter " .. self.url .. ": " .. self.dead
  if self.dead_after > 0 then msg = msg .. " (after " .. self.dead_after .. " samples; its figures stop there)" end
  return msg
end

return M
