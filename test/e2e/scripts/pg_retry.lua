-- Every event's first try fails inside its transaction with a
-- serialization failure (SQLSTATE 40001, raised by the server): the
-- default --db-ignore-errors of pgsql restarts the event, after a
-- ROLLBACK, and the retry commits.  Without that ROLLBACK the retried
-- BEGIN would run inside the aborted transaction and fail with 25P02.
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
