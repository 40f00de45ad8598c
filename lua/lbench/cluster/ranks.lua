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

-- The same as unpack, but each binary part is a view into the message
-- ({ s = what keeps the bytes alive, p = where they start, len }) rather
-- than a copy: rank 0 of a job of a thousand ranks receives hundreds of
-- megabytes of histograms at the end, and copying each part out (then
-- into a C buffer for the merge) cost more than the merge itself.  The
-- message is a string or a gather's view ({ p, len, anchor }:
-- cluster/transport.lua).  Wherever a part is read (add_stats, merge_hist),
-- a view and a string are alike.
local function open(msg)
  local p, len, anchor
  if type(msg) == "string" then
    p, len, anchor = ffi.cast("const char *", msg), #msg, msg
  else
    p, len, anchor = msg.p, msg.len, msg.anchor
  end
  if len < 8 then error("a rank sent a truncated part", 0) end
  local n = tonumber(ffi.string(p, 8), 16)
  if not n or 8 + n > len then error("a rank sent a truncated part", 0) end
  local h = json.decode(ffi.string(p + 8, n))
  local at, blobs = 8 + n, {}
  for _, b in ipairs(h.blobs) do
    if at + b[2] > len then error("a rank sent a truncated part", 0) end
    blobs[b[1]] = { s = anchor, p = p + at, len = b[2] }
    at = at + b[2]
  end
  return h, blobs
end

-- A binary part's bytes and length, from a string or a view (the view
-- holds what keeps its pointer valid while it is used).
local function bytes_of(b)
  if type(b) == "string" then return b, #b end
  return b.p, b.len
end

-- Add a rank's lb_stats (bytes) into `dst`, its event types renumbered
-- to this process's ids by name (each process numbers types in the order
-- its scenario first used them).
-- `bytes`: a string or a view (open).  Scratch counters are reused: the
-- merge runs once per part, a thousand times per interval in a large job.
local src, moved = ffi.new("lb_stats"), ffi.new("lb_stats")
function M.add_stats(dst, bytes, map)
  local p, len = bytes_of(bytes)
  if C.lb_stats_from_wire(src, p, len) ~= 0 then
    error(string.format("a rank sent counters of %d bytes, this build's are %d: the ranks run different builds",
      len, WIRE), 0)
  end
  ffi.copy(moved, src, ffi.sizeof("lb_stats"))
  ffi.fill(moved.types, ffi.sizeof(moved.types))
  for i, gi in pairs(map) do if gi >= 0 then moved.types[gi] = src.types[i] end end
  C.lb_stats_add(dst, moved)
end

-- `bytes`: a string or a view (open), read where it is (C validates it
-- before merging anything).
function M.merge_hist(dst, bytes)
  local p, len = bytes_of(bytes)
  if len == 0 then return end
  if C.lb_hist_merge_packed(dst, p, len) ~= 0 then error("a rank sent a malformed histogram", 0) end
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
    if b and select(2, bytes_of(b)) > 0 and id >= 0 then
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
local function rank_entry(h, blobs, d, keys, scratch)
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
  -- One histogram for every rank's summary (emptied over the slots the
  -- last rank used): a fresh one per rank cost a thousand allocations
  -- of the whole slot array at the end of a large job.
  C.lb_hist_reset(scratch)
  M.merge_hist(scratch, blobs.lat)
  o.latency_ms = result.summary(scratch, keys, true)
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

-- Rank r's wall-clock offset to rank 0 and its round trip, in ms (0 and
-- 0 without an estimate); its start time on rank 0's clock.
local function clock_of(a, r)
  local c = a.clocks
  return c and c.offset_ms[r + 1] or 0, c and c.rtt_ms[r + 1] or 0
end
local function start_on_rank0_clock(a, h)
  return h.start_wall - clock_of(a, h.rank) / 1000
end

