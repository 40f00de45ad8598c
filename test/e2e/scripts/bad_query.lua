-- A query on a missing table: error 1146 is not ignorable and stops the run.
local con
function thread_init() con = lbench.sql.driver():connect() end
function event() con:query("SELECT * FROM lb_no_such_table") end
