-- Specs of lbench-mpi's merges without MPI: rank 0's end-of-run merge
-- (lbench.ranks) and its interval merge (lbench.rankiv), fed synthetic
-- per-rank parts framed exactly as the ranks send them (a JSON header,
-- lb_stats in the wire form, histograms packed).  Counters must add up,
-- event types match by name whatever each rank's numbering, and every
-- percentile of a merged histogram equal that of one histogram that
-- recorded all the samples.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local ranks = require("lbench.cluster.ranks")
local rankiv = require("lbench.cluster.rankiv")
local result = require("lbench.result.document")
local snapshot = require("lbench.result.snapshot")
local phases = require("lbench.phases")
local interval = require("lbench.result.interval")

local CFG = ffi.new("lb_hist_config")
C.lb_hist_config_default(CFG)
local RT = lbench.runtime_ptr()
local PCTS = { 0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100 }

local function new_hist() return ffi.gc(C.lb_hist_new(CFG), C.lb_hist_free) end
local function new_snapshot() return snapshot.new(CFG) end

-- n latencies (ns) from a Park-Miller sequence: lo .. lo + span - 1.
local function samples(seed, n, lo, span)
  local out, x = {}, seed
  for i = 1, n do
    x = (x * 16807) % 2147483647
    out[i] = lo + x % span
  end
  return out
end

local function record(h, ...)
  for _, list in ipairs({ ... }) do
    for _, v in ipairs(list) do C.lb_hist_record(h, v) end
  end
  return h
end

-- Every percentile, count, extreme and sum of `h` equals those of `ref`.
local function same_hist(ref, h)
  assert.are.equal(tonumber(C.lb_hist_count_all(ref)), tonumber(C.lb_hist_count_all(h)))
  assert.are.equal(tonumber(C.lb_hist_total(ref)), tonumber(C.lb_hist_total(h)))
  assert.are.equal(tonumber(C.lb_hist_overflow(ref)), tonumber(C.lb_hist_overflow(h)))
  assert.are.equal(tonumber(C.lb_hist_min(ref)), tonumber(C.lb_hist_min(h)))
  assert.are.equal(tonumber(C.lb_hist_max(ref)), tonumber(C.lb_hist_max(h)))
  assert.are.equal(C.lb_hist_sum(ref), C.lb_hist_sum(h))
  for _, p in ipairs(PCTS) do
    assert.are.equal(tonumber(C.lb_hist_percentile(ref, p)), tonumber(C.lb_hist_percentile(h, p)), "p" .. p)
  end
end

