-- A published-style script that counts work of its own through sysbench's
-- C counters: every event runs one point select through the SQL API, then
-- counts a cache read, a queued write, an "other" operation and an error
-- it chose to ignore, as scripts do for work that bypasses the SQL layer.
-- The cache is created lazily in a global that was never assigned.
-- sb_counter_type comes with sysbench's own declarations (sysbench.sql.lua).
ffi.cdef[[
void sb_counter_inc(int, sb_counter_type);
]]

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event(thread_id)
  if not cache then cache = {} end
  local id = sysbench.rand.uniform(1, 1000)
  con:query("SELECT " .. id)
  cache[id] = true
  ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_READ)
  ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_WRITE)
  ffi.C.sb_counter_inc(thread_id, ffi.C.SB_CNT_OTHER)
  ffi.C.sb_counter_inc(thread_id, ffi.C.SB_CNT_ERROR)
end

function thread_done()
  con:disconnect()
end
