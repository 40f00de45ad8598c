-- A parallel command that reports progress and prints between two steps,
-- as OLTP prepare does ("Creating a secondary index ..."): on a terminal
-- the message must start its own line, never continue the progress bar.
function load()
  lbench.progress.total(200, "rows")
  lbench.run_parallel("_work")
end
local function work()
  lbench.progress.add(50)
  lbench.sleep(1200)
  print("Creating a secondary index on 't" .. lbench.tid .. "'...")
  lbench.progress.add(50)
end
lbench.cmdline.commands = { load = { load }, _work = { work, lbench.cmdline.PARALLEL_COMMAND } }
