-- Specs of the history's pure parts (lbench.history, lbench.regress):
-- times, key options, metric names, limits, and the SQLite store on a
-- temporary file (bound parameters, identity, filters, ids never reused).
local history = require("lbench.result.history")
local regress = require("lbench.history.check")

local function doc(t)
  local d = { lbench_version = "0.1.0", scenario = "oltp_point_select", command = "run", started_at = "2026-12-03T14:20:18Z",
    status = "ok", host = { hostname = "h1" }, threads = 1, duration_s = 1,
    options = { threads = 1, rate = 0, time = 1, db_driver = "null", tables = 1, table_size = 10000, events = 0 },
    totals = { events = 2000, events_per_sec = 2000, queries = { total = 2000 }, queries_per_sec = 2000 },
    latency_ms = { count = 2000, min = 0, avg = 0.1, max = 1, sum = 200, stddev = 0.01, underflow = 0, overflow = 0,
      percentiles = { ["95"] = 0.2, ["99"] = 0.3 } }, intervals = {}, histogram = { buckets = {} } }
  for k, v in pairs(t or {}) do d[k] = v end
  return d
end

describe("lbench.result.history", function()
  it("reads ISO 8601 UTC times as Unix seconds", function()
    assert.are.equal(0, history.unix_time("1970-01-01T00:00:00Z"))
    assert.are.equal(951782400, history.unix_time("2000-02-29"))
    assert.are.equal(1796307618, history.unix_time("2026-12-03T14:20:18Z"))
    assert.is_nil(history.unix_time("yesterday"))
  end)

  it("keeps the key options that are set, the driver only for SQL runs", function()
    assert.are.equal("threads=1 time=1 db_driver=null tables=1 table_size=10000", history.key_options(doc()))
    local io = doc({ totals = { events = 5, events_per_sec = 5 } })
    assert.are.equal("threads=1 time=1 tables=1 table_size=10000", history.key_options(io))
    local verify = doc({ command = "verify", totals = false })
    verify.totals = nil
    assert.are.equal("tables=1 table_size=10000", history.key_options(verify))
  end)

  it("names metrics the way users write them", function()
    assert.are.equal("tpmc", history.metric("tpmC"))
    assert.are.equal("mibs", history.metric("MiB/s"))
    assert.is_nil(history.metric("speed"))
    assert.are.equal(0.3, history.metrics.p99.get(doc()))
    assert.is_false(history.metrics.p99.higher)
  end)

  it("stores a document once, filters with bound parameters, never reuses ids", function()
    local path = os.tmpname()
    os.remove(path)
    local st = assert(history.open(path, true))
    local json = require("lbench.json")
    local a, b = json.encode(doc(), "  "), json.encode(doc({ started_at = "2026-12-04T00:00:00Z" }), "  ")
    local id1, new1 = st:add(a .. "\n", history.decode(a), "a.json")
    local id2, new2 = st:add(a, history.decode(a), "again")
    assert.are.equal(id1, id2)
    assert.is_true(new1)
    assert.is_false(new2)
    local id3 = st:add(b, history.decode(b), "b.json")
    assert.are.equal(2, #st:select({ where = { { "db_driver", "null" } } }))
    assert.are.equal(0, #st:select({ scenario = "x' OR '1'='1" }))
    assert.are.equal(1, #st:select({ since = history.unix_time("2026-12-04") }))
    assert.are.equal(a, st:document(id1))
    assert.are.same({}, st:delete({ id3 }))
    local id4 = st:add(b, history.decode(b), "b.json")
    assert.is_true(id4 > id3)
    st:close()
    os.remove(path); os.remove(path .. "-wal"); os.remove(path .. "-shm")
  end)
end)

describe("lbench.history.check", function()
  it("reads one limit, per-metric limits, and both", function()
    local names, limits = regress.plan(nil, "tps:5%,p99:10%", doc())
    assert.are.same({ "tps", "p99" }, names)
    assert.are.same({ tps = 5, p99 = 10 }, limits)
    names, limits = regress.plan("tps,p95", "3,p95:20%", doc())
    assert.are.same({ "tps", "p95" }, names)
    assert.are.same({ tps = 3, p95 = 20 }, limits)
    names = regress.plan(nil, nil, doc({ tpcc = { tpmC = 100 } }))
    assert.are.same({ "tpmc" }, names)
  end)
end)
