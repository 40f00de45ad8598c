-- Read-only OLTP: point selects and range selects in a transaction.
local oltp = require("oltp_common")
oltp.use("point_selects", "simple_ranges", "sum_ranges", "order_ranges", "distinct_ranges")
function event()
  oltp.begin()
  oltp.point_selects()
  oltp.range_selects()
  oltp.commit()
end