-- Rank 0's merge of every rank's part into `a`, one part at a time in the
-- order they arrive (Merge:add), then the job's figures (Merge:finish).
-- Nothing of a part is kept past its add but its header's small figures:
-- its bytes may be a view into a receive buffer that the next part
-- overwrites, and a job of a thousand ranks sends hundreds of megabytes.
local Merge = {}
Merge.__index = Merge

local function merge_begin(ctx, a)
  local names = {}
  for i, p in ipairs(phases_of(ctx.opt) or {}) do names[i] = p.name end
  return setmetatable({ ctx = ctx, a = a, final = ffi.new("lb_stats"), base = ffi.new("lb_stats"),
    cum = a.new_snapshot(), by_rank = {}, arrived = {}, names = names, sched = phases_of(ctx.opt),
    phase_n = 0, phase_f = {}, phase_lat = {}, lanes = result.lanes_new(),
    scratch = new_hist(), rs = ffi.new("lb_stats"), rb = ffi.new("lb_stats"),
    dur = 0, warm = 0, wev = 0, threads = 0 }, Merge)
end

-- A rank's phases (a --rate schedule), by phase index: counts added, the
-- histograms slot by slot; a phase lasts as long as on the slowest rank
-- (as the run does), and its rates are over that (Merge:phases).
function Merge:add_phases(h, blobs)
  if not self.sched or not h.phases then return end
  self.phase_n = math.max(self.phase_n, #h.phases)
  for i = 1, math.min(#h.phases, #self.sched) do
    local x = h.phases[i]
    local f = self.phase_f[i] or { start_s = math.huge, duration_s = 0, events = 0, queries = 0, errors = 0 }
    f.start_s, f.duration_s = math.min(f.start_s, x.start_s), math.max(f.duration_s, x.duration_s)
    f.events, f.queries, f.errors = f.events + x.events, f.queries + x.queries, f.errors + x.errors
    self.phase_f[i] = f
    self.phase_lat[i] = self.phase_lat[i] or new_hist()
    M.merge_hist(self.phase_lat[i], blobs["p" .. i] or "")
  end
end

-- The job's phases: the latency recomputed from each merged histogram.
function Merge:phases()
  if not self.sched or self.phase_n == 0 then return nil end
  local out, keys = json.array(), self.a.keys
  for i = 1, math.min(self.phase_n, #self.sched) do
    local f = self.phase_f[i] or { start_s = math.huge, duration_s = 0, events = 0, queries = 0, errors = 0 }
    out[i] = phases_entry(self.sched[i], f, result.summary(self.phase_lat[i] or new_hist(), keys, true))
  end
  return out
end

-- One rank's part (a string, or a view into a receive buffer).
function Merge:add(msg)
  local counters, diff = snapshot.counters, snapshot.diff
  local a, cum, rs, rb = self.a, self.cum, self.rs, self.rb
  local h, blobs = open(msg)
  if self.by_rank[h.rank] then error(string.format("rank %d sent its figures twice", h.rank), 0) end
  h.phase_names = self.names
  M.merge_hist(cum.lat, blobs.lat)
  M.merge_hist(cum.queue, blobs.queue)
  local map = M.merge_types(self.ctx.rt, cum, h.type_names, blobs)
  M.add_stats(self.final, blobs.final, map)
  M.add_stats(self.base, blobs.base, map)
  ffi.fill(rs, ffi.sizeof(rs)); ffi.fill(rb, ffi.sizeof(rb))
  M.add_stats(rs, blobs.final, {}); M.add_stats(rb, blobs.base, {})
  local entry = rank_entry(h, blobs, diff(counters(rs), counters(rb)), a.keys, self.scratch)
  -- One at a time: the entry's keys keep the order they are set in.
  local offset, rtt = clock_of(a, h.rank)
  entry.clock_offset_ms = offset
  entry.clock_rtt_ms = rtt
  self:add_phases(h, blobs)
  if h.lanes then result.lanes_add(self.lanes, h.lanes) end
  self.dur, self.warm = math.max(self.dur, h.duration_s), math.max(self.warm, h.warmup_s)
  self.wev, self.threads = self.wev + h.warmup_events, self.threads + h.threads
  self.arrived[#self.arrived + 1] = { rank = h.rank, entry = entry, evs = h.thread_events, busy = h.thread_busy,
    cpu = { host = h.host, cpu = h.cpu }, start = start_on_rank0_clock(a, h), posted = h.posted or 0,
    error = h.status == "error" and string.format("rank %d (%s): %s", h.rank, h.host, tostring(h.error)) or nil }
  self.by_rank[h.rank] = true
end

-- Every part added: the job's figures into `a`, per rank in rank order
-- whatever order the parts came in.
function Merge:finish()
  local ctx, a = self.ctx, self.a
  local list = self.arrived
  table.sort(list, function(x, y) return x.rank < y.rank end)
  local ranks, evs, busy, cpus, t0, t1 = json.array(), {}, {}, {}, math.huge, -math.huge
  a.posted_by = {}
  for _, r in ipairs(list) do
    ranks[#ranks + 1] = r.entry
    for _, x in ipairs(r.evs) do evs[#evs + 1] = x end
    for _, x in ipairs(r.busy) do busy[#busy + 1] = x end
    cpus[#cpus + 1] = r.cpu
    t0, t1 = math.min(t0, r.start), math.max(t1, r.start)
    a.posted_by[r.rank] = r.posted
    a.merged_error = a.merged_error or r.error
  end
  local counters, diff = snapshot.counters, snapshot.diff
  a.final_stats, a.base_stats, a.cum = self.final, self.base, self.cum
  a.d = diff(counters(self.final), counters(self.base))
  a.duration_s, a.warmup_s, a.warmup_events, a.threads = self.dur, self.warm, self.wev, self.threads
  a.thread_events, a.thread_busy = evs, busy
  a.type_names = {}
  for i = 0, C.lb_runtime_type_count(ctx.rt) - 1 do a.type_names[i + 1] = ffi.string(C.lb_runtime_type_name(ctx.rt, i)) end
  a.ranks, a.start_skew_ms = ranks, (t1 - t0) * 1000
  -- The job's phases, connection fairness and CPU, replacing rank 0's own.
  a.phases = self:phases() or a.phases
  if (ctx.opt.connections or 0) > 0 then a.lane_figures = result.lanes_done(self.lanes) end
  a.cpu = { result = function(js, events, queries) return cpu.merged(js, cpus, events, queries) end }
end

-- Rank 0: merge every rank's part (`parts`, in any order) into `a`.
local function merge_all(ctx, a, parts)
  local m = merge_begin(ctx, a)
  for _, s in ipairs(parts) do m:add(s) end
  m:finish()
end

-- Every rank, after its run: rank 0 gets `a` merged over the job (plus
-- ranks, nranks, mpi_library, start_skew_ms); the other ranks keep theirs.
-- `cpu_result` is this rank's CPU figures; `wait_s` how long rank 0 may
-- wait for the others (the time left to the run's deadline, plus grace).
function M.merge(ctx, a, cpu_result, wait_s)
  local mine = pack(ctx, a, cpu_result)
  if cluster.rank() ~= 0 then
    cluster.send_part(mine)
    return a
  end
  a.nranks, a.mpi_library = cluster.size(), cluster.library()
  -- Each rank's part merged as it arrives (cluster.each_part), rank 0's first.
  local m = merge_begin(ctx, a)
  m:add(mine)
  local missing = cluster.each_part(wait_s, function(view) m:add(view) end)
  if missing then
    a.failed = true
    a.error = cluster.give_up(string.format("%s did not report within %.0f s of rank 0's end: the job is aborted; "
      .. "the totals are rank 0's alone", cluster.names(missing), wait_s))
    return a
  end
  m:finish()
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

M.unpack, M.open, M.pack_hist, M.stats_wire = unpack, open, pack_hist, stats_wire
-- For the specs (test/spec/ranks_spec.lua): rank 0's merge of parts
-- framed as pack frames them, without a cluster.
M._merge_all, M._merge_begin = merge_all, merge_begin
return M
