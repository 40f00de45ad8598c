-- lbench-mpi tests against a real server (test/e2e/mpi.sh): one rank
-- meets a database problem while the others run normally.
--   --mode=missing: after --after events rank 1 queries a table that does
--     not exist (the server's error 1146 stops the job);
--   --mode=kill: after --after events rank 1 has a second connection of
--     its own KILL its main one (the server closes it: the next query
--     finds it lost, reconnects once, counted, and the event is restarted).
lbench.cmdline.options = {
  mode = { "missing (rank 1 queries a missing table) or kill (rank 1's connection is killed once)", "missing" },
  after = { "events of rank 1 before its problem", 300 },
}
local opt = lbench.opt
local con, killer, id
local n = 0

function thread_init()
  con = lbench.sql.driver():connect()
  if lbench.rank == 1 and opt.mode == "kill" then
    killer = lbench.sql.driver():connect()
    id = con:query_row("SELECT CONNECTION_ID()")
  end
end

function event()
  n = n + 1
  if lbench.rank == 1 and n == opt.after then
    if opt.mode == "missing" then con:query("SELECT * FROM lbench_mpi_no_such_table") end
    if opt.mode == "kill" then killer:query("KILL CONNECTION " .. id) end
  end
  con:query_row("SELECT 1")
end

function thread_done()
  con:disconnect()
  if killer then killer:disconnect() end
end
