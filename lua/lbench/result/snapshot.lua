-- What the reporter reads of a collection (lb_snapshot, core/stats.h): new
-- snapshots, their counters as a plain table, the difference of two, the
-- event types' names.  Shared by the reporter (run/runner.lua) and the ranks'
-- merge (cluster/ranks.lua, cluster/rankrun.lua), which count the same way.
local ffi = require("ffi")
local C = require("lbench.ffi").C

local M = {}

-- A snapshot with histograms of configuration `hcfg` (NULL: the default).
function M.new(hcfg)
  local s = ffi.new("lb_snapshot")
  if C.lb_stats_snapshot_init(s, hcfg) ~= 0 then error("out of memory for histograms") end
  return ffi.gc(s, C.lb_stats_snapshot_free)
end

-- The counters of an lb_stats (the SQL layer's in its extension block).
function M.counters(sum)
  local db = ffi.cast("lb_db_stats *", sum.ext)
  local q = db.queries
  return {
    events = tonumber(sum.events),
    restarts = tonumber(sum.restarts),
    busy_ns = tonumber(sum.busy_ns),
    reads = tonumber(q[C.LB_DB_Q_SELECT]),
    inserts = tonumber(q[C.LB_DB_Q_INSERT]),
    updates = tonumber(q[C.LB_DB_Q_UPDATE]),
    deletes = tonumber(q[C.LB_DB_Q_DELETE]),
    writes = tonumber(q[C.LB_DB_Q_INSERT] + q[C.LB_DB_Q_UPDATE] + q[C.LB_DB_Q_DELETE] + db.writes_other),
    other = tonumber(q[C.LB_DB_Q_OTHER]),
    db_errors = tonumber(db.errors),
    reconnects = tonumber(db.reconnects),
    io_reads = tonumber(sum.io_reads), io_writes = tonumber(sum.io_writes), io_fsyncs = tonumber(sum.io_fsyncs),
    io_bytes_read = tonumber(sum.io_bytes_read), io_bytes_written = tonumber(sum.io_bytes_written),
    not_started = tonumber(sum.not_started),
  }
end

-- a - b, counter by counter.
function M.diff(a, b)
  local d = {}
  for k, v in pairs(a) do d[k] = v - (b[k] or 0) end
  return d
end

-- The names of the event types this runtime has seen, in id order.
function M.type_names(rt)
  local n = C.lb_runtime_type_count(rt)
  local names = {}
  for i = 0, n - 1 do names[#names + 1] = ffi.string(C.lb_runtime_type_name(rt, i)) end
  return names
end

return M
