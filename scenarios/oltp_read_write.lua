-- Read-write OLTP: the read-only mix plus index/non-index updates and a
-- delete/insert pair, in one transaction.
local oltp = require("oltp_common")
oltp.use("point_selects", "simple_ranges", "sum_ranges", "order_ranges", "distinct_ranges",
  "index_updates", "non_index_updates", "deletes", "inserts")
function event()
  oltp.begin()
  oltp.point_selects()
  oltp.range_selects()
  oltp.index_updates()
  oltp.non_index_updates()
  oltp.delete_inserts()
  oltp.commit()
end
