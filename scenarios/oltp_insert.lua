-- One INSERT per event: server-assigned ids with --auto-inc (default),
-- else unique client-generated ids.  Ids beyond 2^32 need BIGINT tables:
-- with --auto-inc=off, prepare the tables with a --table-size >= 2^31.
local oltp = require("oltp_common")
oltp.use("inserts")
function event() oltp.insert() end
