-- The SQL API on PostgreSQL: results and NULLs, multi-statement queries,
-- prepared statements with every parameter kind, affected rows, errors by
-- SQLSTATE, emulated statements.  Prints "PG API OK" when all hold.
local function check(cond, what) if not cond then error("pg_api: " .. what, 0) end end
function check_cmd()
  local drv = lbench.sql.driver()
  check(drv:name() == "pgsql", "driver name " .. drv:name())
  local con = drv:connect()
  check(con:server_version():match("^%d+"), "server version " .. con:server_version())
  con:query("DROP TABLE IF EXISTS lb_pgapi")
  con:query("CREATE TABLE lb_pgapi (id INT PRIMARY KEY, v VARCHAR(20), d DOUBLE PRECISION, t TIMESTAMP)")
  con:query("INSERT INTO lb_pgapi VALUES (1, 'one', 1.5, '2024-01-31 12:00:00'), (2, NULL, NULL, NULL)")
  check(con:affected_rows() == 2, "affected rows of the insert: " .. con:affected_rows())
  local rs = con:query("SELECT id, v FROM lb_pgapi ORDER BY id")
  check(rs.nrows == 2 and rs.nfields == 2, "result shape")
  local r1, r2 = rs:fetch_row(), rs:fetch_row()
  check(r1[1] == "1" and r1[2] == "one" and r2[1] == "2" and r2[2] == nil and rs:fetch_row() == nil, "rows and NULL")
  -- two statements in one query: the second result through next_result
  rs = con:query("SELECT 10; SELECT 20, 30")
  check(rs:fetch_row()[1] == "10", "first result of a multi-statement query")
  local rs2 = con:next_result()
  check(rs2 and rs2.nfields == 2 and rs2:fetch_row()[2] == "30" and con:next_result() == nil, "second result")
  -- prepared, with '?' placeholders and every parameter kind
  local T = lbench.sql.type
  local st = con:prepare("INSERT INTO lb_pgapi VALUES (?, ?, ?, ?)")
  local pi, pv, pd, pt = st:bind_create(T.INT), st:bind_create(T.VARCHAR, 20), st:bind_create(T.DOUBLE), st:bind_create(T.TIMESTAMP, 32)
  st:bind_param(pi, pv, pd, pt)
  for i = 3, 5 do
    pi:set(i) pv:set("it's " .. i) pd:set(i + 0.25) pt:set("2024-02-0" .. i .. " 00:00:00")
    st:execute()
  end
  pv:set(nil)
  pi:set(6)
  st:execute()
  local q = con:prepare("SELECT v, d, t FROM lb_pgapi WHERE id = ?")
  local qi = q:bind_create(T.BIGINT)
  q:bind_param(qi)
  qi:set(4)
  local row = q:execute():fetch_row()
  check(row[1] == "it's 4" and tonumber(row[2]) == 4.25 and row[3] == "2024-02-04 00:00:00", "prepared select: " .. tostring(row[1]))
  qi:set(6)
  check(q:execute():fetch_row()[1] == nil, "NULL parameter")
  local up = con:prepare("UPDATE lb_pgapi SET d = d + 1 WHERE id > ?")
  local ui = up:bind_create(T.INT)
  up:bind_param(ui)
  ui:set(2)
  up:execute()
  check(con:affected_rows() == 4, "affected rows of a prepared update: " .. con:affected_rows())
  -- the count is the command tag's last number; a tag without one is 0
  con:query("BEGIN")
  check(con:affected_rows() == 0, "affected rows of BEGIN: " .. con:affected_rows())
  con:query("DELETE FROM lb_pgapi WHERE id > 2")
  check(con:affected_rows() == 4, "affected rows of a delete (rolled back): " .. con:affected_rows())
  con:query("ROLLBACK")
  -- errors carry the SQLSTATE
  local ok, e = pcall(con.query, con, "SELECT * FROM lb_no_such_table")
  check(not ok and tostring(e):find("42P01", 1, true) and tostring(e):find("lb_no_such_table", 1, true), "undefined table: " .. tostring(e))
  check(con:query("SELECT 1"):fetch_row()[1] == "1", "usable after an error")
  -- a statement the server cannot prepare (two commands) is emulated
  local two = con:prepare("SELECT ?; SELECT 2")
  local tp = two:bind_create(T.INT)
  two:bind_param(tp)
  tp:set(7)
  check(two:execute():fetch_row()[1] == "7", "emulated multi-statement")
  -- bulk load through COPY: rows in chunks, the count back, counted as one insert
  check(con:can_load(), "pgsql can load")
  con:query("CREATE TABLE lb_pgload (id INT, v TEXT)")
  con:load_begin("COPY lb_pgload (id, v) FROM STDIN")
  for chunk = 0, 9 do
    local rows = {}
    for i = 1, 100 do rows[i] = string.format("%d\tv%d\n", chunk * 100 + i, i) end
    con:load_data(table.concat(rows))
  end
  check(con:load_end() == 1000, "rows loaded")
  check(con:query_row("SELECT COUNT(*), SUM(id) FROM lb_pgload") == "1000", "rows in the table")
  local okl, el = pcall(con.load_begin, con, "COPY lb_no_such_table FROM STDIN")
  check(not okl and tostring(el):find("42P01", 1, true), "load into a missing table: " .. tostring(el))
  okl, el = pcall(con.load_begin, con, "SELECT 1")
  check(not okl and tostring(el):find("not a COPY", 1, true), "load with a non-COPY statement: " .. tostring(el))
  check(con:query_row("SELECT 2") == "2", "usable after a failed load")
  con:query("DROP TABLE lb_pgload")
  st:close() q:close() up:close() two:close()
  con:query("DROP TABLE lb_pgapi")
  con:disconnect()
  print("PG API OK")
end
lbench.cmdline.commands = { check = check_cmd }
