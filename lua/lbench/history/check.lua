-- `lbench history check NEW.json`: a new result against a baseline from
-- the history, per metric, with a threshold each; made for a CI step.
--
--   --baseline=last       the newest stored run of the same scenario,
--                         command and key options (status ok) that
--                         started no later than the new one, the new
--                         document itself excluded (default)
--   --baseline=ID         that stored run
--   --baseline=median:N   per metric, the median of the last N such runs
--                         (fewer when fewer exist; the table says how many)
--   --metric=tps,p99      (default: the run's headline figure: tpmC for
--                         TPC-C, iops for I/O, else tps)
--   --max-regression=5%   one limit for all, or per metric tps:5%,p99:10%
--   --add                 also store the new result (after the check)
--
-- Direction-aware: a throughput is a regression when it falls by more
-- than its limit, a latency when it rises by more.  Exit status: 1 on a
-- regression, 0 otherwise (also when no baseline exists yet: the table
-- says so), 2 on any error (bad option, unreadable file, history
-- problem), so a CI step never mistakes an error for a regression.
local C = require("lbench.ffi").C
local util = require("lbench.util")
local fmt = require("lbench.fmt")
local result = require("lbench.result.document")
local history = require("lbench.result.history")
local cmd = require("lbench.history.args")

local M = {}

local DEFAULT_LIMIT = 5

-- "5%", "5", "0.5%": a percentage.
local function percent(s, what)
  local n = tonumber((s:gsub("%%$", "")))
  if not n or n < 0 then util.fail("--max-regression=%s: expected a percentage such as 5%%%s", s, what and (" " .. what) or "") end
  return n
end

local function metric_name(s, opt)
  local m = history.metric(s)
  if not m then
    util.fail("%s: unknown metric '%s' (expected %s)", opt, s, history.METRIC_NAMES)
  end
  return m
end

