-- `lbench plot run.json [more.json ...] --out=DIR [--format=png,svg]
-- [--names=a,b] [--title=T]`: charts of result files with gnuplot.
--
-- Charts (each when the files hold the data for it):
--   throughput   throughput per report interval over time, runs overlaid,
--                warm-up intervals shaded
--   jitter       per-interval deviation of throughput from the run's mean (%)
--   latency      latency percentiles per interval over time
--   scaling      throughput against threads with ideal linear scaling (sweeps)
--   sweep-NAME   throughput against the swept value NAME (sweeps)
--   fileio       fileio throughput per N I/Os (`fileio.series`: the write cliff)
--   fileio-latency  p99 read and write latency per N I/Os (fileio points)
--
-- For every chart DIR holds NAME.dat (the data, one block per series),
-- NAME.gp (the gnuplot script) and the rendered NAME.png / NAME.svg, so
-- `cd DIR && gnuplot -e "fmt='svg'" NAME.gp` redraws it.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local cmp = require("lbench.compare")
local result = require("lbench.result")

local M = {}

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- A gnuplot double-quoted string.
local function gq(s) return '"' .. tostring(s):gsub('\\', '\\\\'):gsub('"', '\\"') .. '"' end

local function n(v) return string.format("%.10g", v) end

local function sh_ok(status) return status == 0 or status == true end

function M.have_gnuplot()
  local p = io.popen("command -v gnuplot 2>/dev/null")
  if not p then return false end
  local s = p:read("*a") or ""
  p:close()
  return s:match("%S") ~= nil
end

-- mkdir -p without a shell (PATH may not even hold mkdir).
function M.mkdir_p(dir)
  pcall(ffi.cdef, "int mkdir(const char *path, unsigned int mode);")
  pcall(ffi.cdef, "char *strerror(int errnum);")
  local path = dir:sub(1, 1) == "/" and "" or "."
  for part in dir:gmatch("[^/]+") do
    path = path .. "/" .. part
    if ffi.C.mkdir(path, 493) ~= 0 and ffi.errno() ~= 17 then -- 0755; EEXIST is fine
      util.fail("--out=%s: cannot create '%s': %s", dir, path, ffi.string(ffi.C.strerror(ffi.errno())))
    end
  end
end

-- ---- series extraction ----------------------------------------------------

