-- One interval report: the table hooks and JSON lines see, built from an
-- interval's counter differences and histograms (one process's, or the
-- merge of every rank's, cluster/rankiv.lua), its JSON record, and its emission
-- through the runtime's interval callback.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local result = require("lbench.result.document")

local M = {}

local summary, plain = result.summary, result.plain

-- The interval report as a table (also what hooks and JSON lines see).
function M.make(ctx, t_rel, secs, d, h, threads, warm, keys, with_queue)
  local iv = {}
  iv.time_s = math.floor(t_rel * 1000 + 0.5) / 1000
  iv.warmup = warm
  iv.threads = threads
  iv.events = d.events
  iv.events_per_sec = d.events / secs
  local q = d.reads + d.writes + d.other
  iv.sql = result.sql_run(ctx, q)
  iv.queries_per_sec = q / secs
  iv.reads_per_sec = d.reads / secs
  iv.writes_per_sec = d.writes / secs
  iv.other_per_sec = d.other / secs
  iv.errors_per_sec = d.restarts / secs
  iv.reconnects_per_sec = d.reconnects / secs
  if d.io_reads + d.io_writes + d.io_fsyncs > 0 then
    iv.io = { reads_per_sec = d.io_reads / secs, writes_per_sec = d.io_writes / secs,
              fsyncs_per_sec = d.io_fsyncs / secs, read_mib_per_sec = d.io_bytes_read / secs / 1048576,
              written_mib_per_sec = d.io_bytes_written / secs / 1048576 }
  end
  iv.latency_ms = summary(h.lat, keys, false)
  if with_queue then iv.queue_ms = summary(h.queue, keys, false) end
  return iv
end

function M.json(iv)
  local o = json.object()
  for _, k in ipairs({ "time_s", "warmup", "phase", "threads", "events", "events_per_sec", "queries_per_sec",
                       "reads_per_sec", "writes_per_sec", "other_per_sec", "errors_per_sec",
                       "reconnects_per_sec", "missing_ranks" }) do
    o[k] = iv[k]
  end
  o.latency_ms = plain(iv.latency_ms)
  if iv.queue_ms then o.queue_ms = plain(iv.queue_ms) end
  if iv.io then o.io = iv.io end
  -- What the server and the host did in the interval (run/observe.lua).
  if iv.server then o.server = iv.server end
  if iv.host then o.host = iv.host end
  if iv.types then
    local ts = json.object()
    for _, name in ipairs(iv.type_order) do
      local ty = iv.types[name]
      local t = json.object()
      t.events = ty.events
      t.restarts = ty.restarts
      t.rollbacks = ty.rollbacks
      t.latency_ms = plain(ty.latency_ms)
      ts[name] = t
    end
    o.types = ts
  end
  return o
end

-- Per-type counts of one interval: `cur`/`prev` are lb_stats, `names`
-- the event types by id; a list of { name, events, restarts, rollbacks }.
function M.type_deltas(names, cur, prev)
  local out = {}
  for i, name in ipairs(names) do
    local tc, tp = cur.types[i - 1], prev.types[i - 1]
    out[i] = { name = name, events = tonumber(tc.events - tp.events), restarts = tonumber(tc.restarts - tp.restarts),
               rollbacks = tonumber(tc.rollbacks - tp.rollbacks) }
  end
  return out
end

-- Per-type counts (type_deltas, maybe summed over ranks) and latencies
-- (acc, the interval's histograms, by this process's type ids) of one
-- interval.
function M.types(rt, iv, counts, acc, keys, secs)
  iv.types, iv.type_order = {}, {}
  for _, t in ipairs(counts) do
    local h = acc.type_lat[C.lb_runtime_type_id(rt, t.name)]
    if h == nil then
      -- No histogram this interval: an empty summary.
      local hc = ffi.new("lb_hist_config"); C.lb_hist_config_default(hc)
      h = ffi.gc(C.lb_hist_new(hc), C.lb_hist_free)
    end
    iv.types[t.name] = { events = t.events, events_per_sec = t.events / secs, restarts = t.restarts,
      rollbacks = t.rollbacks, latency_ms = summary(h, keys, true) }
    iv.type_order[#iv.type_order + 1] = t.name
  end
end

function M.emit(ctx, iv, keys)
  local o = M.json(iv)
  local text_json = json.encode(o)
  local civ = ffi.new("lb_interval")
  civ.time_s = iv.time_s
  civ.threads = iv.threads
  civ.warmup = iv.warmup and 1 or 0
  civ.events_per_s = iv.events_per_sec
  civ.reads_per_s, civ.writes_per_s, civ.other_per_s = iv.reads_per_sec, iv.writes_per_sec, iv.other_per_sec
  civ.errors_per_s, civ.reconnects_per_s = iv.errors_per_sec, iv.reconnects_per_sec
  civ.lat_avg_ms, civ.lat_max_ms = iv.latency_ms.avg, iv.latency_ms.max
  local n = #keys
  local ps, vs = ffi.new("double[?]", n + 1), ffi.new("double[?]", n + 1)
  for i, p in ipairs(iv.latency_ms.pct_list) do
    ps[i - 1] = tonumber(p.key)
    vs[i - 1] = p.ms or math.huge
  end
  civ.n_percentiles = n
  civ.percentiles, civ.lat_ms = ps, vs
  civ.json = text_json
  C.lb_runtime_emit_interval(ctx.rt, civ)
  return o, text_json
end


return M
