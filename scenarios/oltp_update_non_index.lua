-- One UPDATE of the non-indexed column c per event.
local oltp = require("oltp_common")
oltp.use("non_index_updates")
function event() oltp.non_index_updates() end
