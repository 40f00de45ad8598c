-- The pgbench scenario's own counts and per-statement latencies over every
-- state of a run: the workers (and virtual users) add to the runtime's
-- counters (lbench.counter) and merge their per-statement histograms
-- into the runtime's shared ones when they are done; the main state
-- clears both when a run starts and reads them for the report.
--
-- Counter slots: run-wide ones below 16; then 8 per script (FAILED ..
-- LATE); then a failure and a retry count per statement.  A statement's
-- slot is its script's offset plus its index (pgbench's Command list).
local C = require("lbench.ffi").C
local hist = require("lbench.api.hist")

local M = {}

-- Run-wide counters.
M.ABORTED, M.CONN_NS, M.CONN_N, M.LATE, M.SKIPPED, M.SER, M.DEAD, M.RETRIED, M.RETRIES = 0, 1, 2, 3, 4, 5, 6, 7, 8
-- A script's counters: M.script(i, M.S_FAILED) ...
M.S_FAILED, M.S_SER, M.S_DEAD, M.S_RETRIED, M.S_RETRIES, M.S_SKIPPED, M.S_LATE = 0, 1, 2, 3, 4, 5, 6
local SCRIPT_BASE, CMD_FAIL, CMD_RETRY = 16, 1024, 2048
M.MAX_SCRIPTS = (CMD_FAIL - SCRIPT_BASE) / 8
M.MAX_COMMANDS = C.LB_RUNTIME_HISTS

function M.script(i, k) return SCRIPT_BASE + (i - 1) * 8 + k end
function M.cmd_fail(slot) return CMD_FAIL + slot end
function M.cmd_retry(slot) return CMD_RETRY + slot end

-- Each script's first statement slot (0-based), over `list` (the run's
-- scripts, each with its cmds); nil and a reason past the limits.
function M.offsets(list)
  local off, n = {}, 0
  for i, e in ipairs(list) do
    off[i] = n
    n = n + #(e.cmds or {})
  end
  if #list > M.MAX_SCRIPTS then return nil, string.format("at most %d scripts", M.MAX_SCRIPTS) end
  if n > M.MAX_COMMANDS then
    return nil, string.format("--report-per-command: at most %d commands over all the scripts", M.MAX_COMMANDS)
  end
  return off
end

-- Main state: every counter and histogram back to zero before a run.
function M.clear()
  for i = 0, CMD_RETRY + M.MAX_COMMANDS - 1 do lbench.counter.set(i, 0) end
  C.lb_runtime_hists_clear(lbench.runtime_ptr())
end

-- A worker's per-statement histograms (ns): hs[script][command].
function M.worker_hists(list)
  local hs = {}
  for i, e in ipairs(list) do
    hs[i] = {}
    for k = 1, #e.cmds do hs[i][k] = hist.new() end
  end
  return hs
end

-- Merge a worker's histograms into the run's.
function M.flush(hs, off)
  local rt = lbench.runtime_ptr()
  for i, row in ipairs(hs) do
    for k, h in ipairs(row) do
      if h:count() > 0 then C.lb_runtime_hist_merge(rt, off[i] + k - 1, h.h) end
    end
  end
end

local PCTS = { 50, 95, 99 }

-- Main state, after a run: each script's statements, { command (its
-- first line, as pgbench shows it), count, latency_avg_ms, latency_pNN_ms,
-- latency_max_ms, failures, retries }.
function M.commands(list, off, json)
  local rt = lbench.runtime_ptr()
  local out = {}
  for i, e in ipairs(list) do
    local rows = json.array()
    for k, cmd in ipairs(e.cmds) do
      local slot = off[i] + k - 1
      local row = json.object()
      row.command = (cmd.first_line or ""):sub(1, 127)
      local h = C.lb_runtime_hist(rt, slot)
      local n = h ~= nil and tonumber(C.lb_hist_count_all(h)) or 0
      row.count = n
      row.latency_avg_ms = n > 0 and C.lb_hist_mean(h) / 1e6 or 0
      for _, p in ipairs(PCTS) do
        row["latency_p" .. p .. "_ms"] = n > 0 and hist.decode(C.lb_hist_percentile(h, p)) / 1e6 or 0
      end
      row.latency_max_ms = n > 0 and tonumber(C.lb_hist_max(h)) / 1e6 or 0
      row.failures = lbench.counter.get(M.cmd_fail(slot))
      row.retries = lbench.counter.get(M.cmd_retry(slot))
      rows[k] = row
    end
    out[i] = rows
  end
  return out
end

return M
