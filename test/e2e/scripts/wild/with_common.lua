-- A script that keeps its common code in a sibling module (wild_common)
-- and adds only the workload: a range select per configured size, an
-- update, optionally inside a transaction.
require("wild_common")

function prepare() common_prepare() end
function cleanup() common_cleanup() end

sysbench.cmdline.commands = {
  show_options = {common_show_options},
}

function thread_init()
  con = common_connect()
end

function event()
  if sysbench.opt.use_trx then con:query("BEGIN") end
  for _, size in ipairs(sysbench.opt.ranges) do
    local first = sysbench.rand.uniform(1, sysbench.opt.table_rows - tonumber(size) + 1)
    con:query(string.format("SELECT label FROM wild_common WHERE id BETWEEN %d AND %d", first, first + size - 1))
  end
  con:query(string.format("UPDATE wild_common SET n = n + 1 WHERE id = %d",
    sysbench.rand.uniform(1, sysbench.opt.table_rows)))
  if sysbench.opt.use_trx then con:query("COMMIT") end
end
