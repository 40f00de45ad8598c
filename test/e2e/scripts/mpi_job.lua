-- lbench-mpi tests (test/e2e/mpi.sh): each thread records the job-wide
-- thread id it was given, its rank, the job's size and threads, and its
-- first random number; events of two types, registered in another order on
-- odd ranks (the merge matches types by name, not by number); an injected
-- failure on one rank.
lbench.cmdline.options = {
  out_dir = { "directory for one file per thread id (empty: none)", "" },
  fail_rank = { "rank whose threads raise an error after --fail-after events (-1: none)", -1 },
  fail_after = { "events before the injected failure", 200 },
}
local opt = lbench.opt
local A, B
if lbench.rank % 2 == 1 then
  B = lbench.stat.type("beta"); A = lbench.stat.type("alpha")
else
  A = lbench.stat.type("alpha"); B = lbench.stat.type("beta")
end

function thread_init(tid)
  if opt.out_dir == "" then return end
  -- Appended, so that a thread id given twice shows as two lines.
  local f = assert(io.open(string.format("%s/tid.%d", opt.out_dir, tid), "a"))
  f:write(string.format("%d %d %d %d\n", lbench.rank, lbench.nranks, opt.threads, lbench.rand.uniform(1, 1000000000)))
  f:close()
end

local n = 0
function event()
  n = n + 1
  if lbench.rank == opt.fail_rank and n > opt.fail_after then
    error(string.format("injected failure on rank %d", lbench.rank), 0)
  end
  if n % 3 == 0 then lbench.stat.event(A) else lbench.stat.event(B) end
end
