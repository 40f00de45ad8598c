-- pgbench's report of a run (pgbench 15's printResults), computed from the
-- engine's result tree: the summary under `pgbench` in the result
-- document, its text after lbench's own report, `pgbench_*` rows in the
-- CSV totals, and the per-script counts on interval lines.
--
-- What differs from pgbench, and why: under its own name lbench retries
-- a transaction that met a deadlock or a serialization failure until it
-- succeeds (--max-tries=0; pgbench's default is 1, lbench's under the
-- name pgbench), so that none ends failed; latency average and
-- stddev come from the measured latencies (pgbench without -P/-R/-L
-- derives the average from the duration instead); tps is the engine's
-- events/s over the measured period, which starts once every connection
-- is open, as pgbench's "without initial connection time".
local json = require("lbench.json")

local M = {}

-- Build r.pgbench from the result tree `r`.  `run` holds what the result
-- tree cannot know: scripts (parsed --builtin), total_weight, scale, and
-- connect_ms (the average time a connection took to open).
function M.summary(r, opt, run)
  local t = json.object()
  local tot = r.totals or {}
  local secs = r.duration_s > 0 and r.duration_s or 1
  t.transaction_type = #run.scripts == 1 and run.scripts[1].builtin.desc or "multiple scripts"
  t.scaling_factor = run.scale
  t.partition_method, t.partitions = run.partition_method, run.partition_method and run.partitions or nil
  t.query_mode = run.query_mode
  t.clients = (opt.connections or 0) > 0 and opt.connections or opt.threads
  t.threads = opt.threads
  t.duration_s = r.duration_s
  t.transactions = tot.events or 0
  -- Past --max-tries a transaction ends failed (serialization failure or
  -- deadlock); the percentages are of every transaction that ended.
  t.max_tries = run.max_tries
  t.serialization_failures, t.deadlock_failures = run.ser or 0, run.dead or 0
  t.failed_transactions = t.serialization_failures + t.deadlock_failures
  local ended = t.transactions + t.failed_transactions
  t.failed_pct = ended > 0 and 100 * t.failed_transactions / ended or 0
  t.retried_transactions = run.retried or 0
  t.retries = run.retries or 0
  t.aborted_clients = run.aborted or 0
  t.latency_avg_ms = r.latency_ms.avg
  t.latency_stddev_ms = r.latency_ms.stddev
  t.initial_connection_time_ms = run.connect_ms
  -- -L: the transactions over the limit, and those skipped under --rate.
  if opt.latency_limit > 0 then
    t.latency_limit_ms = opt.latency_limit
    t.late_transactions = run.late or 0
    t.skipped_transactions = run.skipped or 0
  end
  -- -C: the connections opened by the transactions, and their average
  -- time (opening and closing) per transaction, as pgbench's.
  if run.connections then
    t.connections = run.connections
    t.average_connection_time_ms = t.transactions > 0 and run.connection_ms / t.transactions or 0
  end
  t.tps = t.transactions / secs
  local scripts = json.array()
  for i, e in ipairs(run.scripts) do
    local ty = r.types and r.types[e.builtin.name]
    local s = json.object()
    s.script = i
    s.name = e.builtin.name
    s.description = e.builtin.desc
    s.weight = e.weight
    s.target_pct = 100 * e.weight / run.total_weight
    s.transactions = ty and ty.events or 0
    s.share_pct = t.transactions > 0 and 100 * s.transactions / t.transactions or 0
    s.tps = s.transactions / secs
    local count = run.script_counts or function() return 0 end
    s.failed_transactions = count(i, "S_FAILED")
    s.serialization_failures, s.deadlock_failures = count(i, "S_SER"), count(i, "S_DEAD")
    s.retried_transactions, s.retries = count(i, "S_RETRIED"), count(i, "S_RETRIES")
    -- of the transactions that ended (committed or failed), as pgbench
    local ended = s.transactions + s.failed_transactions
    s.failed_pct = ended > 0 and 100 * s.failed_transactions / ended or 0
    s.latency_avg_ms = ty and ty.latency_ms.avg or 0
    s.latency_stddev_ms = ty and ty.latency_ms.stddev or 0
    if run.commands then s.commands = run.commands[i] end
    scripts[i] = s
  end
  t.scripts = scripts
  return t
end

