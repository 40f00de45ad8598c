-- Point selects; done() (main state, after the run, endpoint still up)
-- scrapes the metrics endpoint into --scrape-file, so the test can compare
-- the final counters with the result file.
lbench.cmdline.options = { port = { "metrics port", 0 }, scrape_file = { "where to write the scrape", "" } }
local con
function thread_init() con = lbench.sql.driver():connect() end
function event()
  con:query("SELECT c FROM sbtest1 WHERE id = " .. lbench.rand.uniform(1, 10000))
end
function thread_done() con:disconnect() end
function done()
  os.execute(string.format("curl -sf http://127.0.0.1:%d/metrics > %s", lbench.opt.port, lbench.opt.scrape_file))
end
