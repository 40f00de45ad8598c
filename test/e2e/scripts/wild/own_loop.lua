-- A script with its own event loop, as published scripts write it: a
-- thread_run(thread_id) over sysbench's C event functions, a transaction
-- per event on a table of its own, an error the script declares ignorable
-- (a duplicate key, retried with a fresh id), a pause through usleep.
ffi.cdef[[
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
bool sb_more_events(int thread_id);
int usleep(unsigned int);
]]

sysbench.cmdline.options = {
  rows = {"Rows in the table", 100},
  pause_us = {"Pause in thread_init, microseconds", 1000},
}

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS wild_loop")
  con:query("CREATE TABLE wild_loop (id INT PRIMARY KEY, k INT NOT NULL)")
  for i = 1, sysbench.opt.rows do
    con:query(string.format("INSERT INTO wild_loop VALUES (%d, 0)", i))
  end
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS wild_loop")
end

-- Errors the script retries: a duplicate key (1062).
sysbench.hooks.sql_error_ignorable = function(err)
  return err.sql_errno == 1062
end

function thread_init(thread_id)
  ffi.C.usleep(sysbench.opt.pause_us)
  con = sysbench.sql.driver():connect()
  clash = true
end

function event(thread_id)
  con:query("BEGIN")
  if clash then
    -- Every event's first try collides with an existing row.
    clash = false
    con:query("INSERT INTO wild_loop VALUES (1, 0)")
  end
  clash = true
  local id = sysbench.rand.uniform(1, sysbench.opt.rows)
  con:query(string.format("UPDATE wild_loop SET k = k + 1 WHERE id = %d", id))
  con:query(string.format("SELECT k FROM wild_loop WHERE id = %d", id))
  con:query("COMMIT")
end

function thread_run(thread_id)
  while ffi.C.sb_more_events(thread_id) do
    ffi.C.sb_event_start(thread_id)
    local ok, err
    repeat
      ok, err = pcall(event, thread_id)
      if not ok then
        if type(err) == "table" and err.errcode == sysbench.error.RESTART_EVENT then
          con:query("ROLLBACK")
        else
          error(err, 2)
        end
      end
    until ok
    ffi.C.sb_event_stop(thread_id)
  end
end
