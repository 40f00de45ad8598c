-- A sysbench 0.5 script: the db_* globals on the implicit connection, a
-- bulk insert, a prepared statement whose bound table changes between
-- executions, the 0.5 error codes.
function prepare()
  db_query("DROP TABLE IF EXISTS wild_legacy")
  db_query("CREATE TABLE wild_legacy(id INT PRIMARY KEY, a INT, s VARCHAR(20))")
  db_bulk_insert_init("INSERT INTO wild_legacy VALUES")
  for i = 1, 100 do db_bulk_insert_next(string.format("(%d, %d, 'x%d')", i, i, i)) end
  db_bulk_insert_done()
  db_connect()
  db_disconnect()
  local params = { 100, "x1" }
  local stmt = db_prepare("UPDATE wild_legacy SET a = a + ? WHERE s <> ?")
  db_bind_param(stmt, params)
  db_free_results(db_execute(stmt))
  params[1], params[2] = 1000, "x2"
  db_execute(stmt)
  db_close(stmt)
  print(string.format("codes %d %d %d", DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED))
end

function event()
  db_query("SELECT a FROM wild_legacy WHERE id = " .. sb_rand_uniform(1, 100))
  db_query("UPDATE wild_legacy SET a = a + 1 WHERE id = " .. sb_rand(1, 100))
end

function cleanup()
  db_query("DROP TABLE IF EXISTS wild_legacy")
end
