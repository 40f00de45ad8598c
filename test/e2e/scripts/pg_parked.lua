-- The connection init() closes is the server probe's (api/sql.lua,
-- build_park) and carries nothing of init()'s session: its setting, its
-- advisory lock and its temporary table went with the close, as when a
-- connection really closes.  --check-probe=off: the probe may not have it
-- (a role's connection limit made a worker close it first).
lbench.cmdline.options = { check_probe = { "check that the probe took init()'s connection over", "on" } }
local INIT_PID = 1 -- lbench.counter slot: init()'s backend, for the workers
local con

function init()
  local c = lbench.sql.driver():connect()
  c:query("SET work_mem = '77MB'")
  c:query("SELECT pg_advisory_lock(4242)")
  c:query("CREATE TEMPORARY TABLE parked_tmp (i int)")
  lbench.counter.set(INIT_PID, tonumber(c:query_row("SELECT pg_backend_pid()")))
  c:disconnect()
end

function thread_init()
  con = lbench.sql.driver():connect()
  -- (shared: the workers' own attempts do not exclude one another)
  if con:query_row("SELECT pg_try_advisory_lock_shared(4242)") ~= "t" then error("init()'s advisory lock is still held") end
  con:query("SELECT pg_advisory_unlock_shared(4242)")
  if con:query_row("SELECT count(*) FROM pg_class WHERE relname = 'parked_tmp'") ~= "0" then
    error("init()'s temporary table is still there")
  end
end

local checked = false
function event()
  if checked or lbench.opt.check_probe ~= "on" then return end
  checked = true
  -- The probe sampled before the first event: init()'s backend is alive
  -- and its last statement is one of the probe's.
  local q = con:query_row("SELECT query FROM pg_stat_activity WHERE pid = " .. lbench.counter.get(INIT_PID))
  print("init backend's last statement: " .. tostring(q))
end

function thread_done() con:disconnect() end
