-- Specs of lbench.fmt (how every text output writes numbers, durations,
-- ratios, sizes, tables and CSV) and lbench.catalogue (the metrics a run
-- has, which runs compare, how runs and sweep points are named).
local fmt = require("lbench.fmt")
local catalogue = require("lbench.result.catalogue")
local json = require("lbench.json")

local function fails(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return e.lbench_message
end

describe("lbench.fmt numbers", function()
  it("num: integers whole, then 0/1/2 decimals by magnitude, three significant digits below 1", function()
    local cases = {
      { 0, "0" }, { 1, "1" }, { -3, "-3" }, { 1234567, "1234567" }, { 1e15, "1000000000000000" },
      { 1234.5, "1235" }, { 123.45, "123.5" }, { 12.345, "12.35" }, { -12.5, "-12.50" }, { 1.5, "1.50" },
      { 0.5, "0.500" }, { -0.5, "-0.500" }, { 0.0283, "0.0283" }, { 1 / 3, "0.333" }, { 0.00012345, "0.000123" },
      { 0.00001234, "1.23e-05" },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], fmt.num(c[1]), tostring(c[1])) end
    assert.are.equal("-", fmt.num(nil))
    assert.are.equal("-", fmt.num(0 / 0))
    assert.are.equal("x", fmt.num("x"))
  end)

  it("num: a value that rounds into the next magnitude takes that magnitude's digits", function()
    assert.are.equal("1000", fmt.num(999.96))
    assert.are.equal("-1000", fmt.num(-999.96))
    assert.are.equal("100.0", fmt.num(99.996))
    assert.are.equal("10.00", fmt.num(9.9996))
    assert.are.equal("1.00", fmt.num(0.99996))
    assert.are.equal("0.100", fmt.num(0.099996))
    assert.are.equal("0.000100", fmt.num(0.000099996))
    -- no carry: as before
    assert.are.equal("99.99", fmt.num(99.99))
    assert.are.equal("1.00", fmt.num(1.004))
  end)

  it("ms: a duration in ns, µs, ms or s with three significant digits, never an exponent", function()
    local cases = {
      { 0.0000405, "40.5 ns" }, { 0.0405, "40.5 µs" }, { 1.234, "1.23 ms" }, { 12, "12.0 ms" }, { 12000, "12.0 s" },
      { 1, "1.00 ms" }, { 1e-7, "0.100 ns" }, { -2.5, "-2.50 ms" }, { 5e6, "5000 s" }, { 250, "250 ms" },
      { 1.2345, "1.23 ms" }, { 123.4, "123 ms" }, { 2500, "2.50 s" }, { 4e6, "4000 s" },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], fmt.ms(c[1]), tostring(c[1])) end
    assert.are.equal("0", fmt.ms(0))
    assert.are.equal("-", fmt.ms(nil))
    assert.are.equal("-", fmt.ms(0 / 0))
    assert.are.equal("-", fmt.ms("1"))
  end)

  it("ms: rounding up carries into the next unit or decade", function()
    assert.are.equal("1.00 ms", fmt.ms(0.99996))     -- 999.96 µs
    assert.are.equal("1.00 s", fmt.ms(999.996))
    assert.are.equal("1.00 µs", fmt.ms(0.000999996)) -- 999.996 ns
    assert.are.equal("10.0 ms", fmt.ms(9.9996))
    assert.are.equal("100 ms", fmt.ms(99.996))
    assert.are.equal("10.0 µs", fmt.ms(0.0099996))
  end)

  it("pct, ratio_text and ratio: signed percent, three decimals, nil where undefined", function()
    assert.are.equal("+4.2%", fmt.pct(4.2))
    assert.are.equal("-12.5%", fmt.pct(-12.46))
    assert.are.equal("+0.0%", fmt.pct(0))
    assert.are.equal("-", fmt.pct(nil))
    assert.are.equal("1.235", fmt.ratio_text(1.23456))
    assert.are.equal("0.500", fmt.ratio_text(0.5))
    assert.are.equal("-", fmt.ratio_text(nil))
    assert.are.same({ 1.5, 50 }, { fmt.ratio(150, 100) })
    assert.are.same({ 0.25, -75 }, { fmt.ratio(50, 200) })
    assert.is_nil((fmt.ratio(1, 0)))
    assert.is_nil(select(2, fmt.ratio(1, 0)))
    assert.is_nil((fmt.ratio(nil, 1)))
    assert.is_nil((fmt.ratio(1, nil)))
  end)

  it("size: bytes, then binary units with three significant digits", function()
    local cases = {
      { 0, "0 bytes" }, { 512, "512 bytes" }, { 1023, "1023 bytes" }, { 1024, "1 KiB" }, { 1536, "1.5 KiB" },
      { 1593835, "1.52 MiB" }, { 188743680, "180 MiB" }, { 2 * 1024 ^ 3, "2 GiB" }, { 1.5 * 1024 ^ 4, "1.5 TiB" },
      { 3 * 1024 ^ 5, "3 PiB" }, { 1024 ^ 6, "1024 PiB" },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], fmt.size(c[1]), tostring(c[1])) end
  end)
