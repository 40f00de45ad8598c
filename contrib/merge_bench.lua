-- What rank 0 of an lbench-mpi job costs as the job grows: its work per
-- report interval and for the final document, with 10, 100 and 1,000
-- ranks, in time and memory.  No MPI: each rank's part is synthetic but
-- framed exactly as a rank sends it (the same builders as
-- test/spec/ranks_spec.lua), and rank 0's side is the code lbench-mpi runs
-- (cluster/rankiv.lua's add/ready and the interval record, cluster/ranks.lua's
-- merge, result/document.lua's build and JSON).  A benchmark, not a test:
-- it prints figures (docs/benchmarks.md), `make bench` runs it.
--
--   lbench contrib/merge_bench.lua bench [--ranks=10,100,1000] [--rounds=5]
--
-- Each size runs in a child process of its own, so that its peak memory
-- is its own (the parent spawns `lbench <this file> bench --child=gen`,
-- then `--child=measure`).
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local ranks = require("lbench.cluster.ranks")
local rankiv = require("lbench.cluster.rankiv")
local result = require("lbench.result.document")
local snapshot = require("lbench.result.snapshot")
local interval = require("lbench.result.interval")
local phases = require("lbench.phases")

ffi.cdef [[ ssize_t readlink(const char *path, char *buf, size_t len); int malloc_trim(size_t pad); ]]

lbench.cmdline.options = {
  ranks = { "rank counts to measure", "10,100,1000" },
  rounds = { "repetitions of each measurement (the median is printed)", 5 },
  child = { "internal: gen (make one size's parts into --file) or measure (rank 0 on them)", "" },
  file = { "internal: the parts of one size", "" },
}

-- What every rank reports: TPC-C's five transactions (their share of the
-- mix and median latency in ms), 8 threads, 2,000 events per second for
-- 60 s in three --rate phases, histograms of lbench's default configuration
-- (1 ns .. 73 min, 3 significant digits).
local TYPES = { { "new_order", 0.45, 8 }, { "payment", 0.43, 4 }, { "order_status", 0.04, 2 },
                { "delivery", 0.04, 30 }, { "stock_level", 0.04, 15 } }
local THREADS, EPS, SECS, NPHASES = 8, 2000, 60, 3
-- Distinct values drawn per histogram at most (each carries its share of
-- the events): enough to fill every slot of the distribution's body, as
-- 40,000 real latencies do, without drawing all of them.
local DRAWS = 8000

local CFG = ffi.new("lb_hist_config")
C.lb_hist_config_default(CFG)
local RT = lbench.runtime_ptr()
local function new_hist() return ffi.gc(C.lb_hist_new(CFG), C.lb_hist_free) end

-- `events` latencies (ns) around `median_ms` (log-normal, sigma 0.6),
-- recorded into `h` and every histogram of `also`.
local function fill(events, median_ms, h, also)
  local k = math.min(events, DRAWS)
  local each, extra = math.floor(events / k), events % k
  for i = 1, k do
    local u1, u2 = math.max(math.random(), 1e-12), math.random()
    local z = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    local v = math.floor(median_ms * 1e6 * math.exp(0.6 * z))
    local n = each + (i <= extra and 1 or 0)
    C.lb_hist_record_n(h, v, n)
    for _, o in ipairs(also) do C.lb_hist_record_n(o, v, n) end
  end
end

local function counters(per_type)
  local s = ffi.new("lb_stats")
  local total = 0
  for i, n in ipairs(per_type) do s.types[i - 1].events = n; total = total + n end
  s.events = total
  local db = ffi.cast("lb_db_stats *", s.ext)
  db.queries[C.LB_DB_Q_SELECT], db.queries[C.LB_DB_Q_INSERT], db.queries[C.LB_DB_Q_OTHER] = 20 * total, 8 * total,
    2 * total
  return s
end

-- Rank r's event types in its own numbering: every rank numbers them in
-- the order it first ran them, so the ranks differ (rotated by rank).
local function order_of(r)
  local o = {}
  for i = 1, #TYPES do o[i] = TYPES[(i + r - 1) % #TYPES + 1] end
  return o
