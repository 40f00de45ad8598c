-- Entry points of the main state: the command line (main), and the
-- embedding API (set_option, load, command).  See core/lbench.h.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local options = require("lbench.options")
local scenario = require("lbench.scenario")
local runner = require("lbench.runner")
local report = require("lbench.report")
local json = require("lbench.json")
local publish = require("lbench.publish")
local loadfile = require("lbench.loadfile") -- parsed once per process (core/luart.c)
local cluster = require("lbench.cluster")
local job = require("lbench.job")

local M = {}

-- Built-in tools dispatched by the first positional argument: name ->
-- module with main(rt, argv) returning the exit status.
M.tools = { compare = "lbench.compare", plot = "lbench.plot", sweep = "lbench.sweep", history = "lbench.histcmd" }
M.tools.report = "lbench.htmlreport" -- lbench report FILE... --out=FILE.html

-- State of this main Lua state (one per lb_runtime).
local S = { raw = {}, path = nil, name = nil }

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end

-- An option of the embedding API.  A general option's value is checked
-- at once by the parser the command line uses (options.convert), so that a
-- bad one is refused by the call that gave it, with the command line's
-- message, rather than by a later command.  Other names are a scenario's
-- own options: its script declares them when a command runs it, and they
-- are checked then.
function M.set_option(rtptr, name, value)
  local n = options.norm((name:gsub("^%-%-", "")))
  if value == nil then util.fail("--%s needs a value", n) end
  for _, spec in ipairs(options.core_specs()) do
    if spec.name == n then
      local v, why = options.convert(spec, value)
      if v == nil then util.fail("--%s=%s: %s", n, value, why) end
      break
    end
  end
  S.raw[n] = value
end

function M.load(rtptr, name)
  -- A stock scenario is named, a user's script is a path.
  S.stock = not (name:find("/") or name:match("%.lua$"))
  S.path = scenario.find(name)
  S.name = util.basename(S.path)
  -- Report a syntax error now rather than at the first command.
  local chunk, err = loadfile(S.path)
  if not chunk then util.fail("%s", err) end
end

local hash = util.text_hash

-- Stock scenarios whose transactions never collide on a key by design.
local PGSQL_RETRY_ONLY_CONFLICTS = { tpcc = true, pgbench = true }

