-- One DELETE by primary key per event (deleted rows stay deleted).
local oltp = require("oltp_common")
oltp.use("deletes")
function event() oltp.deletes() end
