-- thread_init runs 5 queries (and an async user's its own 5); each event
-- runs exactly 1.  The run's totals and intervals count from the start
-- barrier, so queries.total must equal events.
local con
function thread_init()
  con = lbench.sql.driver():connect()
  for _ = 1, 5 do con:query("SELECT 1") end
end
function event() con:query("SELECT 2") end
function thread_done() con:disconnect() end
