-- pgbench's transaction logs (pgbench 15's -l, --sampling-rate,
-- --aggregate-interval, --log-prefix), in its exact line formats so that
-- the parsers written for pgbench's logs read lbench's unchanged:
--
--   per transaction:  client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
--   aggregate:        interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
--                     sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures
--                     deadlock_failures
--
-- (times in microseconds; pgbench 15 writes every aggregate column, the
-- ones of options not given as 0: skipped without -L, retried and retries
-- with one try, the failures without --failures-detailed).  A failed
-- transaction (past --max-tries) has its own line, its number counted,
-- "failed" in place of its latency ("serialization" or "deadlock" with
-- --failures-detailed) and a lag of 0; in an aggregate it counts in its
-- failure column and retries, not in num_transactions nor the latencies.  One file per thread, as pgbench has
-- one per thread: PREFIX.PID for thread 0, PREFIX.PID.N for thread N; the
-- virtual users of a thread (--connections) share its file, as the
-- clients of a pgbench thread share theirs.
--
-- Unlike pgbench, the last interval of an aggregate log is written too
-- (pgbench 15 leaves it out), so that the counts add up to the run's.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")

local M = {}

-- The writers of this Lua state, by path.  Virtual users load their own
-- copy of this module (api/vu.lua) but share their worker's state, whose
-- package.loaded is one table: the writer of the thread's file lives there.
local WRITERS = "pgbench.log/writers"
local function writers()
  local w = package.loaded[WRITERS]
  if type(w) ~= "table" then
    w = {}
    package.loaded[WRITERS] = w
  end
  return w
end

ffi.cdef("int getpid(void);")
pcall(ffi.cdef, "char *strerror(int errnum);")

-- The options' combinations pgbench refuses, in its words; nil when fine.
function M.check(opt)
  local on = opt.log
  if opt.sampling_rate ~= 0 and (opt.sampling_rate < 0 or opt.sampling_rate > 1) then
    return string.format("invalid sampling rate: \"%s\"", tostring(opt.sampling_rate))
  end
  if opt.sampling_rate ~= 0 and not on then
    return "log sampling (--sampling-rate) is allowed only when logging transactions (--log)"
  end
  if opt.sampling_rate ~= 0 and opt.aggregate_interval > 0 then
    return "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time"
  end
  if opt.aggregate_interval > 0 and not on then
    return "log aggregation is allowed only when actually logging transactions"
  end
  if opt.log_prefix ~= "pgbench_log" and not on then
    return "log file prefix (--log-prefix) is allowed only when logging transactions (--log)"
  end
  local d = opt.time
  if d > 0 and opt.aggregate_interval > 0 and opt.events == 0 then
    if opt.aggregate_interval > d then
      return string.format("number of seconds for aggregation (%d) must not be higher than test duration (%d)",
        opt.aggregate_interval, d)
    end
    if d % opt.aggregate_interval ~= 0 then
      return string.format("duration (%g) must be a multiple of aggregation interval (%d)", d, opt.aggregate_interval)
    end
  end
end

-- The path of thread `tid`'s file.
function M.path(prefix, pid, tid)
  if tid == 0 then return string.format("%s.%d", prefix, pid) end
  return string.format("%s.%d.%d", prefix, pid, tid)
end

local function us(ns) return math.floor(tonumber(ns) / 1000) end