-- Raw options (`given`, by default those set so far) merged over those of
-- --config-file: the command line wins.
function M.merged_raw(given)
  given = given or S.raw
  local raw = {}
  if given["config-file"] then
    for k, v in pairs(options.read_config_file(given["config-file"])) do raw[k] = v end
  end
  for k, v in pairs(given) do raw[k] = v end
  -- sysbench's name for the ignore list.
  if raw["mysql-ignore-errors"] and not raw["db-ignore-errors"] then
    raw["db-ignore-errors"] = raw["mysql-ignore-errors"]
  end
  -- PostgreSQL's retryable errors by default, as sysbench's pgsql driver:
  -- deadlock, serialization failure, and the unique violation that the
  -- DELETE+INSERT pair of the OLTP scripts meets under READ COMMITTED (a
  -- second thread's DELETE of the same id finds the row gone, so its
  -- INSERT collides with the first thread's).  TPC-C and pgbench retry only
  -- the first two, as pgbench does: a unique violation there is a bug.
  if raw["db-driver"] == "pgsql" and not raw["db-ignore-errors"] then
    raw["db-ignore-errors"] = PGSQL_RETRY_ONLY_CONFLICTS[(S.name or ""):gsub("%.lua$", "")] and "40P01,40001" or "40P01,40001,23505"
  end
  return raw
end

-- The password of driver `db` (mysql, pgsql): --<db>-password, else
-- --<db>-password-file, else LBENCH_<DB>_PASSWORD.  Giving both options is
-- refused rather than one silently winning: a password file that does not
-- exist would otherwise go unnoticed until the server refused the other
-- password.
local function driver_password(opt, raw, db)
  local key, file = db .. "_password", opt[db .. "_password_file"]
  if raw[db .. "-password"] ~= nil and file then
    util.fail("--%s-password and --%s-password-file are both given: keep one", db, db)
  end
  if raw[db .. "-password"] == nil then
    local env = os.getenv("LBENCH_" .. db:upper() .. "_PASSWORD")
    if env then opt[key] = env end
    if file then
      local s, e = util.read_file(file)
      if not s then util.fail("--%s-password-file: cannot read '%s': %s", db, file, e) end
      opt[key] = s:match("^([^\r\n]*)")
    end
  end
end

local function password(opt, raw)
  driver_password(opt, raw, "mysql")
  driver_password(opt, raw, "pgsql")
end

local function redacted(opt, specs)
  local secret = {}
  for _, s in ipairs(specs) do if s.secret then secret[options.key(s.name)] = true end end
  local o = json.object()
  for _, k in ipairs(util.sorted_keys(opt)) do
    local v = opt[k]
    if secret[k] and v ~= nil and v ~= "" then v = "***" end
    if type(v) == "table" then v = json.array(v) end
    o[k] = v
  end
  return o
end

local function script_specs(lb)
  local specs = {}
  for _, name in ipairs(util.sorted_keys(lb.cmdline.options or {})) do
    specs[#specs + 1] = options.spec_from_script(name, lb.cmdline.options[name])
  end
  return specs
end

local function command_names(lb)
  local names = {}
  if scenario.fn("event") then names[#names + 1] = "run" end
  for _, g in ipairs({ "prepare", "cleanup", "prewarm" }) do
    if scenario.fn(g) and not (lb.cmdline.commands or {})[g] then names[#names + 1] = g end
  end
  for _, k in ipairs(util.sorted_keys(lb.cmdline.commands or {})) do names[#names + 1] = k end
  names[#names + 1] = "help"
  return names
end

-- The Ranks line's clause on clocks: the start skew compares start times
-- moved onto rank 0's clock by each rank's estimated offset, known within
-- half the round trip it was measured over.
local function clock_note(ranks)
  local off, bound = 0, 0
  for _, e in ipairs(ranks or {}) do
    if e.clock_offset_ms and math.abs(e.clock_offset_ms) >= math.abs(off) then off = e.clock_offset_ms end
    if e.clock_rtt_ms then bound = math.max(bound, e.clock_rtt_ms / 2) end
  end
  -- No estimate (the merge gave up on a rank, so no ranks[]): no clause.
  if bound == 0 then return "" end
  return string.format(" (on rank 0's clock: largest clock offset %.3f ms, known within +-%.3f ms)", off, bound)
end

-- A script's report_cumulative hook, in place of the final report.
local function cumulative_hook(hook, opt, result)
  local t = result.totals
  hook({ time_total = result.duration_s, time_interval = result.duration_s, threads_running = opt.threads,
         events = t.events, reads = t.queries and t.queries.read or 0, writes = t.queries and t.queries.write or 0,
         other = t.queries and t.queries.other or 0, errors = t.ignored_errors or 0,
         reconnects = t.reconnects or 0, latency_pct = (result.latency_ms.pct_list[1].ms or 0) / 1000 })
end

-- The final report of a run as text: the totals, the ranks, the histogram.
local function final_text(opt, result)
  local s = { (opt.report_interval > 0 and "\n" or "") .. report.final_text(runner.text_view(result)) .. "\n" }
  if result.nranks then
    s[#s + 1] = string.format("Ranks: %d (%s), start skew between ranks: %.3f ms%s\n", result.nranks,
      result.mpi_library, result.start_skew_ms or 0, clock_note(result.ranks))
  end
  if opt.histogram then
    local bs = {}
    for _, b in ipairs(result.histogram.buckets) do bs[#bs + 1] = { b[1] / 1e6, b[2] / 1e6, b[3] } end
    s[#s + 1] = report.histogram_text(bs, 1) .. "\n"
  end
  return table.concat(s)
end

-- How a run's document is published (publish.lua): its encoder, its
-- reports, its result file and history label.
local function run_publishing(ctx, lb, result)
  local opt = ctx.opt
  local hook = lb.hooks.report_cumulative
  if hook then cumulative_hook(hook, opt, result) end
  return { encode = function(indent) return runner.to_json(result, indent) end, quiet = hook ~= nil,
           text = function() return final_text(opt, result) end,
           csv = function() return report.csv_totals(runner.text_view(result)) .. "\n" end,
           file = opt.result_file, source = ctx.scenario_name .. " " .. ctx.command }
end

-- The "run" command: the report and the result file, then the status.  An
-- interrupted run keeps what it measured and exits non-zero.
local function command_run(rt, ctx, lb)
  local opt = ctx.opt
  if not scenario.fn("event") then util.fail("%s defines no event() function: nothing to run", S.name) end
  -- Checked before anything is measured, so that nothing measured is lost.
  require("lbench.result").check_outputs(opt, opt.result_file)
  local how
  ctx.final_report = function(result)
    how = run_publishing(ctx, lb, result)
    publish.show(rt, opt, result, how)
    report.json_close(rt)
  end
  local result, failed, err = runner.run(ctx, lb)
  if not result then
    C.lb_runtime_set_error(rt, err or "the run failed")
    return 1
  end
  -- Ranks other than 0 report through rank 0; only their own failure is theirs to say.
  if (ctx.rank or 0) ~= 0 then
    if result.status == "error" then C.lb_runtime_set_error(rt, err or "the run failed") return 1 end
    return 0
  end
  if not how then ctx.final_report(result) end
  -- The result file, then the history: either failing fails the command,
  -- after the report (what was measured is on stdout, and in whichever of
  -- the two could be written).
  local ok, e = publish.store(opt, result, how)
  if not ok then C.lb_runtime_set_error(rt, e) return 1 end
  if failed then
    C.lb_runtime_set_error(rt, err or "the run failed")
    return 1
  end
  if result.status == "interrupted" then
    C.lb_runtime_set_error(rt, string.format("run interrupted (%s) after %.2f s measured; the report%s hold%s what was measured",
      require("lbench.result").stop_words(result), result.duration_s,
      opt.result_file and " and " .. opt.result_file or "", opt.result_file and "" or "s"))
    return 1
  end
  return 0
end

-- Load the scenario file `path` into this state (its top level runs) and
-- resolve the raw options `raw` against the core's and the scenario's
-- declarations.  Returns ctx (what runner.run needs), the scenario's API
-- table and its option specs.  `lbench sweep` calls this once per point so
-- every point starts from a freshly loaded scenario with its own options.
function M.setup(rt, path, raw, cmd, argv)
  local core_specs = options.core_specs()
  local opt = options.resolve(core_specs, raw)
  if opt.strict_globals == "auto" then opt.strict_globals = S.stock and "on" or "off" end
  opt.mysql_ignore_errors = opt.db_ignore_errors -- sysbench's name, which its scripts read
  password(opt, raw)
  local src = util.read_file(path) or ""
  local ctx = { rt = rt, opt = opt, command = cmd, script = path, scenario_name = util.basename(path),
                script_hash = hash(src), argv = argv }
  -- lbench-mpi: the scenario sees the job's threads (cluster.lua).
  cluster.number(ctx, opt)
  local lb = scenario.load(path, ctx)
  local specs = script_specs(lb)
  options.resolve(specs, raw, opt)
  options.check_unknown(raw, { core_specs, specs })
  local all_specs = {}
  for _, s in ipairs(core_specs) do all_specs[#all_specs + 1] = s end
  for _, s in ipairs(specs) do all_specs[#all_specs + 1] = s end
  ctx.redacted_options = redacted(opt, all_specs)
  return ctx, lb, specs
end

-- A command that returned after a signal stopped it did not finish: it has
-- said what it left behind; the exit status says it was interrupted.
local function command_status(rt, cmd)
  if C.lb_runtime_stop_requested(rt) == 0 then return 0 end
  C.lb_runtime_set_error(rt, string.format("%s interrupted by a signal", cmd))
  return 1
end

-- The function of command `cmd` of the scenario loaded as `lb` and whether
-- it runs in every worker (a parallel command); nil when the scenario has
-- no such command.  Declared commands win over the global prepare, cleanup
-- and prewarm functions of sysbench's scripts.
function M.command_of(lb, cmd)
  local entry = (lb.cmdline.commands or {})[cmd]
  if entry then
    if type(entry) == "table" then return entry[1], entry[2] and true or false end
    return entry, false
  end
  if cmd == "prepare" or cmd == "cleanup" or cmd == "prewarm" then return scenario.fn(cmd), false end
  return nil
end

-- A command run by the main state: once for the job, on rank 0, while
-- the other ranks take part in the parallel commands it starts.
local function main_state_command(rt, ctx, lb, cmd, fn)
  if (ctx.rank or 0) ~= 0 then
    job.follow(ctx, lb)
    return 0
  end
  job.lead(fn)
  return command_status(rt, cmd)
end

-- Run a command of the loaded scenario; returns the exit status.
local function command(rtptr, cmd)
  local rt = ffi.cast("lb_runtime *", rtptr)
  if not S.path then util.fail("no scenario loaded") end
  local ctx, lb, specs = M.setup(rt, S.path, M.merged_raw(), cmd, S.argv)
  local opt = ctx.opt
  local help_text = S.name .. " options:\n" .. (#specs > 0 and options.help(specs) or "  (none)") .. "\n"
  require("lbench.sbffi").set_help(help_text)

  if cmd == nil then return 0 end -- script mode: the body ran, nothing else
  cluster.check_same({ { "lbench version", lb.version }, { "scenario", ctx.script_hash },
    { "options", util.serialize(M.merged_raw()) }, { "command", cmd } })
  if cmd == "help" then
    out(rt, help_text)
    return 0
  end

  if (lb.cmdline.commands or {})[cmd] then
    local fn, parallel = M.command_of(lb, cmd)
    if type(fn) ~= "function" then util.fail("command '%s' of %s is not a function", cmd, S.name) end
    if parallel then
      local ok, err = cluster.combine(runner.parallel_command(ctx))
      if not ok and err ~= "interrupted" then C.lb_runtime_set_error(rt, err) return 1 end
      return command_status(rt, cmd)
    end
    return main_state_command(rt, ctx, lb, cmd, fn)
  end
  if cmd == "run" then return command_run(rt, ctx, lb) end
  local g = scenario.fn(cmd)
  if g and (cmd == "prepare" or cmd == "cleanup" or cmd == "prewarm") then
    return main_state_command(rt, ctx, lb, cmd, g)
  end
  util.fail("unknown command '%s' for %s (available: %s)", cmd, S.name, table.concat(command_names(lb), ", "))
end

function M.command(rtptr, cmd)
  local status = command(rtptr, cmd)
  -- A script's own command may have printed through report_json.
  report.json_close(ffi.cast("lb_runtime *", rtptr))
  return status
end

local function stock_names()
  local seen, names = {}, {}
  for _, d in ipairs(scenario.search_dirs()) do
    local ls = io.popen("ls '" .. d:gsub("'", "") .. "' 2>/dev/null")
    if ls then
      for f in ls:lines() do
        local n = f:match("^(.-)%.lua$")
        if n and not seen[n] and not n:match("_common$") then seen[n] = true; names[#names + 1] = n end
      end
      ls:close()
    end
  end
  table.sort(names)
  return names
end

function M.usage()
  local names = stock_names()
  return table.concat({
    "Usage: lbench [options] <scenario|script.lua> [command] [options]",
    "",
    "Commands: prepare, prewarm, run, cleanup, help (the scenario's options), or one the scenario declares.",
    "Stock scenarios: " .. (#names > 0 and table.concat(names, ", ") or "(none found)"),
    "Tools: lbench sweep ... | lbench compare a.json b.json ... | lbench plot r.json ... --out=DIR",
    "       lbench report r.json ... --out=FILE.html (one self-contained HTML page of result files)",
    "       lbench history list|show|import|delete|check|report ... (a SQLite history of results)",
    "       (each with --help)",
    "",
    "General options:",
    options.help(options.core_specs()),
    "",
    "See README.md and docs/: every option (docs/options.md), the scenario API (docs/scenarios.md), the result file (docs/results.md).",
  }, "\n") .. "\n"
end

-- The command line.  Returns the exit status.
function M.main(rtptr, ...)
  local rt = ffi.cast("lb_runtime *", rtptr)
  local args = { ... }
  local raw, pos = options.parse_argv(args)
  if raw.version then
    out(rt, "lbench " .. ffi.string(C.lb_version()) .. "\n")
    return 0
  end
  -- Built-in tools: `lbench compare a.json b.json`, `lbench plot ...`,
  -- `lbench sweep ...` (they handle their own --help).
  local tool = M.tools[pos[1]]
  if tool and not util.file_exists(pos[1]) then
    if raw.help then
      out(rt, require(tool).usage .. "\n")
      return 0
    end
    return require(tool).main(rt, args)
  end
  if raw.help then
    out(rt, M.usage())
    return 0
  end
  if #pos == 0 then
    -- A mistyped option is the likelier mistake than a forgotten scenario
    -- when the option is not a general one; either way a short message,
    -- the full help stays with --help.
    options.check_unknown(raw, { options.core_specs() })
    C.lb_runtime_set_error(rt, "missing scenario: give a stock scenario name or a path to a .lua file\n"
      .. "usage: lbench [options] <scenario|script.lua> [command] [options]\n"
      .. "'lbench --help' lists the general options and the stock scenarios")
    return 1
  end
  for k, v in pairs(raw) do S.raw[k] = v end
  S.argv = args
  M.load(rtptr, pos[1])
  if #pos > 2 then
    util.fail("unexpected argument '%s' (usage: lbench [options] <scenario> [command] [options])", pos[3])
  end
  return M.command(rtptr, pos[2])
end

return M