-- Every run of the inputs: single results as they are, each point of a
-- sweep as "<name> <point label>".
local function runs_of(docs, names)
  local runs = {}
  for i, d in ipairs(docs) do
    if result.is_sweep(d) then
      for _, p in ipairs(d.points) do
        runs[#runs + 1] = { name = names[i] .. " " .. cmp.point_label(p), r = p }
      end
    else
      runs[#runs + 1] = { name = names[i], r = d }
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

local function throughput_chart(runs)
  local series, warm = {}, {}
  local used = {}
  for _, run in ipairs(runs) do
    if has_intervals(run.r) then
      local pts = {}
      for _, iv in ipairs(run.r.intervals) do pts[#pts + 1] = { iv.time_s, interval_throughput(run.r, iv) } end
      series[#series + 1] = { title = run.name, points = pts, style = "linespoints" }
      used[#used + 1] = run
      local w = tonumber(run.r.warmup_s) or 0
      if w > 0 then warm[#warm + 1] = w end
    end
  end
  if #series == 0 then return nil, "no per-interval data (run with --report-interval=S)" end
  return { name = "throughput", title = "Throughput over time", xlabel = "time since start (s)",
           ylabel = "throughput (" .. labels_of(used) .. ")", series = series, warmup = warm, yzero = true,
           xzero = true }
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
        series[#series + 1] = { title = string.format("%s (mean %s)", run.name, cmp.fmt(mean)), points = pts,
                                style = "linespoints" }
        used[#used + 1] = run
        local w = tonumber(run.r.warmup_s) or 0
        if w > 0 then warm[#warm + 1] = w end
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
        series[#series + 1] = { title = run.name .. " p" .. k, points = pts, style = "linespoints",
                                color = nruns, dash = ki }
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

-- x positions of swept values: numbers as they are, sizes (2G) in GiB or
-- MiB, anything else as categories in the order swept.
local function x_axis(values)
  local all_plain, all_num, any_size = true, true, false
  for _, v in ipairs(values) do
    if type(v) ~= "number" and not tonumber(v) then
      all_plain = false
      if not cmp.numeric(v) then all_num = false else any_size = true end
    end
  end
  if all_plain then
    return function(v) return tonumber(v) end, ""
  end
  if all_num and any_size then
    local maxb = 0
    for _, v in ipairs(values) do maxb = math.max(maxb, cmp.numeric(v)) end
    local unit, div = "GiB", 2 ^ 30
    if maxb < 2 ^ 30 then unit, div = "MiB", 2 ^ 20 end
    return function(v) return cmp.numeric(v) / div end, " (" .. unit .. ")"
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
            pts[#pts + 1] = { x, (result.throughput(p)), categorical and tostring(v) or nil }
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
    local h = step >= 1e6 and (cmp.fmt(step / 1e6) .. " million") or step >= 1e3 and (cmp.fmt(step / 1e3) .. " thousand")
      or cmp.fmt(step)
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

-- ---- rendering ------------------------------------------------------------------

local function write(path, s)
  local f, e = io.open(path, "wb")
  if not f then util.fail("plot: cannot write '%s': %s", path, tostring(e)) end
  f:write(s)
  f:close()
end

local function script(ch, title_prefix)
  local L = {}
  local function add(s) L[#L + 1] = s end
  add("# lbench plot: " .. ch.title)
  add("# Redraw: cd to this directory, then  gnuplot -e \"fmt='png'\" " .. ch.name .. ".gp   (or fmt='svg')")
  add('if (!exists("fmt")) fmt = "png"')
  add('if (fmt eq "svg") {')
  add('  set terminal svg size 1000,600 dynamic noenhanced font "Sans,12" background rgb "white"')
  add('  set output "' .. ch.name .. '.svg"')
  add("} else {")
  add('  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {')
  add('    set terminal pngcairo size 1000,600 noenhanced font "Sans,10" background rgb "white"')
  add("  } else {")
  add('    set terminal png size 1000,600 noenhanced')
  add("  }")
  add('  set output "' .. ch.name .. '.png"')
  add("}")
  add("set title " .. gq((title_prefix and (title_prefix .. ": ") or "") .. ch.title))
  add("set xlabel " .. gq(ch.xlabel))
  -- Throughputs in the millions read better scaled than as 1.2e+08.
  local ymax = 0
  for _, s in ipairs(ch.series) do
    for _, p in ipairs(s.points) do if p[2] == p[2] then ymax = math.max(ymax, math.abs(p[2])) end end
  end
  local ylabel = ch.ylabel
  if ymax >= 1e6 and ch.ylabel:match("^throughput %(") then
    ch.yscale = 1e6
    ylabel = ch.ylabel:gsub("^throughput %(", "throughput (millions of ")
  end
  add("set ylabel " .. gq(ylabel))
  -- Distinct colours (Tableau 10), cycling.
  local palette = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                    "#bcbd22", "#17becf" }
  for i, c in ipairs(palette) do add(string.format('set linetype %d lc rgb "%s" lw 2', i, c)) end
  add("set linetype cycle " .. #palette)
  add("set grid")
  add("set key outside right top vertical Left reverse noenhanced")
  add("set border 3")
  add("set tics nomirror")
  if ch.yzero then add("set yrange [0:*]") end
  if ch.xzero then add("set xrange [0:*]") end
  if ch.categories then
    add("set xrange [0.5:" .. (#ch.categories + 0.5) .. "]")
  elseif ch.xtics then
    -- Tics at the swept values (1, 2, 4, 8 ... threads) when there are few.
    local xs, seen = {}, {}
    for _, s in ipairs(ch.series) do
      for _, p in ipairs(s.points) do
        if not seen[p[1]] then seen[p[1]] = true; xs[#xs + 1] = p[1] end
      end
    end
    table.sort(xs)
    if #xs > 0 and #xs <= 16 then
      local t = {}
      for _, x in ipairs(xs) do t[#t + 1] = n(x) end
      add("set xtics (" .. table.concat(t, ", ") .. ")")
    end
  end
  local warm_seen, nobj = {}, 0
  for _, w in ipairs(ch.warmup or {}) do
    if not warm_seen[w] then
      warm_seen[w] = true
      nobj = nobj + 1
      add(string.format('set object %d rect from first 0, graph 0 to first %s, graph 1 behind ' ..
        'fillcolor rgb "#b0b0b0" fillstyle transparent solid 0.25 noborder', nobj, n(w)))
    end
  end
  if ch.zero_line then add("set arrow from graph 0, first 0 to graph 1, first 0 nohead dt 2 lc rgb \"#606060\"") end
  local items = {}
  for i, s in ipairs(ch.series) do
    local color = s.color or i
    local y = ch.yscale and ("($2/" .. n(ch.yscale) .. ")") or "2"
    local using = ch.categories and ("1:" .. y .. ":xtic(3)") or ("1:" .. y)
    local style = s.style == "lines" and "lines lw 2" or "linespoints lw 2 pt 7 ps 0.6"
    items[#items + 1] = string.format('"%s.dat" index %d using %s with %s lc %d dt %d title %s',
      ch.name, i - 1, using, style, color, s.dash or 1, gq(s.title))
  end
  if nobj > 0 then
    items[#items + 1] = 'keyentry with boxes fillcolor rgb "#b0b0b0" fillstyle transparent solid 0.25 noborder title "warm-up"'
  end
  add("plot " .. table.concat(items, ", \\\n     "))
  return table.concat(L, "\n") .. "\n"
end

local function data(ch)
  local L = {}
  for i, s in ipairs(ch.series) do
    if i > 1 then L[#L + 1] = "\n" end
    L[#L + 1] = "# " .. s.title
    L[#L + 1] = "# x\ty" .. (ch.categories and "\tlabel" or "")
    if #s.points == 0 then L[#L + 1] = "NaN\tNaN" .. (ch.categories and "\t-" or "") end
    for _, p in ipairs(s.points) do
      L[#L + 1] = n(p[1]) .. "\t" .. n(p[2]) .. (ch.categories and ("\t" .. gq(p[3] or "")) or "")
    end
  end
  return table.concat(L, "\n") .. "\n"
end

-- Every chart the documents give, with its data and gnuplot script
-- (plain text, so that nothing can fail after this), and what was skipped.
local function build(docs, names, title)
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
  for _, ch in ipairs(charts) do ch.dat, ch.gp = data(ch), script(ch, title) end
  return charts, skipped
end

M.usage = "usage: lbench plot run.json [more.json ...] --out=DIR [--format=png,svg] [--names=a,b] [--title=T]"

function M.main(rt, argv)
  local opts, files = cmp.parse_args(argv, { out = true, format = true, names = true, title = true }, "plot")
  if #files == 0 or not opts.out or opts.out == true then
    util.fail(M.usage)
  end
  local formats = {}
  for _, f in ipairs(util.split(opts.format == nil and "png,svg" or tostring(opts.format), ",")) do
    f = util.trim(f)
    if f ~= "png" and f ~= "svg" then util.fail("--format=%s: expected png, svg or png,svg", tostring(opts.format)) end
    formats[#formats + 1] = f
  end
  if #formats == 0 then util.fail("--format: expected png, svg or png,svg") end
  local docs = {}
  for i, f in ipairs(files) do docs[i] = result.load(f) end
  local names = cmp.names(files, opts.names)
  local dir = opts.out:gsub("/+$", "")
  if dir == "" then dir = "/" end

  local title = opts.title ~= true and opts.title or nil
  local ok, charts, skipped = pcall(build, docs, names, title)
  if not ok then
    if util.is_usage_error(charts) then error(charts, 0) end
    -- A file that parses but holds values of the wrong type (edited or
    -- damaged): name the first that fails on its own.
    local bad = table.concat(files, "', '")
    for i, d in ipairs(docs) do
      if not pcall(build, { d }, { names[i] }, title) then bad = files[i] break end
    end
    util.fail("'%s' holds malformed values, cannot plot it (%s)", bad, tostring(charts))
  end
  if #charts == 0 then
    util.fail("nothing to plot: %s", table.concat(skipped, "; "))
  end

  M.mkdir_p(dir)
  for _, ch in ipairs(charts) do
    write(dir .. "/" .. ch.name .. ".dat", ch.dat)
    write(dir .. "/" .. ch.name .. ".gp", ch.gp)
  end
  if not M.have_gnuplot() then
    util.fail("gnuplot not found in PATH (Debian: apt-get install gnuplot-nox); the data and gnuplot scripts " ..
      "are in %s: render them there with  gnuplot -e \"fmt='png'\" NAME.gp", dir)
  end
  local written = {}
  for _, ch in ipairs(charts) do
    local files_ = {}
    for _, fmt in ipairs(formats) do
      local errf = ch.name .. "." .. fmt .. ".log"
      local cmd = string.format("cd %s && gnuplot -e %s %s >%s 2>&1", shq(dir), shq("fmt='" .. fmt .. "'"),
        shq(ch.name .. ".gp"), shq(errf))
      local st = os.execute(cmd)
      local log = util.read_file(dir .. "/" .. errf) or ""
      os.remove(dir .. "/" .. errf)
      local img = dir .. "/" .. ch.name .. "." .. fmt
      local content = util.read_file(img)
      if not sh_ok(st) or not content or #content == 0 then
        util.fail("gnuplot failed on %s/%s.gp (%s): %s", dir, ch.name, fmt,
          (log:gsub("%s+$", ""):gsub("\n", " | ")):sub(1, 400))
      end
      files_[#files_ + 1] = ch.name .. "." .. fmt
    end
    written[#written + 1] = string.format("  %-16s %s", ch.name, table.concat(files_, " "))
  end
  local lines = { string.format("Plots of %d file(s) in %s/ (NAME.dat + NAME.gp redraw each one):", #files, dir) }
  for _, w in ipairs(written) do lines[#lines + 1] = w end
  for _, s in ipairs(skipped) do lines[#lines + 1] = "  skipped " .. s end
  local s = table.concat(lines, "\n") .. "\n"
  out(rt, s)
  return 0
end

return M
