-- Server-side SLEEP: each event takes at least --ms milliseconds on the server.
lbench.cmdline.options = { ms = { "server-side sleep per event, ms", 20 } }
local con
function thread_init() con = lbench.sql.driver():connect() end
function event() con:query(string.format("SELECT SLEEP(%g)", lbench.opt.ms / 1000)) end
function thread_done() con:disconnect() end
