-- The metric catalogue of result documents: which figures a run has, in
-- the order every comparison shows them (compare, report, history), what
-- runs may be compared, and how runs and sweep points are named.  Reading
-- documents and their headline figures is result/document.lua's; writing figures
-- is fmt.lua's.
local json = require("lbench.json")
local util = require("lbench.util")
local options = require("lbench.options")
local result = require("lbench.result.document")
local observed = require("lbench.result.observed")

local M = {}

local function num(v) return type(v) == "number" and v or nil end

local function lat(key)
  return function(r) return result.pct(r.latency_ms, key) end
end

local function tpcc(r, key) return type(r.tpcc) == "table" and num(r.tpcc[key]) or nil end

local function io(r, key) return type(r.io) == "table" and num(r.io[key]) or nil end

local function latency(r, key) return type(r.latency_ms) == "table" and num(r.latency_ms[key]) or nil end

-- The server's and the host's figures over the run (result/observed.lua).
local function observed_of(key)
  local f = observed.BY_KEY[key]
  return function(r)
    local srv = type(r.server) == "table" and type(r.server.stats) == "table" and r.server.stats or nil
    return f.get(srv, type(r.host_stats) == "table" and r.host_stats or nil)
  end
end

local function sql_total(r, key, default)
  return result.is_sql(r) and (num(r.totals[key]) or default) or nil
end

-- Metrics in the order shown: label, unit, getter.  A row is shown when at
-- least one run has a value; `all`: only when every run has it (a tpmC
-- beside a run without one compares nothing).  `lower`: smaller is better
-- (the report colours ratios by it).
M.metrics = {
  { "events", "", function(r) return r.totals and num(r.totals.events) end },
  { "duration", "s", function(r) return num(r.duration_s) end, lower = true },
  { "events/s", "", function(r) return not result.is_sql(r) and r.totals and num(r.totals.events_per_sec) or nil end },
  { "TPS", "", function(r) return sql_total(r, "events_per_sec") end },
  { "QPS", "", function(r) return sql_total(r, "queries_per_sec") end },
  { "tpmC", "", function(r) return tpcc(r, "tpmC") end, all = true },
  { "NOTPM", "", function(r) return tpcc(r, "notpm") end, all = true },
  { "tpmTotal", "", function(r) return tpcc(r, "tpm_total") end, all = true },
  { "efficiency", "%", function(r) return tpcc(r, "efficiency_pct") end, all = true },
  { "IOPS", "", function(r) return result.iops(r) end },
  { "read", "MiB/s", function(r) return io(r, "read_mib_per_sec") end },
  { "written", "MiB/s", function(r) return io(r, "written_mib_per_sec") end },
  { "fsyncs/s", "", function(r) return io(r, "fsyncs_per_sec") end },
  { "latency avg", "ms", function(r) return latency(r, "avg") end, lower = true },
  { "latency p95", "ms", lat("95"), lower = true },
  { "latency p99", "ms", lat("99"), lower = true },
  { "latency max", "ms", function(r) return latency(r, "max") end, lower = true },
  { "errors", "", function(r) return sql_total(r, "errors", 0) end, lower = true },
  { "ignored errors", "", function(r) return sql_total(r, "ignored_errors") end, lower = true },
  { "reconnects", "", function(r) return sql_total(r, "reconnects") end, lower = true },
  { "server buffer hit", "%", observed_of("server_hit_pct") },
  { "server disk reads/s", "", observed_of("server_disk_reads_per_sec"), lower = true },
  { "server written", "MiB/s", observed_of("server_written_mib_per_sec"), lower = true },
  { "server log written", "MiB/s", observed_of("server_log_mib_per_sec"), lower = true },
  { "host iowait", "%", observed_of("host_iowait_pct"), lower = true },
  { "device util", "%", observed_of("device_util_pct"), lower = true },
  { "device await", "ms", observed_of("device_await_ms"), lower = true },
}

function M.metric_title(m) return m[2] ~= "" and (m[1] .. " (" .. m[2] .. ")") or m[1] end

-- The metrics any of the runs has (every run, for those marked `all`).
function M.present_metrics(runs)
  local out = {}
  for _, m in ipairs(M.metrics) do
    local have = 0
    for _, r in ipairs(runs) do
      if m[3](r) ~= nil then have = have + 1 end
    end
    if have > 0 and (not m.all or have == #runs) then out[#out + 1] = m end
  end
  return out
end

-- Whether result documents a and b can be set against each other, so that
-- a ratio between them means something: the same scenario (unless
-- `force`), and a sweep only with a sweep.  Returns true, or false and
-- "scenario" or "sweep".  lbench compare refuses what this refuses, and
-- lbench report computes no ratio for it (report/htmlreport.lua).
function M.comparable(a, b, force)
  if not force and a.scenario ~= b.scenario then return false, "scenario" end
  if result.is_sweep(a) ~= result.is_sweep(b) then return false, "sweep" end
  return true
end

-- lbench compare's check of its files: fails with one line naming them;
-- returns whether they are sweeps.
function M.check_comparable(docs, files, force)
  -- Every scenario first: a different scenario is the likelier mistake.
  for i = 2, #docs do
    local _, why = M.comparable(docs[1], docs[i], force)
    if why == "scenario" then
      util.fail("cannot compare: '%s' ran scenario '%s' but '%s' ran '%s' (add --force to compare anyway)",
        files[1], tostring(docs[1].scenario), files[i], tostring(docs[i].scenario))
    end
  end
  for i = 2, #docs do
    if not M.comparable(docs[1], docs[i], true) then
      util.fail("cannot compare sweep files with single-run files (compare sweeps with sweeps, runs with runs)")
    end
  end
  return result.is_sweep(docs[1])
end

-- Display name of a file: its base name without .json.
function M.run_name(path)
  return (path:match("([^/]*)$"):gsub("%.json$", ""))
end

-- Names for a list of files: --names=a,b when given, else base names made
-- unique with a #n suffix.
function M.names(files, names_opt)
  local names = {}
  if names_opt and names_opt ~= true then
    names = util.split(names_opt, ",")
    if #names ~= #files then
      util.fail("--names: %d name(s) given for %d file(s)", #names, #files)
    end
    return names
  end
  local count = {}
  for i, f in ipairs(files) do
    names[i] = M.run_name(f)
    count[names[i]] = (count[names[i]] or 0) + 1
  end
  for i in ipairs(names) do
    if count[names[i]] > 1 then names[i] = names[i] .. "#" .. i end
  end
  return names
end

-- A point of a sweep as "name=value name=value".
function M.point_label(p)
  local sp = p.sweep_point
  if type(sp) ~= "table" then return "run" end
  local parts = {}
  for k, v in json.pairs(sp) do parts[#parts + 1] = k .. "=" .. tostring(v) end
  return #parts > 0 and table.concat(parts, " ") or "run"
end

-- A swept value as a number when it is one (sizes like 2G included).
function M.numeric(v)
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  return tonumber(v) or options.parse_size(v)
end

return M
