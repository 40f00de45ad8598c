-- The default event loop with an error the script declares ignorable
-- (sysbench.hooks.sql_error_ignorable): every event's first try reads a
-- table that does not exist, the retry reads one that does.
function thread_init()
  con = sysbench.sql.driver():connect()
end

function sysbench.hooks.sql_error_ignorable(err)
  return err.sql_errno == 1146
end

function sysbench.hooks.before_restart_event(err)
  retried = true
end

function event()
  if not retried then
    con:query("SELECT * FROM wild_missing_table")
  end
  retried = false
  con:query("SELECT 1")
end
