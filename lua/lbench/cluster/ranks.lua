-- The end of a run of several ranks (cluster/transport.lua): every rank sends rank 0
-- what it measured (its counters, and its histograms in their sparse
-- packed form), and rank 0 merges them exactly (counters added, histogram
-- slots added: percentiles come from the merged histogram, never from an
-- average of the ranks' percentiles) into the arguments of result.build,
-- with one entry per rank beside the totals.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local cluster = require("lbench.cluster.transport")
local result = require("lbench.result.document")
local publish = require("lbench.result.publish")

local phases = require("lbench.phases")
local cpu = require("lbench.cpu")
local snapshot = require("lbench.result.snapshot")

local M = {}

local phases_of, phases_entry = phases.of, phases.entry

local WIRE = tonumber(C.lb_stats_wire_size())

-- Counters as they travel (lb_stats_to_wire: little-endian words).
local function stats_wire(s)
  local buf = ffi.new("char[?]", WIRE)
  C.lb_stats_to_wire(s, buf)
  return ffi.string(buf, WIRE)
end

local function pack_hist(h)
  if h == nil then return "" end
  local n = tonumber(C.lb_hist_packed_size(h))
  local buf = ffi.new("char[?]", n)
  if C.lb_hist_pack(h, buf, n) ~= n then error("cannot pack a histogram", 0) end
  return ffi.string(buf, n)
end

-- This rank's part: a JSON header (what it is, its figures, the lengths
-- of the binary parts), then the binary parts in that order.
local function pack(ctx, a, cpu_result)
  local blobs, names = {}, {}
  local function add(name, s) blobs[#blobs + 1] = s; names[#names + 1] = { name, #s } end
  add("final", stats_wire(a.final_stats))
  add("base", stats_wire(a.base_stats))
  add("lat", pack_hist(a.cum.lat))
  add("queue", pack_hist(a.cum.queue))
  for i = 1, #a.type_names do add("t" .. i, pack_hist(a.cum.type_lat[i - 1])) end
  -- A --rate schedule: each closed phase's raw figures, its histogram packed.
  local phases
  if a.phase_raw then
    phases = json.array()
    for i, f in ipairs(a.phase_raw) do
      add("p" .. i, f.hist)
      phases[i] = { start_s = f.start_s, duration_s = f.duration_s, events = f.events, queries = f.queries,
                    errors = f.errors }
    end
  end
  local evs, busy = result.thread_figures(a)
  local h = { rank = cluster.rank(), host = cluster.hostname(), threads = C.lb_run_threads(a.run),
    status = a.failed and "error" or (a.stop_reason and "interrupted") or "ok", error = a.error,
    stop_reason = a.stop_reason, stopped_by = a.stopped_by, duration_s = a.duration_s, warmup_s = a.warmup_s,
    warmup_events = a.warmup_events, start_wall = tonumber(C.lb_run_started_wall(a.run)),
    type_names = a.type_names, thread_events = evs, thread_busy = busy, cpu = cpu_result, blobs = names }
  h.posted, h.phases = a.posted, phases
  if (ctx.opt.connections or 0) > 0 then h.lanes = result.lane_figures(a) end
  local head = json.encode(h)
  return string.format("%08x", #head) .. head .. table.concat(blobs)
end

-- The same framing for any header and list of { name, bytes } parts.
function M.frame(h, parts)
  local blobs, names = {}, {}
  for i, p in ipairs(parts) do blobs[i] = p[2]; names[i] = { p[1], #p[2] } end
  h.blobs = names
  local head = json.encode(h)
  return string.format("%08x", #head) .. head .. table.concat(blobs)
end

local function unpack(s)
  local n = tonumber(s:sub(1, 8), 16)
  local h = json.decode(s:sub(9, 8 + n))
  local at, blobs = 9 + n, {}
  for _, b in ipairs(h.blobs) do
    blobs[b[1]] = s:sub(at, at + b[2] - 1)
    at = at + b[2]
  end
  return h, blobs
end

-- Add a rank's lb_stats (bytes) into `dst`, its event types renumbered
-- to this process's ids by name (each process numbers types in the order
-- its scenario first used them).
function M.add_stats(dst, bytes, map)
  local src, moved = ffi.new("lb_stats"), ffi.new("lb_stats")
  if C.lb_stats_from_wire(src, bytes, #bytes) ~= 0 then
    error(string.format("a rank sent counters of %d bytes, this build's are %d: the ranks run different builds",
      #bytes, WIRE), 0)
  end
  ffi.copy(moved, src, ffi.sizeof("lb_stats"))
  ffi.fill(moved.types, ffi.sizeof(moved.types))
  for i, gi in pairs(map) do if gi >= 0 then moved.types[gi] = src.types[i] end end
  C.lb_stats_add(dst, moved)
end

function M.merge_hist(dst, bytes)
  if #bytes == 0 then return end
  local buf = ffi.new("char[?]", #bytes)
  ffi.copy(buf, bytes, #bytes)
  if C.lb_hist_merge_packed(dst, buf, #bytes) ~= 0 then error("a rank sent a malformed histogram", 0) end
end

-- A part's per-type histograms (blobs t1..tn, the types named by `names`)
-- merged into `snap`, each under this process's id for its name; returns
-- the map from the part's ids to this process's.  The one place event
-- types are renumbered between processes: each numbers its types in the
-- order its scenario first used them.
function M.merge_types(rt, snap, names, blobs)
  local map = {}
  for i, name in ipairs(names) do
    local id = C.lb_runtime_type_id(rt, name)
    map[i - 1] = id
    local b = blobs["t" .. i]
    if b and #b > 0 and id >= 0 then
      if snap.type_lat[id] == nil then snap.type_lat[id] = C.lb_hist_new(C.lb_hist_cfg(snap.lat)) end
      M.merge_hist(snap.type_lat[id], b)
    end
  end
  return map
end

local function new_hist()
  local hc = ffi.new("lb_hist_config")
  C.lb_hist_config_default(hc)
  return ffi.gc(C.lb_hist_new(hc), C.lb_hist_free)
end

-- One rank's entry of ranks[]: who, how it ended, its own totals and
-- latency (from its own histogram).
local function rank_entry(h, blobs, d, keys)
  local o = json.object()
  o.rank = h.rank
  o.host = h.host
  o.threads = h.threads
  o.status = h.status
  if h.error then o.error = h.error end
  if h.stopped_by then o.stopped_by = h.stopped_by end
  o.duration_s = h.duration_s
  local t = json.object()
  t.events = d.events
  t.events_per_sec = h.duration_s > 0 and d.events / h.duration_s or 0
  local q = d.reads + d.writes + d.other
  if q > 0 then t.queries = q; t.queries_per_sec = h.duration_s > 0 and q / h.duration_s or 0 end
  o.totals = t
  local lat = new_hist()
  M.merge_hist(lat, blobs.lat)
  o.latency_ms = result.summary(lat, keys, true)
  if h.cpu then o.cpu = h.cpu end
  if h.phases then
    o.phases = json.array()
    for i, f in ipairs(h.phases) do
      local e = json.object()
      e.name = h.phase_names and h.phase_names[i]
      e.events = f.events
      e.duration_s = f.duration_s
      o.phases[i] = e
    end
  end
  return o
end

-- The job's phases from every rank's (`list`: { h, blobs } per rank), by
-- phase index: counts added, the histograms slot by slot, the latency
-- recomputed from the merged histogram; a phase lasts as long as on the
-- slowest rank (as the run does), and its rates are over that.
local function merge_phases(opt, keys, list)
  local sched, n = phases_of(opt), 0
  for _, p in ipairs(list) do n = math.max(n, p.h.phases and #p.h.phases or 0) end
  if not sched or n == 0 then return nil end
  local out = json.array()
  for i = 1, math.min(n, #sched) do
    local f = { start_s = math.huge, duration_s = 0, events = 0, queries = 0, errors = 0 }
    local lat = new_hist()
    for _, p in ipairs(list) do
      local x = p.h.phases and p.h.phases[i]
      if x then
        f.start_s, f.duration_s = math.min(f.start_s, x.start_s), math.max(f.duration_s, x.duration_s)
        f.events, f.queries, f.errors = f.events + x.events, f.queries + x.queries, f.errors + x.errors
        M.merge_hist(lat, p.blobs["p" .. i] or "")
      end
    end
    out[i] = phases_entry(sched[i], f, result.summary(lat, keys, true))
  end
  return out
end

-- The job's connection fairness figures from every rank's lane figures.
local function merge_lanes(list)
  local f = result.lanes_new()
  for _, p in ipairs(list) do
    if p.h.lanes then result.lanes_add(f, p.h.lanes) end
  end
  return result.lanes_done(f)
end

-- Rank r's wall-clock offset to rank 0 and its round trip, in ms (0 and
-- 0 without an estimate); its start time on rank 0's clock.
local function clock_of(a, r)
  local c = a.clocks
  return c and c.offset_ms[r + 1] or 0, c and c.rtt_ms[r + 1] or 0
end
local function start_on_rank0_clock(a, h)
  return h.start_wall - clock_of(a, h.rank) / 1000
end

-- Rank 0: merge every rank's part into `a`.
local function merge_all(ctx, a, parts)
  local counters, diff = snapshot.counters, snapshot.diff
  local final, base = ffi.new("lb_stats"), ffi.new("lb_stats")
  local cum = a.new_snapshot()
  local ranks, evs, busy = json.array(), {}, {}
  a.posted_by = {}
  local dur, warm, wev, threads, t0, t1 = 0, 0, 0, 0, math.huge, -math.huge
  local list, cpus, names = {}, {}, {}
  for i, p in ipairs(phases_of(ctx.opt) or {}) do names[i] = p.name end
  for _, s in ipairs(parts) do
    local h, blobs = unpack(s)
    list[#list + 1] = { h = h, blobs = blobs }
    cpus[#cpus + 1] = { host = h.host, cpu = h.cpu }
    h.phase_names = names
    M.merge_hist(cum.lat, blobs.lat)
    M.merge_hist(cum.queue, blobs.queue)
    local map = M.merge_types(ctx.rt, cum, h.type_names, blobs)
    M.add_stats(final, blobs.final, map)
    M.add_stats(base, blobs.base, map)
    local rs, rb = ffi.new("lb_stats"), ffi.new("lb_stats")
    M.add_stats(rs, blobs.final, {}); M.add_stats(rb, blobs.base, {})
    local entry = rank_entry(h, blobs, diff(counters(rs), counters(rb)), a.keys)
    local offset, rtt = clock_of(a, h.rank)
    entry.clock_offset_ms = offset
    entry.clock_rtt_ms = rtt
    ranks[#ranks + 1] = entry
    for _, x in ipairs(h.thread_events) do evs[#evs + 1] = x end
    for _, x in ipairs(h.thread_busy) do busy[#busy + 1] = x end
    dur, warm = math.max(dur, h.duration_s), math.max(warm, h.warmup_s)
    wev, threads = wev + h.warmup_events, threads + h.threads
    local start = start_on_rank0_clock(a, h)
    t0, t1 = math.min(t0, start), math.max(t1, start)
    a.posted_by[h.rank] = h.posted or 0
    if h.status == "error" and not a.merged_error then
      a.merged_error = string.format("rank %d (%s): %s", h.rank, h.host, tostring(h.error))
    end
  end
  a.final_stats, a.base_stats, a.cum = final, base, cum
  a.d = diff(counters(final), counters(base))
  a.duration_s, a.warmup_s, a.warmup_events, a.threads = dur, warm, wev, threads
  a.thread_events, a.thread_busy = evs, busy
  a.type_names = {}
  for i = 0, C.lb_runtime_type_count(ctx.rt) - 1 do a.type_names[i + 1] = ffi.string(C.lb_runtime_type_name(ctx.rt, i)) end
  a.ranks, a.start_skew_ms = ranks, (t1 - t0) * 1000
  -- The job's phases, connection fairness and CPU, replacing rank 0's own.
  a.phases = merge_phases(ctx.opt, a.keys, list) or a.phases
  if (ctx.opt.connections or 0) > 0 then a.lane_figures = merge_lanes(list) end
  a.cpu = { result = function(js, events, queries) return cpu.merged(js, cpus, events, queries) end }
end

-- Every rank, after its run: rank 0 gets `a` merged over the job (plus
-- ranks, nranks, mpi_library, start_skew_ms); the other ranks keep theirs.
-- `cpu_result` is this rank's CPU figures; `wait_s` how long rank 0 may
-- wait for the others (the time left to the run's deadline, plus grace).
function M.merge(ctx, a, cpu_result, wait_s)
  local parts, missing = cluster.gather(pack(ctx, a, cpu_result), wait_s)
  if cluster.rank() ~= 0 then return a end
  a.nranks, a.mpi_library = cluster.size(), cluster.library()
  if not parts then
    a.failed = true
    a.error = cluster.give_up(string.format("%s did not report within %.0f s of rank 0's end: the job is aborted; "
      .. "the totals are rank 0's alone", cluster.names(missing), wait_s))
    return a
  end
  merge_all(ctx, a, parts)
  if a.merged_error then a.failed, a.error = true, a.merged_error end
  -- The job's status: an error anywhere is the job's; else rank 0's.
  if a.failed then a.stop_reason = nil end
  return a
end

-- --rank-result-file=PATTERN: where this rank writes its own document.
function M.own_path(opt)
  local p = opt.rank_result_file
  if not p then return nil end
  return (p:gsub("%%r", tostring(cluster.rank())))
end

-- This rank's own result document, before the merge (threads, totals and
-- latency of this rank alone).
function M.write_own(ctx, lb, a)
  local path = M.own_path(ctx.opt)
  if not path then return true end
  local doc = result.build(ctx, lb, a)
  return publish.file(path, doc,
    { option = "--rank-result-file", encode = function(indent) return result.to_json(doc, indent) end })
end

M.unpack, M.pack_hist, M.stats_wire = unpack, pack_hist, stats_wire
-- For the specs (test/spec/ranks_spec.lua): rank 0's merge of parts
-- framed as pack frames them, without a cluster.
M._merge_all = merge_all
return M
