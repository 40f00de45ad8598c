-- One UPDATE of the indexed column k per event.
local oltp = require("oltp_common")
oltp.use("index_updates")
function event() oltp.index_updates() end
