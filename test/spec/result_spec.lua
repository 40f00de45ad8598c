-- Specs of lbench.result: the result document built from what a run
-- measured (driven here by a synthetic run: counters in lb_stats blocks,
-- latencies in the core's histograms, no live run), the schema check, the
-- reading of result files with their one-line refusals, and the figures
-- the tools read from a document.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local result = require("lbench.result.document")
local snapshot = require("lbench.result.snapshot")
local report = require("lbench.result.render")

local CFG = ffi.new("lb_hist_config")
C.lb_hist_config_default(CFG)

local function new_hist() return ffi.gc(C.lb_hist_new(CFG), C.lb_hist_free) end

local function fails(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return e.lbench_message
end

local function keys_of(o)
  local ks = {}
  for k in json.pairs(o) do ks[#ks + 1] = k end
  return table.concat(ks, " ")
end

-- A measured run as run/runner.lua hands it to result.build: 100 events over
-- 10 s (110 counted, 10 of them before the warm-up end), latencies of
-- 1000 ns (90 events) and 2000 ns (10): below 2048 ns the histogram is
-- exact, so every figure is known.  `setup(final, base, a)` adds to it.
local function measured(setup, opt)
  local a = { final_stats = ffi.new("lb_stats"), base_stats = ffi.new("lb_stats"), cum = snapshot.new(CFG),
    keys = { "95", "99.9" }, type_names = {}, thread_events = { 60, 40 }, thread_busy = { 9, 8 }, duration_s = 10,
    warmup_s = 1, warmup_events = 10, started_at = 1764720000, intervals = json.array(), threads = 2 }
  a.final_stats.events, a.base_stats.events = 110, 10
  C.lb_hist_record_n(a.cum.lat, 1000, 90)
  C.lb_hist_record_n(a.cum.lat, 2000, 10)
  if setup then setup(a.final_stats, a.base_stats, a) end
  a.d = snapshot.diff(snapshot.counters(a.final_stats), snapshot.counters(a.base_stats))
  local ctx = { opt = opt or { threads = 2 }, scenario_name = "spec", script = "spec.lua", script_hash = "h1",
    command = "run", redacted_options = { threads = 2 } }
  return result.build(ctx, { version = "0.1.0" }, a), a
end

local function sql_counts(final)
  local db = ffi.cast("lb_db_stats *", final.ext)
  db.queries[C.LB_DB_Q_SELECT] = 1400
  db.queries[C.LB_DB_Q_INSERT] = 100
  db.queries[C.LB_DB_Q_UPDATE] = 200
  db.queries[C.LB_DB_Q_DELETE] = 100
  db.queries[C.LB_DB_Q_OTHER] = 200
  db.errors = 3
  db.reconnects = 1
  return db
end

-- A valid document, as json.decode gives it, to break one field at a time.
local function valid_doc()
  return json.decode(result.to_json((measured())))
end

describe("lbench.result building", function()
  it("sql_totals: events, queries by kind and by statement, rates, errors, in the documented order", function()
    local t = result.sql_totals({ events = 100, reads = 1400, writes = 400, other = 200, inserts = 100, updates = 200,
      deletes = 100, restarts = 2, reconnects = 1, db_errors = 3 }, 10)
    assert.are.equal('{"events":100,"events_per_sec":10,"queries":{"read":1400,"write":400,"other":200,"total":2000},'
      .. '"queries_by_type":{"select":1400,"insert":100,"update":200,"delete":100,"other":200},"queries_per_sec":200,'
      .. '"ignored_errors":2,"reconnects":1,"errors":3}', json.encode(t))
  end)

  it("builds a plain run's document: header, totals over the measured period, exact latency figures", function()
    local r = measured()
    assert.are.equal("lbench_version scenario scenario_path scenario_hash command options host started_at status "
      .. "threads duration_s warmup_s warmup_events totals latency_ms fairness intervals histogram",
      keys_of(result.unwrap(r)))
    assert.are.same({ "0.1.0", "spec", "spec.lua", "h1", "run", "2025-12-03T00:00:00Z", "ok" },
      { r.lbench_version, r.scenario, r.scenario_path, r.scenario_hash, r.command, r.started_at, r.status })
    assert.are.same({ 2, 10, 1, 10 }, { r.threads, r.duration_s, r.warmup_s, r.warmup_events })
    assert.are.equal('{"events":100,"events_per_sec":10}', json.encode(r.totals))
    local l = result.plain(r.latency_ms)
    assert.are.same({ 100, 0.001, 0.0011, 0.002, 0.11, 0, 0 },
      { l.count, l.min, l.avg, l.max, l.sum, l.underflow, l.overflow })
    assert.is_true(math.abs(l.stddev - 0.0003) < 1e-15)
    -- the configured percentiles first, then the standard ones; exact below 2048 ns
    assert.are.equal('{"95":0.002,"99.9":0.002,"50":0.001,"90":0.001,"99":0.002,"99.99":0.002}',
      json.encode(l.percentiles))
    -- what the text report shows: the configured ones only
    assert.are.same({ { key = "95", ms = 0.002 }, { key = "99.9", ms = 0.002 } }, r.latency_ms.pct_list)
    assert.are.equal('{"events_avg":50,"events_stddev":10,"exec_time_avg_s":8.5,"exec_time_stddev_s":0.5}',
      json.encode(r.fairness))
    assert.are.equal('{"unit":"ns","relative_error":0.00048828125,"underflow":0,"overflow":0,'
      .. '"buckets":[[1000,1000,90],[2000,2000,10]]}', json.encode(r.histogram))
    assert.is_nil(r.types)
    assert.is_nil(r.io)
  end)

  it("builds an SQL run's totals from the SQL layer's counters, with error codes and outages", function()
    local r = measured(function(final, base)
      local db = sql_counts(final)
      db.reconnect_failed = 2
      db.lost = 1
      db.outage_ns = 1500000000
      db.err[0].code, db.err[0].count = 1213, 5
      db.err[1].code, db.err[1].count = C.lb_db_sqlstate_code("40P01"), 4
      db.err[C.LB_STATS_EXT_CODES - 1].code, db.err[C.LB_STATS_EXT_CODES - 1].count = -1, 1
      local b = ffi.cast("lb_db_stats *", base.ext)
      b.err[0].code, b.err[0].count = 1213, 2 -- counted before the warm-up end
    end)
    assert.are.equal("events events_per_sec queries queries_by_type queries_per_sec ignored_errors reconnects errors "
      .. "errors_by_code reconnects_failed reconnect_attempts connections_lost outage_s not_reconnected", keys_of(r.totals))
    assert.are.equal('{"read":1400,"write":400,"other":200,"total":2000}', json.encode(r.totals.queries))
    assert.are.equal('{"select":1400,"insert":100,"update":200,"delete":100,"other":200}',
      json.encode(r.totals.queries_by_type))
    assert.are.same({ 200, 0, 1, 3 }, { r.totals.queries_per_sec, r.totals.ignored_errors, r.totals.reconnects,
      r.totals.errors })
    assert.are.equal('{"other":1,"40P01":4,"1213":3}', json.encode(r.totals.errors_by_code))
    assert.are.same({ 2, 3, 1, 1.5, 0 }, { r.totals.reconnects_failed, r.totals.reconnect_attempts,
      r.totals.connections_lost, r.totals.outage_s, r.totals.not_reconnected })
  end)

  it("builds per-type tables (types with events only), I/O totals and connection fairness", function()
    local r = measured(function(final, base, a)
      a.type_names = { "read", "idle", "write" }
      final.types[0].events, final.types[0].restarts = 70, 1
      final.types[2].events, final.types[2].rollbacks = 35, 2
      base.types[2].events = 5
      a.cum.type_lat[0] = C.lb_hist_new(CFG)
      C.lb_hist_record_n(a.cum.type_lat[0], 1000, 70)
      final.io_reads, final.io_writes, final.io_fsyncs = 300, 100, 10
      final.io_bytes_read, final.io_bytes_written = 5 * 1048576, 2.5 * 1048576
      a.lane_figures = { count = 4, sum = 100, sumsq = 2600, min = 20, max = 30, unused = 0 }
    end, { threads = 2, connections = 4 })
    assert.are.equal("read write", keys_of(r.types))
    assert.are.same({ "read", "write" }, result.text_view(r).type_order)
    local rd, wr = r.types.read, r.types.write
    assert.are.same({ 70, 1, 0, 70 }, { rd.events, rd.restarts, rd.rollbacks, rd.share_pct })
    assert.are.same({ 30, 0, 2, 30 }, { wr.events, wr.restarts, wr.rollbacks, wr.share_pct })
    assert.are.same({ 70, 0.001 }, { rd.latency_ms.count, rd.latency_ms.max })
    -- a type without a histogram of its own: an empty summary
    assert.are.same({ 0, 0 }, { wr.latency_ms.count, wr.latency_ms.avg })
    assert.are.equal('{"reads":300,"writes":100,"fsyncs":10,"reads_per_sec":30,"writes_per_sec":10,'
      .. '"fsyncs_per_sec":1,"read_mib_per_sec":0.5,"written_mib_per_sec":0.25}', json.encode(r.io))
    assert.are.equal(4, r.connections)
    assert.are.equal('{"count":4,"events_min":20,"events_avg":25,"events_stddev":5,"events_max":30,'
      .. '"includes_warmup":true,"unused":0}', json.encode(r.fairness.connections))
  end)

  it("writes an overflowed percentile as null and says why a run stopped", function()
    local r = measured(function(_, _, a)
      C.lb_hist_record(a.cum.lat, 2 ^ 43) -- past the histogram's range (2^42 - 1 ns)
      a.stop_reason = "signal"
    end)
    local l = result.plain(r.latency_ms)
    assert.are.same({ 101, 1, 0.002 }, { l.count, l.overflow, l.max })
    assert.are.equal(json.null, l.percentiles["99.99"])
    assert.are.equal(0.002, l.percentiles["99"])
    -- serialised as null (not as an empty object)
    assert.truthy(result.to_json(r):find('"percentiles":{"95":0.002,"99.9":null,"50":0.001,"90":0.002,"99":0.002,'
      .. '"99.99":null}', 1, true))
    -- read back from the file (no key for a null there), the counts say which overflowed
    local back = json.decode(result.to_json(r)).latency_ms
    assert.are.same({ true, true, false, false, false }, { result.pct_overflowed(l, "99.99"),
      result.pct_overflowed(back, "99.9"), result.pct_overflowed(back, "99"), result.pct_overflowed(back, "50"),
      result.pct_overflowed(back, "nope") })
    assert.are.same({ "interrupted", "signal" }, { r.status, r.stop_reason })
    assert.are.equal("signal", report.stop_words(r))
    assert.are.equal("thread 3 stuck past the deadline inside one event (2 s of grace), waiting for the server: "
      .. "SELECT 1; its connections were cut", report.stop_words({ stuck_thread = 3, stuck_waiting = "SELECT 1" }))
    assert.are.equal("thread 0 stuck past the deadline inside one event (2 s of grace), in a call of the script's own "
      .. "(no query waiting); its connections were cut", report.stop_words({ stuck_thread = 0, stuck_waiting = "" }))
    assert.are.equal("workers stuck past the deadline were cut off", report.stop_words({}))
    local failed = measured(function(_, _, a) a.failed, a.error = true, "boom" end)
    assert.are.same({ "error", "boom" }, { failed.status, failed.error })
  end)

  it("serialises a built document that passes its own schema check", function()
    local text = result.to_json((measured(function(final) sql_counts(final) end)), "  ")
    local doc = json.decode(text)
    assert.are.same({ true }, { result.validate(doc) })
    assert.is_nil(text:find("pct_list", 1, true))
    assert.are.equal(2000, doc.totals.queries.total)
  end)

  it("adds lane figures exactly; no lanes is a minimum of 0", function()
    local f = result.lanes_new()
    result.lanes_add(f, { count = 2, sum = 30, sumsq = 500, min = 10, max = 20, unused = 0 })
    result.lanes_add(f, { count = 0, sum = 0, sumsq = 0, min = 0, max = 0, unused = 0 })
    result.lanes_add(f, { count = 1, sum = 0, sumsq = 0, min = 0, max = 0, unused = 1 })
    assert.are.same({ count = 3, sum = 30, sumsq = 500, min = 0, max = 20, unused = 1 }, result.lanes_done(f))
    assert.are.equal(0, result.lanes_done(result.lanes_new()).min)
  end)
end)

describe("lbench.result validate", function()
  local function why(mutate)
    local d = valid_doc()
    mutate(d)
    local ok, reason = result.validate(d)
    assert.is_false(ok)
    return reason
  end

  it("accepts a run, and commands without measurements on their header alone", function()
    assert.is_true((result.validate(valid_doc())))
    local prep = valid_doc()
    prep.command, prep.totals, prep.latency_ms = "prepare", nil, nil
    assert.is_true((result.validate(prep)))
  end)

  it("names the header field that is missing or of the wrong type", function()
    assert.are.equal("not an object", select(2, result.validate("x")))
    assert.are.equal("lbench_version: expected a string, found nothing", why(function(d) d.lbench_version = nil end))
    assert.are.equal("scenario: expected a string, found number", why(function(d) d.scenario = 5 end))
    assert.are.equal("options: expected a table, found string", why(function(d) d.options = "x" end))
    assert.are.equal("started_at: not an ISO 8601 UTC time: 2025-12-03 00:00:00",
      why(function(d) d.started_at = "2025-12-03 00:00:00" end))
    assert.are.equal("status: unknown value 'weird'", why(function(d) d.status = "weird" end))
    assert.are.equal("stop_reason: present exactly when status is interrupted",
      why(function(d) d.status = "interrupted" end))
    assert.are.equal("stop_reason: present exactly when status is interrupted",
      why(function(d) d.stop_reason = "signal" end))
    assert.are.equal("error: expected a string, found boolean", why(function(d) d.error = true end))
  end)

  it("names the measured field that is missing, of the wrong type or out of range", function()
    assert.are.equal("duration_s: negative", why(function(d) d.duration_s = -1 end))
    assert.are.equal("totals.events_per_sec: expected a number, found nothing",
      why(function(d) d.totals.events_per_sec = nil end))
    assert.are.equal("latency_ms.stddev: expected a number, found string", why(function(d) d.latency_ms.stddev = "0" end))
    assert.are.equal("latency_ms.percentiles: expected a table, found nothing",
      why(function(d) d.latency_ms.percentiles = nil end))
    assert.are.equal("intervals[2].latency_ms.count: expected a number, found nothing", why(function(d)
      d.intervals = json.array({ { time_s = 1, events = 1, latency_ms = { count = 1 } },
                                 { time_s = 2, events = 1, latency_ms = {} } })
    end))
    assert.are.equal("intervals[1]: expected an object, found number", why(function(d) d.intervals = { 5 } end))
    assert.are.equal("histogram.buckets: expected a table, found nothing", why(function(d) d.histogram.buckets = nil end))
  end)

  it("checks every point of a sweep and its summary", function()
    local function sweep(points, summary)
      local d = valid_doc()
      d.tool, d.points, d.summary = "sweep", points, summary
      return d
    end
    assert.is_true((result.validate(sweep({ valid_doc(), valid_doc() }, {}))))
    local bad = valid_doc()
    bad.threads = nil
    assert.are.same({ false, "points[2].threads: expected a number, found nothing" },
      { result.validate(sweep({ valid_doc(), bad }, {})) })
    assert.are.same({ false, "points[1]: expected an object, found string" }, { result.validate(sweep({ "x" }, {})) })
    assert.are.same({ false, "points: expected a table, found nothing" }, { result.validate(sweep(nil, {})) })
    assert.are.same({ false, "summary: expected a table, found nothing" }, { result.validate(sweep({}, nil)) })
  end)
end)

describe("lbench.result files", function()
  local path
  before_each(function() path = os.tmpname() end)
  after_each(function() os.remove(path) end)
  local function write(text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
  end

  it("loads a result file and refuses what is not one, in one line naming the file", function()
    write(result.to_json((measured())))
    assert.are.equal(100, result.load(path).totals.events)
    write("")
    assert.are.equal("'" .. path .. "' is empty, not an lbench result file", fails(result.load, path))
    write(" \n\t")
    assert.are.equal("'" .. path .. "' is empty, not an lbench result file", fails(result.load, path))
    write("<html>")
    assert.are.equal("'" .. path .. "' is not a JSON document (invalid JSON at line 1: unexpected character '<')",
      fails(result.load, path))
    write('{"a":\n')
    assert.are.equal("'" .. path .. "' is not a JSON document (invalid JSON at line 2: unexpected end of the document "
      .. "(truncated?))", fails(result.load, path))
    for _, other in ipairs({ '{"name":"x"}', "[1,2]", '"text"', "42" }) do
      write(other)
      assert.are.equal("'" .. path .. "' is not an lbench result file (no 'totals' or 'points')", fails(result.load, path))
    end
    write('{"totals":5}')
    assert.are.equal("'" .. path .. "' is not an lbench result file ('totals' is not an object)", fails(result.load, path))
    write('{"points":5}')
    assert.are.equal("'" .. path .. "' is not an lbench result file ('points' is not a list)", fails(result.load, path))
    write('{"points":[{"totals":{}},{"threads":1}]}')
    assert.are.equal("'" .. path .. "': sweep point 2 has no totals", fails(result.load, path))
    os.remove(path)
    assert.are.equal("cannot read '" .. path .. "': No such file or directory", fails(result.load, path))
  end)

  it("writes a file atomically, and refuses a directory or a missing one before a run", function()
    assert.is_true(result.write_atomic(path, "doc\n"))
    local f = assert(io.open(path, "rb"))
    assert.are.equal("doc\n", f:read("*a"))
    f:close()
    assert.has_no.errors(function() result.check_writable(path, "--result-file") end)
    assert.are.equal("--result-file=/tmp: is a directory, expected a file path",
      fails(result.check_writable, "/tmp", "--result-file"))
    assert.are.equal("--result-file=/nonexistent-dir/x.json: cannot write there: No such file or directory",
      fails(result.check_writable, "/nonexistent-dir/x.json", "--result-file"))
    assert.are.equal("--result-file: empty path", fails(result.check_writable, "", "--result-file"))
    local ok, e = result.write_atomic("/nonexistent-dir/x.json", "doc")
    assert.is_false(ok)
    assert.truthy(tostring(e):find("No such file or directory", 1, true))
  end)
end)

describe("lbench.result figures", function()
  it("throughput is IOPS for I/O runs, TPS for SQL runs, events/s otherwise", function()
    local io = { totals = { events_per_sec = 5 }, io = { reads_per_sec = 100, writes_per_sec = 50 } }
    assert.are.same({ 150, "IOPS", "iops" }, { result.throughput(io) })
    assert.are.same({ 7, "TPS", "events_per_sec" },
      { result.throughput({ totals = { events_per_sec = 7, queries = { total = 1 } } }) })
    assert.are.same({ 7, "events/s", "events_per_sec" }, { result.throughput({ totals = { events_per_sec = 7 } }) })
    assert.are.same({ 0, "events/s", "events_per_sec" }, { result.throughput({}) })
  end)

  it("iops adds what is there; is_sql, is_sweep and pct read the document's shape", function()
    assert.are.equal(20, result.iops({ io = { writes_per_sec = 20 } }))
    assert.is_nil(result.iops({ io = { fsyncs_per_sec = 3 } }))
    assert.is_nil(result.iops({ io = "x" }))
    assert.is_nil(result.iops({}))
    assert.is_true(result.is_sql({ totals = { queries = {} } }))
    assert.is_false(result.is_sql({ totals = { events = 1 } }))
    assert.is_false(result.is_sql({ totals = 3 }))
    assert.is_true(result.is_sweep({ points = {} }))
    assert.is_false(result.is_sweep({ totals = {} }))
    local lat = { percentiles = { ["95"] = 1.5, ["99"] = json.null } }
    assert.are.equal(1.5, result.pct(lat, "95"))
    assert.is_nil(result.pct(lat, "99"))
    assert.is_nil(result.pct(lat, "50"))
    assert.is_nil(result.pct({}, "95"))
    assert.is_nil(result.pct(nil, "95"))
  end)

  it("duration_to_failure ends a lost connection's run at its last event", function()
    local final, base = ffi.new("lb_stats"), ffi.new("lb_stats")
    assert.are.equal(10, result.duration_to_failure(10, false, final, base, 4))
    assert.are.equal(10, result.duration_to_failure(10, true, final, base, 4))
    ffi.cast("lb_db_stats *", final.ext).gave_up = 1
    assert.are.equal(4, result.duration_to_failure(10, true, final, base, 4))
    assert.are.equal(10, result.duration_to_failure(10, true, final, base, 12))
  end)
end)
