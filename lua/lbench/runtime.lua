-- Entry points of the main state: the command line (main), and the
-- embedding API (set_option, load, command).  See core/lbench.h.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local options = require("lbench.options")
local scenario = require("lbench.api.scenario")
local runner = require("lbench.run.runner")
local report = require("lbench.result.render")
local sbhooks = require("lbench.result.sbhooks")
local hist = require("lbench.api.hist")
local publish = require("lbench.result.publish")
local cluster = require("lbench.cluster.transport")
local job = require("lbench.run.job")
local session = require("lbench.run.session")
local sbffi = require("lbench.api.sbffi")
local sbcli = require("lbench.api.sbcli")
local pgcli = require("lbench.api.pgcli")
local sbhelp = require("lbench.api.sbhelp")

local M = {}

-- The main state runs each piece of its code about once per run (options,
-- init(), the report, the result document): at LuaJIT's default threshold
-- (a loop's 56th turn) it compiled short loops there and aborted some 40
-- traces in the report alone: 6.5M instructions of the main thread's 131M
-- in a short `lbench pgbench` run (callgrind).  Loops that turn a
-- thousand times, a big document's, are still compiled.  Per state: the
-- workers keep the default.
jit.opt.start("hotloop=1000")

-- Built-in tools dispatched by the first positional argument: name ->
-- module with main(rt, argv) returning the exit status.
M.tools = { compare = "lbench.report.compare", plot = "lbench.report.plot", sweep = "lbench.sweep.command", history = "lbench.history.command" }
M.tools.report = "lbench.report.htmlreport" -- lbench report FILE... --out=FILE.html

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end

-- The embedding API's options and scenario (run/session.lua).
M.set_option = session.set_option
M.load = session.load
local S = session.state

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
  -- threads_running 0: sysbench calls the hook once its threads are done
  hook({ time_total = result.duration_s, time_interval = result.duration_s, threads_running = 0,
         events = t.events, reads = t.queries and t.queries.read or 0, writes = t.queries and t.queries.write or 0,
         other = t.queries and t.queries.other or 0, errors = t.ignored_errors or 0,
         reconnects = t.reconnects or 0, latency_pct = (result.latency_ms.pct_list[1].ms or 0) / 1000 })
end

-- The final report of a run as text: the totals, the ranks, the histogram.
local function histogram_text(result)
  local bs = {}
  for _, b in ipairs(result.histogram.buckets) do bs[#bs + 1] = { b[1] / 1e6, b[2] / 1e6, b[3] } end
  return hist.histogram_text(bs, 1)
end

local function final_text(opt, result, lb)
  if opt.sysbench_compat then
    -- a scenario's own lines before sysbench's report, as its built-in
    -- tests print theirs (lbench.hooks.report_head(result))
    local head = lb.hooks.report_head and lb.hooks.report_head(result) or ""
    -- sysbench prints the histogram before its report, its values with
    -- three decimals, a line of one space after the chart
    local h = ""
    if opt.histogram then
      local bs = {}
      for _, b in ipairs(result.histogram.buckets) do bs[#bs + 1] = { b[1] / 1e6, b[2] / 1e6, b[3] } end
      local rows = hist.histogram_rows(bs, 1)
      local maxc = 0
      for _, r in ipairs(rows) do maxc = math.max(maxc, r[2]) end
      local t = { "Latency histogram (values are in milliseconds)",
                  "       value  ------------- distribution ------------- count" }
      for _, r in ipairs(rows) do
        local bar = math.max(r[2] > 0 and 1 or 0, math.floor(r[2] / maxc * 40 + 0.5))
        t[#t + 1] = string.format("%12.3f |%-40s %d", tonumber(r[1]) or 0, string.rep("*", bar), r[2])
      end
      h = table.concat(t, "\n") .. "\n \n"
    end
    return h .. head .. report.final_text_sysbench(runner.text_view(result)) .. "\n"
  end
  local s = { (opt.report_interval > 0 and "\n" or "") .. report.final_text(runner.text_view(result)) .. "\n" }
  if result.nranks then
    s[#s + 1] = string.format("Ranks: %d (%s), start skew between ranks: %.3f ms%s\n", result.nranks,
      result.mpi_library, result.start_skew_ms or 0, clock_note(result.ranks))
  end
  if opt.histogram then s[#s + 1] = histogram_text(result) .. "\n" end
  return table.concat(s)
end

-- How a run's document is published (result/publish.lua): its encoder, its
-- reports, its result file and history label.
local function run_publishing(ctx, lb, result)
  local opt = ctx.opt
  local hook = lb.hooks.report_cumulative
  if hook then cumulative_hook(hook, opt, result) end
  return { encode = function(indent) return runner.to_json(result, indent) end, quiet = hook ~= nil,
           -- sysbench prints its final report at --verbosity 3 and above
           text = function() return opt.verbosity >= 3 and final_text(opt, result, lb) or "" end,
           csv = function() return report.csv_totals(runner.text_view(result)) .. "\n" end,
           file = opt.result_file, source = ctx.scenario_name .. " " .. ctx.command }
end

-- The "run" command: the report and the result file, then the status.  An
-- interrupted run keeps what it measured and exits non-zero.
local function command_run(rt, ctx, lb)
  local opt = ctx.opt
  if not scenario.fn("event") then
    if opt.sysbench_compat then util.fail("cannot find the event() function in %s", S.path) end
    util.fail("%s defines no event() function: nothing to run", S.name)
  end
  -- Checked before anything is measured, so that nothing measured is lost.
  publish.check_outputs(opt, opt.result_file)
  local how
  ctx.final_report = function(result)
    how = run_publishing(ctx, lb, result)
    publish.show(rt, opt, result, how)
    sbhooks.json_close(rt)
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
      report.stop_words(result), result.duration_s,
      opt.result_file and " and " .. opt.result_file or "", opt.result_file and "" or "s"))
    return 1
  end
  return 0
end

-- A command that returned after a signal stopped it did not finish: it has
-- said what it left behind; the exit status says it was interrupted.
local function command_status(rt, cmd)
  if C.lb_runtime_stop_requested(rt) == 0 then return 0 end
  C.lb_runtime_set_error(rt, string.format("%s interrupted by a signal", cmd))
  return 1
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
  local ctx, lb, specs = session.setup(rt, S.path, session.merged_raw(), cmd, S.argv)
  local opt = ctx.opt
  -- sysbench names a script as it was given (oltp_read_write.lua)
  local shown = opt.sysbench_compat and (S.given or S.name):match("[^/]*$") or S.name
  local help_text = S.name .. " options:\n" .. (#specs > 0 and options.help(specs) or "  (none)") .. "\n"
  if opt.sysbench_compat then
    local list = sbcli.script_options_help(lb.cmdline.options)
    sbffi.set_help(list)
    help_text = shown .. " options:\n" .. list
  else
    sbffi.set_help(help_text)
  end

  if cmd == nil then
    -- A user's script (or module on LUA_PATH) without a command:
    -- sysbench's script mode (the body ran, nothing else).  A stock
    -- scenario has nothing to do without one, and sysbench refuses its
    -- own tests so, with status 1.
    if not S.stock then return 0 end
    C.lb_runtime_set_error(rt, opt.sysbench_compat
      and sbcli.command_required(shown)
      or string.format("%s: a command is required (%s); 'lbench %s help' lists its options", S.name,
        table.concat(session.command_names(lb), ", "), S.name))
    return 1
  end
  cluster.check_same({ { "lbench version", lb.version }, { "lbench build", cluster.build_id() },
    { "scenario", ctx.script_hash },
    { "options", util.serialize(session.merged_raw()) }, { "command", cmd } })
  if cmd == "help" then
    -- sysbench's order: the script's own help(), else its declared
    -- options, else the script has no help to give.
    local own = scenario.fn("help")
    if own then own() return 0 end
    if #specs == 0 and not S.stock then
      C.lb_runtime_set_error(rt, string.format("'%s' test does not implement the 'help' command.", shown))
      return 1
    end
    out(rt, help_text)
    return 0
  end

  if (lb.cmdline.commands or {})[cmd] then
    local fn, parallel = session.command_of(lb, cmd)
    if type(fn) ~= "function" then util.fail("command '%s' of %s is not a function", cmd, S.name) end
    if parallel then
      -- sysbench runs a parallel command on one thread in its main state,
      -- without this line
      if opt.sysbench_compat and opt.verbosity >= 3 and opt.threads > 1 then
        out(rt, "Initializing worker threads...\n\n")
      end
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
  if opt.sysbench_compat then
    C.lb_runtime_set_error(rt, (cmd == "prepare" or cmd == "cleanup" or cmd == "run")
      and string.format("'%s' test does not implement the '%s' command.", shown, cmd) or "Unknown command: " .. cmd)
    return 1
  end
  util.fail("unknown command '%s' for %s (available: %s)", cmd, S.name, table.concat(session.command_names(lb), ", "))
end

function M.command(rtptr, cmd)
  local status = command(rtptr, cmd)
  -- A script's own command may have printed through report_json.
  sbhooks.json_close(ffi.cast("lb_runtime *", rtptr))
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

-- A script on standard input (sysbench's `sysbench <<EOF`, `sysbench -
-- run`): written to a temporary file that stands for it in pos[1] (every
-- worker loads the script by its path).  Returns the file's name, which the
-- caller removes when the command is over.
local function from_stdin(pos)
  local src = io.stdin:read("*a") or ""
  local path = os.tmpname()
  local f = io.open(path, "w")
  if not f then util.fail("cannot write the script read from standard input to %s", path) end
  f:write(src)
  f:close()
  if pos[1] == "-" then pos[1] = path else table.insert(pos, 1, path) end
  return path
end

-- The command line.  Returns the exit status.
local function main(rtptr, ...)
  local rt = ffi.cast("lb_runtime *", rtptr)
  local args = { ... }
  local raw, pos = options.parse_argv(args)
  local sb = sbcli.flag(raw["sysbench-compat"] == nil and S.raw["sysbench-compat"] or raw["sysbench-compat"])
  local warn_err, warn_out = sbcli.translate(raw, pos)
  -- sysbench's own order: --test's warning on standard error as the command
  -- line is read, then --help and --version, then the others in its log (the
  -- output) as options are set, then its banner.
  for _, l in ipairs(warn_err) do io.stderr:write(l, "\n") end
  if raw.version then
    out(rt, (sb and sbcli.VERSION_STRING or "lbench " .. ffi.string(C.lb_version())) .. "\n")
    return 0
  end
  if sb and #pos > 2 and not raw.help then
    -- sysbench refuses it as it reads the command line, before its banner
    C.lb_runtime_set_error(rt, "Unrecognized command line argument: " .. pos[3])
    return 1
  end
  if not raw.help then
    for _, l in ipairs(warn_out) do out(rt, l .. "\n") end
    if sb and (tonumber(raw.verbosity) or 3) >= 3 then out(rt, sbcli.banner() .. "\n\n") end
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
    out(rt, sb and sbhelp.usage(options.core_specs()) or M.usage())
    return 0
  end
  local stdin_script = (pos[1] == "-" or (sb and #pos == 0)) and from_stdin(pos)
  -- sysbench runs a script from standard input for its body alone, whatever
  -- command follows it
  if stdin_script and sb then pos[2] = nil end
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
  if sb and #pos == 1 and sbcli.BUILTIN[pos[1]] and not stdin_script then
    io.stderr:write(sbcli.command_required(pos[1]) .. "\n")
    C.lb_runtime_set_error(rt, "")
    return 1
  end
  if sb and not stdin_script then
    -- sysbench's words for a benchmark that is neither a script nor a
    -- module (its test suite and users' wrappers read them).
    local ok = pcall(scenario.find, pos[1])
    if not ok then
      C.lb_runtime_set_error(rt, string.format("FATAL: Cannot find benchmark '%s': no such built-in test, file or module",
        pos[1]))
      return 1
    end
  end
  local function load_and_command()
    S.given = pos[1]
    M.load(rtptr, pos[1])
    if #pos > 2 then
      util.fail("unexpected argument '%s' (usage: lbench [options] <scenario> [command] [options])", pos[3])
    end
    return M.command(rtptr, pos[2])
  end
  -- Only a script from standard input is caught here (its temporary file
  -- goes either way): any other error keeps its traceback from where it
  -- was raised.
  if not stdin_script then return load_and_command() end
  local ok, res = pcall(load_and_command)
  os.remove(stdin_script)
  if not ok then error(res, 0) end
  return res
end

-- Started as pgbench (or given --pgbench-compat): pgbench's command line
-- turned into lbench's (api/pgcli.lua); an error is one line, which the
-- binary prints after "pgbench: error: ", with pgbench's exit status (2
-- for a run whose clients aborted, set by the binary on the scenario's words).
local function pgbench_main(rtptr, args)
  local rt = ffi.cast("lb_runtime *", rtptr)
  local rest = {}
  for _, a in ipairs(args) do
    if a ~= "--pgbench-compat" and a ~= "--pgbench-compat=on" then rest[#rest + 1] = a end
  end
  local r = pgcli.translate(rest, "lbench " .. ffi.string(C.lb_version()))
  if r.stdout then out(rt, r.stdout) end
  if r.stderr then io.stderr:write(r.stderr) end
  if not r.args then
    C.lb_runtime_set_error(rt, "")
    return r.status
  end
  pgcli.exit_status = nil
  local ok, res = pcall(main, rtptr, unpack(r.args))
  -- a failed command has set its error and returned 1, or raised one
  if ok then return res ~= 0 and pgcli.exit_status or res end
  local msg = util.is_usage_error(res) and res.lbench_message or tostring(res)
  C.lb_runtime_set_error(rt, msg)
  return pgcli.exit_status or 1
end

-- Started as sysbench, an error of the command line or the script reads as
-- sysbench's: "FATAL: " before it.
function M.main(rtptr, ...)
  local args = { ... }
  local raw = options.parse_argv(args)
  local pg = raw["pgbench-compat"]
  if pg == nil then pg = S.raw["pgbench-compat"] end
  if sbcli.flag(pg) then return pgbench_main(rtptr, args) end
  local v = raw["sysbench-compat"]
  if v == nil then v = S.raw["sysbench-compat"] end
  if not sbcli.flag(v) then return main(rtptr, ...) end
  local ok, res = pcall(main, rtptr, ...)
  if ok then return res end
  local _, pos = options.parse_argv(args)
  local msg = sbcli.error_text(util.is_usage_error(res) and res.lbench_message or tostring(res):match("^[^\n]*"),
    pos[2] or "run", pos[1])
  C.lb_runtime_set_error(ffi.cast("lb_runtime *", rtptr), msg)
  return 1
end

return M
