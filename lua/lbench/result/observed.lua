-- The server's and the host's figures a user reads beside lbench's own
-- (run/observe.lua records them; db/server_stats.lua and devices.lua
-- name them): one fixed set, under the same keys in the CSV intervals,
-- the sweep table, the report's charts, lbench compare and the history.
-- Read from one interval (iv.server, iv.host) or from a document over its
-- measured period (r.server.stats, r.host_stats); a figure the server or
-- the host did not give is nil (an empty CSV cell, a "-").
local json = require("lbench.json")

local M = {}

local function num(v) return type(v) == "number" and v == v and v or nil end
local function tab(v) return type(v) == "table" and v or nil end

-- The busiest device of a host's `devices` table (the highest util %;
-- ties by name): its name and figures, or nil.
function M.busiest_device(devices)
  local names = {}
  for name, f in json.pairs(tab(devices) or {}) do
    if type(f) == "table" then names[#names + 1] = name end
  end
  table.sort(names)
  local best, bname
  for _, name in ipairs(names) do
    local f = devices[name]
    if not best or (num(f.util_pct) or -1) > (num(best.util_pct) or -1) then best, bname = f, name end
  end
  return bname, best
end

-- The set, in its order: key (CSV column, sweep summary field), label and
-- unit (tables), reader(server figures, host figures).  MySQL's and
-- MariaDB's name first, else PostgreSQL's.
M.FIGURES = {
  { key = "server_hit_pct", label = "server hit", unit = "%",
    get = function(s) return s and (num(s.buffer_pool_hit_pct) or num(s.buffer_hit_pct)) end },
  { key = "server_disk_reads_per_sec", label = "server disk reads/s", unit = "",
    get = function(s) return s and (num(s.buffer_pool_reads_per_sec) or num(s.blocks_read_per_sec)) end },
  { key = "server_written_mib_per_sec", label = "server written", unit = "MiB/s",
    get = function(s) return s and num(s.data_written_mib_per_sec) end },
  { key = "server_log_mib_per_sec", label = "server log", unit = "MiB/s",
    get = function(s) return s and (num(s.redo_written_mib_per_sec) or num(s.wal_mib_per_sec)) end },
  { key = "host_user_pct", label = "host user", unit = "%",
    get = function(_, h) return h and tab(h.cpu) and num(h.cpu.user_pct) end },
  { key = "host_system_pct", label = "host system", unit = "%",
    get = function(_, h) return h and tab(h.cpu) and num(h.cpu.system_pct) end },
  { key = "host_iowait_pct", label = "host iowait", unit = "%",
    get = function(_, h) return h and tab(h.cpu) and num(h.cpu.iowait_pct) end },
  { key = "device_util_pct", label = "device util", unit = "%",
    get = function(_, h) local _, d = M.busiest_device(h and h.devices) return d and num(d.util_pct) end },
  { key = "device_await_ms", label = "device await", unit = "ms",
    get = function(_, h) local _, d = M.busiest_device(h and h.devices) return d and num(d.await_ms) end },
}
M.BY_KEY = {}
for _, f in ipairs(M.FIGURES) do M.BY_KEY[f.key] = f end

local function figures(s, h)
  local o = {}
  for _, f in ipairs(M.FIGURES) do o[f.key] = f.get(s, h) or nil end
  return o
end

-- One interval's figures (an interval of the JSON series or the reporter's).
function M.of_interval(iv)
  return figures(tab(iv.server), tab(iv.host))
end

-- A document's figures over its measured period.
function M.of_document(r)
  local srv = tab(r.server)
  return figures(srv and tab(srv.stats), tab(r.host_stats))
end

-- Whether a document recorded the server or the host at all.
function M.recorded(r) return tab(r.server) ~= nil or tab(r.host_stats) ~= nil end

return M
