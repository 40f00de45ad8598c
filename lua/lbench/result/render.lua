-- Rendering of intervals and results: text (sysbench's layout, extended),
-- JSON and CSV.  Everything renders from the result tree that run/runner.lua
-- builds; nothing here computes statistics.
local json = require("lbench.json")
local observed = require("lbench.result.observed")

local M = {}

-- Why an interrupted run stopped, in words (text report and error line).
function M.stop_words(r)
  if r.stop_reason == "signal" then return "signal" end
  if r.stuck_thread then
    local doing = r.stuck_waiting and r.stuck_waiting ~= "" and "waiting for the server: " .. r.stuck_waiting
      or "in a call of the script's own (no query waiting)"
    return string.format("thread %d stuck past the deadline inside one event (2 s of grace), %s; its connections were cut",
      r.stuck_thread, doing)
  end
  return "workers stuck past the deadline were cut off"
end

local function fmt_ms(v)
  if v == nil then return "overflow" end
  return string.format("%.2f", v)
end

local function pct_label(list)
  local ps, vs = {}, {}
  for _, p in ipairs(list) do ps[#ps + 1] = p.key .. "%"; vs[#vs + 1] = fmt_ms(p.ms) end
  return table.concat(ps, "/"), table.concat(vs, "/")
end

-- The "[ 2s ]" label of sysbench's report hooks: the cumulative report's
-- time is the run's measured duration (2.00003 s after --time=2), so it is
-- rounded to 10 ms, which still shows fractional report intervals (0.25 s)
-- as they are.  (Interval lines carry times on the interval grid.)
local function time_label(t)
  return string.format("%.12g", math.floor(t * 100 + 0.5) / 100)
end
M.time_label = time_label

-- One interval line, sysbench's layout:
-- [ 10s ] thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 8.43 err/s: 0.00 reconn/s: 0.00
-- Its shape is the run's, whatever the interval's counts: an SQL run
-- (result.sql_run) always shows tps/qps and err/s, an I/O run (M.io_run,
-- below) its rates, anything else eps.
local NO_IO = { reads_per_sec = 0, writes_per_sec = 0, fsyncs_per_sec = 0, read_mib_per_sec = 0, written_mib_per_sec = 0 }

function M.interval_line(iv)
  local parts = {}
  parts[#parts + 1] = string.format("[ %gs ]%s thds: %d", iv.time_s, iv.warmup and " (warm-up)" or "", iv.threads)
  if iv.sql then
    parts[#parts + 1] = string.format("tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f)", iv.events_per_sec,
      iv.queries_per_sec, iv.reads_per_sec, iv.writes_per_sec, iv.other_per_sec)
  elseif iv.io or M.io_run then
    -- An I/O run keeps its layout in an interval without I/O (M.io_run below).
    local io = iv.io or NO_IO
    parts[#parts + 1] = string.format("reads/s: %.2f writes/s: %.2f fsyncs/s: %.2f read: %.2f MiB/s written: %.2f MiB/s",
      io.reads_per_sec, io.writes_per_sec, io.fsyncs_per_sec, io.read_mib_per_sec, io.written_mib_per_sec)
  else
    parts[#parts + 1] = string.format("eps: %.2f", iv.events_per_sec)
  end
  local labels, values = pct_label(iv.latency_ms.pct_list)
  parts[#parts + 1] = string.format("lat (ms,%s): %s", labels, values)
  if iv.sql then
    parts[#parts + 1] = string.format("err/s: %.2f reconn/s: %.2f", iv.errors_per_sec, iv.reconnects_per_sec)
  end
  if iv.queue_ms then
    local ql, qv = pct_label(iv.queue_ms.pct_list)
    parts[#parts + 1] = string.format("queue (ms,%s): %s", ql, qv)
  end
  if iv.types_line then parts[#parts + 1] = iv.types_line end
  if iv.phase then parts[#parts + 1] = "phase: " .. iv.phase end
  return table.concat(parts, " ")
end

local function line(out, fmt, ...)
  out[#out + 1] = string.format(fmt, ...)
end

-- The final report is one section per part of the result tree; each
-- section below appends its lines to `out` and is skipped by final_text
-- when the run has nothing of that kind (no SQL, no I/O, no --rate ...).

-- Every error count of the document (sysbench has only the two lines
-- above): failed queries and their codes, and, when a connection was
-- lost, the reconnect attempts and the outage.
local function errors_lines(out, t, secs)
  line(out, "    errors:                              %-6d (%.2f per sec.)", t.errors or 0, (t.errors or 0) / secs)
  local codes = {}
  if t.errors_by_code then
    for code, n in json.pairs(t.errors_by_code) do codes[#codes + 1] = code .. ": " .. n end
  end
  if #codes > 0 then line(out, "    errors by code:                      %s", table.concat(codes, ", ")) end
  if (t.connections_lost or 0) > 0 or (t.reconnect_attempts or 0) > 0 then
    line(out, "    reconnect attempts:                  %-6d (%d failed)", t.reconnect_attempts, t.reconnects_failed)
    line(out, "    connections lost:                    %-6d (outage %.3fs over all connections, %d not reconnected)",
      t.connections_lost, t.outage_s, t.not_reconnected)
  end
end

-- sysbench's "SQL statistics" block (rates over the measured duration).
local function sql_section(out, t, secs, sysbench)
  local q = t.queries
  line(out, "SQL statistics:")
  line(out, "    queries performed:")
  line(out, "        read:                            %d", q.read)
  line(out, "        write:                           %d", q.write)
  line(out, "        other:                           %d", q.other)
  line(out, "        total:                           %d", q.total)
  line(out, "    transactions:                        %-6d (%.2f per sec.)", t.events, t.events_per_sec)
  line(out, "    queries:                             %-6d (%.2f per sec.)", q.total, q.total / secs)
  line(out, "    ignored errors:                      %-6d (%.2f per sec.)", t.ignored_errors, t.ignored_errors / secs)
  line(out, "    reconnects:                          %-6d (%.2f per sec.)", t.reconnects, t.reconnects / secs)
  -- sysbench has no errors line, and its blank line comes before General
  if sysbench then return end
  errors_lines(out, t, secs)
  line(out, "")
end

-- sysbench fileio's "File operations" and "Throughput" blocks.
local function io_section(out, io)
  line(out, "File operations:")
  line(out, "    reads/s:                      %.2f", io.reads_per_sec)
  line(out, "    writes/s:                     %.2f", io.writes_per_sec)
  line(out, "    fsyncs/s:                     %.2f", io.fsyncs_per_sec)
  line(out, "")
  line(out, "Throughput:")
  line(out, "    read, MiB/s:                  %.2f", io.read_mib_per_sec)
  line(out, "    written, MiB/s:               %.2f", io.written_mib_per_sec)
  line(out, "")
end

-- Events per second only when there is no SQL block: that one already
-- gives them as transactions per second.
local function general_section(out, r)
  local t = r.totals
  line(out, "General statistics:")
  line(out, "    total time:                          %.4fs", r.duration_s)
  line(out, "    total number of events:              %d", t.events)
  if not t.queries then
    line(out, "    events per second:                   %.2f", t.events_per_sec)
  end
  if r.warmup_s > 0 then
    line(out, "    warm-up (excluded):                  %.4fs, %d events", r.warmup_s, r.warmup_events or 0)
  end
  line(out, "")
end

-- One line per configured percentile, in the order they were asked for.
local function pct_lines(out, list)
  for _, p in ipairs(list) do
    line(out, "         %-34s%11s", p.key .. "th percentile:", fmt_ms(p.ms))
  end
end

local function latency_section(out, l)
  line(out, "Latency (ms):")
  line(out, "         min:                              %11.2f", l.min)
  line(out, "         avg:                              %11.2f", l.avg)
  line(out, "         max:                              %11.2f", l.max)
  pct_lines(out, l.pct_list)
  line(out, "         sum:                              %11.2f", l.sum)
  -- Samples past the histogram's range are counted, not dropped: say so.
  if (l.overflow or 0) > 0 or (l.underflow or 0) > 0 then
    line(out, "         out of range:        %d above %.0f ms, %d below 0", l.overflow, l.highest_ms, l.underflow)
  end
  line(out, "")
end

local function queue_section(out, q)
  line(out, "Queue time under --rate (ms; included in latency):")
  line(out, "         avg:                              %11.2f", q.avg)
  line(out, "         max:                              %11.2f", q.max)
  pct_lines(out, q.pct_list)
  if (q.not_started or 0) > 0 then
    line(out, "         not started (backlog at the end): %11d", q.not_started)
  end
  line(out, "")
end

-- Columns of percentiles follow the run's own list (l.pct_list), so the
-- header and every type's row line up.
local function types_section(out, r)
  line(out, "Per-type statistics:")
  -- (the type column as wide as its longest name: a script's path can be long)
  local w = 16
  for _, name in ipairs(r.type_order) do w = math.max(w, #name) end
  local name_col = "    %-" .. w .. "s"
  local hdr = string.format(name_col .. " %10s %10s %10s %9s %9s", "type", "events", "restarts", "rollbacks", "avg ms",
    "max ms")
  local pl = {}
  for _, p in ipairs(r.latency_ms.pct_list) do pl[#pl + 1] = string.format("%9s", p.key .. "%") end
  line(out, "%s %s", hdr, table.concat(pl, " "))
  for _, name in ipairs(r.type_order) do
    local ty = r.types[name]
    local vals = {}
    for _, p in ipairs(ty.latency_ms.pct_list) do vals[#vals + 1] = string.format("%9s", fmt_ms(p.ms)) end
    line(out, name_col .. " %10d %10d %10d %9.2f %9.2f %s", name, ty.events, ty.restarts, ty.rollbacks,
      ty.latency_ms.avg, ty.latency_ms.max, table.concat(vals, " "))
  end
  line(out, "")
end

-- CPU per query when the run counted queries, else per event.
local function cpu_section(out, c)
  local per = c.client_us_per_query and "query" or "event"
  line(out, "CPU time (user+sys):")
  line(out, "    client:                        %.2fs (%.2f us per %s)", c.client_s,
    c["client_us_per_" .. per] or 0, per)
  if c.server_s then
    -- One server (its pid), or several (lbench-mpi: one per client host).
    local who = c.server_pid and string.format("pid %d", c.server_pid)
      or string.format("%d servers", c.servers and #c.servers or 0)
    line(out, "    server:                        %.2fs (%.2f us per %s; %s)", c.server_s,
      c["server_us_per_" .. per] or 0, per, who)
  end
  line(out, "")
end

-- The server's and the host's figures over the measured period (the
-- document's `server` and `host_stats`, run/observe.lua), the short block
-- a performance engineer would otherwise read off iostat and SHOW STATUS.
local function num(v, f) return v and string.format(f or "%.1f", v) or "-" end

local function server_line(s)
  local f = s.stats
  local head = string.format("    %s %s", s.product or "server", s.version or "")
  if not f then return head end
  if s.product == "PostgreSQL" then
    return string.format("%s: buffer hit %s %%, %s blocks read/s, %s commits/s, WAL %s MiB/s, %s deadlocks, "
      .. "%s checkpoints", head, num(f.buffer_hit_pct), num(f.blocks_read_per_sec), num(f.commits_per_sec),
      num(f.wal_mib_per_sec, "%.2f"), num(f.deadlocks, "%d"),
      num((f.checkpoints_timed or 0) + (f.checkpoints_requested or 0), "%d"))
  end
  return string.format("%s: buffer pool hit %s %%, %s disk reads/s, %s MiB/s written, redo %s MiB/s, "
    .. "%s fsyncs/s, %s row lock waits/s", head, num(f.buffer_pool_hit_pct), num(f.buffer_pool_reads_per_sec),
    num(f.data_written_mib_per_sec, "%.2f"), num(f.redo_written_mib_per_sec, "%.2f"), num(f.data_fsyncs_per_sec),
    num(f.row_lock_waits_per_sec))
end

-- `server_pct`: the server's process in % of a CPU, where known.
local function cpu_line(out, who, c, server_pct)
  line(out, "    %s CPU: user %s %%, system %s %%, iowait %s %%, steal %s %%%s", who, num(c.user_pct), num(c.system_pct),
    num(c.iowait_pct), num(c.steal_pct), server_pct and string.format("; server process %s %% of a CPU", num(server_pct))
    or "")
end

local function device_line(out, name, d)
  line(out, "    %s: %s r/s, %s w/s, %s MiB/s read, %s MiB/s written, await %s ms, util %s %%", name,
    num(d.reads_per_sec), num(d.writes_per_sec), num(d.read_mib_per_sec, "%.2f"),
    num(d.written_mib_per_sec, "%.2f"), num(d.await_ms, "%.2f"), num(d.util_pct))
end

local function sorted_keys(t)
  local keys = {}
  for k in json.pairs(t or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- Another host through its node exporter: its notice, its CPU, its devices
-- that did I/O (the idle ones counted).
local function remote_lines(out, key, r)
  if r.notice then line(out, "    %s", r.notice) end
  if type(r.cpu) == "table" then cpu_line(out, key, r.cpu) end
  local idle = 0
  for _, name in ipairs(sorted_keys(r.devices)) do
    local d = r.devices[name]
    if (tonumber(d.reads_per_sec) or 0) + (tonumber(d.writes_per_sec) or 0) > 0 then device_line(out, key .. " " .. name, d)
    else idle = idle + 1 end
  end
  if idle > 0 then line(out, "    %s: %d idle device(s) not shown", key, idle) end
end

local function observed_section(out, server, host)
  line(out, "Server and host:")
  if server and server.notice then line(out, "    %s", server.notice)
  elseif server then line(out, "%s", server_line(server)) end
  if host and host.cpu then cpu_line(out, "host", host.cpu, host.server_cpu_pct) end
  for _, name in ipairs(sorted_keys(host and host.devices)) do device_line(out, name, host.devices[name]) end
  for _, key in ipairs(sorted_keys(host and host.remote)) do remote_lines(out, key, host.remote[key]) end
  line(out, "")
end

-- A --rate schedule: each phase's target, throughput and latency, from
-- that phase's own counters and histogram.
local function phases_section(out, phases)
  line(out, "Phases:")
  local hdr = string.format("    %-14s %-22s %8s %10s %12s %9s %9s", "phase", "target rate/s", "time s", "events",
    "events/s", "avg ms", "max ms")
  local pl = {}
  for _, p in ipairs(phases[1].latency_ms.pct_list) do pl[#pl + 1] = string.format("%9s", p.key .. "%") end
  line(out, "%s %s", hdr, table.concat(pl, " "))
  for _, ph in ipairs(phases) do
    local tr = ph.target_rate
    local target = tr.from == tr.to and string.format("%g", tr.from) or string.format("%g -> %g", tr.from, tr.to)
    local vals = {}
    for _, p in ipairs(ph.latency_ms.pct_list) do vals[#vals + 1] = string.format("%9s", fmt_ms(p.ms)) end
    line(out, "    %-14s %-22s %8.2f %10d %12.2f %9.2f %9.2f %s", ph.name, target, ph.duration_s, ph.events,
      ph.events_per_sec, ph.latency_ms.avg, ph.latency_ms.max, table.concat(vals, " "))
  end
  line(out, "")
end

-- Threads always; connections too in async mode (many per thread).
-- "execution time" is sysbench's: the sum of a thread's event times.  Where
-- a thread's events overlap (virtual users, I/Os at depth) the figure is
-- its busy time, wall time with an event in flight, and says so.
local function fairness_section(out, f, overlapping)
  line(out, "Threads fairness:")
  line(out, "    events (avg/stddev):           %.4f/%.2f", f.events_avg, f.events_stddev)
  line(out, overlapping and "    busy time (avg/stddev):        %.4f/%.2f" or "    execution time (avg/stddev):   %.4f/%.2f",
    f.exec_time_avg_s, f.exec_time_stddev_s)
  line(out, "")
  if f.connections then
    local cf = f.connections
    line(out, "Connections fairness (%d connections):", cf.count)
    line(out, "    events (min/avg/max/stddev):   %d/%.2f/%d/%.2f", cf.events_min, cf.events_avg, cf.events_max,
      cf.events_stddev)
    if cf.unused > 0 then line(out, "    connections without events:    %d", cf.unused) end
    line(out, "")
  end
end

-- A run that did not end normally says so under its figures, so that
-- partial figures are not read as a full run's.
local function status_section(out, r)
  if r.status == "interrupted" then
    line(out, "Run interrupted (%s) after %.4fs of measurement: the figures above cover that period.",
      M.stop_words(r), r.duration_s)
    line(out, "")
  elseif r.status ~= "ok" then
    line(out, "Run stopped on error: %s", (r.error or ""):match("^[^\n]*"))
    if (r.totals.not_reconnected or 0) > 0 then
      line(out, "A connection was lost and not reconnected: the figures above cover the %.4fs until the last event completed.",
        r.duration_s)
    end
    line(out, "")
  end
end

-- The final report in sysbench's layout plus every configured percentile,
-- a per-type table and (with --histogram) the distribution.
function M.final_text(r)
  local out = {}
  local t = r.totals
  if t.queries then sql_section(out, t, r.duration_s > 0 and r.duration_s or 1) end
  if r.io then io_section(out, r.io) end
  general_section(out, r)
  latency_section(out, r.latency_ms)
  if r.queue_ms then queue_section(out, r.queue_ms) end
  if r.types and #r.type_order > 0 then types_section(out, r) end
  if r.phases then phases_section(out, r.phases) end
  if r.cpu then cpu_section(out, r.cpu) end
  if r.server or r.host_stats then observed_section(out, r.server, r.host_stats) end
  fairness_section(out, r.fairness, r.fairness.connections ~= nil or r.io ~= nil)
  status_section(out, r)
  -- The scenario's own section (lbench.hooks.report_extra).
  if r.extra_text and r.extra_text ~= "" then out[#out + 1] = r.extra_text end
  return table.concat(out, "\n")
end

-- The final report as sysbench 1.0.20 prints it (lbench started as
-- `sysbench`): its sections only, its column widths, one percentile (its
-- --percentile), so that parsers written for its output read it unchanged.
function M.final_text_sysbench(r)
  local out = {}
  local t = r.totals
  -- a checkpoint report's rates are over its period (interval_s)
  local secs = r.interval_s or r.duration_s
  if t.queries then sql_section(out, t, secs > 0 and secs or 1, true) end
  -- sysbench fileio: a blank line before its blocks, which end with one
  line(out, "")
  if r.io then io_section(out, r.io) end
  line(out, "General statistics:")
  line(out, "    total time:                          %.4fs", r.duration_s)
  line(out, "    total number of events:              %d", t.events)
  line(out, "")
  local l = r.latency_ms
  line(out, "Latency (ms):")
  line(out, "         min: %39.2f", l.min)
  line(out, "         avg: %39.2f", l.avg)
  line(out, "         max: %39.2f", l.max)
  local p = l.pct_list[1]
  if p then
    line(out, "        %3sth percentile: %27.2f", p.key, p.ms or 0)
  else
    line(out, "         percentile stats:               disabled")
  end
  line(out, "         sum: %39.2f", l.sum)
  line(out, "")
  fairness_section(out, r.fairness, false)
  return table.concat(out, "\n")
end

-- ---- CSV ---------------------------------------------------------------
local IO_COLS = { "io_reads_per_sec", "io_writes_per_sec", "io_fsyncs_per_sec", "read_mib_per_sec",
                  "written_mib_per_sec" }

-- Whether this run's CSV rows carry the I/O columns.  The header is
-- written before the first interval, so an I/O scenario says so in its
-- init() (M.io_run = true, fileio does); an interval that has I/O counts
-- turns them on too.  csv_row follows the header's choice, so every row
-- has the header's columns even when an interval did no I/O.
M.io_run = false
local csv_io = false
-- Whether they carry the server's and the host's figures (result/observed.lua's
-- set): decided with the header, by whether the run records them at all
-- (iv.observed: the reporter has an observer, --server-stats=on).
local csv_obs = false

function M.csv_header(iv)
  local cols = { "time_s", "warmup", "threads", "events_per_sec", "queries_per_sec", "reads_per_sec",
                 "writes_per_sec", "other_per_sec", "errors_per_sec", "reconnects_per_sec",
                 "lat_avg_ms", "lat_max_ms" }
  for _, p in ipairs(iv.latency_ms.pct_list) do cols[#cols + 1] = "lat_p" .. p.key .. "_ms" end
  -- I/O scenarios (fileio): file operations and throughput per interval;
  -- only for runs that do I/O (an SQL run would carry five zero columns).
  csv_io = iv.io ~= nil or M.io_run
  if csv_io then
    for _, c in ipairs(IO_COLS) do cols[#cols + 1] = c end
  end
  csv_obs = iv.observed == true
  if csv_obs then
    for _, f in ipairs(observed.FIGURES) do cols[#cols + 1] = f.key end
  end
  -- Scenarios with event types: events/s of each type.
  for _, n in ipairs(iv.type_order or {}) do cols[#cols + 1] = n .. "_per_sec" end
  return table.concat(cols, ",")
end

local function csvnum(v)
  if v == nil then return "" end
  if type(v) == "boolean" then return v and "1" or "0" end
  return string.format("%.6g", v)
end

function M.csv_row(iv)
  local vals = { iv.time_s, iv.warmup, iv.threads, iv.events_per_sec, iv.queries_per_sec or 0,
                 iv.reads_per_sec or 0, iv.writes_per_sec or 0, iv.other_per_sec or 0,
                 iv.errors_per_sec or 0, iv.reconnects_per_sec or 0, iv.latency_ms.avg, iv.latency_ms.max }
  local out = {}
  for i = 1, #vals do out[i] = csvnum(vals[i]) end
  for _, p in ipairs(iv.latency_ms.pct_list) do out[#out + 1] = csvnum(p.ms) end
  if csv_io then
    local io = iv.io or {}
    for _, k in ipairs({ "reads_per_sec", "writes_per_sec", "fsyncs_per_sec", "read_mib_per_sec",
                         "written_mib_per_sec" }) do out[#out + 1] = csvnum(io[k] or 0) end
  end
  if csv_obs then
    local o = observed.of_interval(iv)
    for _, f in ipairs(observed.FIGURES) do out[#out + 1] = csvnum(o[f.key]) end
  end
  for _, n in ipairs(iv.type_order or {}) do out[#out + 1] = csvnum(iv.types[n].events_per_sec) end
  return table.concat(out, ",")
end

-- Final totals as "metric,value" rows.
function M.csv_totals(r)
  local rows = { "metric,value" }
  local function add(k, v) rows[#rows + 1] = k .. "," .. csvnum(v) end
  add("duration_s", r.duration_s)
  add("events", r.totals.events)
  add("events_per_sec", r.totals.events_per_sec)
  if r.totals.queries then
    add("queries", r.totals.queries.total)
    add("queries_per_sec", r.totals.queries_per_sec)
    add("ignored_errors", r.totals.ignored_errors)
    add("reconnects", r.totals.reconnects)
  end
  if r.io then
    for _, k in ipairs({ "reads", "writes", "fsyncs", "reads_per_sec", "writes_per_sec", "fsyncs_per_sec",
                         "read_mib_per_sec", "written_mib_per_sec" }) do add("io_" .. k, r.io[k]) end
  end
  add("lat_min_ms", r.latency_ms.min)
  add("lat_avg_ms", r.latency_ms.avg)
  add("lat_max_ms", r.latency_ms.max)
  for _, p in ipairs(r.latency_ms.pct_list) do add("lat_p" .. p.key .. "_ms", p.ms) end
  if r.extra_csv and r.extra_csv ~= "" then rows[#rows + 1] = r.extra_csv end
  return table.concat(rows, "\n")
end

-- ---- sysbench's report hooks -------------------------------------------
-- `stat` is sysbench's table: time_total, time_interval, threads_running,
-- events, reads, writes, other, errors, reconnects, latency_pct (seconds).
-- The "metric,value" rows a scenario adds to the CSV totals
-- (lbench.hooks.report_extra): rows.add(name, v) writes PREFIX_name with
-- v in %.6g (a boolean as 1 or 0); rows.text() is the block.
function M.metric_rows(prefix)
  local rows = {}
  local function add(k, v)
    if type(v) == "boolean" then v = v and 1 or 0 end
    rows[#rows + 1] = prefix .. k .. "," .. string.format("%.6g", v)
  end
  return { add = add, text = function() return table.concat(rows, "\n") end }
end

return M
