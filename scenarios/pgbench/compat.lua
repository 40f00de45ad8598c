-- What lbench prints and does under the name `pgbench` (--pgbench-compat,
-- the command line read by lbench.api.pgcli): pgbench 15's initialization
-- steps (-i -I dtgGvpf) with its messages on stderr, its report on stdout in
-- its order and words (and nothing of lbench's own), its progress lines
-- (-P) on stderr, and --show-script.
local C = require("lbench.ffi").C
local schema = require("pgbench.schema")
local load = require("pgbench.load")
local scripts = require("pgbench.scripts")

local M = {}

M.VERSION_LINE = "pgbench (15 (lbench))"
-- The error of a run whose clients aborted (exit status 2: abort_run()).
M.ABORTED = "Run was aborted; the above results are incomplete."

-- Fails the run with pgbench's words and exit status for aborted clients.
function M.abort_run()
  require("lbench.api.pgcli").exit_status = 2
  error(M.ABORTED, 0)
end

local function say(fmt, ...) io.stderr:write(string.format(fmt, ...), "\n") end

-- pgbench's foreign keys (step f).
local FKEYS = {
  { "pgbench_tellers", "pgbench_tellers_bid_fkey", "bid", "pgbench_branches" },
  { "pgbench_accounts", "pgbench_accounts_bid_fkey", "bid", "pgbench_branches" },
  { "pgbench_history", "pgbench_history_bid_fkey", "bid", "pgbench_branches" },
  { "pgbench_history", "pgbench_history_tid_fkey", "tid", "pgbench_tellers" },
  { "pgbench_history", "pgbench_history_aid_fkey", "aid", "pgbench_accounts" },
}

-- A statement of pgbench -i that the server refused, in pgbench's words
-- (its error and the query as details, exit status 1); anything else is
-- raised again as it is.
local function init_failed(e)
  if type(e) == "table" and e.sql_errmsg and e.sql_errmsg ~= "" then
    io.stderr:write(string.format("pgbench: error: query failed: ERROR:  %s\npgbench: detail: Query was: %s\n",
      e.sql_errmsg, e.query or ""))
    require("lbench.util").fail("")   -- said above: an empty error prints nothing
  end
  error(e, 0)
end

-- pgbench -i: the steps of --init-steps in their order, each step's time
-- in the closing "done in" line.  `con` is the main state's connection.
function M.init(con, opt)
  local t0 = lbench.clock.now()
  local parts = {}
  local function step(name, fn)
    local t = lbench.clock.now()
    local ok, e = pcall(fn)
    if not ok then init_failed(e) end
    parts[#parts + 1] = string.format("%s %.2f s", name, lbench.clock.now() - t)
  end
  for c in opt.init_steps:gmatch(".") do
    if c == "d" then
      step("drop tables", function()
        say("dropping old tables...")
        for _, name in ipairs(schema.TABLES) do con:query("drop table if exists " .. name) end
      end)
    elseif c == "t" then
      step("create tables", function()
        say("creating tables...")
        schema.create(con, opt, opt.scale, say)
      end)
    elseif c == "g" then
      step("client-side generate", function()
        say("generating data (client-side)...")
        local t = lbench.clock.now()
        lbench.run_parallel("_load")
        local _, _, na = load.rows(opt.scale)
        if not opt.init_quiet then
          say("%.0f of %.0f tuples (100%%) done (elapsed %.2f s, remaining 0.00 s)", na, na, lbench.clock.now() - t)
        end
      end)
    elseif c == "G" then
      step("server-side generate", function()
        say("generating data (server-side)...")
        schema.generate_server_side(con, opt, opt.scale)
      end)
    elseif c == "v" then
      step("vacuum", function()
        say("vacuuming...")
        schema.vacuum(con, opt)
      end)
    elseif c == "p" then
      step("primary keys", function()
        say("creating primary keys...")
        schema.primary_keys(con, opt)
      end)
    elseif c == "f" then
      step("foreign keys", function()
        say("creating foreign keys...")
        for _, f in ipairs(FKEYS) do
          con:query(string.format("alter table %s add constraint %s foreign key (%s) references %s", f[1], f[2],
            f[3], f[4]))
        end
      end)
    end
  end
  say("done in %.2f s (%s).", lbench.clock.now() - t0, table.concat(parts, ", "))
end

-- --show-script=NAME: the built-in script as pgbench shows it (stderr).
function M.show_script(opt)
  local list = scripts.parse(opt.builtin)
  if not list or not list[1] then
    require("lbench.util").fail("show-script shows a built-in script: give it with --builtin=NAME "
      .. "(tpcb-like, simple-update or select-only)")
  end
  local b = list[1].builtin
  io.stderr:write(string.format("-- %s: %s\n%s\n", b.name, b.desc, scripts.text(b, "END")))
end

-- A progress line (-P), as pgbench 15 prints it on stderr: the elapsed
-- time (the Unix time with --progress-timestamp), the interval's failed
-- transactions always, under -R its lag (and under -L its skipped
-- transactions), with --max-tries other than 1 its retried transactions
-- and retries.  `d`: those counts over the interval.  The piece of an
-- interval at the end of the run is not printed, as pgbench's.
function M.progress(iv, secs, opt, d)
  if secs < opt.report_interval * 0.999 then return end
  local when = opt.progress_timestamp and string.format("%.3f s", C.lb_clock_wall())
    or string.format("%.1f s", iv.time_s)
  local s = string.format("progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", when,
    iv.events_per_sec, iv.latency_ms.avg or 0, iv.latency_ms.stddev or 0, d.failed)
  if iv.queue_ms then
    s = s .. string.format(", lag %.3f ms", iv.queue_ms.avg or 0)
    if opt.latency_limit > 0 then s = s .. string.format(", %d skipped", d.skipped) end
  end
  if d.max_tries ~= 1 then s = s .. string.format(", %d retried, %d retries", d.retried, d.retries) end
  io.stderr:write(s, "\n")
end

-- pgbench 15's report (its printResults) from the summary `t`
-- (pgbench/report.lua), the result tree `r` and the options.
function M.report(t, r, opt)
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  line("transaction type: %s", t.transaction_type)
  line("scaling factor: %d", t.scaling_factor)
  if t.partition_method then line("partition method: %s\npartitions: %d", t.partition_method, t.partitions) end
  line("query mode: %s", t.query_mode)
  line("number of clients: %d", t.clients)
  line("number of threads: %d", t.threads)
  line("maximum number of tries: %d", t.max_tries)
  if opt.pgbench_per_client > 0 then
    line("number of transactions per client: %d", opt.pgbench_per_client)
    line("number of transactions actually processed: %d/%d", t.transactions, opt.pgbench_per_client * t.clients)
  else
    line("duration: %d s", math.floor(opt.time))
    line("number of transactions actually processed: %d", t.transactions)
  end
  -- With no transaction, pgbench stops after this line (its 0/0 as NaN).
  local total = t.transactions + (t.skipped_transactions or 0) + t.failed_transactions
  if total == 0 then
    line("number of failed transactions: %d (NaN%%)", t.failed_transactions)
    return table.concat(out, "\n") .. "\n"
  end
  local function pct(n) return 100 * n / total end
  line("number of failed transactions: %d (%.3f%%)", t.failed_transactions, pct(t.failed_transactions))
  if opt.failures_detailed then
    line("number of serialization failures: %d (%.3f%%)", t.serialization_failures, pct(t.serialization_failures))
    line("number of deadlock failures: %d (%.3f%%)", t.deadlock_failures, pct(t.deadlock_failures))
  end
  if t.max_tries ~= 1 then
    line("number of transactions retried: %d (%.3f%%)", t.retried_transactions, pct(t.retried_transactions))
    line("total number of retries: %d", t.retries)
  end
  local paced = (tonumber(opt.rate) or 0) > 0
  if paced and t.latency_limit_ms then
    line("number of transactions skipped: %d (%.3f%%)", t.skipped_transactions, 100 * t.skipped_transactions / total)
  end
  if t.latency_limit_ms then
    line("number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)", t.latency_limit_ms,
      t.late_transactions, t.transactions, t.transactions > 0 and 100 * t.late_transactions / t.transactions or 0)
  end
  local incl = t.failed_transactions > 0 and " (including failures)" or ""
  if paced or opt.report_interval > 0 or t.latency_limit_ms then
    -- (measured over the transactions that passed: pgbench says nothing
    -- of the failures here)
    line("latency average = %.3f ms", t.latency_avg_ms)
    line("latency stddev = %.3f ms", t.latency_stddev_ms)
  else
    -- From the duration, as pgbench: over every transaction that ended.
    line("latency average = %.3f ms%s", 1000 * t.duration_s * t.clients / (t.transactions + t.failed_transactions), incl)
  end
  if paced and r.queue_ms then
    line("rate limit schedule lag: avg %.3f (max %.3f) ms", r.queue_ms.avg or 0, r.queue_ms.max or 0)
  end
  if t.connections then
    line("average connection time = %.3f ms", t.average_connection_time_ms)
    line("tps = %f (including reconnection times)", t.tps)
  else
    line("initial connection time = %.3f ms", t.initial_connection_time_ms)
    line("tps = %f (without initial connection time)", t.tps)
  end
  local several = #t.scripts > 1
  if several or opt.report_per_command then
    for _, s in ipairs(t.scripts) do
      if several then
        line("SQL script %d: %s", s.script, s.description)
        line(" - weight: %d (targets %.1f%% of total)", s.weight, s.target_pct)
        line(" - %d transactions (%.1f%% of total, tps = %f)", s.transactions, s.share_pct, s.tps)
        local ended = s.transactions + s.failed_transactions
        local function spct(n) return ended > 0 and 100 * n / ended or 0 end
        line(" - number of failed transactions: %d (%.3f%%)", s.failed_transactions, s.failed_pct)
        if opt.failures_detailed then
          line(" - number of serialization failures: %d (%.3f%%)", s.serialization_failures,
            spct(s.serialization_failures))
          line(" - number of deadlock failures: %d (%.3f%%)", s.deadlock_failures, spct(s.deadlock_failures))
        end
        if t.max_tries ~= 1 then
          line(" - number of transactions retried: %d (%.3f%%)", s.retried_transactions, spct(s.retried_transactions))
          line(" - total number of retries: %d", s.retries)
        end
        if s.transactions > 0 then
          line(" - latency average = %.3f ms", s.latency_avg_ms)
          line(" - latency stddev = %.3f ms", s.latency_stddev_ms)
        end
      end
      if s.commands then M.command_lines(s.commands, several and " - " or "", t.max_tries, line) end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- pgbench's -r lines of one script: each command's average (ms), its
-- failures (and retries when max_tries is not 1) and its first line.
function M.command_lines(cmds, indent, max_tries, line)
  line("%sstatement latencies in milliseconds%s:", indent, max_tries == 1 and " and failures" or ", failures and retries")
  for _, c in ipairs(cmds) do
    if max_tries == 1 then line("   %11.3f  %10d  %s", c.latency_avg_ms, c.failures, c.command)
    else line("   %11.3f  %10d  %10d  %s", c.latency_avg_ms, c.failures, c.retries, c.command) end
  end
end

return M
