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
--   tpcc         TPC-C throughput per transaction type over time (tpm)
--   slap         slap: statements per second against concurrency
--
-- The data of the charts is report/plotdata.lua's (`lbench report` draws the same
-- charts as inline SVG).
--
-- For every chart DIR holds NAME.dat (the data, one block per series),
-- NAME.gp (the gnuplot script) and the rendered NAME.png / NAME.svg, so
-- `cd DIR && gnuplot -e "fmt='svg'" NAME.gp` redraws it.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local catalogue = require("lbench.result.catalogue")
local options = require("lbench.options")
local result = require("lbench.result.document")
local plotdata = require("lbench.report.plotdata")

local M = {}

-- The charts of a set of result documents, as data (report/plotdata.lua).
M.charts = plotdata.charts

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
  for _, m in ipairs(ch.marks or {}) do
    add(string.format('set arrow from first %s, graph 0 to first %s, graph 1 nohead dt 3 lc rgb "#404040"', n(m[1]), n(m[1])))
    add(string.format('set label %s at first %s, graph 0.97 left offset 0.5, 0 font ",8"', gq(m[2]), n(m[1])))
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
  local charts, skipped = plotdata.charts(docs, names)
  for _, ch in ipairs(charts) do ch.dat, ch.gp = data(ch), script(ch, title) end
  return charts, skipped
end

M.usage = "usage: lbench plot run.json [more.json ...] --out=DIR [--format=png,svg] [--names=a,b] [--title=T]"

function M.main(rt, argv)
  local opts, files = options.parse_tool_args(argv, { out = true, format = true, names = true, title = true }, "plot")
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
  local names = catalogue.names(files, opts.names)
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
