-- The scenario API's main-state half: what a command run by the main
-- state (prepare, a custom command, a sweep's round) may call beyond the
-- API every state has (api/base.lua): lbench.run and run_parallel, and the
-- result-document helpers of a command that writes its own document.
-- The runtime hands `add` to api.new as ctx.extend_api; worker states
-- never load this file, so they never load the modules of the run and
-- of the result document behind it (start-up of a state costs ~2 ms more
-- with them: 64 threads 0.33 s against 0.21 s).
local util = require("lbench.util")
local result = require("lbench.result.document")
local publish = require("lbench.result.publish")
local history = require("lbench.result.history")
local report = require("lbench.result.render")
local sbhooks = require("lbench.result.sbhooks")
local runner = require("lbench.run.runner")
local job = require("lbench.run.job")

local M = {}

-- The result-document helpers.
local function add_documents(lb, ctx)
  -- The standard header of a result document (lbench_version, scenario,
  -- options, host, started_at, status, ...) for a command that writes its
  -- own document; `started_at` is os.time() when it began.  Then
  -- lb.write_result(path, doc) writes it atomically (temp file + rename).
  function lb.result_header(command, started_at, status, stop_reason, err)
    local ctx2 = setmetatable({ command = command }, { __index = ctx })
    return result.header(ctx2, lb, started_at, status, stop_reason, err)
  end
  -- A document's SQL totals from plain counts, as a run's are built
  -- (result.sql_totals), for a command that counts its own rounds.
  lb.result_sql_totals = result.sql_totals
  -- `path` may be nil: the document then goes only to the history
  -- (--history / LBENCH_HISTORY), when there is one.
  function lb.write_result(path, doc)
    local ok, e = publish.store(ctx.opt, doc, { file = path, source = ctx.scenario_name .. " " .. tostring(doc.command) })
    if not ok then util.fail("%s", e) end
  end
  -- A command's finished document through the one way out (result/publish.lua):
  -- the embedding result, stdout in --output (how.text(), how.csv(): the
  -- reports for text and CSV, nil when the command printed them as it
  -- ran), then how.file (the result file, or nil) and the history.
  function lb.publish(doc, how)
    how.source = how.source or (ctx.scenario_name .. " " .. tostring(doc.command))
    local ok, e = publish.document(ctx.rt, ctx.opt, doc, how)
    if not ok then util.fail("%s", e) end
  end
  -- Is a result document wanted (a result file or a history)?
  function lb.result_wanted()
    return ctx.opt.result_file ~= nil or history.path_of(ctx.opt) ~= nil
  end
  -- Refuse an output path (and a history) that cannot be written before
  -- anything runs.
  function lb.check_result_path(path, what)
    if path then result.check_writable(path, what or "--result-file") end
    publish.check_outputs(ctx.opt, nil)
  end
end

-- lbench.run and lbench.run_parallel.
local function add_runs(lb, ctx)
  -- lbench.run{option = value, ...}: run the event loop once with these
  -- options overriding the command line, and return the result tree
  -- (plus failed, error).  For commands that run several measured
  -- rounds: preconditioning, sweeps.
  function lb.run(over)
    local opt2 = {}
    for k, v in pairs(ctx.opt) do opt2[k] = v end
    for k, v in pairs(over or {}) do opt2[(tostring(k):gsub("-", "_"))] = v end
    -- A round prints no final report of the run command's (final_report).
    local ctx2 = setmetatable({ opt = opt2, command = "run", final_report = false }, { __index = ctx })
    -- lbench-mpi: a round of the whole job, merged over the ranks (run/job.lua).
    local res, failed, err = job.lead_run(ctx2, lb)
    -- No result when nothing was measured (the workers failed to start).
    return res and runner.unwrap(res), failed, err
  end
  -- Run the command `name` (declared in lbench.cmdline.commands) in every
  -- worker thread, as a parallel command.  Returns true, or false when a
  -- signal stopped it (the caller says what it leaves behind); raises on
  -- a worker's error.
  function lb.run_parallel(name)
    local ctx2 = setmetatable({ command = name }, { __index = ctx })
    -- lbench-mpi: every rank's threads take part (run/job.lua).
    local ok, err = job.lead_parallel(ctx2)
    if not ok and err ~= "interrupted" then
      -- A worker's one-line mistake (no server, no table) stays one line;
      -- a script error keeps the worker's traceback.
      if not tostring(err):find("stack traceback:", 1, true) then util.fail("%s", tostring(err)) end
      error(err, 0)
    end
    return ok
  end
end

-- Add the main state's half to the API table `lb` of context `ctx`.
function M.add(lb, ctx)
  sbhooks.add_hooks(lb, ctx)
  add_documents(lb, ctx)
  add_runs(lb, ctx)
end

return M
