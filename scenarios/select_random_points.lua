-- SELECT ... WHERE k IN (?, ?, ...) with --random-points random values of
-- the secondary index column k, on table sbtest1.
local oltp = require("oltp_common")
-- At most 65535 placeholders in one MySQL statement.
lbench.cmdline.options.random_points = { "Number of random points in the IN() clause", 10, min = 1, max = 65535 }
local con, stmt, params
function thread_init()
  con = lbench.sql.driver():connect()
  local n = lbench.opt.random_points
  local ok, e = pcall(function()
    stmt = con:prepare("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (" .. string.rep("?, ", n - 1) .. "?)")
  end)
  if not ok then oltp.explain_sql_error(con, 1, e) end
  params = {}
  for i = 1, n do params[i] = stmt:bind_create(lbench.sql.type.INT) end
  stmt:bind_param(unpack(params))
end
function event()
  for i = 1, #params do params[i]:set(lbench.rand.default(1, lbench.opt.table_size)) end
  stmt:execute()
end
function thread_done()
  stmt:close()
  con:disconnect()
end
local _ = oltp