-- The metrics and their limits from --metric and --max-regression.
function M.plan(metric_opt, limit_opt, doc)
  local names, limits, default = {}, {}, DEFAULT_LIMIT
  local seen = {}
  local function want(m) if not seen[m] then seen[m] = true; names[#names + 1] = m end end
  if metric_opt then
    for _, s in ipairs(util.split(metric_opt, ",")) do want(metric_name(util.trim(s), "--metric")) end
  end
  if limit_opt then
    for _, part in ipairs(util.split(limit_opt, ",")) do
      local m, v = part:match("^%s*([^:]+):(.*)$")
      if m then
        local name = metric_name(util.trim(m), "--max-regression")
        limits[name] = percent(util.trim(v), "after '" .. m .. ":'")
        -- Limits name metrics too when --metric is not given.
        if not metric_opt then want(name) end
      else
        default = percent(util.trim(part))
      end
    end
  end
  if #names == 0 then
    if history.metrics.tpmc.get(doc) then want("tpmc")
    elseif history.metrics.iops.get(doc) then want("iops")
    else want("tps") end
  end
  for _, m in ipairs(names) do if not limits[m] then limits[m] = default end end
  return names, limits
end

local function median(xs)
  table.sort(xs)
  local n = #xs
  if n == 0 then return nil end
  if n % 2 == 1 then return xs[(n + 1) / 2] end
  return (xs[n / 2] + xs[n / 2 + 1]) / 2
end

-- The baseline: a description and, per metric, its value.
local function baseline(st, spec, doc, text, names, filters)
  local f = filters
  f.status = f.status or "ok"
  f.scenario, f.command = doc.scenario, doc.command
  f.key_options = history.key_options(doc)
  f.exclude_hash = history.text_hash(text:gsub("%s+$", ""))
  -- Runs up to the new one: checking an older file compares it with what
  -- came before it, not with later runs.
  f["until"] = history.unix_time(doc.started_at)
  local n = 1
  if spec == "last" then n = 1
  elseif spec:match("^median:") then
    n = tonumber(spec:match("^median:(%d+)$"))
    if not n or n < 1 then util.fail("--baseline=%s: expected median:N with N >= 1", spec) end
  else
    local id = cmd.run_id(spec, "--baseline=")
    local btext = st:document(id)
    if not btext then util.fail("--baseline=%s: no run %d in %s", spec, id, st.path) end
    local bdoc = history.decode(btext)
    if bdoc.scenario ~= doc.scenario then
      util.fail("--baseline=%s: run %d is scenario '%s', the new result '%s'", spec, id, tostring(bdoc.scenario), tostring(doc.scenario))
    end
    local vals = {}
    for _, m in ipairs(names) do vals[m] = history.metrics[m].get(bdoc) end
    return string.format("run #%d (%s, %s, %s)", id, bdoc.started_at, history.key_options(bdoc),
      type(bdoc.host) == "table" and tostring(bdoc.host.hostname) or "?"), vals
  end
  f.limit = n
  local rows = cmd.query(st, f)
  if #rows == 0 then return nil end
  local vals = {}
  for _, m in ipairs(names) do
    local xs = {}
    for _, r in ipairs(rows) do if r[m] then xs[#xs + 1] = r[m] end end
    vals[m] = median(xs)
  end
  local ids = {}
  for _, r in ipairs(rows) do ids[#ids + 1] = "#" .. r.id end
  local r = rows[#rows]
  if spec == "last" then
    return string.format("run #%d (%s, %s)", r.id, r.started_at, r.host or "?"), vals
  end
  return string.format("median of the last %d of %d asked (%s)", #rows, n, table.concat(ids, " ")), vals
end

-- One row of the table and whether it is a regression.
local function verdict(m, limit, base, new)
  local spec = history.metrics[m]
  local label = spec.label .. (spec.unit ~= "" and (" " .. spec.unit) or "")
  local limit_s = string.format("%s%g%%", spec.higher and "-" or "+", limit)
  if base == nil then return { label, "-", fmt.num(new), "-", limit_s, "no baseline" }, false end
  local _, d = fmt.ratio(new, base)
  if d == nil then return { label, fmt.num(base), fmt.num(new), "-", limit_s, "n/a (baseline 0)" }, false end
  -- Worse by how much, in the metric's own direction.
  local worse = spec.higher and -d or d
  local v = worse > limit and "REGRESSION" or (worse < -limit and "better" or "ok")
  return { label, fmt.num(base), fmt.num(new), fmt.pct(d), limit_s, v }, v == "REGRESSION"
end

local function check(rt, argv)
  local opts, pos = cmd.parse(argv, 3, { metric = "value", ["max-regression"] = "value", baseline = "value",
    add = "flag" }, "check", true)
  if #pos ~= 1 then util.fail("usage: lbench history check NEW.json [--metric=...] [--max-regression=...] [--baseline=...]") end
  local file = pos[1]
  local text, e = util.read_file(file)
  if not text then util.fail("history check: cannot read '%s': %s", file, tostring(e)) end
  local doc, why = history.decode(text)
  if not doc then util.fail("history check: '%s' is %s", file, why) end
  if result.is_sweep(doc) then util.fail("history check: '%s' is a sweep; check compares single runs", file) end
  local names, limits = M.plan(opts.metric, opts["max-regression"], doc)
  for _, m in ipairs(names) do
    if history.metrics[m].get(doc) == nil then
      util.fail("history check: '%s' has no %s (a %s %s result)", file, history.metrics[m].label, doc.scenario, doc.command)
    end
  end
  local spec = opts.baseline or "last"
  local filters = cmd.filters(opts)
  local st = cmd.open(opts, opts.add ~= nil)
  local what, base = baseline(st, spec, doc, text, names, filters)
  local rows, regressions = {}, {}
  for _, m in ipairs(names) do
    local row, bad = verdict(m, limits[m], base and base[m], history.metrics[m].get(doc))
    rows[#rows + 1] = row
    if bad then regressions[#regressions + 1] = row[1] end
  end
  local lines = {
    string.format("new:      %s (%s %s, %s, %s)", file, doc.scenario, doc.command, doc.started_at, history.key_options(doc)),
    "baseline: " .. (what or ("none: no stored run of " .. doc.scenario .. " " .. doc.command .. " with these key options"
      .. " (" .. st.path .. ")")),
    "",
    cmd.table({ "metric", "baseline", "new", "change", "limit", "verdict" }, rows),
    "",
  }
  -- An interrupted or failed run measured less than asked: checked all
  -- the same, and said, since its figures are the likely culprit.
  if doc.status ~= "ok" then lines[#lines + 1] = string.format("note: the new result's status is %s", tostring(doc.status)) end
  if not what then lines[#lines + 1] = "not checked: no baseline (exit 0)"
  elseif #regressions > 0 then lines[#lines + 1] = "REGRESSION: " .. table.concat(regressions, ", ")
  else lines[#lines + 1] = "no regression" end
  if opts.add then
    local id, new = st:add(text, doc, file)
    if not id then st:close() util.fail("--history=%s: cannot store '%s': %s", st.path, file, history.explain(new)) end
    lines[#lines + 1] = string.format("%s #%d in %s", new and "stored as" or "already stored as", id, st.path)
  end
  st:close()
  cmd.out(rt, table.concat(lines, "\n") .. "\n")
  return #regressions > 0 and 1 or 0
end

-- Any error (a user mistake or the history's) exits 2, not 1: 1 means a
-- regression and nothing else.
function M.main(rt, argv)
  local ok, status = pcall(check, rt, argv)
  if ok then return status end
  local msg = util.is_usage_error(status) and status.lbench_message or tostring(status)
  C.lb_runtime_set_error(rt, msg)
  return 2
end

return M
