-- SELECT count(k) ... WHERE k BETWEEN ? AND ? OR ... with --number-of-ranges
-- ranges of --delta values of k, on table sbtest1.
local oltp = require("oltp_common")
-- Two placeholders per range, at most 65535 in one MySQL statement.
lbench.cmdline.options.number_of_ranges = { "Number of random BETWEEN ranges", 10, min = 1, max = 32767 }
lbench.cmdline.options.delta = { "Size of BETWEEN ranges", 5, min = 0 }
local con, stmt, params
function thread_init()
  con = lbench.sql.driver():connect()
  local n = lbench.opt.number_of_ranges
  local ok, e = pcall(function()
    stmt = con:prepare("SELECT count(k) FROM sbtest1 WHERE " ..
      string.rep("k BETWEEN ? AND ? OR ", n - 1) .. "k BETWEEN ? AND ?")
  end)
  if not ok then oltp.explain_sql_error(con, 1, e) end
  params = {}
  for i = 1, 2 * n do params[i] = stmt:bind_create(lbench.sql.type.INT) end
  stmt:bind_param(unpack(params))
end
function event()
  for i = 1, #params, 2 do
    local lo = lbench.rand.default(1, lbench.opt.table_size)
    params[i]:set(lo)
    params[i + 1]:set(lo + lbench.opt.delta)
  end
  stmt:execute()
end
function thread_done()
  stmt:close()
  con:disconnect()
end
local _ = oltp