-- A line formatted here (an aggregate interval, a failed transaction),
-- after the ones before it in the file's buffer.
local function put(w, text) C.lb_pg_txlog_write(w.f, text, #text) end

local function new_stats(start)
  return { start = start, cnt = 0, sum = 0, sum2 = 0, min = 0, max = 0, lsum = 0, lsum2 = 0, lmin = 0, lmax = 0,
           skipped = 0, retried = 0, retries = 0, serialization = 0, deadlock = 0 }
end

-- Write the interval `a` (pgbench's: every column, 0 where an option is
-- off).
local function write_interval(w, a)
  local function on(flag, v) return flag and v or 0 end
  put(w, string.format("%d %d %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d %d %d %d %d\n",
    a.start / 1000000, a.cnt, a.sum, a.sum2, a.min, a.max, a.lsum, a.lsum2, a.lmin, a.lmax,
    on(w.limit, a.skipped), on(w.tries, a.retried), on(w.tries, a.retries),
    on(w.detailed, a.serialization), on(w.detailed, a.deadlock)))
  C.lb_pg_txlog_flush(w.f)
end

-- The writer of thread `tid` (opened by its first client), or nil when
-- --log is off.  `cfg` = { opt, tid, sample (lb_pg_prng or nil) }.
function M.open(cfg)
  local opt = cfg.opt
  if not opt.log then return nil end
  local path = M.path(opt.log_prefix, ffi.C.getpid(), cfg.tid)
  local all = writers()
  local w = all[path]
  if not w then
    -- Times in the log are of the Unix epoch, taken from the monotonic
    -- clock shifted once (as pgbench does), so that they never go back.
    local shift = math.floor(C.lb_clock_wall() * 1e6) - us(C.lb_clock_ns())
    local lag = (opt.rate or 0) > 0
    -- the retries field: with --max-tries given and not 1, as pgbench
    local tries = (opt.max_tries or -1) >= 0 and opt.max_tries ~= 1
    local f = C.lb_pg_txlog_open(path, shift, lag and 1 or 0, tries and 1 or 0)
    if f == nil then util.fail("could not open logfile \"%s\": %s", path, ffi.string(ffi.C.strerror(ffi.errno()))) end
    w = { f = ffi.gc(f, C.lb_pg_txlog_close), path = path, users = 0, shift = shift,
          agg = opt.aggregate_interval * 1000000, rate = opt.sampling_rate, sample = cfg.sample, lag = lag,
          tries = tries, detailed = opt.failures_detailed, limit = (opt.latency_limit or 0) > 0 }
    if w.rate ~= 0 then C.lb_pg_txlog_sample(f, w.sample, w.rate) end
    all[path] = w
  end
  w.users = w.users + 1
  return w
end

-- Accumulate a transaction into the interval of `now` (us of the epoch),
-- writing the intervals that ended before it, empty ones included.
local function aggregate(w, now, lat, lag, tries, failed)
  local a = w.cur
  if not a then
    a = new_stats(now - now % 1000000)
    w.cur = a
  end
  while a.start + w.agg <= now do
    write_interval(w, a)
    a = new_stats(a.start + w.agg)
    w.cur = a
  end
  if tries > 1 then
    a.retried = a.retried + 1
    a.retries = a.retries + tries - 1
  end
  if failed then
    a[failed] = a[failed] + 1
    return
  end
  if a.cnt == 0 or lat < a.min then a.min = lat end
  if a.cnt == 0 or lat > a.max then a.max = lat end
  a.cnt = a.cnt + 1
  a.sum = a.sum + lat
  a.sum2 = a.sum2 + lat * lat
  if w.lag then
    if a.cnt == 1 or lag < a.lmin then a.lmin = lag end
    if a.cnt == 1 or lag > a.lmax then a.lmax = lag end
    a.lsum = a.lsum + lag
    a.lsum2 = a.lsum2 + lag * lag
  end
end

-- Log one finished transaction of client `client` (its `cnt`-th, 1 for
-- the first, as pgbench counts), of script `script` (0-based): scheduled
-- at `sched_ns`, begun at `begin_ns`, ended at `end_ns` (monotonic ns),
-- after `tries` tries; `failed`: nil, or "serialization" or "deadlock"
-- for a transaction that ended failed.
function M.txn(w, client, cnt, script, sched_ns, begin_ns, end_ns, tries, failed)
  if w.agg == 0 and not failed then
    -- the common line, from C, which draws the sample itself (pgbench/pglog.h)
    C.lb_pg_txlog_txn(w.f, client, cnt, script, sched_ns, begin_ns, end_ns, tries)
    return
  end
  if w.rate ~= 0 and C.lb_pg_prng_double(w.sample) > w.rate then return end
  local s = us(sched_ns)
  local now = us(end_ns) + w.shift
  local lat, lag = us(end_ns) - s, us(begin_ns) - s
  if failed then lat, lag = w.detailed and failed or "failed", 0 end
  if w.agg > 0 then return aggregate(w, now, lat, lag, tries, failed) end
  local line = string.format("%d %d %s %d %d %d", client, cnt, lat, script, math.floor(now / 1000000), now % 1000000)
  if w.lag then line = line .. string.format(" %d", lag) end
  if w.tries then line = line .. string.format(" %d", tries - 1) end
  put(w, line .. "\n")
end

-- A client is done with the file: the last one writes the interval in
-- progress and closes it.
function M.close(w)
  if not w then return end
  w.users = w.users - 1
  if w.users > 0 then return end
  -- (an interval of failures or skips alone is one too: its counts add
  -- up to the report's)
  local a = w.cur
  if a and a.cnt + a.serialization + a.deadlock + a.skipped > 0 then write_interval(w, a) end
  writers()[w.path] = nil
  local err = C.lb_pg_txlog_close(ffi.gc(w.f, nil))
  w.f = nil
  if err ~= 0 then util.fail("could not write logfile \"%s\": %s", w.path, ffi.string(ffi.C.strerror(err))) end
end

return M
