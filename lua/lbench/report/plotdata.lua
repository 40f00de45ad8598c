-- The charts a set of result documents gives, as data: which charts, their
-- titles and axis labels, and the series of points.  `lbench plot` renders
-- them with gnuplot, `lbench report` as inline SVG; both read them here so
-- that the two always show the same figures.
--
--   charts(docs, names) -> charts, skipped
--     charts:  list of { name=, title=, xlabel=, ylabel=, series = { { title=,
--              points = { {x, y, label?} }, style = "lines"|"linespoints",
--              color=? (index), dash=? (index, 1 = solid), run=? (the run's
--              name), warmup=? (s: where that run's warm-up ends), marks=?
--              { {x, label} } (that run's phase boundaries) } },
--              warmup = {s...} (every series' warm-up end), yzero=, xzero=,
--              xtics= (ticks at the data's x), categories=? (x = 1..n name
--              these), zero_line=, marks=? { {x, label} } (every series'
--              phase boundaries) }
--     A warm-up and phase boundaries belong to one run: its own series
--     carry them (the report draws them on that run's lines only); the
--     chart-wide lists are their union, for gnuplot (report/plot.lua).
--     skipped: "chart: why" for each chart the documents hold no data for.
local json = require("lbench.json")
local catalogue = require("lbench.result.catalogue")
local fmt = require("lbench.fmt")
local result = require("lbench.result.document")

local M = {}

-- Every run of the inputs: single results as they are, each point of a
-- sweep as "<name> <point label>"; `doc` is the document it came from
-- (what decides which runs compare: catalogue.comparable).
local function runs_of(docs, names)
  local runs = {}
  for i, d in ipairs(docs) do
    if result.is_sweep(d) then
      for _, p in ipairs(d.points) do
        runs[#runs + 1] = { name = names[i] .. " " .. catalogue.point_label(p), r = p, doc = d }
      end
    else
      runs[#runs + 1] = { name = names[i], r = d, doc = d }
    end
  end
  return runs
end

local function interval_throughput(r, iv)
  if type(r.io) == "table" then
    local io = iv.io
    if type(io) ~= "table" then return 0 end
    return (io.reads_per_sec or 0) + (io.writes_per_sec or 0)
  end
  return iv.events_per_sec or 0
end

local function has_intervals(r) return type(r.intervals) == "table" and #r.intervals > 0 end

local function labels_of(runs)
  local seen, list = {}, {}
  for _, run in ipairs(runs) do
    local _, l = result.throughput(run.r)
    if not seen[l] then seen[l] = true; list[#list + 1] = l end
  end
  return table.concat(list, ", ")
end

-- Phase boundaries of a --rate schedule as marks { x (s since start), label }.
local function phase_marks(r)
  local marks = {}
  for i, ph in ipairs(type(r.phases) == "table" and r.phases or {}) do
    if i > 1 then marks[#marks + 1] = { (tonumber(r.warmup_s) or 0) + ph.start_s, ph.name } end
  end
  return marks
end

-- Series `s` as run `run`'s: its name, where its warm-up ends (none: nil)
-- and, when asked, its phase boundaries; the warm-up and the boundaries
-- are added to the chart-wide lists `warm` and `marks` too.
local function own(s, run, warm, marks)
  local w = tonumber(run.r.warmup_s) or 0
  s.run = run.name
  if w > 0 then
    s.warmup = w
    if warm then warm[#warm + 1] = w end
  end
  if marks then
    s.marks = phase_marks(run.r)
    for _, m in ipairs(s.marks) do marks[#marks + 1] = m end
  end
  return s
end

local function throughput_chart(runs)
  local series, warm, marks = {}, {}, {}
  local used = {}
  for _, run in ipairs(runs) do
    if has_intervals(run.r) then
      local pts = {}
      for _, iv in ipairs(run.r.intervals) do pts[#pts + 1] = { iv.time_s, interval_throughput(run.r, iv) } end
      series[#series + 1] = own({ title = run.name, points = pts, style = "linespoints" }, run, warm, marks)
      used[#used + 1] = run
    end
  end
  if #series == 0 then return nil, "no per-interval data (run with --report-interval=S)" end
  return { name = "throughput", title = "Throughput over time", xlabel = "time since start (s)",
           ylabel = "throughput (" .. labels_of(used) .. ")", series = series, warmup = warm, yzero = true,
           xzero = true, marks = marks }
end

local function jitter_chart(runs)
  local series, warm, used = {}, {}, {}
  for _, run in ipairs(runs) do
    if has_intervals(run.r) then
      local sum, cnt = 0, 0
      for _, iv in ipairs(run.r.intervals) do
        if not iv.warmup then sum = sum + interval_throughput(run.r, iv); cnt = cnt + 1 end
      end
      local mean = cnt > 0 and sum / cnt or 0
      if mean > 0 then
        local pts = {}
        for _, iv in ipairs(run.r.intervals) do
          pts[#pts + 1] = { iv.time_s, (interval_throughput(run.r, iv) - mean) / mean * 100 }
        end
        series[#series + 1] = own({ title = string.format("%s (mean %s)", run.name, fmt.num(mean)), points = pts,
                                    style = "linespoints" }, run, warm)
        used[#used + 1] = run
      end
    end
  end
  if #series == 0 then return nil, "no per-interval data (run with --report-interval=S)" end
  return { name = "jitter", title = "Jitter: per-interval throughput against the run's mean (warm-up excluded from the mean)",
           xlabel = "time since start (s)", ylabel = "deviation from mean throughput (%)", series = series,
           warmup = warm, zero_line = true, xzero = true }
end

local function latency_chart(runs)
  local series = {}
  local nruns = 0
  for _, run in ipairs(runs) do
    if has_intervals(run.r) then
      local keys, seen = {}, {}
      for _, iv in ipairs(run.r.intervals) do
        local p = type(iv.latency_ms) == "table" and iv.latency_ms.percentiles
        if type(p) == "table" then
          for k in json.pairs(p) do
            if not seen[k] and tonumber(k) then seen[k] = true; keys[#keys + 1] = k end
          end
        end
      end
      table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
      if #keys > 0 then nruns = nruns + 1 end
      for ki, k in ipairs(keys) do
        local pts = {}
        for _, iv in ipairs(run.r.intervals) do
          local v = result.pct(iv.latency_ms, k)
          if v then pts[#pts + 1] = { iv.time_s, v } end
        end
        series[#series + 1] = own({ title = run.name .. " p" .. k, points = pts, style = "linespoints",
                                    color = nruns, dash = ki }, run)
      end
    end
  end
  if #series == 0 then return nil, "no per-interval latency (run with --report-interval=S)" end
  return { name = "latency", title = "Latency percentiles per interval", xlabel = "time since start (s)",
           ylabel = "latency (ms)", series = series, yzero = true, xzero = true }
end

-- The dimensions of a sweep document: list of {name, kind}.
local function dims_of(d)
  local out_ = {}
  local sw = d.sweep
  if type(sw) == "table" and type(sw.dimensions) == "table" then
    for _, x in ipairs(sw.dimensions) do out_[#out_ + 1] = { name = x.name, kind = x.kind } end
  end
  return out_
end

local function coord(p, name)
  return type(p.sweep_point) == "table" and p.sweep_point[name] or nil
end

-- Label of a point's coordinates except `skip`.
local function other_label(p, dims, skip)
  local parts = {}
  for _, dm in ipairs(dims) do
    if dm.name ~= skip then parts[#parts + 1] = dm.name .. "=" .. tostring(coord(p, dm.name)) end
  end
  return table.concat(parts, " ")
end

-- Points of a sweep grouped by the values of the other dimensions.
local function groups(d, dims, xname)
  local order, by = {}, {}
  for _, p in ipairs(d.points) do
    local g = other_label(p, dims, xname)
    if not by[g] then by[g] = {}; order[#order + 1] = g end
    local list = by[g]
    list[#list + 1] = p
  end
  return order, by
end

local function scaling_chart(docs, names)
  local series, used = {}, {}
  local color = 0
  for i, d in ipairs(docs) do
    if result.is_sweep(d) then
      local dims = dims_of(d)
      local has = false
      for _, dm in ipairs(dims) do if dm.name == "threads" then has = true end end
      if has then
        local order, by = groups(d, dims, "threads")
        for _, g in ipairs(order) do
          local pts, ideal = {}, {}
          local base_t, base_x
          for _, p in ipairs(by[g]) do
            local t = tonumber(p.threads) or tonumber(coord(p, "threads"))
            local v = result.throughput(p)
            if t and v then
              if not base_t then base_t, base_x = t, v end
              pts[#pts + 1] = { t, v }
              ideal[#ideal + 1] = { t, base_x * t / base_t }
              used[#used + 1] = { r = p }
            end
          end
          if #pts > 0 then
            color = color + 1
            local title = names[i] .. (g ~= "" and (" " .. g) or "")
            series[#series + 1] = { title = title, points = pts, style = "linespoints", color = color }
            series[#series + 1] = { title = title .. " ideal linear", points = ideal, style = "lines", color = color,
                                    dash = 2 }
          end
        end
      end
    end
  end
  if #series == 0 then return nil, "no sweep over --threads among the inputs" end
  return { name = "scaling", title = "Scaling: throughput against threads (dashed: ideal linear from the first point)",
           xlabel = "threads", ylabel = "throughput (" .. labels_of(used) .. ")", series = series, yzero = true,
           xzero = true, xtics = true }
end

-- A percentage ("37.5%", a fileio --fill level) as its number, else nil.
local function percent(v)
  return type(v) == "string" and tonumber(v:match("^%s*([%d.]+)%s*%%%s*$")) or nil
end

-- x positions of swept values: numbers as they are, percentages (25%) as
-- their numbers, sizes (2G) in GiB or MiB, anything else as categories in
-- the order swept.
local function x_axis(values)
  local all_pct = #values > 0
  for _, v in ipairs(values) do if not percent(v) then all_pct = false end end
  if all_pct then return percent, " (%)" end
  local all_plain, all_num, any_size = true, true, false
  for _, v in ipairs(values) do
    if type(v) ~= "number" and not tonumber(v) then
      all_plain = false
      if not catalogue.numeric(v) then all_num = false else any_size = true end
    end
  end
  if all_plain then
    return function(v) return tonumber(v) end, ""
  end
  if all_num and any_size then
    local maxb = 0
    for _, v in ipairs(values) do maxb = math.max(maxb, catalogue.numeric(v)) end
    local unit, div = "GiB", 2 ^ 30
    if maxb < 2 ^ 30 then unit, div = "MiB", 2 ^ 20 end
    return function(v) return catalogue.numeric(v) / div end, " (" .. unit .. ")"
  end
  local idx = {}
  for i, v in ipairs(values) do idx[tostring(v)] = i end
  return function(v) return idx[tostring(v)] end, "", true
end

local function sweep_charts(docs, names)
  local charts = {}
  local by_dim, order = {}, {}
  for i, d in ipairs(docs) do
    if result.is_sweep(d) then
      local dims = dims_of(d)
      -- Threads are the scaling chart's x axis; here the other dimensions.
      local xdim
      for _, dm in ipairs(dims) do if dm.name ~= "threads" then xdim = dm.name break end end
      if xdim then
        if not by_dim[xdim] then by_dim[xdim] = {}; order[#order + 1] = xdim end
        local list = by_dim[xdim]
        list[#list + 1] = { d = d, name = names[i], dims = dims }
      end
    end
  end
  for _, xdim in ipairs(order) do
    local values, seen = {}, {}
    for _, e in ipairs(by_dim[xdim]) do
      for _, p in ipairs(e.d.points) do
        local v = coord(p, xdim)
        if v ~= nil and not seen[tostring(v)] then seen[tostring(v)] = true; values[#values + 1] = v end
      end
    end
    local xf, unit, categorical = x_axis(values)
    local series, used = {}, {}
    for _, e in ipairs(by_dim[xdim]) do
      local gorder, by = groups(e.d, e.dims, xdim)
      for _, g in ipairs(gorder) do
        local pts = {}
        for _, p in ipairs(by[g]) do
          local v = coord(p, xdim)
          local x = v ~= nil and xf(v) or nil
          if x then
            -- The swept value itself as the label (the report's bar charts).
            pts[#pts + 1] = { x, (result.throughput(p)), tostring(v) }
            used[#used + 1] = { r = p }
          end
        end
        series[#series + 1] = { title = e.name .. (g ~= "" and (" " .. g) or ""), points = pts, style = "linespoints" }
      end
    end
    if categorical then
      table.sort(values, function(a, b) return xf(a) < xf(b) end)
    end
    charts[#charts + 1] = { name = "sweep-" .. xdim:gsub("[^%w_%-]", "_"), title = "Throughput against " .. xdim,
      xlabel = xdim .. unit, ylabel = "throughput (" .. labels_of(used) .. ")", series = series, yzero = true,
      categories = categorical and values or nil, xtics = true }
  end
  if #charts == 0 then return charts, "no sweep over anything but threads among the inputs" end
  return charts
end

-- A run's per-N-I/O points: fileio.points (with report_every_ios) as the
-- fileio scenario writes it, fileio.series accepted too; nil when none.
local function fileio_points(run)
  local f = run.r.fileio
  local s = type(f) == "table" and (f.points or f.series)
  if type(s) == "table" and #s > 0 then return s, f end
end

-- The I/O-count axis: divisor and unit label for the largest count.
local function ios_axis(maxios)
  if maxios >= 1e6 then return 1e6, " (millions)" elseif maxios >= 1e4 then return 1e3, " (thousands)" end
  return 1, ""
end

local function fileio_chart(runs)
  local series = {}
  local maxios = 0
  local every, step = {}, nil
  for _, run in ipairs(runs) do
    local s, f = fileio_points(run)
    if s then
      local e = tonumber(f.report_every_ios)
      if not e and #s > 1 and tonumber(s[2].ios) and tonumber(s[1].ios) then e = s[2].ios - s[1].ios end
      if e then every[e] = true; step = e end
      for _, x in ipairs(s) do maxios = math.max(maxios, tonumber(x.ios) or 0) end
      series[#series + 1] = { title = run.name, raw = s, style = "linespoints" }
    end
  end
  if #series == 0 then return nil, "no per-N-I/O points in the inputs (fileio runs with --report-every-ios)" end
  local div, unit = ios_axis(maxios)
  for _, s in ipairs(series) do
    local pts = {}
    for _, x in ipairs(s.raw) do
      if tonumber(x.ios) and tonumber(x.iops) then pts[#pts + 1] = { x.ios / div, x.iops } end
    end
    s.points, s.raw = pts, nil
  end
  local title = "fileio throughput per block of I/Os"
  if step and next(every, next(every)) == nil then
    local h = step >= 1e6 and (fmt.num(step / 1e6) .. " million") or step >= 1e3 and (fmt.num(step / 1e3) .. " thousand")
      or fmt.num(step)
    title = "fileio throughput, each point = " .. h .. " I/Os"
  end
  return { name = "fileio", title = title, xlabel = "I/Os completed" .. unit,
           ylabel = "throughput (IOPS)", series = series, yzero = true }
end

-- p99 read and write latency per point of the same series (fileio points
-- carry read_/write_lat_{p50,p95,p99,p99_9,max}_ms); a series that is all
-- zeros (no reads, or no writes) is left out.
local function fileio_latency_chart(runs)
  local series, maxios, nruns = {}, 0, 0
  for _, run in ipairs(runs) do
    local s = fileio_points(run)
    if s then
      local any = false
      for ki, kind in ipairs({ "read", "write" }) do
        local key, pts, nonzero = kind .. "_lat_p99_ms", {}, false
        for _, x in ipairs(s) do
          local v, ios = tonumber(x[key]), tonumber(x.ios)
          if v and ios then
            pts[#pts + 1] = { ios, v }
            nonzero = nonzero or v > 0
          end
        end
        if nonzero then
          if not any then nruns = nruns + 1; any = true end
          for _, pt in ipairs(pts) do maxios = math.max(maxios, pt[1]) end
          series[#series + 1] = { title = run.name .. " " .. kind .. " p99", points = pts, style = "linespoints",
                                  color = nruns, dash = ki }
        end
      end
    end
  end
  if #series == 0 then return nil, "no per-N-I/O latency percentiles in the inputs (fileio runs with --report-every-ios)" end
  local div, unit = ios_axis(maxios)
  for _, sr in ipairs(series) do
    for _, pt in ipairs(sr.points) do pt[1] = pt[1] / div end
  end
  return { name = "fileio-latency", title = "fileio p99 latency per block of I/Os (solid: reads, dashed: writes)",
           xlabel = "I/Os completed" .. unit, ylabel = "latency (ms)", series = series, yzero = true }
end


-- TPC-C transactions per minute of each type per interval (new_order's is
-- the tpmC curve); runs of tpcc only (they carry a `tpcc` summary).
local function tpcc_chart(runs)
  local series, warm, nruns = {}, {}, 0
  for _, run in ipairs(runs) do
    local ivs = run.r.intervals
    if type(run.r.tpcc) == "table" and has_intervals(run.r) and type(ivs[1].types) == "table" then
      nruns = nruns + 1
      local order = {}
      for name in json.pairs(ivs[1].types) do order[#order + 1] = name end
      for ti, name in ipairs(order) do
        local pts, prev = {}, 0
        for _, iv in ipairs(ivs) do
          local dt, ty = iv.time_s - prev, type(iv.types) == "table" and iv.types[name]
          prev = iv.time_s
          if dt > 0 and type(ty) == "table" and tonumber(ty.events) then pts[#pts + 1] = { iv.time_s, ty.events / dt * 60 } end
        end
        series[#series + 1] = own({ title = (#runs > 1 and (run.name .. " ") or "") .. name, points = pts,
                                    style = "linespoints", color = ti, dash = nruns }, run, ti == 1 and warm or nil)
      end
    end
  end
  if #series == 0 then return nil, "no TPC-C run with per-interval data among the inputs" end
  return { name = "tpcc", title = "TPC-C throughput per transaction type (new_order: tpmC)",
           xlabel = "time since start (s)", ylabel = "transactions per minute", series = series, warmup = warm,
           yzero = true, xzero = true }
end

-- slap: statements per second against the number of clients, one line per
-- file and engine (the summary of each concurrency level).
local function slap_chart(docs, names)
  local series = {}
  for i, d in ipairs(docs) do
    local sm = type(d.slap) == "table" and d.slap.summary
    if type(sm) == "table" then
      local by, order = {}, {}
      for _, s in ipairs(sm) do
        local e = tostring(s.engine or "")
        if not by[e] then by[e] = {}; order[#order + 1] = e end
        if tonumber(s.concurrency) and tonumber(s.statements_per_sec) then
          local list = by[e]
          list[#list + 1] = { s.concurrency, s.statements_per_sec }
        end
      end
      for _, e in ipairs(order) do
        series[#series + 1] = { title = names[i] .. (e ~= "" and (" " .. e) or ""), points = by[e], style = "linespoints" }
      end
    end
  end
  if #series == 0 then return nil, "no slap result among the inputs" end
  return { name = "slap", title = "slap: statements per second against concurrency", xlabel = "concurrency (clients)",
           ylabel = "statements per second", series = series, yzero = true, xzero = true, xtics = true }
end

-- Every chart the documents give, and what was skipped and why.
function M.charts(docs, names)
  local runs = runs_of(docs, names)
  local charts, skipped = {}, {}
  local function take(what, ch, why)
    if ch then charts[#charts + 1] = ch else skipped[#skipped + 1] = what .. ": " .. why end
  end
  take("throughput", throughput_chart(runs))
  take("jitter", jitter_chart(runs))
  take("latency", latency_chart(runs))
  take("scaling", scaling_chart(docs, names))
  local sw, why = sweep_charts(docs, names)
  if #sw == 0 then skipped[#skipped + 1] = "sweep: " .. why end
  for _, ch in ipairs(sw) do charts[#charts + 1] = ch end
  take("fileio", fileio_chart(runs))
  take("fileio-latency", fileio_latency_chart(runs))
  take("tpcc", tpcc_chart(runs))
  take("slap", slap_chart(docs, names))
  return charts, skipped
end

-- Runs of the inputs (sweep points as "<name> <point>"), for the report's tables.
M.runs_of = runs_of

return M