end)

describe("lbench.fmt tables", function()
  it("aligns the first column left when it holds text, the others right; trailing blanks cut", function()
    assert.are.equal(table.concat({
      "  name         tps",
      "  a            1.5",
      "  long-name  12000" }, "\n"), fmt.table({ "name", "tps" }, { { "a", "1.5" }, { "long-name", "12000" } }, "  "))
  end)

  it("aligns a first column of numbers right, and pads short rows", function()
    assert.are.equal(" n  v\n 1  2\n10  x", fmt.table({ "n", "v" }, { { "1", "2" }, { "10", "x" } }))
    assert.are.equal("a   b  c\nx\nyy  1  2", fmt.table({ "a", "b", "c" }, { { "x" }, { "yy", "1", "2" } }))
    assert.are.equal("h", fmt.table({ "h" }, {}))
  end)

  it("writes CSV with RFC 4180 quoting of commas, quotes and newlines", function()
    assert.are.equal('a,b\n"x,y","say ""hi"""\n"line\nbreak",plain\n,',
      fmt.csv({ "a", "b" }, { { "x,y", 'say "hi"' }, { "line\nbreak", "plain" }, { "", "" } }))
  end)
end)

-- Result documents of each kind, as the tools read them.
local function sql_run(t)
  local r = { scenario = "oltp_read_write", duration_s = 10,
    totals = { events = 100, events_per_sec = 10, queries = { total = 2000 }, queries_per_sec = 200, errors = 1,
               ignored_errors = 2, reconnects = 0 },
    latency_ms = { avg = 1, max = 5, percentiles = { ["95"] = 2, ["99"] = 3 } } }
  for k, v in pairs(t or {}) do r[k] = v end
  return r
end
local cpu_run = { scenario = "cpu", duration_s = 10, totals = { events = 100, events_per_sec = 10 },
  latency_ms = { avg = 1, max = 5, percentiles = { ["95"] = 2 } } }
local io_run = { scenario = "fileio", duration_s = 10, totals = { events = 100, events_per_sec = 10 },
  io = { reads_per_sec = 100, writes_per_sec = 50, read_mib_per_sec = 1.5, written_mib_per_sec = 0.7, fsyncs_per_sec = 3 },
  latency_ms = { avg = 1, max = 5, percentiles = {} } }
local tpcc_run = { scenario = "tpcc", duration_s = 10,
  totals = { events = 100, events_per_sec = 10, queries = { total = 1 }, queries_per_sec = 1 },
  tpcc = { tpmC = 100, notpm = 110, tpm_total = 200, efficiency_pct = 50 }, latency_ms = {} }

