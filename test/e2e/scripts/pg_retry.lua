-- Every event's first try fails inside its transaction with a
-- serialization failure (SQLSTATE 40001, raised by the server): the
-- default --db-ignore-errors of pgsql restarts the event, after a
-- ROLLBACK, and the retry commits.  Without that ROLLBACK the retried
-- BEGIN would run inside the aborted transaction and fail with 25P02.
lbench.cmdline.options = { port = { "metrics port to scrape after the run (0: none)", 0 },
  scrape_file = { "where to write that scrape", "" } }
local con
local tries = 0
function thread_init() con = lbench.sql.driver():connect() end
function event()
  tries = tries + 1
  con:query("BEGIN")
  con:query("SELECT 1")
  if tries % 2 == 1 then
    con:query("DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '40001'; END $$")
  end
  con:query("COMMIT")
end
function thread_done() con:disconnect() end
-- Main state, after the run, endpoint still up: keep its final figures.
function done()
  if lbench.opt.port > 0 then
    os.execute(string.format("curl -sf http://127.0.0.1:%d/metrics > %s", lbench.opt.port, lbench.opt.scrape_file))
  end
end
