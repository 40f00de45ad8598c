-- One INSERT per event: server-assigned ids with --auto-inc (default),
-- else unique client-generated ids that fit the id column and miss the
-- prepared rows (oltp_common's id_source: the negative half of INT, or
-- above 2^32 in BIGINT tables).
local oltp = require("oltp_common")
oltp.use("inserts")
function event() oltp.insert() end
