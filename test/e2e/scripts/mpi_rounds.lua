-- lbench-mpi tests (test/e2e/mpi.sh): a main-state custom command that
-- runs measured rounds with lbench.run, as fileio's precondition, slap's
-- levels and sweeps do.  Under several ranks each round is a run of the
-- whole job: the threads of every rank record the job-wide thread id they
-- were given (one directory per round), and rank 0 writes the round's
-- result document (the job's merge) for mpi_check.lua to compare with the
-- ranks' own documents (--rank-result-file per round).
lbench.cmdline.options = {
  out_dir = { "directory for the rounds' documents and thread ids" },
  round = { "the round being run (set by the command for its rounds)", 0 },
  round_time = { "seconds per round", 0.5, lbench.cmdline.ARG_DOUBLE },
  fail_rank = { "rank whose threads raise an error in round 1 (-1: none)", -1 },
  job_threads = { "threads of round 2, the job's (0: the command line's)", 0 },
}
local opt = lbench.opt

function thread_init(tid)
  if opt.round == 0 then return end
  local f = assert(io.open(string.format("%s/round%d/tid.%d", opt.out_dir, opt.round, tid), "a"))
  f:write(string.format("%d %d\n", lbench.rank, opt.threads))
  f:close()
end

local n = 0
function event()
  n = n + 1
  if opt.round == 1 and lbench.rank == opt.fail_rank and n > 1000 then
    error(string.format("injected failure on rank %d", lbench.rank), 0)
  end
end

local function rounds()
  local json = require("lbench.json")
  for i = 1, 2 do
    os.execute(string.format("mkdir -p '%s/round%d'", opt.out_dir, i))
    local over = { round = i, time = opt.round_time, rank_result_file = string.format("%s/r%d.%%r.json", opt.out_dir, i) }
    if i == 2 and opt.job_threads > 0 then over.threads = opt.job_threads end
    local r, failed, err = lbench.run(over)
    if r then
      local f = assert(io.open(string.format("%s/r%d.json", opt.out_dir, i), "w"))
      f:write(json.encode(r, "  "), "\n")
      f:close()
      print(string.format("round %d: %d events, %d threads, %d ranks, status %s", i, r.totals.events, r.threads,
        r.nranks or 1, r.status))
    end
    if failed then error(string.format("round %d: %s", i, tostring(err)), 0) end
  end
end

lbench.cmdline.commands = { rounds = rounds }
