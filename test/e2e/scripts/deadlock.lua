-- Two threads lock rows 1 and 2 in opposite orders inside a transaction:
-- InnoDB kills one with a deadlock (1213), which --db-ignore-errors turns
-- into a restarted event.
function prepare()
  local con = lbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS lb_deadlock")
  con:query("CREATE TABLE lb_deadlock (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
  con:query("INSERT INTO lb_deadlock VALUES (1, 0), (2, 0)")
end
function cleanup()
  lbench.sql.driver():connect():query("DROP TABLE IF EXISTS lb_deadlock")
end
local con
function thread_init() con = lbench.sql.driver():connect() end
function event(tid)
  local a, b = 1, 2
  if tid % 2 == 1 then a, b = 2, 1 end
  con:query("BEGIN")
  con:query("UPDATE lb_deadlock SET v = v + 1 WHERE id = " .. a)
  con:query("SELECT SLEEP(0.005)")
  con:query("UPDATE lb_deadlock SET v = v + 1 WHERE id = " .. b)
  con:query("COMMIT")
end
function thread_done() con:disconnect() end
