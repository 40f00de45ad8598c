-- An ignored error inside a transaction restarts the event: its first try
-- inserts row `try` and then fails (1146, a missing table, listed in
-- --db-ignore-errors by the test); the retry inserts its own row and
-- commits.  The failed try's row must be gone: lbench rolls the
-- transaction back before the retry (InnoDB undoes only the failed
-- statement, and the retry's BEGIN would otherwise commit the rest).
local con
local tries = 0
function prepare()
  local c = lbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS lb_retry")
  c:query("CREATE TABLE lb_retry (try INT PRIMARY KEY) ENGINE=InnoDB")
end
function cleanup() lbench.sql.driver():connect():query("DROP TABLE IF EXISTS lb_retry") end
function thread_init() con = lbench.sql.driver():connect() end
function event()
  tries = tries + 1
  con:query("BEGIN")
  con:query("INSERT INTO lb_retry VALUES (" .. tries .. ")")
  if tries % 2 == 1 then con:query("SELECT * FROM lb_no_such_table") end
  con:query("COMMIT")
end
function thread_done() con:disconnect() end
