-- Charts as inline SVG, written here rather than by gnuplot or a script
-- library: the page then needs no program at report time, no JavaScript to
-- show anything, and the figures are in the document as delivered (a
-- <title> child on every point and bar is the hover text any browser shows).
--
--   chart.line(spec) -> "<svg ...>...</svg>"
--     spec = { title=, x_label=, y_label=, width=?, height=?, id=?,
--              x_time=? (x are Unix seconds: the axis shows UTC dates),
--              y_zero=? (the y axis starts at 0),
--              x_ticks=? {x...} (ticks exactly there: threads 1, 2, 4 ...),
--              x_categories=? {label...} (x = 1..n are these labels),
--              x_zero=? (the x axis starts at 0),
--              series = { { name=, points = { {x=, y=, tip=?, href=?} },
--                           dash=? (true, or a pattern number 2..5; 1 = solid),
--                           color=? (palette index or "#rrggbb"),
--                           run=? (the run it is of, for hover texts),
--                           warmup=? (x where its run's warm-up ends: the
--                             line faded and the dots hollow up to there),
--                           marks=? { {x=, label=} } (its run's phase
--                             boundaries: lines in the series' colour) } },
--              marks=? { {x=, label=} } (vertical marker lines of the whole
--                chart: the lbench version changing),
--              shade=? { {from=, to=, label=} } (x ranges shaded),
--              ideal=? a series or a list of series, drawn dashed }
--     A point's `tip` is its hover text (default "name: x, y"); `href` makes
--     the point a link ("#run-17").  A y that is nil or NaN breaks the line.
--   chart.bar(spec) -> "<svg ...>"
--     spec = { title=, y_label=, x_label=?, width=?, height=?, id=?, categories = {names},
--              series = { { name=, values = {...}, tips=? {...} } } }
--     grouped bars, one group per category, the value on hover (and above
--     the bar when there is room).
local html = require("lbench.report.html")
local fmt = require("lbench.fmt")

local M = {}

-- Tableau 10: distinct on screen and in grey print.
M.palette = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
              "#bcbd22", "#17becf" }

local esc = html.escape

local function colour(c, i)
  if type(c) == "string" then return c end
  local k = tonumber(c) or i
  return M.palette[(k - 1) % #M.palette + 1]
end

-- Dash patterns by number (1 = solid); `true` is the first dashed one.
local DASHES = { "6 4", "2 3", "10 3 2 3", "1 2", "12 4" }

local function dash_attr(d)
  if d == true then d = 2 end
  if type(d) ~= "number" or d <= 1 then return "" end
  return ' stroke-dasharray="' .. DASHES[(math.floor(d) - 2) % #DASHES + 1] .. '"'
end

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- A series' warm-up: its line this opaque, its dots hollow.
local WARM_OPACITY = "0.35"

-- Coordinates with two decimals: exact enough on screen, short in the file.
local function c2(v) return string.format("%.2f", v):gsub("%.?0+$", "") end

-- Rough width of a text in px at a font size (the page's sans font).
local function text_w(s, size) return #tostring(s) * size * 0.58 end

-- ---- axes --------------------------------------------------------------------

-- The text-anchor that keeps a label centred on x inside [0, W]: a label
-- at the right edge (the last date of a time axis, a mark at the last run)
-- ends at x instead of being cut by the edge of the SVG, one at the left
-- edge starts at x.  The width is an estimate, so with a margin: digits
-- are wider than the average letter.
local function inside_anchor(x, label, size, W)
  local half = text_w(label, size) * 1.2 / 2
  if x + half > W - 2 then return "end" end
  if x - half < 2 then return "start" end
  return "middle"
end

-- A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks.
function M.nice_step(span, n)
  if not (span > 0) then return 1 end
  local raw = span / (n or 6)
  local p = 10 ^ math.floor(math.log10(raw))
  local f = raw / p
  local m = f <= 1 and 1 or f <= 2 and 2 or f <= 5 and 5 or 10
  return m * p
end

-- Tick labels: as many decimals as the step needs; a k/M/G suffix for
-- large values so that 1,200,000 reads as 1.2M.
function M.tick_label(v, step, big)
  local div, suf = 1, ""
  if big >= 1e9 then div, suf = 1e9, "G" elseif big >= 1e6 then div, suf = 1e6, "M" elseif big >= 1e4 then div, suf = 1e3, "k" end
  local s = step / div
  local dec = s >= 1 and 0 or math.min(6, math.ceil(-math.log10(s) - 1e-9))
  if math.abs(v) < step * 1e-6 then v = 0 end
  if v == 0 and div > 1 then return "0" end
  return string.format("%." .. dec .. "f", v / div) .. suf
end

-- Ticks between lo and hi at multiples of step.
local function ticks_of(lo, hi, step)
  local t = {}
  local first = math.ceil(lo / step - 1e-9) * step
  for k = 0, 1000 do
    local v = first + k * step
    if v > hi + step * 1e-9 then break end
    t[#t + 1] = v
  end
  return t
end

-- Time steps a date axis may use, in seconds.
local TIME_STEPS = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
                     86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 182 * 86400, 365 * 86400 }

local function time_format(span, step)
  if step >= 86400 then return "!%Y-%m-%d" end
  if span >= 86400 then return "!%m-%d %H:%M" end
  if step >= 60 then return "!%H:%M" end
  return "!%H:%M:%S"
end

-- Ticks and labels of a date axis over [lo, hi] (Unix seconds, UTC).
function M.time_ticks(lo, hi, n)
  local span = hi - lo
  local step = TIME_STEPS[#TIME_STEPS]
  for _, s in ipairs(TIME_STEPS) do
    if span / s <= (n or 6) then step = s break end
  end
  local tf = time_format(span, step)
  local t = {}
  for _, v in ipairs(ticks_of(lo, hi, step)) do t[#t + 1] = { v = v, label = os.date(tf, math.floor(v)) } end
  return t
end

local function fmt_x(spec, x)
  if spec.x_time then return os.date("!%Y-%m-%d %H:%M:%S", math.floor(x)) end
  if spec.x_categories and spec.x_categories[x] then return tostring(spec.x_categories[x]) end
  return fmt.num(x)
end

-- The y range: data range, 0 included when asked, widened to whole ticks.
local function y_range(lo, hi, zero)
  if not lo then lo, hi = 0, 1 end
  if zero then lo = math.min(lo, 0); hi = math.max(hi, 0) end
  if hi == lo then
    local pad = hi == 0 and 1 or math.abs(hi) * 0.1
    hi = hi + pad
    if not (zero and lo == 0) then lo = lo - pad end
  end
  local step = M.nice_step(hi - lo, 5)
  lo = math.floor(lo / step + 1e-9) * step
  hi = math.ceil(hi / step - 1e-9) * step
  return lo, hi, step
end

local function x_range(spec, lo, hi)
  if spec.x_categories then return 0.5, #spec.x_categories + 0.5 end
  if not lo then return 0, 1 end
  if spec.x_zero then lo = math.min(lo, 0); hi = math.max(hi, 0) end
  if hi == lo then
    local pad = spec.x_time and 3600 or (lo == 0 and 1 or math.abs(lo) * 0.1)
    return lo - pad, hi + pad
  end
  return lo, hi
end

-- ---- legend ------------------------------------------------------------------

-- Legend entries in rows under the plot; returns the SVG and its height.
local function legend(entries, x0, x1, y0)
  local L, x, y = {}, x0, y0 + 14
  for _, e in ipairs(entries) do
    local w = 34 + text_w(e.name, 12)
    if x > x0 and x + w > x1 then x, y = x0, y + 18 end
    L[#L + 1] = string.format('<g class="lb-key"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"%s/>',
      c2(x), c2(y - 4), c2(x + 24), c2(y - 4), e.color, dash_attr(e.dash))
    if e.faded then
      L[#L] = string.format('<g class="lb-key"><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5" ' ..
        'stroke-opacity="%s"/><circle cx="%s" cy="%s" r="3" fill="#fff" stroke="%s"/>', c2(x), c2(y - 4), c2(x + 24),
        c2(y - 4), e.color, WARM_OPACITY, c2(x + 12), c2(y - 4), e.color)
    elseif e.box then
      L[#L] = string.format('<g class="lb-key"><rect x="%s" y="%s" width="24" height="10" fill="%s"%s/>',
        c2(x), c2(y - 9), e.color, e.opacity and (' fill-opacity="' .. e.opacity .. '"') or "")
    end
    L[#L + 1] = string.format('<text x="%s" y="%s" font-size="12">%s</text></g>', c2(x + 30), c2(y), esc(e.name))
    x = x + w + 12
  end
  if #entries == 0 then return "", 0 end
  return table.concat(L, "\n"), y - y0 + 8
end

local function legend_height(entries, x0, x1)
  local _, h = legend(entries, x0, x1, 0)
  return h
end

-- ---- line charts ---------------------------------------------------------------

-- All series of a spec, the ideal ones appended, each with its colour.
local function all_series(spec)
  local list = {}
  for i, s in ipairs(spec.series or {}) do
    list[#list + 1] = { name = s.name, points = s.points or {}, dash = s.dash, color = colour(s.color, i), run = s.run,
                        warmup = finite(s.warmup) and s.warmup or nil, marks = s.marks }
  end
  local ideal = spec.ideal
  if ideal and ideal.points then ideal = { ideal } end
  for _, s in ipairs(ideal or {}) do
    list[#list + 1] = { name = s.name or "ideal", points = s.points or {}, dash = true,
                        color = s.color and colour(s.color, 1) or "#7f7f7f" }
  end
  return list
end

local function data_bounds(list)
  local xlo, xhi, ylo, yhi, n
  n = 0
  for _, s in ipairs(list) do
    for _, p in ipairs(s.points) do
      if finite(p.x) then
        xlo, xhi = math.min(xlo or p.x, p.x), math.max(xhi or p.x, p.x)
        if finite(p.y) then
          ylo, yhi = math.min(ylo or p.y, p.y), math.max(yhi or p.y, p.y)
          n = n + 1
        end
      end
    end
  end
  return xlo, xhi, ylo, yhi, n
end

-- Grid, tick labels, axis titles and the zero line.
local function axes(spec, g, L)
  local big = math.max(math.abs(g.ylo), math.abs(g.yhi))
  for _, v in ipairs(ticks_of(g.ylo, g.yhi, g.ystep)) do
    local y = g.sy(v)
    L[#L + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e4e8"/>', c2(g.px0), c2(y), c2(g.px1), c2(y))
    L[#L + 1] = string.format('<text x="%s" y="%s" font-size="11" text-anchor="end">%s</text>', c2(g.px0 - 6), c2(y + 4),
      esc(M.tick_label(v, g.ystep, big)))
  end
  local xt = {}
  if spec.x_categories then
    for i, l in ipairs(spec.x_categories) do xt[#xt + 1] = { v = i, label = tostring(l) } end
  elseif spec.x_time then
    xt = M.time_ticks(g.xlo, g.xhi, math.max(2, math.floor((g.px1 - g.px0) / 110)))
  elseif spec.x_ticks and #spec.x_ticks > 0 and #spec.x_ticks <= 24 then
    for _, v in ipairs(spec.x_ticks) do xt[#xt + 1] = { v = v, label = fmt.num(v) } end
  else
    local step = M.nice_step(g.xhi - g.xlo, math.max(2, math.floor((g.px1 - g.px0) / 80)))
    local xbig = math.max(math.abs(g.xlo), math.abs(g.xhi))
    for _, v in ipairs(ticks_of(g.xlo, g.xhi, step)) do xt[#xt + 1] = { v = v, label = M.tick_label(v, step, xbig) } end
  end
  for _, t in ipairs(xt) do
    local x = g.sx(t.v)
    L[#L + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eeeef2"/>', c2(x), c2(g.py0), c2(x), c2(g.py1))
    L[#L + 1] = string.format('<text x="%s" y="%s" font-size="11" text-anchor="%s">%s</text>', c2(x), c2(g.py1 + 16),
      inside_anchor(x, t.label, 11, g.W), esc(t.label))
  end
  if g.ylo < 0 and g.yhi > 0 then
    L[#L + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#606060" stroke-dasharray="4 3"/>',
      c2(g.px0), c2(g.sy(0)), c2(g.px1), c2(g.sy(0)))
  end
  L[#L + 1] = string.format('<path d="M%s %sV%sH%s" fill="none" stroke="#333"/>', c2(g.px0), c2(g.py0), c2(g.py1), c2(g.px1))
  L[#L + 1] = string.format('<text x="%s" y="%s" font-size="12" text-anchor="middle">%s</text>',
    c2((g.px0 + g.px1) / 2), c2(g.py1 + 36), esc(spec.x_label or ""))
  L[#L + 1] = string.format('<text transform="translate(14 %s) rotate(-90)" font-size="12" text-anchor="middle">%s</text>',
    c2((g.py0 + g.py1) / 2), esc(spec.y_label or ""))
end

-- One vertical mark: a dotted line with its label near the top (row `row`
-- of three, so that neighbours do not overwrite each other), right of the
-- line, or left of it where the label would pass the chart's right edge.
local function mark(spec, g, L, m, row, colour_, title)
  local x = g.sx(m.x)
  local left = x + 3 + text_w(m.label or "", 10) * 1.2 > g.W - 2
  local tx, anchor = left and x - 3 or x + 3, left and ' text-anchor="end"' or ""
  -- The label's colour as a style: the page's CSS colours chart text, and
  -- CSS wins over a fill attribute.
  L[#L + 1] = string.format('<g class="lb-mark"><title>%s</title><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" ' ..
    'stroke-width="1.5" stroke-dasharray="2 3"/><text x="%s" y="%s" font-size="10"%s style="fill:%s">%s</text></g>',
    esc(title or m.label or fmt_x(spec, m.x)), c2(x), c2(g.py0), c2(x), c2(g.py1), colour_, c2(tx),
    c2(g.py0 + 10 + (row % 3) * 11), anchor, colour_, esc(m.label or ""))
end

-- Shaded x ranges and vertical marks, behind the data: the chart's own,
-- then each series' (its run's phase boundaries, in its colour; a boundary
-- several series of one run share is drawn once).
local function marks(spec, g, list, L)
  for _, s in ipairs(spec.shade or {}) do
    local a, b = math.max(g.xlo, s.from or g.xlo), math.min(g.xhi, s.to or g.xhi)
    if finite(a) and finite(b) and b > a then
      L[#L + 1] = string.format('<rect class="lb-shade" x="%s" y="%s" width="%s" height="%s" fill="#b0b0b0" ' ..
        'fill-opacity="0.25"><title>%s</title></rect>', c2(g.sx(a)), c2(g.py0), c2(g.sx(b) - g.sx(a)), c2(g.py1 - g.py0),
        esc(s.label or ""))
    end
  end
  local row, seen = 0, {}
  local function inside(m) return finite(m.x) and m.x >= g.xlo and m.x <= g.xhi end
  for _, m in ipairs(spec.marks or {}) do
    if inside(m) then mark(spec, g, L, m, row, "#555"); row = row + 1 end
  end
  for _, s in ipairs(list) do
    for _, m in ipairs(s.marks or {}) do
      local key = table.concat({ tostring(m.x), tostring(m.label), s.color, tostring(s.run) }, "\0")
      if inside(m) and not seen[key] then
        seen[key] = true
        mark(spec, g, L, m, row, s.color, string.format("%s (%s): from %s", tostring(m.label or ""),
          s.run or s.name, fmt_x(spec, m.x)))
        row = row + 1
      end
    end
  end
end

-- The polylines of a list of points, broken at missing values.
local function segments(g, points)
  local segs, cur = {}, {}
  for _, p in ipairs(points) do
    if finite(p.x) and finite(p.y) then
      cur[#cur + 1] = c2(g.sx(p.x)) .. "," .. c2(g.sy(p.y))
    elseif #cur > 0 then
      segs[#segs + 1] = cur; cur = {}
    end
  end
  if #cur > 0 then segs[#segs + 1] = cur end
  return segs
end

-- One series: its line (broken at missing values) and a hoverable dot per
-- point.  The part within its run's warm-up is faded with hollow dots: on
-- the run's own line, so that it cannot be read as another run's, whatever
-- tells the runs apart in the chart (colour, or dash as in TPC-C's).
local function draw_series(spec, g, s, L)
  local warm, measured = {}, s.points
  if s.warmup then
    measured = {}
    for _, p in ipairs(s.points) do
      if finite(p.x) and p.x <= s.warmup + 1e-9 then warm[#warm + 1] = p else measured[#measured + 1] = p end
    end
    -- The faded line reaches the first measured point: the line stays whole.
    if #warm > 0 and measured[1] then warm[#warm + 1] = measured[1] end
  end
  L[#L + 1] = '<g class="lb-series" data-name="' .. esc(s.name) .. '">'
  for _, seg in ipairs(segments(g, warm)) do
    L[#L + 1] = string.format('<polyline class="lb-warmup" points="%s" fill="none" stroke="%s" stroke-width="2" ' ..
      'stroke-opacity="%s"%s><title>%s: warm-up (to %s), not in the totals</title></polyline>', table.concat(seg, " "),
      s.color, WARM_OPACITY, dash_attr(s.dash), esc(s.run or s.name), esc(fmt_x(spec, s.warmup)))
  end
  for _, seg in ipairs(segments(g, measured)) do
    L[#L + 1] = string.format('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></polyline>',
      table.concat(seg, " "), s.color, dash_attr(s.dash), esc(s.name))
  end
  local r = #s.points > 150 and 1.8 or 3
  for _, p in ipairs(s.points) do
    if finite(p.x) and finite(p.y) then
      local tip = p.tip or string.format("%s: %s, %s", s.name, fmt_x(spec, p.x), fmt.num(p.y))
      local in_warm = s.warmup and p.x <= s.warmup + 1e-9
      local dot = string.format('<circle class="lb-pt" cx="%s" cy="%s" r="%s" fill="%s"%s><title>%s</title></circle>',
        c2(g.sx(p.x)), c2(g.sy(p.y)), r, in_warm and "#fff" or s.color,
        in_warm and (' stroke="' .. s.color .. '"') or "", esc(in_warm and (tip .. " (warm-up)") or tip))
      if p.href then dot = '<a href="' .. esc(p.href) .. '">' .. dot .. "</a>" end
      L[#L + 1] = dot
    end
  end
  L[#L + 1] = "</g>"
end

local function svg_open(spec, kind, w, h, extra)
  return string.format('<svg class="lb-chart lb-%s"%s viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s"%s>',
    kind, spec.id and (' id="' .. esc(spec.id) .. '"') or "", w, h, w, h, esc(spec.title or kind), extra or "")
end

-- Geometry of the plot area: margins from the labels, scales x -> px.
local function frame(spec, xlo, xhi, ylo, yhi, ystep, legend_entries)
  local W, H = spec.width or 960, spec.height or 380
  local big = math.max(math.abs(ylo), math.abs(yhi))
  local lw = 0
  for _, v in ipairs(ticks_of(ylo, yhi, ystep)) do lw = math.max(lw, text_w(M.tick_label(v, ystep, big), 11)) end
  local g = { W = W, px0 = math.floor(34 + lw), px1 = W - 18, py0 = spec.title and 34 or 12, py1 = H - 46,
              xlo = xlo, xhi = xhi, ylo = ylo, yhi = yhi, ystep = ystep }
  g.sx = function(x) return g.px0 + (x - xlo) / (xhi - xlo) * (g.px1 - g.px0) end
  g.sy = function(y) return g.py1 - (y - ylo) / (yhi - ylo) * (g.py1 - g.py0) end
  g.legend_h = legend_height(legend_entries, g.px0, g.px1)
  g.total_h = H + g.legend_h
  return g
end

function M.line(spec)
  local list = all_series(spec)
  local xlo, xhi, ylo, yhi, npts = data_bounds(list)
  xlo, xhi = x_range(spec, xlo, xhi)
  local ystep
  ylo, yhi, ystep = y_range(ylo, yhi, spec.y_zero)
  local entries = {}
  for _, s in ipairs(list) do entries[#entries + 1] = { name = s.name, color = s.color, dash = s.dash } end
  for _, s in ipairs(spec.shade or {}) do
    if s.label then entries[#entries + 1] = { name = s.label, color = "#b0b0b0", box = true, opacity = "0.4" } break end
  end
  for _, s in ipairs(list) do
    if s.warmup then entries[#entries + 1] = { name = "warm-up (faded, hollow dots)", color = "#606060", faded = true } break end
  end
  local g = frame(spec, xlo, xhi, ylo, yhi, ystep, entries)
  local L = { svg_open(spec, "line", g.W, g.total_h, string.format(' data-series="%d" data-points="%d"', #list, npts)) }
  L[#L + 1] = "<title>" .. esc(spec.title or "chart") .. "</title>"
  L[#L + 1] = string.format('<rect width="%d" height="%d" fill="#fff"/>', g.W, g.total_h)
  if spec.title then
    L[#L + 1] = string.format('<text x="%s" y="20" font-size="14" font-weight="600">%s</text>', c2(g.px0), esc(spec.title))
  end
  marks(spec, g, list, L)
  axes(spec, g, L)
  for _, s in ipairs(list) do draw_series(spec, g, s, L) end
  if npts == 0 then
    L[#L + 1] = string.format('<text x="%s" y="%s" font-size="13" text-anchor="middle" fill="#888">no data</text>',
      c2((g.px0 + g.px1) / 2), c2((g.py0 + g.py1) / 2))
  end
  L[#L + 1] = (legend(entries, g.px0, g.px1, g.py1 + 44))
  L[#L + 1] = "</svg>"
  return table.concat(L, "\n")
end

-- ---- bar charts ------------------------------------------------------------------

local function bar_bounds(spec)
  local lo, hi
  for _, s in ipairs(spec.series or {}) do
    for i = 1, #(spec.categories or {}) do
      local v = s.values and s.values[i]
      if finite(v) then lo, hi = math.min(lo or v, v), math.max(hi or v, v) end
    end
  end
  return lo, hi
end

local function bar_labels(spec, g, L, gw, rotate)
  for i, c in ipairs(spec.categories) do
    local x = g.px0 + (i - 0.5) * gw
    if rotate then
      L[#L + 1] = string.format('<text transform="translate(%s %s) rotate(-30)" font-size="11" text-anchor="end">%s</text>',
        c2(x), c2(g.py1 + 14), esc(c))
    else
      L[#L + 1] = string.format('<text x="%s" y="%s" font-size="11" text-anchor="middle">%s</text>', c2(x), c2(g.py1 + 16), esc(c))
    end
  end
end

function M.bar(spec)
  local cats, series = spec.categories or {}, spec.series or {}
  local blo, bhi = bar_bounds(spec)
  local lo, hi, step = y_range(blo, bhi, true)
  local entries = {}
  for i, s in ipairs(series) do entries[#entries + 1] = { name = s.name, color = colour(s.color, i), box = true } end
  local g = frame(spec, 0, math.max(#cats, 1), lo, hi, step, #series > 1 and entries or {})
  local gw = (g.px1 - g.px0) / math.max(#cats, 1)
  local longest = 0
  for _, c in ipairs(cats) do longest = math.max(longest, text_w(c, 11)) end
  local rotate = longest > gw - 6
  local extra = rotate and math.min(90, math.floor(longest * 0.5)) or 0
  g.total_h = g.total_h + extra
  local L = { svg_open(spec, "bar", g.W, g.total_h, string.format(' data-series="%d" data-bars="%d"', #series, #cats * #series)) }
  L[#L + 1] = "<title>" .. esc(spec.title or "chart") .. "</title>"
  L[#L + 1] = string.format('<rect width="%d" height="%d" fill="#fff"/>', g.W, g.total_h)
  if spec.title then
    L[#L + 1] = string.format('<text x="%s" y="20" font-size="14" font-weight="600">%s</text>', c2(g.px0), esc(spec.title))
  end
  axes({ y_label = spec.y_label, x_label = "", x_categories = {} }, g, L)
  if spec.x_label then
    L[#L + 1] = string.format('<text x="%s" y="%s" font-size="12" text-anchor="middle">%s</text>',
      c2((g.px0 + g.px1) / 2), c2(g.py1 + 36 + extra), esc(spec.x_label))
  end
  bar_labels(spec, g, L, gw, rotate)
  local bw = gw * 0.8 / math.max(#series, 1)
  for si, s in ipairs(series) do
    local col = colour(s.color, si)
    for ci, c in ipairs(cats) do
      local v = s.values and s.values[ci]
      if finite(v) then
        local x = g.px0 + (ci - 1) * gw + gw * 0.1 + (si - 1) * bw
        local y0, y1 = g.sy(math.max(v, 0)), g.sy(math.min(v, 0))
        local tip = s.tips and s.tips[ci] or string.format("%s, %s: %s", s.name, c, fmt.num(v))
        L[#L + 1] = string.format('<rect class="lb-bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>',
          c2(x), c2(y0), c2(math.max(bw - 1, 1)), c2(math.max(y1 - y0, 0.5)), col, esc(tip))
        local label = fmt.num(v)
        if text_w(label, 10) <= bw then
          L[#L + 1] = string.format('<text x="%s" y="%s" font-size="10" text-anchor="middle">%s</text>', c2(x + bw / 2),
            c2(y0 - 3), esc(label))
        end
      end
    end
  end
  if #series > 1 then L[#L + 1] = (legend(entries, g.px0, g.px1, g.py1 + 44 + extra)) end
  L[#L + 1] = "</svg>"
  return table.concat(L, "\n")
end

return M
