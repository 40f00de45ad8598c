-- Write-only OLTP: index/non-index updates and a delete/insert pair.
local oltp = require("oltp_common")
oltp.use("index_updates", "non_index_updates", "deletes", "inserts")
function event()
  oltp.begin()
  oltp.index_updates()
  oltp.non_index_updates()
  oltp.delete_inserts()
  oltp.commit()
end
