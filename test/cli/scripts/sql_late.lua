-- An SQL scenario whose events (1.3 s each) run their one query at the
-- end: some intervals have no event and no query, one may have events
-- but no query.  The interval lines must keep the SQL layout.
local con
function thread_init() con = lbench.sql.driver():connect() end
function event()
  lbench.sleep(1300)
  con:query("SELECT 1")
end
