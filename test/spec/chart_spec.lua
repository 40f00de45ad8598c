-- Specs of lbench.chart (inline SVG charts) and lbench.html (escaping,
-- tables, the page), run under lbench's own runtime.
local chart = require("lbench.report.chart")
local html = require("lbench.report.html")

local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

describe("lbench.report.html", function()
  it("escapes text and attribute values", function()
    assert.are.equal("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;", html.escape([[a <b> & "c" 'd']]))
    assert.are.equal("", html.escape(nil))
    assert.are.equal("12.5", html.escape(12.5))
  end)

  it("builds tables with classed, titled, numeric and raw cells", function()
    local t = html.table({ "metric", "a" }, { { "TPS", { text = "1.250", class = "good", title = "b / a" } },
      { "p99 <ms>", "-" }, { { html = '<a href="#x">x</a>' }, "+3.5%" } }, { id = "t1", caption = "c" })
    assert.truthy(t:find('<table class="lb%-table" id="t1">'))
    assert.truthy(t:find('<td class="good num" title="b / a">1.250</td>', 1, true))
    assert.truthy(t:find("<td>p99 &lt;ms&gt;</td>", 1, true))
    assert.truthy(t:find('<td class="num">-</td>', 1, true))
    assert.truthy(t:find('<td><a href="#x">x</a></td>', 1, true))
    assert.truthy(t:find('<td class="num">+3.5%</td>', 1, true))
    assert.are.equal(3, count(t, "<tr>") - 1)
  end)

  it("writes one self-contained page: sections, contents, no URL, no script", function()
    local p = html.page({ title = "T <1>", generated_by = "lbench x", sections = {
      { id = "a", title = "A", body = "<p>one</p>" }, { id = "b", title = "B & C", body = "<p>two</p>" } } })
    assert.truthy(p:match("^<!DOCTYPE html>"))
    assert.truthy(p:find("<title>T &lt;1&gt;</title>", 1, true))
    assert.truthy(p:find('<a href="#b">B &amp; C</a>', 1, true))
    assert.truthy(p:find('<section class="lb-section" id="a">', 1, true))
    assert.falsy(p:find("https?://"))
    assert.falsy(p:find("<script", 1, true))
    assert.falsy(p:find("<link", 1, true))
  end)
end)

describe("lbench.report.chart", function()
  it("picks 1-2-5 tick steps and labels large values with a suffix", function()
    assert.are.equal(2, chart.nice_step(10, 6))
    assert.are.equal(50000, chart.nice_step(240000, 6))
    assert.are.equal(0.05, chart.nice_step(0.3, 6))
    assert.are.equal("1.2M", chart.tick_label(1200000, 200000, 2000000))
    assert.are.equal("250k", chart.tick_label(250000, 50000, 250000))
    assert.are.equal("0.15", chart.tick_label(0.15, 0.05, 0.3))
    -- the same decimals on every tick; rounding noise is no "-0.00"
    assert.are.equal("0.00", chart.tick_label(-1e-12, 0.05, 0.3))
  end)

  it("labels a date axis in UTC", function()
    local t0 = 1764720000 -- 2025-12-03 00:00:00 UTC
    local ticks = chart.time_ticks(t0, t0 + 20 * 86400, 6)
    assert.truthy(ticks[1].label:match("^2025%-12%-%d%d$"))
    assert.is_true(ticks[1].v >= t0 and ticks[2].v - ticks[1].v == 7 * 86400)
    assert.is_true(#ticks >= 2 and #ticks <= 7)
    local hours = chart.time_ticks(t0, t0 + 6 * 3600, 6)
    assert.are.equal("00:00", hours[1].label)
  end)

  it("draws a hoverable dot per point, links, broken lines, marks and the ideal series", function()
    local svg = chart.line({ title = "Throughput", x_label = "s", y_label = "TPS", y_zero = true,
      series = { { name = "ro", points = { { x = 1, y = 10 }, { x = 2, y = 0 / 0 }, { x = 3, y = 30, tip = "third <3>" },
                                            { x = 4, y = 40, href = "#run-4" } } } },
      marks = { { x = 2, label = "phase 2" } }, ideal = { name = "ideal", points = { { x = 1, y = 10 }, { x = 4, y = 40 } } } })
    assert.truthy(svg:match('^<svg class="lb%-chart lb%-line"'))
    assert.falsy(svg:find("https?://"))
    assert.are.equal(5, count(svg, '<circle class="lb%-pt"'))
    assert.truthy(svg:find("<title>ro: 1, 10</title>", 1, true))
    assert.truthy(svg:find("<title>third &lt;3&gt;</title>", 1, true))
    assert.truthy(svg:find('<a href="#run-4"><circle', 1, true))
    -- the NaN splits ro's line in two; the ideal is one dashed line
    assert.are.equal(3, count(svg, "<polyline "))
    assert.are.equal(1, count(svg, '<polyline [^>]*stroke%-dasharray'))
    assert.truthy(svg:find("phase 2", 1, true))
    assert.truthy(svg:find('data-points="5"', 1, true))
  end)

  it("says when a chart has no data", function()
    local svg = chart.line({ title = "none", series = { { name = "x", points = {} } } })
    assert.truthy(svg:find(">no data<", 1, true))
  end)

  it("draws grouped bars with their values on hover", function()
    local svg = chart.bar({ title = "TPS per buffer pool", y_label = "TPS", categories = { "1G", "2G", "4G" },
      series = { { name = "RAID0", values = { 100, 200, 350 } }, { name = "RAID10", values = { 90, nil, 300 } } } })
    assert.are.equal(5, count(svg, '<rect class="lb%-bar"'))
    assert.truthy(svg:find("<title>RAID10, 4G: 300</title>", 1, true))
    assert.truthy(svg:find(">RAID0</text>", 1, true))
  end)
end)
