-- A script whose reports are CSV: intermediate lines through sysbench's
-- report_csv, a final line of its own; its latencies also go into one of
-- sysbench's C histograms (ffi.C.sb_histogram_*), printed per thread.
ffi.cdef[[
typedef struct histogram sb_histogram_t;
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);
]]

sysbench.hooks.report_intermediate = sysbench.report_csv

function sysbench.hooks.report_cumulative(stat)
  print(string.format("final,%d,%d,%d,%d,%d", stat.events, stat.reads, stat.writes, stat.other, stat.errors))
end

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS wild_csv")
  con:query("CREATE TABLE wild_csv (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS wild_csv")
end

function thread_init()
  con = sysbench.sql.driver():connect()
  hist = ffi.gc(ffi.C.sb_histogram_new(64, 0.001, 1000), ffi.C.sb_histogram_delete)
end

function event()
  local t0 = os.clock()
  con:query("BEGIN")
  con:query("INSERT INTO wild_csv (v) VALUES (" .. sysbench.rand.uniform(1, 100) .. ")")
  con:query("SELECT COUNT(*) FROM wild_csv WHERE id < 10")
  con:query("COMMIT")
  ffi.C.sb_histogram_update(hist, (os.clock() - t0) * 1000 + 0.001)
end

function thread_done()
  ffi.C.sb_histogram_print(hist)
end