local function titles(runs)
  local t = {}
  for _, m in ipairs(catalogue.present_metrics(runs)) do t[#t + 1] = catalogue.metric_title(m) end
  return table.concat(t, "|")
end

describe("lbench.result.catalogue", function()
  it("shows an SQL run's TPS, QPS and error counts, a plain run's events/s, a fileio run's I/O", function()
    assert.are.equal("events|duration (s)|TPS|QPS|latency avg (ms)|latency p95 (ms)|latency p99 (ms)|latency max (ms)"
      .. "|errors|ignored errors|reconnects", titles({ sql_run() }))
    assert.are.equal("events|duration (s)|events/s|latency avg (ms)|latency p95 (ms)|latency max (ms)", titles({ cpu_run }))
    assert.are.equal("events|duration (s)|events/s|IOPS|read (MiB/s)|written (MiB/s)|fsyncs/s|latency avg (ms)"
      .. "|latency max (ms)", titles({ io_run }))
    -- an SQL run without an error count still has the row (0)
    local quiet = sql_run()
    quiet.totals.errors = nil
    local errors
    for _, m in ipairs(catalogue.present_metrics({ quiet })) do if m[1] == "errors" then errors = m[3](quiet) end end
    assert.are.equal(0, errors)
  end)

  it("shows a metric marked `all` only when every run has it", function()
    assert.are.equal("events|duration (s)|TPS|QPS|tpmC|NOTPM|tpmTotal|efficiency (%)|errors", titles({ tpcc_run }))
    assert.are.equal("events|duration (s)|TPS|QPS|latency avg (ms)|latency p95 (ms)|latency p99 (ms)|latency max (ms)"
      .. "|errors|ignored errors|reconnects", titles({ tpcc_run, sql_run() }))
    -- a row any run has is shown for all: events/s of the plain run beside an SQL one
    assert.truthy(titles({ sql_run(), cpu_run }):find("|events/s|TPS|QPS|", 1, true))
  end)

  it("reads each metric's value, and knows which are better lower", function()
    local by = {}
    for _, m in ipairs(catalogue.metrics) do by[m[1]] = m end
    assert.are.equal(150, by.IOPS[3](io_run))
    assert.are.equal(3, by["latency p99"][3](sql_run()))
    assert.are.equal(200, by.QPS[3](sql_run()))
    assert.is_nil(by.QPS[3](cpu_run))
    assert.is_nil(by["events/s"][3](sql_run()))
    assert.are.equal(100, by.tpmC[3](tpcc_run))
    assert.is_true(by["latency p95"].lower)
    assert.is_true(by.errors.lower)
    assert.is_nil(by.TPS.lower)
    assert.are.equal("latency p95 (ms)", catalogue.metric_title(by["latency p95"]))
    assert.are.equal("events", catalogue.metric_title(by.events))
  end)

  it("compares runs of one scenario (or any with force), sweeps only with sweeps", function()
    assert.are.same({ true }, { catalogue.comparable(sql_run(), sql_run()) })
    assert.are.same({ false, "scenario" }, { catalogue.comparable(sql_run(), cpu_run) })
    assert.are.same({ true }, { catalogue.comparable(sql_run(), cpu_run, true) })
    local sweep = { scenario = "cpu", points = {} }
    assert.are.same({ false, "sweep" }, { catalogue.comparable(sweep, cpu_run) })
    assert.are.same({ false, "sweep" }, { catalogue.comparable(cpu_run, sweep, true) })
    local oltp, tpcc = { scenario = "oltp" }, { scenario = "tpcc" }
    local osweep = { scenario = "oltp", tool = "sweep", points = {} }
    assert.is_true(catalogue.comparable(oltp, { scenario = "oltp" }))
    assert.are.same({ false, "scenario" }, { catalogue.comparable(oltp, tpcc) })
    assert.is_true(catalogue.comparable(oltp, tpcc, true))
    assert.are.same({ false, "sweep" }, { catalogue.comparable(oltp, osweep) })
    assert.are.same({ false, "sweep" }, { catalogue.comparable(oltp, osweep, true) })
    assert.are.same({ true }, { catalogue.comparable(sweep, { scenario = "cpu", points = {} }) })
  end)

  it("check_comparable names the files in one line, the scenario first; returns whether they are sweeps", function()
    assert.are.equal("cannot compare: 'a.json' ran scenario 'oltp_read_write' but 'c.json' ran 'cpu' "
      .. "(add --force to compare anyway)", fails(catalogue.check_comparable, { sql_run(), sql_run(), cpu_run },
        { "a.json", "b.json", "c.json" }))
    -- a scenario and a sweep mismatch: the scenario is named
    assert.truthy(fails(catalogue.check_comparable, { cpu_run, { scenario = "x", points = {} } }, { "a", "b" })
      :find("ran scenario 'cpu' but 'b' ran 'x'", 1, true))
    assert.are.equal("cannot compare sweep files with single-run files (compare sweeps with sweeps, runs with runs)",
      fails(catalogue.check_comparable, { cpu_run, { scenario = "x", points = {} } }, { "a", "b" }, true))
    assert.is_false(catalogue.check_comparable({ sql_run(), cpu_run }, { "a", "b" }, true))
    assert.is_true(catalogue.check_comparable({ { scenario = "s", points = {} }, { scenario = "s", points = {} } },
      { "a", "b" }))
  end)

  it("names runs by their files, numbering duplicates, or by --names", function()
    assert.are.same({ "run#1", "run#2", "other", "noext", "x.json.bak" },
      catalogue.names({ "/x/run.json", "/y/run.json", "other.json", "noext", "d/x.json.bak" }))
    assert.are.same({ "x", "y" }, catalogue.names({ "a.json", "b.json" }, "x,y"))
    assert.are.same({ "a", "b" }, catalogue.names({ "a.json", "b.json" }, true))
    assert.are.equal("--names: 1 name(s) given for 2 file(s)", fails(catalogue.names, { "a", "b" }, "x"))
    assert.are.equal("--names: 3 name(s) given for 2 file(s)", fails(catalogue.names, { "a", "b" }, "x,y,z"))
    assert.are.equal("c", catalogue.run_name("/a/b/c.json"))
  end)

  it("labels sweep points in their dimensions' order, and reads swept values as numbers", function()
    local sp = json.object()
    sp.threads = 4
    sp.buffer = "2G"
    assert.are.equal("threads=4 buffer=2G", catalogue.point_label({ sweep_point = sp }))
    assert.are.equal("run", catalogue.point_label({}))
    assert.are.equal("run", catalogue.point_label({ sweep_point = json.object() }))
    assert.are.equal("run", catalogue.point_label({ sweep_point = "x" }))
    assert.are.equal(4, catalogue.numeric(4))
    assert.are.equal(2 * 1024 ^ 3, catalogue.numeric("2G"))
    assert.are.equal(1.5, catalogue.numeric("1.5"))
    assert.is_nil(catalogue.numeric("abc"))
    assert.is_nil(catalogue.numeric(true))
  end)
end)
