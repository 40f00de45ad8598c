-- Specs of lbench.report's text and CSV rendering: the final report in
-- sysbench's layout (plus lbench's sections), interval lines, the latency
-- histogram and the CSV rows, from small synthetic results with known
-- numbers; exact strings out.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local report = require("lbench.result.render")
local result = require("lbench.result.document")
local snapshot = require("lbench.result.snapshot")
local hist = require("lbench.api.hist")

local function lines(t) return table.concat(t, "\n") end

-- The text view of an SQL run: 1234 transactions in 10 s, 24680 queries.
local function sql_view()
  return { duration_s = 10, warmup_s = 0, status = "ok", type_order = {},
    totals = { events = 1234, events_per_sec = 123.4, queries = { read = 17276, write = 4936, other = 2468, total = 24680 },
               queries_per_sec = 2468, ignored_errors = 3, reconnects = 0, errors = 0 },
    latency_ms = { min = 0.52, avg = 8.1, max = 95.25, sum = 9995.4, pct_list = { { key = "95", ms = 14.46 } },
                   overflow = 0, underflow = 0 },
    fairness = { events_avg = 154.25, events_stddev = 2.17, exec_time_avg_s = 9.9981, exec_time_stddev_s = 0.0012 } }
end

local SQL_BLOCK = {
  "SQL statistics:",
  "    queries performed:",
  "        read:                            17276",
  "        write:                           4936",
  "        other:                           2468",
  "        total:                           24680",
  "    transactions:                        1234   (123.40 per sec.)",
  "    queries:                             24680  (2468.00 per sec.)",
  "    ignored errors:                      3      (0.30 per sec.)",
  "    reconnects:                          0      (0.00 per sec.)",
}

local LATENCY_BLOCK = {
  "Latency (ms):",
  "         min:                                     0.52",
  "         avg:                                     8.10",
  "         max:                                    95.25",
  "         95th percentile:                        14.46",
  "         sum:                                  9995.40",
  "",
}

