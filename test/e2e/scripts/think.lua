-- A point select followed by think time: with many connections the
-- connections stay idle most of the time (TPC-C terminals).
lbench.cmdline.options = { think_ms = { "think time per event, ms", 200 }, table_size = { "rows", 10000 } }
local con, stmt, param
function thread_init()
  con = lbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM sbtest1 WHERE id = ?")
  param = stmt:bind_create(lbench.sql.type.INT)
  stmt:bind_param(param)
end
function event()
  param:set(lbench.rand.uniform(1, lbench.opt.table_size))
  local rs = stmt:execute()
  if not rs or rs.nrows ~= 1 then error("expected one row") end
  lbench.sleep(lbench.opt.think_ms)
end
function thread_done() con:disconnect() end
