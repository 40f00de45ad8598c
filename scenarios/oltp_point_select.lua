-- One primary-key point select per event, no explicit transaction.
local oltp = require("oltp_common")
oltp.use("point_selects")
lbench.opt.point_selects = 1
function event() oltp.point_selects() end
