-- Fixture of the tools suite: one query per event through the SQL API
-- (run with --db-driver=null).
local con
function thread_init() con = lbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
function thread_done() con:disconnect() end