end

-- Rank r's part of one interval (`secs` long), framed as rankiv packs it.
local function interval_part(r, key, secs)
  local types = order_of(r)
  local acc, names, per = snapshot.new(CFG), json.array(), {}
  local slow = 1 + 0.3 * math.random()
  for i, t in ipairs(types) do
    names[i] = t[1]
    per[i] = math.floor(EPS * secs * t[2])
    acc.type_lat[i - 1] = C.lb_hist_new(CFG)
    fill(per[i], t[3] * slow, acc.type_lat[i - 1], { acc.lat })
  end
  local blobs = { { "stats", ranks.stats_wire(counters(per)) }, { "lat", ranks.pack_hist(acc.lat) },
                  { "queue", ranks.pack_hist(acc.queue) } }
  for i = 1, #types do blobs[#blobs + 1] = { "t" .. i, ranks.pack_hist(acc.type_lat[i - 1]) } end
  return ranks.frame({ key = key, t_rel = key / 1000, secs = secs, threads = THREADS, warm = false,
    phase = 1, type_names = names }, blobs)
end

-- Rank r's part at the end of the run, framed as ranks.pack frames it.
local function final_part(r)
  local types = order_of(r)
  local lat, queue = new_hist(), new_hist()
  local th, ph, names, per, blobs = {}, {}, json.array(), {}, {}
  for i, t in ipairs(types) do names[i] = t[1]; th[i] = new_hist(); per[i] = 0 end
  local slow = 1 + 0.3 * math.random()
  local phase_s = SECS / NPHASES
  for p = 1, NPHASES do
    ph[p] = new_hist()
    for i, t in ipairs(types) do
      local n = math.floor(EPS * phase_s * t[2])
      per[i] = per[i] + n
      fill(n, t[3] * slow * (1 + 0.2 * p), th[i], { lat, ph[p] })
    end
    C.lb_hist_record_n(queue, 2000 + p, 10)
  end
  local final, base = counters(per), ffi.new("lb_stats")
  local parts = { { "final", ranks.stats_wire(final) }, { "base", ranks.stats_wire(base) },
                  { "lat", ranks.pack_hist(lat) }, { "queue", ranks.pack_hist(queue) } }
  for i = 1, #types do parts[#parts + 1] = { "t" .. i, ranks.pack_hist(th[i]) } end
  local phs, evs, busy = json.array(), json.array(), json.array()
  for p = 1, NPHASES do
    local n = tonumber(C.lb_hist_count_all(ph[p]))
    phs[p] = { start_s = (p - 1) * phase_s, duration_s = phase_s, events = n, queries = 30 * n, errors = 0 }
    parts[#parts + 1] = { "p" .. p, ranks.pack_hist(ph[p]) }
  end
  for t = 1, THREADS do evs[t] = math.floor(tonumber(final.events) / THREADS); busy[t] = SECS * 0.97 end
  return ranks.frame({ rank = r, host = string.format("client%04d", r), threads = THREADS, status = "ok",
    duration_s = SECS + 0.001 * r, warmup_s = 0, warmup_events = 0, start_wall = 1.8e9 + r * 1e-4,
    type_names = names, thread_events = evs, thread_busy = busy,
    cpu = { client_s = 30, clock_ticks_per_s = 100, server_pid = 4242, server_s = 50 },
    posted = SECS, phases = phs }, parts)
end

local function median(list)
  table.sort(list)
  local n = #list
  return n % 2 == 1 and list[(n + 1) / 2] or (list[n / 2] + list[n / 2 + 1]) / 2
end

local function kib_of(field)
  local f = io.open("/proc/self/status")
  local s = f and f:read("*a") or ""
  if f then f:close() end
  return tonumber(s:match(field .. ":%s*(%d+)")) or 0
end

-- Forget the peak so far (Linux: "5" resets VmHWM to the current RSS).
local function reset_peak()
  local f = io.open("/proc/self/clear_refs", "w")
  if f then f:write("5"); f:close() end
end

local function ms_since(t0) return tonumber(C.lb_clock_ns() - t0) / 1e6 end

-- A message as rank 0's poll takes it off the transport (into its
-- receive buffer, then a Lua string: cluster/rankiv.lua's Agg:poll).
local rbuf, rlen = nil, 0
local function received(msg)
  if #msg > rlen then rlen = math.max(#msg, 2 * rlen); rbuf = ffi.new("char[?]", rlen) end
  ffi.copy(rbuf, msg, #msg)
  return ffi.string(rbuf, #msg)
end

local OPT = { threads = THREADS, rate_schedule = phases.parse("1000@20,2000@20,3000@20"),
              phases = { "low", "mid", "high" }, percentiles = "50,95,99", report_interval = 1 }
local KEYS = { "50", "95", "99" }

-- One interval of a job of n ranks, as rank 0 handles it: every part
-- received and added, the merge once all are in, the interval's record
-- (latency and per-type percentiles).
local function one_interval(n, parts, key)
  local t0 = C.lb_clock_ns()
  local g = rankiv.new(RT, 1e9, function() return snapshot.new(CFG) end)
  g.size = n
  for r = 0, n - 1 do g:add(r, received(parts[r + 1])) end
  local out = g:ready(false)
  assert(#out == 1, "the interval was not merged")
  local m = out[1]
  local iv = interval.make({ opt = OPT }, m.part.t_rel, m.part.secs, m.part.d, m.acc, m.part.threads, false, KEYS,
    false)
  interval.types(RT, iv, m.part.types, m.acc, KEYS, m.part.secs)
  local o = interval.json(iv)
  local ms = ms_since(t0)
  assert(o.threads == THREADS * n, "the interval's threads do not add up")
  return ms, m.part.d.events
end

-- The end of a run of n ranks on rank 0, as ranks.merge does it: each
-- rank's part taken into the one receive buffer (cluster.each_part) and
-- merged at once, then the job's figures, the document built and encoded.
local function final_doc(n, parts)
  local t0, t_in = C.lb_clock_ns(), 0
  local ctx = { rt = RT, opt = OPT, scenario_name = "merge_bench", command = "run", redacted_options = {} }
  local a = { keys = KEYS, new_snapshot = function() return snapshot.new(CFG) end, started_at = 0,
              intervals = json.array(), clocks = nil }
  local m = ranks._merge_begin(ctx, a)
  local buf, cap = nil, 0
  for r = 1, n do
    local t = C.lb_clock_ns()
    local len = #parts[r]
    if len > cap then cap = math.max(len, 2 * cap); buf = ffi.new("char[?]", cap) end
    ffi.copy(buf, parts[r], len)
    t_in = t_in + tonumber(C.lb_clock_ns() - t)
    m:add({ p = buf, len = len, anchor = buf })
  end
  m:finish()
  a.nranks, a.mpi_library = n, "none (merge_bench)"
  local doc = result.build(ctx, { version = "merge_bench" }, a)
  local text = result.to_json(doc, "  ")
  return ms_since(t0), a.d.events, #text, t_in / 1e6
end

local function bytes(list)
  local b = 0
  for _, s in ipairs(list) do b = b + #s end
  return b
end

-- The parts of a job of n ranks, made in a process of their own and kept
-- in `path`: the process that measures rank 0 then reads them as they
-- are, so that its memory figures are not lowered by reusing what making
-- them left free.
local function generate(n, path)
  math.randomseed(n)
  local f = assert(io.open(path, "wb"))
  f:write(n, "\n")
  for r = 0, n - 1 do local s = interval_part(r, 1000, 1); f:write(#s, "\n", s) end
  for r = 0, n - 1 do local s = final_part(r); f:write(#s, "\n", s) end
  f:close()
end

local function read_parts(path)
  local f = assert(io.open(path, "rb"))
  local n = tonumber(f:read("*l"))
  local ivs, finals = {}, {}
  for r = 1, n do ivs[r] = f:read(tonumber(f:read("*l"))) end
  for r = 1, n do finals[r] = f:read(tonumber(f:read("*l"))) end
  f:close()
  return n, ivs, finals
end

-- One size in this process, its parts read from `path`: a line of figures
-- for the parent.
local function measure(path, rounds)
  local n, ivs, finals = read_parts(path)
  collectgarbage(); collectgarbage()
  -- From here on rank 0's own: the parts stand for what the ranks hold.
  ffi.C.malloc_trim(0)
  local rss_parts = kib_of("VmRSS")
  reset_peak()
  local it, ft, events = {}, {}, 0
  for i = 1, rounds do it[i], events = one_interval(n, ivs, 1000 * i) end
  assert(events == n * math.floor(EPS * 1 * 0.45) + n * math.floor(EPS * 0.43) + 3 * n * math.floor(EPS * 0.04),
    "the interval's events do not add up")
  collectgarbage(); collectgarbage()
  local doc_bytes, rt = nil, {}
  for i = 1, math.max(1, math.floor(rounds / 2)) do ft[i], events, doc_bytes, rt[i] = final_doc(n, finals) end
  local peak = kib_of("VmHWM")
  print(string.format("%d %.3f %.3f %d %d %d %d %d %.3f", n, median(it), median(ft), bytes(ivs), bytes(finals),
    math.max(0, peak - rss_parts) * 1024, events, doc_bytes, median(rt)))
end

local function self_exe()
  local buf = ffi.new("char[4096]")
  local n = tonumber(ffi.C.readlink("/proc/self/exe", buf, 4095))
  return n > 0 and ffi.string(buf, n) or "lbench"
end

local function mib(b) return string.format("%.1f", b / 1048576) end

function bench()
  local opt = lbench.opt
  if opt.child == "gen" then return generate(tonumber(opt.ranks), opt.file) end
  if opt.child == "measure" then return measure(opt.file, tonumber(opt.rounds)) end
  local script = debug.getinfo(1, "S").source:gsub("^@", "")
  print(string.format("== lbench-mpi rank 0's merge, synthetic ranks (5 event types, 8 threads, 3 phases, %d ev/s per rank;"
    .. " final: %d s), median of %d", EPS, SECS, tonumber(opt.rounds)))
  print(string.format("%6s %12s %12s %14s %12s %12s %12s", "ranks", "interval ms", "final ms", "(of which in)",
    "interval MiB", "final MiB", "rank 0 MiB"))
  local rows = {}
  for n in tostring(opt.ranks):gmatch("%d+") do
    local path = os.tmpname()
    local cmd = string.format("'%s' '%s' bench --child=gen --ranks=%s --file='%s' && '%s' '%s' bench --child=measure"
      .. " --rounds=%s --file='%s'", self_exe(), script, n, path, self_exe(), script, opt.rounds, path)
    local p = assert(io.popen(cmd))
    local line = p:read("*a")
    local ok = p:close()
    os.remove(path)
    local f = {}
    for x in line:gmatch("%S+") do f[#f + 1] = tonumber(x) end
    if not ok or #f < 9 then error("merge_bench: the child for " .. n .. " ranks failed: " .. line, 0) end
    rows[#rows + 1] = f
    print(string.format("%6d %12.1f %12.1f %14.1f %12s %12s %12s", f[1], f[2], f[3], f[9], mib(f[4]), mib(f[5]),
      mib(f[6])))
  end
  local first, last = rows[1], rows[#rows]
  if #rows > 1 then
    local k = last[1] / first[1]
    print(string.format("   growth %dx ranks: interval %.1fx, final %.1fx (linear: %.0fx)", k, last[2] / first[2],
      last[3] / first[3], k))
  end
  print("   (of which in): copying the parts into rank 0's receive buffer, as the transport would;"
    .. " interval MiB / final MiB: what rank 0 receives; rank 0 MiB: its peak resident memory for the merges")
  print("   command: lbench contrib/merge_bench.lua bench --ranks=" .. opt.ranks)
end

lbench.cmdline.commands = { bench = { bench } }