-- The samples of the job: per rank, per event type (named), and phases.
local S = {
  { read = samples(11, 400, 1000, 900000), write = samples(12, 100, 50000, 4000000),
    p1 = samples(13, 60, 2000, 70000), p2 = samples(14, 40, 3000, 90000) },
  { read = samples(21, 300, 800, 2500000), write = samples(22, 50, 1000000, 30000000),
    p1 = samples(23, 30, 1500, 10000), p2 = samples(24, 20, 100000, 5000000) },
  { read = samples(31, 200, 5000, 200000), p1 = samples(33, 10, 1000, 1000) },
}
S[3].read[#S[3].read + 1] = 2 ^ 43 -- past the histogram's range: an overflow

-- One rank's part, framed as cluster/ranks.lua's pack frames it.  `types` lists
-- the event types in this rank's own numbering.
local function part(r)
  local final, base = ffi.new("lb_stats"), ffi.new("lb_stats")
  local s = S[r.rank + 1]
  local lat, queue = new_hist(), new_hist()
  local blobs = {}
  local events = 0
  for i, name in ipairs(r.types) do
    local list = s[name:gsub("^spec_", "")]
    final.types[i - 1].events = #list + 1 -- one event of each type before the warm-up end
    base.types[i - 1].events = 1
    final.types[i - 1].restarts = r.rank + i
    events = events + #list
    record(lat, list)
    blobs[#blobs + 1] = { "t" .. i, ranks.pack_hist(record(new_hist(), list)) }
  end
  C.lb_hist_record_n(queue, 100 * (r.rank + 1), 10)
  final.events, base.events = events + r.warmup_events, r.warmup_events
  local db = ffi.cast("lb_db_stats *", final.ext)
  db.queries[C.LB_DB_Q_SELECT], db.queries[C.LB_DB_Q_INSERT] = 10 * events, events
  db.queries[C.LB_DB_Q_OTHER], db.errors = 2 * events, r.rank
  local ph = json.array()
  for i = 1, r.phases do
    ph[i] = { start_s = 5 * (i - 1) + r.rank * 0.01, duration_s = 5 - r.rank * 0.1, events = #s["p" .. i],
              queries = 10 * #s["p" .. i], errors = i }
    blobs[#blobs + 1] = { "p" .. i, ranks.pack_hist(record(new_hist(), s["p" .. i])) }
  end
  local h = { rank = r.rank, host = r.host, threads = #r.thread_events, status = r.status or "ok", error = r.error,
    duration_s = r.duration_s, warmup_s = r.warmup_s, warmup_events = r.warmup_events, start_wall = r.start_wall,
    type_names = json.array(r.types), thread_events = json.array(r.thread_events), thread_busy = json.array(r.thread_busy),
    cpu = r.cpu, posted = r.posted, phases = ph, lanes = r.lanes }
  local parts = { { "final", ranks.stats_wire(final) }, { "base", ranks.stats_wire(base) },
                  { "lat", ranks.pack_hist(lat) }, { "queue", ranks.pack_hist(queue) } }
  for _, b in ipairs(blobs) do parts[#parts + 1] = b end
  return ranks.frame(h, parts)
end

-- A job of three ranks: rank 1 numbers its event types the other way
-- round, rank 2 has one type, one phase and an error; ranks 0 and 2 share
-- a host and the server on it.
local function job()
  return {
    part({ rank = 0, host = "h0", types = { "spec_read", "spec_write" }, warmup_events = 20, duration_s = 10,
      warmup_s = 1, start_wall = 1000, thread_events = { 260, 240 }, thread_busy = { 9.5, 9.7 }, posted = 9, phases = 2,
      cpu = { client_s = 2, clock_ticks_per_s = 100, server_pid = 4242, server_s = 5 },
      lanes = { count = 4, sum = 500, sumsq = 62600, min = 110, max = 140, unused = 0 } }),
    part({ rank = 1, host = "h1", types = { "spec_write", "spec_read" }, warmup_events = 15, duration_s = 10.2,
      warmup_s = 1.5, start_wall = 1000.05, thread_events = { 175, 175 }, thread_busy = { 9.9, 9.9 }, posted = 10,
      phases = 2, cpu = { client_s = 1.5, clock_ticks_per_s = 100, server_pid = 4242, server_s = 5.5 },
      lanes = { count = 4, sum = 350, sumsq = 30650, min = 80, max = 95, unused = 0 } }),
    part({ rank = 2, host = "h0", types = { "spec_read" }, warmup_events = 5, duration_s = 9.5, warmup_s = 1,
      start_wall = 999.98, thread_events = { 201 }, thread_busy = { 9.1 }, posted = 8, phases = 1, status = "error",
      error = "boom", cpu = { client_s = 0.5, clock_ticks_per_s = 100, server_pid = 4242, server_s = 4 },
      lanes = { count = 2, sum = 201, sumsq = 20201, min = 0, max = 201, unused = 1 } }),
  }
end

local OPT = { threads = 5, connections = 10, rate_schedule = phases.parse("1000@5,ramp:1000-2000@5"),
              phases = { "low", "high" } }

local function merged()
  local ctx = { rt = RT, opt = OPT, scenario_name = "spec", command = "run", redacted_options = {} }
  local a = { keys = { "50", "99" }, new_snapshot = new_snapshot, started_at = 0, intervals = json.array(),
              clocks = { offset_ms = { 0, 30, -10 }, rtt_ms = { 0, 0.2, 0.3 } } }
  ranks._merge_all(ctx, a, job())
  return a, ctx
end

local function id(name) return C.lb_runtime_type_id(RT, name) end

describe("lbench.ranks framing", function()
  it("frames a header and binary parts, and unpacks them byte for byte", function()
    local bin = "\0{\"x\":1}\255\n" .. string.rep("\1", 300)
    local msg = ranks.frame({ rank = 3, name = "a" }, { { "one", bin }, { "empty", "" }, { "two", "z" } })
    assert.are.equal(string.format("%08x", #msg - 8 - #bin - 1), msg:sub(1, 8))
    local h, blobs = ranks.unpack(msg)
    assert.are.same({ 3, "a" }, { h.rank, h.name })
    assert.are.same({ bin, "", "z" }, { blobs.one, blobs.empty, blobs.two })
  end)

  it("carries lb_stats in the wire form, added exactly, types renumbered by a map", function()
    local s = ffi.new("lb_stats")
    s.events, s.busy_ns, s.io_bytes_read = 2 ^ 40 + 1, 123456789, 77
    s.types[0].events, s.types[1].events, s.types[2].rollbacks = 5, 6, 7
    local wire = ranks.stats_wire(s)
    assert.are.equal(tonumber(C.lb_stats_wire_size()), #wire)
    local dst = ffi.new("lb_stats")
    ranks.add_stats(dst, wire, { [0] = 2, [1] = 0, [2] = -1 })
    ranks.add_stats(dst, wire, { [0] = 2, [1] = 0, [2] = -1 })
    assert.are.equal(2 * (2 ^ 40 + 1), tonumber(dst.events))
    assert.are.same({ 246913578, 154 }, { tonumber(dst.busy_ns), tonumber(dst.io_bytes_read) })
    -- type 0 went to id 2, type 1 to id 0; type 2 (-1: unknown here) is dropped
    assert.are.same({ 12, 0, 10, 0 }, { tonumber(dst.types[0].events), tonumber(dst.types[1].events),
      tonumber(dst.types[2].events), tonumber(dst.types[2].rollbacks) })
  end)

  it("refuses counters of another build and malformed histograms in one line", function()
    local ok, e = pcall(ranks.add_stats, ffi.new("lb_stats"), "short", {})
    assert.is_false(ok)
    assert.are.equal(string.format("a rank sent counters of 5 bytes, this build's are %d: the ranks run different builds",
      tonumber(C.lb_stats_wire_size())), e)
    ok, e = pcall(ranks.merge_hist, new_hist(), string.rep("x", 50))
    assert.is_false(ok)
    assert.are.equal("a rank sent a malformed histogram", e)
    -- an empty part (a histogram the rank never had) merges nothing
    local h = new_hist()
    ranks.merge_hist(h, "")
    assert.are.equal(0, tonumber(C.lb_hist_count_all(h)))
  end)

  it("merges packed histograms exactly: every percentile as if one histogram recorded all samples", function()
    local ref, merged_h = new_hist(), new_hist()
    for r = 1, 3 do
      local list = samples(100 + r, 1000, r * 1000, 10 ^ (r + 4))
      record(ref, list)
      ranks.merge_hist(merged_h, ranks.pack_hist(record(new_hist(), list)))
    end
    same_hist(ref, merged_h)
    assert.are.equal("", ranks.pack_hist(nil))
  end)
end)

describe("lbench.ranks end-of-run merge", function()
  it("adds every rank's counters over its measured period", function()
    local a = merged()
    -- events: 500 + 350 + 201, warm-up excluded
    assert.are.equal(1051, a.d.events)
    assert.are.same({ 10510, 1051, 2102, 3 }, { a.d.reads, a.d.writes, a.d.other, a.d.db_errors })
    assert.are.same({ 1051 + 40, 40 }, { tonumber(a.final_stats.events), tonumber(a.base_stats.events) })
    -- per type, by name: read is rank 0's 0, rank 1's 1, rank 2's 0
    local rd, wr = id("spec_read"), id("spec_write")
    assert.are.equal(400 + 300 + 201 + 3, tonumber(a.final_stats.types[rd].events))
    assert.are.equal(3, tonumber(a.base_stats.types[rd].events))
    assert.are.equal(1 + 3 + 3, tonumber(a.final_stats.types[rd].restarts))
    assert.are.equal(100 + 50 + 2, tonumber(a.final_stats.types[wr].events))
    assert.are.equal(2 + 2, tonumber(a.final_stats.types[wr].restarts))
  end)

  it("merges the latency, queue and per-type histograms exactly", function()
    local a = merged()
    same_hist(record(new_hist(), S[1].read, S[1].write, S[2].read, S[2].write, S[3].read), a.cum.lat)
    same_hist(record(new_hist(), S[1].read, S[2].read, S[3].read), a.cum.type_lat[id("spec_read")])
    same_hist(record(new_hist(), S[1].write, S[2].write), a.cum.type_lat[id("spec_write")])
    local q = new_hist()
    C.lb_hist_record_n(q, 100, 10)
    C.lb_hist_record_n(q, 200, 10)
    C.lb_hist_record_n(q, 300, 10)
    same_hist(q, a.cum.queue)
    assert.are.equal(1, tonumber(C.lb_hist_overflow(a.cum.lat)))
  end)

  it("takes the job's period, threads, fairness figures, start skew and error from the ranks", function()
    local a = merged()
    assert.are.same({ 10.2, 1.5, 40, 5 }, { a.duration_s, a.warmup_s, a.warmup_events, a.threads })
    assert.are.same({ 260, 240, 175, 175, 201 }, a.thread_events)
    assert.are.same({ 9.5, 9.7, 9.9, 9.9, 9.1 }, a.thread_busy)
    -- starts on rank 0's clock: 1000, 1000.05 - 0.03, 999.98 + 0.01
    assert.is_true(math.abs(a.start_skew_ms - 30) < 1e-6)
    assert.are.same({ [0] = 9, [1] = 10, [2] = 8 }, a.posted_by)
    assert.are.equal("rank 2 (h0): boom", a.merged_error)
    assert.are.same({ count = 10, sum = 1051, sumsq = 113451, min = 0, max = 201, unused = 1 }, a.lane_figures)
  end)

  it("keeps one entry per rank: its own totals and latency, its clock", function()
    local a = merged()
    assert.are.equal(3, #a.ranks)
    local r1 = a.ranks[2]
    assert.are.equal("rank host threads status duration_s totals latency_ms cpu phases clock_offset_ms clock_rtt_ms",
      table.concat((function() local t = {} for k in json.pairs(r1) do t[#t + 1] = k end return t end)(), " "))
    assert.are.same({ 1, "h1", 2, "ok", 10.2, 30, 0.2 }, { r1.rank, r1.host, r1.threads, r1.status, r1.duration_s,
      r1.clock_offset_ms, r1.clock_rtt_ms })
    assert.are.equal(json.encode({ events = 350, events_per_sec = 350 / 10.2, queries = 4550, queries_per_sec = 4550 / 10.2 }),
      json.encode(r1.totals))
    assert.are.same({ "events", "events_per_sec", "queries", "queries_per_sec" },
      (function() local t = {} for k in json.pairs(r1.totals) do t[#t + 1] = k end return t end)())
    same_hist(record(new_hist(), S[2].read, S[2].write),
      (function() local h = new_hist(); ranks.merge_hist(h, select(2, ranks.unpack(job()[2])).lat); return h end)())
    assert.are.equal(350, r1.latency_ms.count)
    assert.are.equal('[{"name":"low","events":30,"duration_s":4.9000000000000004},'
      .. '{"name":"high","events":20,"duration_s":4.9000000000000004}]', json.encode(result.unwrap(r1.phases)))
    local r2 = a.ranks[3]
    assert.are.same({ "error", "boom", 201 }, { r2.status, r2.error, r2.latency_ms.count })
  end)

  it("merges each phase of a --rate schedule: counts added, the slowest rank's length, latency from all", function()
    local a = merged()
    assert.are.equal(2, #a.phases)
    local p1 = result.unwrap(a.phases[1])
    local lat = p1.latency_ms
    p1.latency_ms = nil
    assert.are.equal('{"name":"low","rate":"1000@5","target_rate":{"from":1000,"to":1000},"start_s":0,"duration_s":5,'
      .. '"events":100,"events_per_sec":20,"queries":1000,"queries_per_sec":200,"errors":3}', json.encode(p1))
    assert.are.equal(100, lat.count)
    local p2 = a.phases[2]
    assert.are.same({ "high", "ramp:1000-2000@5", 1000, 2000, 5, 60, 4 }, { p2.name, p2.rate, p2.target_rate.from,
      p2.target_rate.to, p2.start_s, p2.events, p2.errors })
    -- a phase's latency summary is that of one histogram of its samples
    local ref = record(new_hist(), S[1].p2, S[2].p2)
    assert.are.equal(tonumber(C.lb_hist_max(ref)) / 1e6, p2.latency_ms.max)
    assert.are.equal(tonumber(C.lb_hist_percentile(ref, 99)) / 1e6, p2.latency_ms.percentiles["99"])
  end)

  it("counts each server once per host and PID (the largest figure), every client", function()
    local a = merged()
    local c = a.cpu.result(json, 1051, 13663)
    assert.are.equal(4, c.client_s)
    assert.are.equal(10.5, c.server_s) -- h0's 4242 (5, not 5 + 4) and h1's 4242 (5.5)
    assert.are.equal('[{"host":"h0","pid":4242,"server_s":5},{"host":"h1","pid":4242,"server_s":5.5}]',
      json.encode(c.servers))
    assert.is_true(math.abs(c.client_us_per_query - 4 / 13663 * 1e6) < 1e-9)
  end)

  it("builds the job's document from the merge: totals, per-type tables, ranks, fairness", function()
    local a, ctx = merged()
    a.nranks, a.mpi_library, a.failed, a.error = 3, "spec", true, a.merged_error
    local doc = json.decode(result.to_json(result.build(ctx, { version = "0.1.0" }, a)))
    assert.are.same({ true }, { result.validate(doc) })
    assert.are.same({ "error", "rank 2 (h0): boom", 3, 5 }, { doc.status, doc.error, doc.nranks, doc.threads })
    assert.are.same({ 1051, 10510, 13663 }, { doc.totals.events, doc.totals.queries.read, doc.totals.queries.total })
    assert.are.same({ 901, 7, 901 }, { doc.types.spec_read.events, doc.types.spec_read.restarts,
      doc.types.spec_read.latency_ms.count })
    assert.are.same({ 150, 4 }, { doc.types.spec_write.events, doc.types.spec_write.restarts })
    assert.are.same({ 1051, 1 }, { doc.latency_ms.count, doc.latency_ms.overflow })
    assert.are.equal(3, #doc.ranks)
    assert.are.equal(210.2, doc.fairness.events_avg)
    assert.are.same({ 10, 0, 201, 1 }, { doc.fairness.connections.count, doc.fairness.connections.events_min,
      doc.fairness.connections.events_max, doc.fairness.connections.unused })
    assert.are.equal(2, #doc.phases)
  end)
end)

describe("lbench.ranks merge as the parts arrive", function()
  -- The merge of `parts` handed over as cluster.each_part hands them: each
  -- a view into one receive buffer that the next part overwrites.
  local function streamed(parts)
    local ctx = { rt = RT, opt = OPT, scenario_name = "spec", command = "run", redacted_options = {} }
    local a = { keys = { "50", "99" }, new_snapshot = new_snapshot, started_at = 0, intervals = json.array(),
                clocks = { offset_ms = { 0, 30, -10 }, rtt_ms = { 0, 0.2, 0.3 } } }
    local m = ranks._merge_begin(ctx, a)
    local buf = ffi.new("char[?]", 1048576)
    for _, s in ipairs(parts) do
      ffi.fill(buf, 1048576, 0xAA) -- what the last part left is gone
      ffi.copy(buf, s, #s)
      m:add({ p = buf, len = #s, anchor = buf })
    end
    ffi.fill(buf, 1048576, 0x55)
    m:finish()
    return a, ctx
  end

  it("gives the merge of the parts in rank order, whatever order they come in, from views overwritten after each",
    function()
    local ref, ctx = merged()
    local p = job()
    local a = streamed({ p[3], p[1], p[2] })
    local function doc(x)
      x.nranks, x.mpi_library = 3, "spec"
      local d = json.decode(result.to_json(result.build(ctx, { version = "0.1.0" }, x)))
      d.started_at, d.host = nil, nil
      return d
    end
    assert.are.same(doc(ref), doc(a))
    assert.are.same({ 0, 1, 2 }, { a.ranks[1].rank, a.ranks[2].rank, a.ranks[3].rank })
    assert.are.same({ 260, 240, 175, 175, 201 }, a.thread_events)
    assert.are.equal("rank 2 (h0): boom", a.merged_error)
    same_hist(ref.cum.lat, a.cum.lat)
    same_hist(ref.cum.type_lat[id("spec_write")], a.cum.type_lat[id("spec_write")])
  end)

  it("refuses a rank's figures twice, and a truncated part, in one line", function()
    local p = job()
    local ok, e = pcall(streamed, { p[1], p[2], p[2] })
    assert.is_false(ok)
    assert.are.equal("rank 1 sent its figures twice", e)
    ok, e = pcall(streamed, { p[1], p[2]:sub(1, #p[2] - 9) })
    assert.is_false(ok)
    assert.are.equal("a rank sent a truncated part", e)
  end)
end)

-- An interval part as cluster/rankiv.lua packs it, from a capture of the real
-- packing (rank 0's Agg:contribute) or framed by hand with another
-- numbering of the event types.
local function interval_part(key, stats_events, lists, threads, secs, warm)
  local acc = new_snapshot()
  local stats = ffi.new("lb_stats")
  stats.events = stats_events
  for name, list in pairs(lists) do
    local tid = id(name)
    stats.types[tid].events = #list
    acc.type_lat[tid] = C.lb_hist_new(CFG)
    record(acc.type_lat[tid], list)
    record(acc.lat, list)
  end
  local cap = rankiv.new(RT, 1e9, new_snapshot)
  local msg
  cap.add = function(_, _, m) msg = m end
  cap:contribute(key, { t_rel = key == "end" and 3.5 or key / 1000, secs = secs or 1, threads = threads,
    warm = warm }, acc, stats)
  return msg
end

describe("lbench.rankiv interval merge", function()
  local function agg(size)
    local g = rankiv.new(RT, 1e9, new_snapshot)
    g.size = size -- a job of `size` ranks; this process is rank 0 of it
    return g
  end

  it("waits for every rank's part, then merges counters, threads and histograms exactly", function()
    local g = agg(3)
    local r0 = { spec_read = samples(41, 50, 1000, 100000), spec_write = samples(42, 20, 5000, 900000) }
    local r1 = { spec_read = samples(43, 30, 1000, 3000000) }
    local r2 = { spec_write = samples(44, 10, 7, 2000) }
    g:add(0, interval_part(1000, 70, r0, 2))
    g:add(1, interval_part(1000, 30, r1, 2))
    assert.are.same({}, g:ready(false)) -- rank 2's part is still on its way
    g:add(2, interval_part(1000, 10, r2, 1))
    local out = g:ready(false)
    assert.are.equal(1, #out)
    local p, acc = out[1].part, out[1].acc
    assert.are.same({ 1, 1, 5, false, {} }, { p.t_rel, p.secs, p.threads, p.warm, p.missing })
    assert.are.equal(110, p.d.events)
    same_hist(record(new_hist(), r0.spec_read, r0.spec_write, r1.spec_read, r2.spec_write), acc.lat)
    same_hist(record(new_hist(), r0.spec_read, r1.spec_read), acc.type_lat[id("spec_read")])
    local by = {}
    for _, t in ipairs(p.types) do by[t.name] = t.events end
    assert.are.same({ 80, 30 }, { by.spec_read, by.spec_write })
    -- printed once: a late duplicate is dropped
    g:add(1, interval_part(1000, 30, r1, 2))
    assert.are.same({}, g:ready(true))
  end)

  it("renumbers a rank's event types by name", function()
    local g = agg(2)
    g:add(0, interval_part(1000, 3, { spec_read = { 1000, 1001, 1002 } }, 1))
    -- rank 1 numbers write as 0 and read as 1
    local stats, acc = ffi.new("lb_stats"), new_snapshot()
    stats.events, stats.types[0].events, stats.types[1].events = 6, 2, 4
    local tw, tr = record(new_hist(), { 5, 6 }), record(new_hist(), { 7, 8, 9, 10 })
    record(acc.lat, { 5, 6, 7, 8, 9, 10 })
    g:add(1, ranks.frame({ key = 1000, t_rel = 1.001, secs = 1, threads = 1, warm = false,
      type_names = json.array({ "spec_write", "spec_read" }) }, { { "stats", ranks.stats_wire(stats) },
      { "lat", ranks.pack_hist(acc.lat) }, { "queue", "" }, { "t1", ranks.pack_hist(tw) }, { "t2", ranks.pack_hist(tr) } }))
    local m = g:ready(false)[1]
    local by = {}
    for _, t in ipairs(m.part.types) do by[t.name] = t.events end
    assert.are.same({ 7, 2 }, { by.spec_read, by.spec_write })
    same_hist(record(new_hist(), { 1000, 1001, 1002, 7, 8, 9, 10 }), m.acc.type_lat[id("spec_read")])
    same_hist(record(new_hist(), { 5, 6 }), m.acc.type_lat[id("spec_write")])
    -- the interval's JSON record lists each type's counts, then its latency
    local iv = interval.make({ opt = {} }, m.part.t_rel, m.part.secs, m.part.d, m.acc, m.part.threads, m.part.warm,
      { "50" }, false)
    interval.types(RT, iv, { { name = "spec_read", events = 7, restarts = 0, rollbacks = 1 } }, m.acc, { "50" }, 1)
    local o = interval.json(iv)
    assert.are.equal("events restarts rollbacks latency_ms",
      table.concat((function() local t = {} for k in json.pairs(o.types.spec_read) do t[#t + 1] = k end return t end)(), " "))
    assert.are.same({ 9, 7 }, { o.events, o.types.spec_read.latency_ms.count })
  end)

  it("after the wait, or at the end, prints what it has, in order, naming the missing ranks", function()
    local g = agg(3)
    g:add(0, interval_part(2000, 4, { spec_read = { 10, 20, 30, 40 } }, 2))
    g:add(2, interval_part(2000, 1, { spec_read = { 50 } }, 1))
    g:add(0, interval_part("end", 2, { spec_read = { 60, 70 } }, 2, 0.5))
    g:add(1, interval_part(3000, 9, { spec_read = { 80 } }, 2)) -- rank 0's part of 3000 not in yet
    g:add(0, interval_part(1000, 1, { spec_read = { 90 } }, 2))
    g:add(1, interval_part(1000, 1, { spec_read = { 95 } }, 2))
    g:add(2, interval_part(1000, 1, { spec_read = { 99 } }, 1))
    -- 1000 is complete; 2000 waits for rank 1, and "end" behind it
    local out = g:ready(false)
    assert.are.equal(1, #out)
    assert.are.equal(1, out[1].part.t_rel)
    -- at the end (flush): everything rank 0 has a part of, "end" last, missing ranks named
    out = g:ready(true)
    assert.are.equal(2, #out)
    assert.are.same({ 2, 5, 3, { 1 } }, { out[1].part.t_rel, out[1].part.d.events, out[1].part.threads,
      out[1].part.missing })
    assert.are.same({ 3.5, 0.5, 2, { 1, 2 } }, { out[2].part.t_rel, out[2].part.secs, out[2].part.d.events,
      out[2].part.missing })
    -- 3000 has no part of rank 0: never printed on its own
    assert.are.same({}, g:ready(true))
  end)

  it("hands a part that came after its interval was printed to `late`, counters and histograms exact", function()
    local got = {}
    local g = rankiv.new(RT, 1e9, new_snapshot, function(stats, acc)
      got[#got + 1] = { events = tonumber(stats.events), read = tonumber(stats.types[id("spec_read")].events),
        lat = acc.lat, type_lat = acc.type_lat[id("spec_read")], stats = stats }
    end)
    g.size = 2
    g:add(0, interval_part(1000, 2, { spec_read = { 10, 20 } }, 1))
    local out = g:ready(true) -- printed without rank 1's part
    assert.are.same({ 2, { 1 } }, { out[1].part.d.events, out[1].part.missing })
    assert.are.equal(2, tonumber(out[1].part.stats.events)) -- the lb_stats the endpoint adds
    assert.are.same({}, got)
    g:add(1, interval_part(1000, 3, { spec_read = { 30, 40, 50 } }, 1))
    assert.are.equal(1, #got)
    assert.are.same({ 3, 3 }, { got[1].events, got[1].read })
    same_hist(record(new_hist(), { 30, 40, 50 }), got[1].lat)
    same_hist(record(new_hist(), { 30, 40, 50 }), got[1].type_lat)
    assert.are.same({}, g:ready(true)) -- and it is not printed
  end)

  it("marks a last interval empty when every rank ended on a tick", function()
    local g = agg(2)
    g:add(0, interval_part("end", 0, {}, 2, 0))
    g:add(1, interval_part("end", 0, {}, 2, 0))
    local m = g:ready(false)[1]
    assert.are.same({ true, 1e-9 }, { m.part.empty, m.part.secs })
    -- a rank's own tick with events is not empty: its length is taken
    g:add(0, interval_part(5000, 0, {}, 2, 0))
    g:add(1, interval_part(5000, 3, { spec_read = { 1, 2, 3 } }, 2, 0.25))
    m = g:ready(false)[1]
    assert.are.same({ 0.25, 3 }, { m.part.secs, m.part.d.events })
    assert.is_nil(m.part.empty)
  end)
end)