local function concat(...)
  local out = {}
  for _, t in ipairs({ ... }) do for _, l in ipairs(t) do out[#out + 1] = l end end
  return out
end

describe("lbench.report final text", function()
  it("writes an SQL run in sysbench's layout, every latency figure in one column", function()
    assert.are.equal(lines(concat(SQL_BLOCK, {
      "    errors:                              0      (0.00 per sec.)",
      "",
      "General statistics:",
      "    total time:                          10.0000s",
      "    total number of events:              1234",
      "" }, LATENCY_BLOCK, {
      "Threads fairness:",
      "    events (avg/stddev):           154.2500/2.17",
      "    execution time (avg/stddev):   9.9981/0.00",
      "" })), report.final_text(sql_view()))
    -- every value of the latency block ends in the same column
    local text = report.final_text(sql_view())
    for l in text:gmatch("[^\n]+") do
      if l:match("^         %S.*%d$") then assert.are.equal(54, #l, l) end
    end
  end)

  it("adds error codes, lost connections, warm-up, queue, per-type, phases, CPU, connections and the stop", function()
    local v = sql_view()
    local codes = json.object()
    codes["1213"] = 3
    codes["40P01"] = 1
    local t = v.totals
    t.errors, t.errors_by_code, t.reconnect_attempts, t.reconnects_failed = 4, codes, 5, 2
    t.connections_lost, t.outage_s, t.not_reconnected = 2, 1.5, 1
    v.status, v.error, v.warmup_s, v.warmup_events = "error", "connection lost\nsecond line", 2, 77
    v.types = {
      new_order = { events = 450, restarts = 2, rollbacks = 1,
                    latency_ms = { avg = 9.5, max = 80, pct_list = { { key = "95", ms = 20 } } } },
      payment = { events = 784, restarts = 0, rollbacks = 0,
                  latency_ms = { avg = 7.25, max = 95.25, pct_list = { { key = "95" } } } } }
    v.type_order = { "new_order", "payment" }
    v.queue_ms = { avg = 0.5, max = 12, pct_list = { { key = "95", ms = 1.25 } }, not_started = 7 }
    v.phases = {
      { name = "warm", target_rate = { from = 1000, to = 1000 }, duration_s = 5, events = 600, events_per_sec = 120,
        latency_ms = { avg = 8, max = 90, pct_list = { { key = "95", ms = 14 } } } },
      { name = "ramp", target_rate = { from = 1000, to = 5000 }, duration_s = 5, events = 634, events_per_sec = 126.8,
        latency_ms = { avg = 8.2, max = 95.25, pct_list = { { key = "95", ms = 15 } } } } }
    v.cpu = { client_s = 1.5, client_us_per_query = 60.78, server_s = 4.25, server_us_per_query = 172.2, server_pid = 4242 }
    v.fairness.connections = { count = 8, events_min = 150, events_avg = 154.25, events_max = 160, events_stddev = 3.5,
                               unused = 1 }
    v.extra_text = "tpcc:\n    tpmC: 1"
    assert.are.equal(lines(concat(SQL_BLOCK, {
      "    errors:                              4      (0.40 per sec.)",
      "    errors by code:                      1213: 3, 40P01: 1",
      "    reconnect attempts:                  5      (2 failed)",
      "    connections lost:                    2      (outage 1.500s over all connections, 1 not reconnected)",
      "",
      "General statistics:",
      "    total time:                          10.0000s",
      "    total number of events:              1234",
      "    warm-up (excluded):                  2.0000s, 77 events",
      "" }, LATENCY_BLOCK, {
      "Queue time under --rate (ms; included in latency):",
      "         avg:                                     0.50",
      "         max:                                    12.00",
      "         95th percentile:                         1.25",
      "         not started (backlog at the end):           7",
      "",
      "Per-type statistics:",
      "    type                 events   restarts  rollbacks    avg ms    max ms       95%",
      "    new_order               450          2          1      9.50     80.00     20.00",
      "    payment                 784          0          0      7.25     95.25  overflow",
      "",
      "Phases:",
      "    phase          target rate/s            time s     events     events/s    avg ms    max ms       95%",
      "    warm           1000                       5.00        600       120.00      8.00     90.00     14.00",
      "    ramp           1000 -> 5000               5.00        634       126.80      8.20     95.25     15.00",
      "",
      "CPU time (user+sys):",
      "    client:                        1.50s (60.78 us per query)",
      "    server:                        4.25s (172.20 us per query; pid 4242)",
      "",
      "Threads fairness:",
      "    events (avg/stddev):           154.2500/2.17",
      "    busy time (avg/stddev):        9.9981/0.00",
      "",
      "Connections fairness (8 connections):",
      "    events (min/avg/max/stddev):   150/154.25/160/3.50",
      "    connections without events:    1",
      "",
      "Run stopped on error: connection lost",
      "A connection was lost and not reconnected: the figures above cover the 10.0000s until the last event completed.",
      "",
      "tpcc:",
      "    tpmC: 1" })), report.final_text(v))
  end)

  it("widens the per-type column to its longest name, so a script's path keeps the columns aligned", function()
    local v = sql_view()
    local name = "/home/someone/benchmarks/pgbench/select-only.sql"
    v.types = { [name] = { events = 25000, restarts = 0, rollbacks = 0,
                           latency_ms = { avg = 0.12, max = 28.54, pct_list = { { key = "95", ms = 0.15 } } } } }
    v.type_order = { name }
    local text = report.final_text(v)
    local hdr = text:match("\n(    type [^\n]*)")
    local row = text:match("\n(    /home[^\n]*)")
    assert.are.equal(#hdr, #row)
    assert.are.equal(hdr:find("events", 1, true) + #"events", row:find("25000", 1, true) + #"25000")
  end)

  it("writes a fileio run's operations and throughput, its events per second, and an interruption", function()
    local v = { duration_s = 2, warmup_s = 0, status = "interrupted", stop_reason = "signal", type_order = {},
      totals = { events = 5000, events_per_sec = 2500 },
      io = { reads_per_sec = 1500, writes_per_sec = 1000, fsyncs_per_sec = 10, read_mib_per_sec = 23.4375,
             written_mib_per_sec = 15.625 },
      latency_ms = { min = 0.01, avg = 0.4, max = 3, sum = 2000, overflow = 0, underflow = 0,
                     pct_list = { { key = "50", ms = 0.3 }, { key = "99", ms = 2.5 } } },
      fairness = { events_avg = 2500, events_stddev = 0, exec_time_avg_s = 1.9, exec_time_stddev_s = 0.05 } }
    assert.are.equal(lines({
      "File operations:",
      "    reads/s:                      1500.00",
      "    writes/s:                     1000.00",
      "    fsyncs/s:                     10.00",
      "",
      "Throughput:",
      "    read, MiB/s:                  23.44",
      "    written, MiB/s:               15.63",
      "",
      "General statistics:",
      "    total time:                          2.0000s",
      "    total number of events:              5000",
      "    events per second:                   2500.00",
      "",
      "Latency (ms):",
      "         min:                                     0.01",
      "         avg:                                     0.40",
      "         max:                                     3.00",
      "         50th percentile:                         0.30",
      "         99th percentile:                         2.50",
      "         sum:                                  2000.00",
      "",
      "Threads fairness:",
      "    events (avg/stddev):           2500.0000/0.00",
      "    busy time (avg/stddev):        1.9000/0.05",
      "",
      "Run interrupted (signal) after 2.0000s of measurement: the figures above cover that period.",
      "" }), report.final_text(v))
  end)

  it("renders a built result, and a latency past the histogram's range as 'overflow' with its count", function()
    local cfg = ffi.new("lb_hist_config")
    C.lb_hist_config_default(cfg)
    local a = { final_stats = ffi.new("lb_stats"), base_stats = ffi.new("lb_stats"), cum = snapshot.new(cfg),
      keys = { "50", "99.9" }, type_names = {}, thread_events = { 101 }, thread_busy = { 9.5 }, duration_s = 10,
      warmup_s = 0, warmup_events = 0, started_at = 0, intervals = json.array(), threads = 1 }
    a.final_stats.events = 101
    C.lb_hist_record_n(a.cum.lat, 1500, 100) -- 1.5 µs, exact
    C.lb_hist_record(a.cum.lat, 2 ^ 43)     -- past 2^42 - 1 ns
    a.d = snapshot.diff(snapshot.counters(a.final_stats), snapshot.counters(a.base_stats))
    local r = result.build({ opt = { threads = 1 }, scenario_name = "spec", command = "run", redacted_options = {} },
      { version = "0.1.0" }, a)
    assert.are.equal(lines({
      "General statistics:",
      "    total time:                          10.0000s",
      "    total number of events:              101",
      "    events per second:                   10.10",
      "",
      "Latency (ms):",
      "         min:                                     0.00",
      "         avg:                                     0.00",
      "         max:                                     0.00",
      "         50th percentile:                         0.00",
      "         99.9th percentile:                   overflow",
      "         sum:                                     0.15",
      "         out of range:        1 above 4398047 ms, 0 below 0",
      "",
      "Threads fairness:",
      "    events (avg/stddev):           101.0000/0.00",
      "    execution time (avg/stddev):   9.5000/0.00",
      "" }), report.final_text(result.text_view(r)))
  end)
end)

describe("lbench.report histogram", function()
  it("draws bars scaled to the largest count, labels with three significant digits", function()
    -- buckets in ns, shown in ms (scale 1e-6)
    assert.are.equal(lines({
      "Latency histogram (values are in milliseconds)",
      "       value  ------------- distribution ------------- count",
      "        1.00 |*************                            10",
      "        1.97 |**************************************** 30",
      "        3.95 |*******                                  5" }),
      hist.histogram_text({ { 1000000, 1000447, 10 }, { 2000000, 2000895, 30 }, { 4000000, 4001791, 5 } }, 1e-6))
  end)

  it("gives a zero bucket the label 0 and at least one star to any count", function()
    assert.are.equal(lines({
      "Latency histogram (values are in milliseconds)",
      "       value  ------------- distribution ------------- count",
      "           0 |***************************              2",
      "        1.00 |**************************************** 3",
      "        1000 |*************                            1" }),
      hist.histogram_text({ { 0, 0, 2 }, { 1, 1, 3 }, { 5, 5, 0 }, { 1000, 1000, 1 } }, 1))
    -- a count of 1 beside 80: 0.5 stars rounds to 0, shown as 1
    assert.truthy(hist.histogram_text({ { 1, 1, 80 }, { 2, 2, 1 } }, 1):find("|*                                        1",
      1, true))
  end)

  it("merges buckets of one bin, so the rows' counts add up to the total", function()
    local rows = hist.histogram_rows({ { 100, 100, 1 }, { 101, 101, 2 }, { 1000000, 1000447, 3 } }, 1)
    assert.are.same({ { "100", 3 }, { "1000000", 3 } }, rows)
    -- one decade of fine buckets: 100 bins, labels distinct
    local buckets, total = {}, 0
    for v = 1000, 1999, 7 do buckets[#buckets + 1] = { v, v, 2 }; total = total + 2 end
    local seen, sum = {}, 0
    for _, r in ipairs(hist.histogram_rows(buckets, 1)) do
      assert.is_nil(seen[r[1]])
      seen[r[1]] = true
      sum = sum + r[2]
    end
    assert.are.equal(total, sum)
    assert.are.same({}, hist.histogram_rows({}, 1))
  end)
end)

describe("lbench.report interval lines and CSV", function()
  local iv_sql = { time_s = 10, threads = 8, sql = true, events_per_sec = 1234.56, queries_per_sec = 24691.2,
    reads_per_sec = 17283.84, writes_per_sec = 4938.24, other_per_sec = 2469.12, errors_per_sec = 0.5,
    reconnects_per_sec = 0, latency_ms = { avg = 5, max = 9, pct_list = { { key = "95", ms = 8.43 } } } }

  it("writes interval lines in sysbench's layout: SQL, events only, I/O", function()
    assert.are.equal("[ 10s ] thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 8.43 "
      .. "err/s: 0.50 reconn/s: 0.00", report.interval_line(iv_sql))
    assert.are.equal("[ 0.5s ] (warm-up) thds: 2 eps: 100.00 lat (ms,50%/99%): 1.00/overflow queue (ms,50%/99%): "
      .. "0.25/3.00 types: a 5/s phase: warm", report.interval_line({ time_s = 0.5, warmup = true, threads = 2,
        events_per_sec = 100, latency_ms = { pct_list = { { key = "50", ms = 1 }, { key = "99" } } },
        queue_ms = { pct_list = { { key = "50", ms = 0.25 }, { key = "99", ms = 3 } } }, types_line = "types: a 5/s",
        phase = "warm" }))
    local io = { reads_per_sec = 1, writes_per_sec = 2, fsyncs_per_sec = 3, read_mib_per_sec = 0.5, written_mib_per_sec = 0.25 }
    assert.are.equal("[ 3s ] thds: 1 reads/s: 1.00 writes/s: 2.00 fsyncs/s: 3.00 read: 0.50 MiB/s written: 0.25 MiB/s "
      .. "lat (ms,95%): 1.50", report.interval_line({ time_s = 3, threads = 1, events_per_sec = 10, io = io,
        latency_ms = { pct_list = { { key = "95", ms = 1.5 } } } }))
    -- an I/O run keeps its layout in an interval without I/O
    report.io_run = true
    local quiet = report.interval_line({ time_s = 4, threads = 1, events_per_sec = 0,
      latency_ms = { pct_list = { { key = "95", ms = 0 } } } })
    report.io_run = false
    assert.are.equal("[ 4s ] thds: 1 reads/s: 0.00 writes/s: 0.00 fsyncs/s: 0.00 read: 0.00 MiB/s written: 0.00 MiB/s "
      .. "lat (ms,95%): 0.00", quiet)
  end)

  it("labels the cumulative report's time rounded to 10 ms", function()
    assert.are.same({ "2", "0.25", "2", "1.99" },
      { report.time_label(2.00003), report.time_label(0.25), report.time_label(1.996), report.time_label(1.994) })
  end)

  it("writes interval CSV: the header's columns in every row, I/O and per-type columns when the run has them", function()
    assert.are.equal("time_s,warmup,threads,events_per_sec,queries_per_sec,reads_per_sec,writes_per_sec,other_per_sec,"
      .. "errors_per_sec,reconnects_per_sec,lat_avg_ms,lat_max_ms,lat_p95_ms", report.csv_header(iv_sql))
    iv_sql.warmup = false
    assert.are.equal("10,0,8,1234.56,24691.2,17283.8,4938.24,2469.12,0.5,0,5,9,8.43", report.csv_row(iv_sql))
    local io_iv = { time_s = 3, warmup = true, threads = 1, events_per_sec = 10, type_order = { "a" },
      types = { a = { events_per_sec = 7.5 } }, latency_ms = { avg = 1, max = 2, pct_list = { { key = "95" } } },
      io = { reads_per_sec = 1, writes_per_sec = 2, fsyncs_per_sec = 3, read_mib_per_sec = 0.5, written_mib_per_sec = 0.25 } }
    assert.are.equal("time_s,warmup,threads,events_per_sec,queries_per_sec,reads_per_sec,writes_per_sec,other_per_sec,"
      .. "errors_per_sec,reconnects_per_sec,lat_avg_ms,lat_max_ms,lat_p95_ms,io_reads_per_sec,io_writes_per_sec,"
      .. "io_fsyncs_per_sec,read_mib_per_sec,written_mib_per_sec,a_per_sec", report.csv_header(io_iv))
    assert.are.equal("3,1,1,10,0,0,0,0,0,0,1,2,,1,2,3,0.5,0.25,7.5", report.csv_row(io_iv))
    -- a row without I/O under that header: zeros in the I/O columns
    assert.are.equal("10,0,8,1234.56,24691.2,17283.8,4938.24,2469.12,0.5,0,5,9,8.43,0,0,0,0,0", report.csv_row(iv_sql))
    report.csv_header(iv_sql) -- back to the plain layout for whatever runs next
  end)

  it("writes the server's and the host's columns when the run records them, empty where a figure is missing",
    function()
    local ob = { time_s = 1, warmup = false, threads = 1, events_per_sec = 10, observed = true,
      latency_ms = { avg = 1, max = 2, pct_list = {} },
      server = { buffer_pool_hit_pct = 99.5, buffer_pool_reads_per_sec = 12, data_written_mib_per_sec = 0.25,
                 redo_written_mib_per_sec = 0.5 },
      host = { cpu = { user_pct = 20, system_pct = 5, iowait_pct = 1.5 },
               devices = { sdb = { util_pct = 10, await_ms = 0.5 }, sda = { util_pct = 40, await_ms = 2.25 } } } }
    assert.are.equal("time_s,warmup,threads,events_per_sec,queries_per_sec,reads_per_sec,writes_per_sec,other_per_sec,"
      .. "errors_per_sec,reconnects_per_sec,lat_avg_ms,lat_max_ms,server_hit_pct,server_disk_reads_per_sec,"
      .. "server_written_mib_per_sec,server_log_mib_per_sec,host_user_pct,host_system_pct,host_iowait_pct,"
      .. "device_util_pct,device_await_ms", report.csv_header(ob))
    -- the busiest device's util and await (sda)
    assert.are.equal("1,0,1,10,0,0,0,0,0,0,1,2,99.5,12,0.25,0.5,20,5,1.5,40,2.25", report.csv_row(ob))
    -- PostgreSQL's names; no device, no CPU: empty cells
    ob.server = { buffer_hit_pct = 90, blocks_read_per_sec = 3, wal_mib_per_sec = 1 }
    ob.host = nil
    assert.are.equal("1,0,1,10,0,0,0,0,0,0,1,2,90,3,,1,,,,,", report.csv_row(ob))
    ob.server = nil
    assert.are.equal("1,0,1,10,0,0,0,0,0,0,1,2,,,,,,,,,", report.csv_row(ob))
    report.csv_header(iv_sql)
  end)

  it("writes the final totals as metric,value rows", function()
    local v = sql_view()
    v.io = { reads = 3000, writes = 2000, fsyncs = 20, reads_per_sec = 1500, writes_per_sec = 1000, fsyncs_per_sec = 10,
             read_mib_per_sec = 23.4375, written_mib_per_sec = 15.625 }
    v.latency_ms.pct_list[2] = { key = "99.9" }
    v.extra_csv = "tpcc_tpmc,1"
    assert.are.equal(lines({ "metric,value", "duration_s,10", "events,1234", "events_per_sec,123.4", "queries,24680",
      "queries_per_sec,2468", "ignored_errors,3", "reconnects,0", "io_reads,3000", "io_writes,2000", "io_fsyncs,20",
      "io_reads_per_sec,1500", "io_writes_per_sec,1000", "io_fsyncs_per_sec,10", "io_read_mib_per_sec,23.4375",
      "io_written_mib_per_sec,15.625", "lat_min_ms,0.52", "lat_avg_ms,8.1", "lat_max_ms,95.25", "lat_p95_ms,14.46",
      "lat_p99.9_ms,", "tpcc_tpmc,1" }), report.csv_totals(v))
    local plain = { duration_s = 1.5, totals = { events = 3, events_per_sec = 2 },
                    latency_ms = { min = 1, avg = 2, max = 3, pct_list = {} } }
    assert.are.equal("metric,value\nduration_s,1.5\nevents,3\nevents_per_sec,2\nlat_min_ms,1\nlat_avg_ms,2\nlat_max_ms,3",
      report.csv_totals(plain))
  end)

  it("gives scenarios metric rows with a prefix, booleans as 1 or 0", function()
    local m = report.metric_rows("tpcc_")
    m.add("tpmc", 1234.5)
    m.add("ok", true)
    m.add("failed", false)
    m.add("big", 123456789)
    assert.are.equal("tpcc_tpmc,1234.5\ntpcc_ok,1\ntpcc_failed,0\ntpcc_big,1.23457e+08", m.text())
  end)
end)