-- pgbench's lines, in its order and wording.
function M.text(t)
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  line("pgbench summary:")
  line("transaction type: %s", t.transaction_type)
  line("scaling factor: %d", t.scaling_factor)
  if t.partition_method then line("partition method: %s\npartitions: %d", t.partition_method, t.partitions) end
  line("query mode: %s", t.query_mode)
  line("number of clients: %d", t.clients)
  line("number of threads: %d", t.threads)
  line("duration: %.0f s", t.duration_s)
  line("number of transactions actually processed: %d", t.transactions)
  line("number of failed transactions: %d (%.3f%%)", t.failed_transactions, t.failed_pct)
  if t.failed_transactions > 0 then
    line("number of serialization failures: %d, deadlock failures: %d", t.serialization_failures, t.deadlock_failures)
  end
  line("maximum number of tries: %s", t.max_tries == 0 and "unlimited" or tostring(t.max_tries))
  line("number of transactions retried: %d", t.retried_transactions)
  line("total number of retries: %d (deadlocks and serialization failures)", t.retries)
  if t.latency_limit_ms then
    line("number of transactions skipped: %d (late at their scheduled start under a rate)", t.skipped_transactions)
    line("number of transactions above the %.1f ms latency limit: %d/%d (%.3f %%)", t.latency_limit_ms,
      t.late_transactions, t.transactions, t.transactions > 0 and 100 * t.late_transactions / t.transactions or 0)
  end
  line("latency average = %.3f ms", t.latency_avg_ms)
  line("latency stddev = %.3f ms", t.latency_stddev_ms)
  if t.connections then
    line("connections opened: %d (one per transaction)", t.connections)
    line("average connection time = %.3f ms", t.average_connection_time_ms)
    line("tps = %f (including reconnection times)", t.tps)
  else
    line("initial connection time = %.3f ms", t.initial_connection_time_ms)
    line("tps = %f (without initial connection time)", t.tps)
  end
  -- pgbench details the scripts when there are several.
  local several = #t.scripts > 1
  if several or t.scripts[1].commands then
    for _, s in ipairs(t.scripts) do
      if several then
      line("SQL script %d: %s", s.script, s.description)
      line(" - weight: %d (targets %.1f%% of total)", s.weight, s.target_pct)
      line(" - %d transactions (%.1f%% of total, tps = %f)", s.transactions, s.share_pct, s.tps)
      line(" - number of failed transactions: %d (%.3f%%)", s.failed_transactions, s.failed_pct)
      line(" - total number of retries: %d", s.retries)
      line(" - latency average = %.3f ms", s.latency_avg_ms)
      line(" - latency stddev = %.3f ms", s.latency_stddev_ms)
      end
      if s.commands then M.command_lines(s.commands, several and " - " or "", line) end
    end
  end
  line("")
  return table.concat(out, "\n")
end

-- --report-per-command in lbench's report: each statement's count,
-- average and percentiles (ms), failures and retries, and its text.
function M.command_lines(cmds, indent, line)
  line("%sstatement latencies in milliseconds (count, avg, p50, p95, p99, max, failures, retries):", indent)
  for _, c in ipairs(cmds) do
    line("   %10d %11.3f %11.3f %11.3f %11.3f %11.3f %8d %8d  %s", c.count, c.latency_avg_ms, c.latency_p50_ms,
      c.latency_p95_ms, c.latency_p99_ms, c.latency_max_ms, c.failures, c.retries, c.command)
  end
end

-- "metric,value" rows for the CSV totals (the scripts by name, with '-'
-- as '_' so that every row name is one identifier).
function M.csv(t)
  local rows = require("lbench.result.render").metric_rows("pgbench_")
  local add = rows.add
  add("scaling_factor", t.scaling_factor)
  add("clients", t.clients)
  add("transactions", t.transactions)
  add("failed_transactions", t.failed_transactions)
  add("retries", t.retries)
  add("latency_avg_ms", t.latency_avg_ms)
  add("latency_stddev_ms", t.latency_stddev_ms)
  add("initial_connection_time_ms", t.initial_connection_time_ms)
  if t.latency_limit_ms then
    add("late_transactions", t.late_transactions)
    add("skipped_transactions", t.skipped_transactions)
  end
  if t.connections then
    add("connections", t.connections)
    add("average_connection_time_ms", t.average_connection_time_ms)
  end
  add("tps", t.tps)
  for _, s in ipairs(t.scripts) do
    local n = s.name:gsub("-", "_")
    for _, k in ipairs({ "weight", "transactions", "share_pct", "tps", "retries", "latency_avg_ms",
                         "latency_stddev_ms" }) do
      add(n .. "_" .. k, s[k])
    end
  end
  return rows.text()
end

-- The interval line's pgbench part, with several scripts: each one's count.
function M.interval(iv, scripts)
  if #scripts < 2 then return nil end
  local types = iv.types or {}
  local parts = {}
  for _, e in ipairs(scripts) do
    local ty = types[e.builtin.name]
    parts[#parts + 1] = string.format("%s %d", e.builtin.name, ty and ty.events or 0)
  end
  return "| " .. table.concat(parts, " ")
end

return M
