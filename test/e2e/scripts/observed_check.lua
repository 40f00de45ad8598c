-- Checks that the server's and the host's figures a tool printed are the
-- ones its result document holds, read here straight from the document's
-- own keys (MariaDB's names), not through lbench's readers:
--   csv     --csv=OUT --file=RUN.json       interval CSV columns = the JSON intervals'
--   sweep   --csv=OUT --file=SWEEP.json     sweep table (CSV) columns = each point's figures
--   compare --csv=OUT --files=A.json,B.json compare's rows = the documents' figures
-- Prints one line per failure and fails; a check that finds no value at
-- all fails too (it would prove nothing).
lbench.cmdline.options = { csv = { "tool output" }, file = { "result document" }, files = { "two documents" } }

local json = require("lbench.json")
local util = require("lbench.util")
local fmt = require("lbench.fmt")

local function load(f) return json.decode(assert(util.read_file(f), "cannot read " .. f)) end

local function split_csv(line)
  local out = {}
  for cell in (line .. ","):gmatch("([^,]*),") do out[#out + 1] = cell end
  return out
end

-- The busiest device (highest util) of a devices table: its figures.
local function busiest(devs)
  local best
  for _, d in json.pairs(type(devs) == "table" and devs or {}) do
    if not best or d.util_pct > best.util_pct then best = d end
  end
  return best
end

-- The expected figures of server figures `s` and host figures `h`.
local function expected(s, h)
  s, h = s or {}, h or {}
  local cpu, dev = h.cpu or {}, busiest(h.devices) or {}
  return { server_hit_pct = s.buffer_pool_hit_pct, server_disk_reads_per_sec = s.buffer_pool_reads_per_sec,
           server_written_mib_per_sec = s.data_written_mib_per_sec,
           server_log_mib_per_sec = s.redo_written_mib_per_sec, host_user_pct = cpu.user_pct,
           host_system_pct = cpu.system_pct, host_iowait_pct = cpu.iowait_pct, device_util_pct = dev.util_pct,
           device_await_ms = dev.await_ms }
end

local KEYS = { "server_hit_pct", "server_disk_reads_per_sec", "server_written_mib_per_sec", "server_log_mib_per_sec",
  "host_user_pct", "host_system_pct", "host_iowait_pct", "device_util_pct", "device_await_ms" }

local bad = {}
local function wrong(...) bad[#bad + 1] = string.format(...) end
local function finish(nvalues)
  if nvalues == 0 then wrong("no value checked") end
  if #bad > 0 then error(table.concat(bad, "; "), 0) end
  print("checked " .. nvalues .. " value(s)")
end

function csv()
  local r = load(lbench.opt.file)
  local lines = {}
  for l in assert(util.read_file(lbench.opt.csv)):gmatch("[^\n]+") do lines[#lines + 1] = l end
  local hi
  for i, l in ipairs(lines) do if l:match("^time_s,") then hi = i break end end
  if not hi then error("no CSV header", 0) end
  local header, col = split_csv(lines[hi]), {}
  for i, c in ipairs(header) do col[c] = i end
  local n, checked, seen = 0, 0, {}
  for i = hi + 1, #lines do
    if not lines[i]:match("^[%d.]") then break end
    n = n + 1
    local cells, iv = split_csv(lines[i]), r.intervals[n]
    if not iv then wrong("row %d: no interval %d in the document", n, n) break end
    if cells[col.time_s] ~= string.format("%.6g", iv.time_s) then wrong("row %d: time_s %s", n, cells[col.time_s]) end
    local e = expected(iv.server, iv.host)
    for _, k in ipairs(KEYS) do
      local v = e[k]
      if not col[k] then wrong("no column %s", k)
      else
        local want = v and string.format("%.6g", v) or ""
        if cells[col[k]] ~= want then wrong("row %d %s: '%s', document %s", n, k, cells[col[k]], want) end
        checked, seen[k] = checked + 1, seen[k] or v ~= nil
      end
    end
  end
  if n ~= #r.intervals then wrong("%d rows, %d intervals", n, #r.intervals) end
  for _, k in ipairs({ "server_hit_pct", "server_disk_reads_per_sec", "host_user_pct" }) do
    if not seen[k] then wrong("no interval has %s", k) end
  end
  finish(checked)
end

local function csv_rows(path)
  local rows = {}
  for l in assert(util.read_file(path)):gmatch("[^\n]+") do rows[#rows + 1] = split_csv(l) end
  return rows
end

function sweep()
  local d = load(lbench.opt.file)
  local rows = csv_rows(lbench.opt.csv)
  local col = {}
  for i, c in ipairs(rows[1]) do col[c] = i end
  local checked = 0
  for i, p in ipairs(d.points) do
    local s, dev = p.server.stats, busiest(p.host_stats and p.host_stats.devices)
    local want = { ["hit %"] = string.format("%.2f", s.buffer_pool_hit_pct),
                   ["disk reads/s"] = fmt.num(s.buffer_pool_reads_per_sec),
                   ["dev util %"] = dev and string.format("%.1f", dev.util_pct) }
    for k, v in pairs(want) do
      if not col[k] then wrong("no column '%s'", k)
      elseif rows[i + 1][col[k]] ~= v then wrong("point %d '%s': '%s', document %s", i, k, rows[i + 1][col[k]], v)
      else checked = checked + 1 end
    end
    if not dev and col["dev util %"] then wrong("a 'dev util %%' column without a device") end
  end
  finish(checked)
end

function compare()
  local f = util.split(lbench.opt.files, ",")
  local a, b = load(f[1]), load(f[2])
  local by = {}
  for _, row in ipairs(csv_rows(lbench.opt.csv)) do by[row[1]] = row end
  local ea = expected(a.server.stats, a.host_stats)
  local eb = expected(b.server.stats, b.host_stats)
  local checked = 0
  for label, k in pairs({ ["server buffer hit (%)"] = "server_hit_pct", ["server disk reads/s"] = "server_disk_reads_per_sec",
      ["server written (MiB/s)"] = "server_written_mib_per_sec", ["server log written (MiB/s)"] = "server_log_mib_per_sec",
      ["host iowait (%)"] = "host_iowait_pct", ["device util (%)"] = "device_util_pct",
      ["device await (ms)"] = "device_await_ms" }) do
    local row = by[label]
    if ea[k] == nil and eb[k] == nil then
      if row then wrong("row '%s' without a value", label) end
    elseif not row then wrong("no row '%s'", label)
    elseif row[2] ~= fmt.num(ea[k]) or row[3] ~= fmt.num(eb[k]) then
      wrong("'%s': %s %s, documents %s %s", label, row[2], row[3], fmt.num(ea[k]), fmt.num(eb[k]))
    else checked = checked + 1 end
  end
  if not by["server buffer hit (%)"] then wrong("no server buffer hit row") end
  finish(checked)
end

lbench.cmdline.commands = { csv = { csv }, sweep = { sweep }, compare = { compare } }
