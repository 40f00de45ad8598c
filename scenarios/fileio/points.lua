-- fileio's data points (--report-every-ios=N): one point per N completed
-- I/Os of all of a run's threads together, the write-cliff curve of an SSD.
-- The core collects them into a series shared by the run's jobs
-- (core/io/series.c); this module turns a series into JSON rows, live text
-- lines and CSV.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")

local M = {}

-- Latency percentiles of every point (per window, reads and writes apart), in
-- the order of lb_io_point's read_lat_ms[] / write_lat_ms[] (LB_IO_PCT_*).
M.PCTS = { "p50", "p95", "p99", "p99_9", "max" }

-- CSV columns, in the order of a point's fields.
M.COLS = { "ios", "time_s", "secs", "iops", "reads_per_sec", "writes_per_sec", "fsyncs_per_sec",
           "read_mib_per_sec", "written_mib_per_sec", "read_lat_avg_ms", "write_lat_avg_ms" }
for _, kind in ipairs({ "read", "write" }) do
  for _, suffix in ipairs(M.PCTS) do M.COLS[#M.COLS + 1] = kind .. "_lat_" .. suffix .. "_ms" end
end
-- ... and, when the device under the set is known, what reached it.
M.DEV_COLS = { "dev_reads_per_sec", "dev_writes_per_sec", "dev_read_mib_per_sec", "dev_written_mib_per_sec",
               "dev_await_ms", "dev_util_pct" }

-- The device's figures of point `pt` into `o` (nothing when no device is watched).
local function device_fields(o, pt, secs, watched)
  if not watched then return end
  local n = tonumber(pt.dev_reads + pt.dev_writes)
  o.dev_reads_per_sec = tonumber(pt.dev_reads) / secs
  o.dev_writes_per_sec = tonumber(pt.dev_writes) / secs
  o.dev_read_mib_per_sec = tonumber(pt.dev_bytes_read) / secs / 1048576
  o.dev_written_mib_per_sec = tonumber(pt.dev_bytes_written) / secs / 1048576
  o.dev_await_ms = n > 0 and tonumber(pt.dev_wait_ms) / n or 0
  o.dev_util_pct = math.min(100, tonumber(pt.dev_busy_ms) / (secs * 1000) * 100)
end

-- The series of `t` (its key), one point per `every` I/Os, for the jobs of
-- the next run; nil when no points were asked for.
function M.open(t, every)
  if every <= 0 then return nil end
  return C.lb_io_shared_open(t.key, every)
end

-- Every point of series `sh` so far, as a JSON array of objects (with the
-- device's figures when one is watched, lb_io_shared_watch_device).
function M.list(sh)
  local out = json.array()
  if sh == nil then return out end
  local watched = C.lb_io_shared_device_watched(sh) ~= 0
  local pt = ffi.new("lb_io_point")
  for i = 0, C.lb_io_shared_npoints(sh) - 1 do
    C.lb_io_shared_point(sh, i, pt)
    local o = json.object()
    local secs = pt.secs > 0 and pt.secs or 1e-9
    o.ios = tonumber(pt.ios)
    o.time_s = pt.time_s
    o.secs = pt.secs
    o.iops = tonumber(pt.reads + pt.writes) / secs
    o.reads_per_sec = tonumber(pt.reads) / secs
    o.writes_per_sec = tonumber(pt.writes) / secs
    o.fsyncs_per_sec = tonumber(pt.fsyncs) / secs
    o.read_mib_per_sec = tonumber(pt.bytes_read) / secs / 1048576
    o.written_mib_per_sec = tonumber(pt.bytes_written) / secs / 1048576
    o.read_lat_avg_ms = pt.read_lat_avg_ms
    o.write_lat_avg_ms = pt.write_lat_avg_ms
    for k, suffix in ipairs(M.PCTS) do
      o["read_lat_" .. suffix .. "_ms"] = pt.read_lat_ms[k - 1]
      o["write_lat_" .. suffix .. "_ms"] = pt.write_lat_ms[k - 1]
    end
    device_fields(o, pt, secs, watched)
    out[#out + 1] = o
  end
  return out
end

-- One point as a text line, in the style of the interval lines.
function M.line(p)
  local dev = p.dev_reads_per_sec and string.format(" device r/w: %.2f/%.2f MiB/s util: %.1f %%", p.dev_read_mib_per_sec,
    p.dev_written_mib_per_sec, p.dev_util_pct) or ""
  return string.format("[ %d ios ] %.3fs iops: %.2f (r/w/f: %.2f/%.2f/%.2f) read: %.2f MiB/s written: %.2f MiB/s lat avg (ms) r/w: %.3f/%.3f p99 (ms) r/w: %.3f/%.3f",
    p.ios, p.time_s, p.iops, p.reads_per_sec, p.writes_per_sec, p.fsyncs_per_sec, p.read_mib_per_sec,
    p.written_mib_per_sec, p.read_lat_avg_ms, p.write_lat_avg_ms, p.read_lat_p99_ms, p.write_lat_p99_ms) .. dev
end

-- The points as a CSV table (header row first).
function M.csv(points)
  local cols = { unpack(M.COLS) }
  if points[1] and points[1].dev_reads_per_sec then
    for _, k in ipairs(M.DEV_COLS) do cols[#cols + 1] = k end
  end
  local rows = { table.concat(cols, ",") }
  for _, p in ipairs(points) do
    local v = {}
    for i, k in ipairs(cols) do v[i] = string.format("%.6g", p[k]) end
    rows[#rows + 1] = table.concat(v, ",")
  end
  return table.concat(rows, "\n")
end

-- Print the points no one has printed yet.  The core hands each point out
-- once, so the worker printing them live and the main state printing the
-- rest at the end never print one twice.
local first = ffi.new("int32_t[1]")
function M.print_new(sh)
  local n = C.lb_io_shared_take_unprinted(sh, first)
  if n > 0 then
    local pts = M.list(sh)
    for i = first[0] + 1, first[0] + n do print(M.line(pts[i])) end
  end
end

-- The end of a series: print what is left when `verbose`, close it, and
-- return its points.
function M.finish(sh, verbose)
  if verbose then M.print_new(sh) end
  local pts = M.list(sh)
  C.lb_io_shared_close(sh)
  return pts
end

return M
