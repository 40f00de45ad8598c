-- Every 10th event raises a restart error once: counted, then retried.
local n, pending = 0, false
function event()
  n = n + 1
  if n % 10 == 0 and not pending then
    pending = true
    error({ errcode = sysbench.error.RESTART_EVENT, sql_errno = 1213 })
  end
  pending = false
end
