-- The metrics endpoint (test/cli/metrics.sh).  `run`: events of two
-- types (registered in another order on odd ranks of a job), and done()
-- (rank 0, after the merge, the endpoint still up) scrapes the endpoint
-- into --scrape-file.  `check`: the scrapes against the documents: in
-- each, the histogram's _count and +Inf bucket equal lbench_events_total,
-- the buckets are cumulative and the types add up; a live scrape's events
-- are the job's after some whole number of intervals (the same number on
-- every rank: --ranks, their own documents); the final scrape's are the
-- totals.
lbench.cmdline.options = {
  port = { "metrics port to scrape from done()", 0 },
  scrape_file = { "where done() writes its scrape (empty: none)", "" },
  scrapes = { "live scrapes, comma-separated", "" },
  final = { "the scrape done() wrote", "" },
  merged = { "the run's result document", "" },
  ranks = { "each rank's own document (--rank-result-file), comma-separated", "" },
  min_live = { "live scrapes that must have 0 < events < the total", 1 },
}
local opt = lbench.opt

local A, B
if lbench.rank % 2 == 1 then
  B = lbench.stat.type("beta"); A = lbench.stat.type("alpha")
else
  A = lbench.stat.type("alpha"); B = lbench.stat.type("beta")
end
local n = 0
function event()
  n = n + 1
  if n % 3 == 0 then lbench.stat.event(A) else lbench.stat.event(B) end
end

function done()
  if opt.scrape_file ~= "" then
    os.execute(string.format("curl -sf http://127.0.0.1:%d/metrics > %s", opt.port, opt.scrape_file))
  end
end

local function list(s)
  local t = {}
  for x in s:gmatch("[^,]+") do t[#t + 1] = x end
  return t
end

-- name{labels} value lines -> { ["name{labels}"] = number }, plus the
-- histogram's buckets in order.
local function parse(path)
  local f = assert(io.open(path))
  local m, buckets = {}, {}
  for line in f:lines() do
    if not line:match("^#") and line ~= "" then
      local k, v = line:match("^(%S+) (%S+)$")
      assert(k, path .. ": not a sample line: " .. line)
      m[k] = tonumber(v)
      if k:match("^lbench_latency_seconds_bucket") then buckets[#buckets + 1] = m[k] end
    end
  end
  f:close()
  return m, buckets
end

local function doc(path)
  local util, json = require("lbench.util"), require("lbench.json")
  return json.decode(assert(util.read_file(path), "cannot read " .. path))
end

-- One scrape on its own: returns its events.
local function consistent(path)
  local m, buckets = parse(path)
  local ev = m.lbench_events_total
  assert(ev, path .. ": no lbench_events_total")
  assert(m.lbench_latency_seconds_count == ev, string.format("%s: _count %s ~= events %s", path,
    tostring(m.lbench_latency_seconds_count), ev))
  assert(m['lbench_latency_seconds_bucket{le="+Inf"}'] == ev, path .. ": +Inf bucket ~= events")
  assert(#buckets == 22, path .. ": " .. #buckets .. " buckets")
  for i = 2, #buckets do assert(buckets[i] >= buckets[i - 1], path .. ": buckets not cumulative") end
  local a, b = m['lbench_type_events_total{type="alpha"}'] or 0, m['lbench_type_events_total{type="beta"}'] or 0
  assert(a + b == ev, string.format("%s: alpha %d + beta %d ~= events %d", path, a, b, ev))
  return ev, m
end

-- Cumulative events after each whole interval: 0, then one per interval.
local function prefix(d)
  local p, s = { 0 }, 0
  for _, iv in ipairs(d.intervals or {}) do s = s + iv.events; p[#p + 1] = s end
  return p
end

-- Is `ev` the sum of each rank's events after some number of its own
-- intervals (`per_rank`: each rank's prefix sums)?
local function some_sum(per_rank, ev, r, acc)
  r, acc = r or 1, acc or 0
  if r > #per_rank then return acc == ev end
  for _, v in ipairs(per_rank[r]) do
    if acc + v <= ev and some_sum(per_rank, ev, r + 1, acc + v) then return true end
  end
  return false
end

function check()
  local merged = doc(opt.merged)
  local total = merged.totals.events + (merged.warmup_events or 0)
  local job = prefix(merged)
  local sum_ranks, rank_total, per_rank, late = {}, 0, {}, false
  for _, iv in ipairs(merged.intervals or {}) do late = late or iv.missing_ranks ~= nil end
  for _, path in ipairs(list(opt.ranks)) do
    local d = doc(path)
    rank_total = rank_total + d.totals.events + (d.warmup_events or 0)
    local p = prefix(d)
    assert(#p == #job, string.format("%s: %d intervals, the job %d", path, #p - 1, #job - 1))
    for k, v in ipairs(p) do sum_ranks[k] = (sum_ranks[k] or 0) + v end
    per_rank[#per_rank + 1] = p
  end
  assert(opt.ranks == "" or rank_total == total, string.format("ranks' totals %d ~= the job's %d", rank_total, total))
  local live, seen = 0, {}
  for _, path in ipairs(list(opt.scrapes)) do
    local ev = consistent(path)
    assert(ev <= total, string.format("%s: events %d > the total %d", path, ev, total))
    if ev > 0 and ev < total then live = live + 1 end
    if late and #per_rank > 0 then
      -- A rank's part came after its interval was printed without it
      -- (missing_ranks): the endpoint counts it when it comes, so the
      -- scrape is the ranks' own figures, each after its own number of
      -- intervals.
      assert(some_sum(per_rank, ev), string.format("%s: events %d are no sum of the ranks' interval ends", path, ev))
    elseif #job > 1 then
      -- The job's figures after some number k of whole intervals, which is
      -- also every rank's own after k.
      local at
      for k, v in ipairs(job) do if v == ev then at = k end end
      assert(at, string.format("%s: events %d are no interval's end (%s)", path, ev, table.concat(job, " ")))
      assert(opt.ranks == "" or sum_ranks[at] == ev, string.format("%s: events %d ~= the ranks' sum %d after %d intervals",
        path, ev, sum_ranks[at] or -1, at - 1))
      seen[#seen + 1] = at - 1
    end
  end
  assert(live >= opt.min_live, string.format("%d live scrape(s) mid-run, wanted %d", live, opt.min_live))
  if opt.final ~= "" then
    local ev, m = consistent(opt.final)
    assert(ev == total, string.format("final scrape: events %d ~= the total %d", ev, total))
    assert(m.lbench_run_active == 1, "final scrape: run not active")
  end
  print(string.format("ok: %d live scrapes (%d mid-run; after intervals %s), total %d", #list(opt.scrapes), live,
    table.concat(seen, ","), total))
end

lbench.cmdline.commands = { check = { check } }
