-- The metrics endpoint of a run (--metrics-addr; core/metrics.h serves it
-- from a thread of its own): where it listens, and what the reporter
-- (run/runner.lua) hands it.  One process serves its own figures, updated
-- at every collection.  Under lbench-mpi only rank 0 listens, and serves
-- the job's: every rank's interval counters and latency, summed by rank
-- 0's interval merge (cluster/rankiv.lua); the other ranks serve nothing.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local hist = require("lbench.api.hist")

local M = {}

-- --metrics-addr: "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" -> host, port.
function M.parse_addr(s, allow_remote)
  local host, port = s:match("^%[([^%]]+)%]:(%d+)$")
  if not host then host, port = s:match("^([^:]*):(%d+)$") end
  if not host then port = s:match("^(%d+)$"); host = "" end
  port = tonumber(port)
  if not port or port > 65535 then
    util.fail("--metrics-addr=%s: expected HOST:PORT, e.g. 127.0.0.1:9100", s)
  end
  if host == "" or host == "localhost" then host = "127.0.0.1" end
  local loopback = host:match("^127%.%d+%.%d+%.%d+$") or host == "::1"
  if not loopback and not allow_remote then
    util.fail("--metrics-addr=%s: %s is not a loopback address; add --metrics-allow-remote to serve metrics to the network", s, host)
  end
  return host, port
end

-- Is an endpoint asked for (on any rank: the report grid depends on it)?
function M.wanted(opt)
  return opt.metrics_addr ~= nil and opt.metrics_addr ~= ""
end

-- The endpoint, or nil: none asked for, or a rank of a job other than 0.
-- The address is checked on every rank alike.
function M.start(ctx)
  if not M.wanted(ctx.opt) then return nil end
  local addr = ctx.opt.metrics_addr
  local host, port = M.parse_addr(addr, ctx.opt.metrics_allow_remote)
  if (ctx.rank or 0) ~= 0 then return nil end
  local err = ffi.new("char[256]")
  local m = C.lb_metrics_start(C.lb_runtime_metrics_host(ctx.rt), host, port, err, 256)
  if m == nil then util.fail("--metrics-addr=%s: %s", addr, ffi.string(err)) end
  return m
end

-- The run served: its threads and virtual users (the job's, on rank 0 of
-- several, whose connections open are its own).
function M.attach(m, ctx, run)
  if m == nil then return end
  local opt = ctx.opt
  if ctx.cluster then
    local vus = (opt.connections or 0) > 0 and opt.connections or opt.threads
    C.lb_metrics_attach(m, run, opt.threads, vus, ctx.cluster.size)
  else
    local nt = C.lb_run_threads(run)
    local vus = (opt.connections or 0) > 0 and math.ceil(opt.connections * nt / opt.threads) or nt
    C.lb_metrics_attach(m, run, nt, vus, 1)
  end
end

-- The counters as of now (`sum`, cumulative lb_stats) and the latency of
-- the events counted since the last update (`lat`), in one step.
function M.update(m, sum, lat)
  if m == nil then return end
  if C.lb_metrics_update(m, sum, lat) ~= 0 then error("metrics: a latency histogram of another layout", 0) end
end

-- The latency quantiles of histogram `h` (the last interval of `secs`),
-- with those of --percentiles (`keys`).
local QS = { 0.5, 0.9, 0.95, 0.99, 0.999 }
function M.quantiles(m, h, keys, secs)
  if m == nil then return end
  local qs, seen = {}, {}
  for _, q in ipairs(QS) do qs[#qs + 1] = q; seen[q] = true end
  for _, k in ipairs(keys) do
    local q = tonumber(k) / 100
    if not seen[q] then qs[#qs + 1] = q; seen[q] = true end
  end
  local n = #qs
  local qa, va = ffi.new("double[?]", n), ffi.new("double[?]", n)
  local count = tonumber(C.lb_hist_count_all(h))
  for i, q in ipairs(qs) do
    qa[i - 1] = q
    local v = hist.decode(C.lb_hist_percentile(h, q * 100))
    va[i - 1] = (count > 0 and v ~= math.huge and v >= 0) and v / 1e9 or -1
  end
  C.lb_metrics_publish(m, n, qa, va, count, secs)
end

-- Rank 0 of a job: the counters summed over the job's merged intervals.
function M.job_sum()
  return ffi.new("lb_stats")
end

-- Rank 0 of a job: one merged interval (`stats`, the lb_stats difference
-- summed over the ranks; `acc`, its histograms) added to the job's
-- figures `job` (M.job_sum) and served, with its quantiles (`keys`,
-- `secs`; none for a rank's part that came after its interval was merged).
function M.job_interval(m, job, stats, acc, keys, secs)
  if m == nil or stats == nil then return end
  C.lb_stats_add(job, stats)
  M.update(m, job, acc.lat)
  if keys then M.quantiles(m, acc.lat, keys, secs) end
end

return M
