-- lbench-mpi's job: rank 0 leads a main-state command (prepare, cleanup, a
-- custom command, a sweep) and the other ranks follow each parallel
-- command and measured round it starts, with their share of the threads.
-- The transport (ranks, broadcasts, gathers, stop notices) is cluster/transport.lua;
-- a run itself is run/runner.lua's.
local util = require("lbench.util")
local cluster = require("lbench.cluster.transport")
local runner = require("lbench.run.runner")

local M = {}

-- A round's share of the job's `threads` (lbench.run{threads = N}, a
-- sweep point): N is the job's count, as lbench.opt.threads is, split
-- equally so that rates and pacing split as for the command line's.
function M.round_share(ctx, threads)
  local cl = ctx.cluster
  if not cl or threads == cl.threads * cl.size then return cl end
  if threads < cl.size or threads % cl.size ~= 0 then
    util.fail("lbench.run threads=%s: under lbench-mpi a round runs the job's threads, a multiple of its %d ranks "
      .. "(each rank runs threads / %d)", tostring(threads), cl.size, cl.size)
  end
  local t = threads / cl.size
  return { rank = cl.rank, size = cl.size, threads = t, tid_base = cl.rank * t }
end

-- Rank 0, inside a main-state command: a measured run (lbench.run, a
-- sweep point) of the whole job.  The other ranks follow with the same
-- options (M.follow) and their share of the threads; the round is merged
-- as a run command's is (cluster/ranks.lua), so `ctx2` gets the job's result.
function M.lead_run(ctx2, lb)
  if not cluster.active() then return runner.run(ctx2, lb) end
  M.check_leading("lbench.run")
  ctx2.cluster = M.round_share(ctx2, ctx2.opt.threads)
  cluster.bcast("run\n" .. util.serialize(ctx2.opt), 0)
  return runner.run(ctx2, lb)
end

-- Rank 0, inside a main-state command: run parallel command `ctx2` on
-- every rank (the others follow, see M.follow).  Same results as
-- runner.parallel_command, the error naming the rank.
function M.lead_parallel(ctx2)
  if not cluster.active() then return runner.parallel_command(ctx2) end
  M.check_leading("lbench.run_parallel")
  ctx2.cluster = M.round_share(ctx2, ctx2.opt.threads)
  -- With the options as the command sees them: a scenario may pass its
  -- parallel command values through opt (TPC-C's load units).
  cluster.bcast("par " .. ctx2.command .. "\n" .. util.serialize(ctx2.opt), 0)
  local ok, err = runner.parallel_command(ctx2)
  return cluster.combine(ok, err)
end

-- The other ranks follow rank 0 only during a main-state command (M.lead):
-- a round started anywhere else (a run's init() or done()) would wait
-- forever for them.
function M.check_leading(what)
  if not M.leading then
    util.fail("%s: under lbench-mpi only a main-state command (prepare, cleanup, a custom command) runs it, on "
      .. "rank 0, with the other ranks following", what)
  end
end

-- Rank 0: a main-state command `fn` (prepare, cleanup, a custom command)
-- runs here once; the other ranks follow until it has ended, whatever
-- way it ends (an error is raised again after they are released).
function M.lead(fn)
  if not cluster.active() then return fn() end
  M.leading = true
  local ok, err = pcall(fn)
  M.leading = false
  cluster.bcast("end", 0)
  if not ok then error(err, 0) end
end

-- Ranks other than 0 during a main-state command: run each parallel
-- command and each measured round rank 0 starts, with the job's thread
-- numbers, until it ends.  (A round's result is rank 0's to use; a
-- failure in it is reported there, naming this rank.)
function M.follow(ctx, lb)
  while true do
    local msg = cluster.bcast("", 0)
    local kind, name, opt = msg:match("^(par) ([^\n]+)\n(.*)$")
    if not kind then kind, opt = msg:match("^(run)\n(.*)$") end
    if not kind then return end
    local ctx2 = setmetatable({ opt = assert(loadstring("return " .. opt))() }, { __index = ctx })
    -- This rank's share of the threads the command or round runs with
    -- (a sweep's points and data steps have their own).
    ctx2.cluster = M.round_share(ctx2, ctx2.opt.threads)
    if kind == "par" then
      ctx2.command = name
      cluster.combine(runner.parallel_command(ctx2))
    else
      ctx2.command, ctx2.final_report = "run", false
      runner.run(ctx2, lb)
    end
  end
end

return M
