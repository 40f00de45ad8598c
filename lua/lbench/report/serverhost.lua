-- The report's "Server and host" section: what the server and the host did
-- during each run (run/observe.lua records it, --server-stats=on), over
-- time beside the throughput chart, and what the server was (product,
-- version, the settings that decide a result, the storage under its
-- data).  Charts from the intervals' `server` and `host`, in the chart
-- data of report/plotdata.lua (drawn by lbench report's line_svg); a
-- chart is drawn only when some run has its figures, the section only
-- when some run recorded the server or the host.
local json = require("lbench.json")
local html = require("lbench.report.html")

local M = {}

local esc = html.escape

local function num(v) return type(v) == "number" and v == v and v or nil end
local function tab(v) return type(v) == "table" and v or nil end

-- The charts: name, title, y label, caption, and the lines of one run,
-- each { title suffix, reader(server figures, host figures) -> y, or a
-- list of such lines per device (per_device) }.
local function srv(my, pg) return function(s) return s and (num(s[my]) or (pg and num(s[pg]))) end end
local function cpu(k) return function(_, h) return h and tab(h.cpu) and num(h.cpu[k]) end end

M.CHARTS = {
  { name = "server-hit", title = "Server buffer hit ratio", ylabel = "hit (%)",
    caption = "Share of page reads the server's buffer pool (shared buffers) answered without a disk read, " ..
      "per report interval.",
    lines = { { "", srv("buffer_pool_hit_pct", "buffer_hit_pct") } } },
  { name = "server-reads", title = "Server disk reads", ylabel = "reads per second",
    caption = "Pages the server read from disk per second (InnoDB buffer pool reads, PostgreSQL blocks read).",
    lines = { { "", srv("buffer_pool_reads_per_sec", "blocks_read_per_sec") } } },
  { name = "server-written", title = "Server data and log written", ylabel = "MiB/s",
    caption = "MiB per second the server wrote to its data files and to its redo log or WAL.",
    lines = { { "data", srv("data_written_mib_per_sec") }, { "log", srv("redo_written_mib_per_sec", "wal_mib_per_sec") } } },
  { name = "host-cpu", title = "Host CPU", ylabel = "share of all CPUs (%)",
    caption = "This host's CPU time per report interval: user, system and I/O wait (what vmstat shows).",
    lines = { { "user", cpu("user_pct") }, { "system", cpu("system_pct") }, { "iowait", cpu("iowait_pct") } } },
  { name = "device-iops", title = "Device I/O", ylabel = "I/Os per second", per_device = true,
    caption = "Reads and writes per second of the block device under the server's data (iostat's r/s, w/s).",
    lines = { { "r/s", "reads_per_sec" }, { "w/s", "writes_per_sec" } } },
  { name = "device-util", title = "Device utilisation", ylabel = "busy (%)", per_device = true,
    caption = "Share of the interval the device had I/O in flight (iostat's %util).",
    lines = { { "util", "util_pct" } } },
  { name = "device-await", title = "Device await", ylabel = "ms", per_device = true,
    caption = "Average time of one I/O at the device, queue included (iostat's await).",
    lines = { { "await", "await_ms" } } },
}

local function intervals(r) return type(r.intervals) == "table" and r.intervals or {} end

-- The device names of a run's intervals, sorted.
local function devices_of(r)
  local seen, list = {}, {}
  for _, iv in ipairs(intervals(r)) do
    local h = tab(iv.host)
    for name in json.pairs(h and tab(h.devices) or {}) do
      if not seen[name] then seen[name] = true; list[#list + 1] = name end
    end
  end
  table.sort(list)
  return list
end

-- One series: points (time_s, y) of `get(iv)`, nil when no interval has a value.
local function series(run, title, get, color, dash)
  local pts, any = {}, false
  for _, iv in ipairs(intervals(run.r)) do
    local y = get(iv)
    if y then any = true end
    if num(iv.time_s) then pts[#pts + 1] = { iv.time_s, y } end
  end
  if not any then return nil end
  local w = num(run.r.warmup_s)
  return { title = title, points = pts, style = "linespoints", color = color, dash = dash, run = run.name,
           warmup = w and w > 0 and w or nil }
end

local function chart_of(spec, runs)
  local list, nrun = {}, 0
  local many = #runs > 1
  for _, run in ipairs(runs) do
    local before = #list
    local idx = nrun + 1
    local function add(title, get, color)
      local s = series(run, title, get, color, idx)
      if s then list[#list + 1] = s end
    end
    local prefix = many and (run.name .. " ") or ""
    if spec.per_device then
      for di, dev in ipairs(devices_of(run.r)) do
        for li, l in ipairs(spec.lines) do
          add(prefix .. dev .. (#spec.lines > 1 and (" " .. l[1]) or ""), function(iv)
            local h = tab(iv.host)
            local d = h and tab(h.devices) and tab(h.devices[dev])
            return d and num(d[l[2]])
          end, (di - 1) * #spec.lines + li)
        end
      end
    else
      for li, l in ipairs(spec.lines) do
        local t = l[1] ~= "" and l[1] or nil
        local name = (prefix .. (t or (many and "" or spec.title))):gsub("%s+$", "")
        add(name, function(iv)
          return l[2](tab(iv.server), tab(iv.host))
        end, many and #spec.lines == 1 and idx or li)
      end
    end
    if #list > before then nrun = nrun + 1 end
  end
  if #list == 0 then return nil end
  return { name = spec.name, title = spec.title, xlabel = "time since start (s)", ylabel = spec.ylabel, series = list,
           yzero = true, xzero = true, caption = spec.caption }
end

-- The charts the runs' intervals give (plotdata's form, with a caption each).
function M.charts(runs)
  local out = {}
  for _, spec in ipairs(M.CHARTS) do
    local ch = chart_of(spec, runs)
    if ch then out[#out + 1] = ch end
  end
  return out
end

-- ---- what the server was -------------------------------------------------------------

local STORAGE = { { "device", "device" }, { "disk", "disk" }, { "model", "model" }, { "rotational", "rotational" },
  { "scheduler", "scheduler" }, { "filesystem", "fs" }, { "mount point", "mount_point" },
  { "mount options", "mount_options" }, { "size (bytes)", "size_bytes" } }

local function text(v)
  if v == nil or v == json.null then return nil end
  if type(v) == "boolean" then return v and "yes" or "no" end
  if type(v) == "number" then return v == math.floor(v) and string.format("%d", v) or string.format("%.10g", v) end
  return tostring(v)
end

-- Rows of the settings table: { label, reader(server) }, settings in their first order over the runs.
local function setting_rows(runs)
  local rows = { { "product", function(s) return s.product end }, { "version", function(s) return s.version end },
                 { "data directory", function(s) return s.data_directory end } }
  local seen = {}
  for _, run in ipairs(runs) do
    local s = tab(run.r.server)
    for k in json.pairs(s and tab(s.settings) or {}) do
      if not seen[k] then
        seen[k] = true
        rows[#rows + 1] = { k, function(x) return tab(x.settings) and x.settings[k] end }
      end
    end
  end
  for _, st in ipairs(STORAGE) do
    rows[#rows + 1] = { "storage: " .. st[1], function(x) return tab(x.storage) and x.storage[st[2]] end }
  end
  rows[#rows + 1] = { "notice", function(x) return x.notice end }
  return rows
end

local function settings_table(runs)
  local with = {}
  for _, run in ipairs(runs) do if tab(run.r.server) then with[#with + 1] = run end end
  if #with == 0 then return nil end
  local header = { "" }
  for _, run in ipairs(with) do header[#header + 1] = run.name end
  local rows = {}
  for _, rs in ipairs(setting_rows(with)) do
    local cells, any, first, same = { { text = rs[1] } }, false, nil, true
    for i, run in ipairs(with) do
      local v = text(rs[2](run.r.server))
      any = any or v ~= nil
      if i == 1 then first = v elseif v ~= first then same = false end
      cells[#cells + 1] = v and { text = v } or { text = "-", class = "muted" }
    end
    if any then
      if not same then for _, c in ipairs(cells) do c.class = "diff" end end
      rows[#rows + 1] = cells
    end
  end
  return html.table(header, rows, { id = "server-table" })
end

-- The section, or nil: `runs` as plotdata.runs_of gives them, `draw(ch)`
-- the SVG of a chart.
function M.section(runs, draw)
  local parts = {}
  local charts = M.charts(runs)
  for _, ch in ipairs(charts) do
    parts[#parts + 1] = string.format('<figure class="lb-figure" id="fig-%s">%s<figcaption class="muted">%s' ..
      '</figcaption></figure>', esc(html.id(ch.name)), draw(ch), esc(ch.caption))
  end
  local st = settings_table(runs)
  if st then
    parts[#parts + 1] = "<h3>Server settings and storage</h3>"
    parts[#parts + 1] = '<p class="note">' .. esc("What each run's server said of itself when the run began, and the " ..
      "device under its data directory (a local server only); a highlighted row differs between runs.") .. "</p>"
    parts[#parts + 1] = '<div class="lb-scroll">' .. st .. "</div>"
  end
  if #parts == 0 then return nil, 0 end
  return { id = "server-host", title = "Server and host", body = table.concat(parts, "\n") }, #charts
end

return M
