-- A script that talks to sysbench's C SQL API directly, as scripts that
-- need more control than sysbench.sql's wrappers do: db_query with
-- db_fetch_row / db_free_results, a prepared INSERT with db_bind_param /
-- db_execute, and an error it checks itself (con.error, con.sql_errno).
ffi.cdef[[
sql_result *db_query(sql_connection *con, const char *query, size_t len);
sql_row *db_fetch_row(sql_result *rs);
int db_free_results(sql_result *);
]]

sysbench.cmdline.options = {
  check_binds = {"Also check result binds (db_bind_result)", false},
}

local C = ffi.C

local function query(con, sql)
  local rs = C.db_query(con, sql, #sql)
  if rs == nil and con.error == C.DB_ERROR_FATAL then
    error(string.format("SQL error %d: %s", con.sql_errno, ffi.string(con.sql_errmsg)))
  end
  return rs
end

function prepare()
  local drv = C.db_create(nil)
  local con = C.db_connection_create(drv)
  query(con, "DROP TABLE IF EXISTS wild_raw")
  query(con, "CREATE TABLE wild_raw (id INT AUTO_INCREMENT PRIMARY KEY, tag VARCHAR(16), n BIGINT NOT NULL)")
  query(con, "INSERT INTO wild_raw (tag, n) VALUES ('first', 0)")
  C.db_connection_free(con)
  C.db_destroy(drv)
end

function cleanup()
  local drv = C.db_create(nil)
  local con = C.db_connection_create(drv)
  query(con, "DROP TABLE IF EXISTS wild_raw")
  C.db_connection_free(con)
  C.db_destroy(drv)
end

function thread_init()
  drv = C.db_create(nil)
  con = C.db_connection_create(drv)
  local sql = "INSERT INTO wild_raw (tag, n) VALUES (?, ?)"
  ins = C.db_prepare(con, sql, #sql)
  tag, tag_len, num = ffi.new("char[16]"), ffi.new("unsigned long[1]"), ffi.new("int64_t[1]")
  local binds = ffi.new("sql_bind[2]")
  binds[0].type, binds[0].buffer, binds[0].data_len, binds[0].max_len = C.SQL_TYPE_VARCHAR, tag, tag_len, 16
  binds[1].type, binds[1].buffer, binds[1].max_len = C.SQL_TYPE_BIGINT, num, 8
  assert(C.db_bind_param(ins, binds, 2) == 0, "db_bind_param")
  if sysbench.opt.check_binds then
    sel = C.db_prepare(con, "SELECT n, tag FROM wild_raw WHERE id = 1", 40)
    out_n, out_tag, out_len = ffi.new("int64_t[1]"), ffi.new("char[16]"), ffi.new("unsigned long[1]")
    local r = ffi.new("sql_bind[2]")
    r[0].type, r[0].buffer = C.SQL_TYPE_BIGINT, out_n
    r[1].type, r[1].buffer, r[1].data_len, r[1].max_len = C.SQL_TYPE_VARCHAR, out_tag, out_len, 16
    assert(C.db_bind_result(sel, r, 2) == 0, "db_bind_result")
  end
end

function event()
  local rs = query(con, "SELECT tag, n FROM wild_raw WHERE id = 1")
  local row = C.db_fetch_row(rs)
  assert(rs.nrows == 1 and rs.nfields == 2, "one row of two fields")
  assert(ffi.string(row.values[0].ptr, row.values[0].len) == "first", "the row's first value")
  C.db_free_results(rs)
  -- A write returns no result set.
  assert(query(con, "UPDATE wild_raw SET n = n + 1 WHERE id = 1") == nil)
  ffi.copy(tag, "ev")
  tag_len[0], num[0] = 2, sysbench.rand.uniform(1, 1000)
  assert(C.db_execute(ins) == nil and con.error == C.DB_ERROR_NONE, "prepared insert")
  -- A missing table: an error this script expects and passes over.
  assert(query(con, "SELECT * FROM wild_no_such_table") == nil and con.sql_errno == 1146)
  if sel ~= nil then
    local r = C.db_execute(sel)
    assert(r ~= nil and C.db_fetch_row(r) ~= nil, "a row of the select")
    assert(out_n[0] > 0 and ffi.string(out_tag, out_len[0]) == "first", "the result binds")
  end
end

function thread_done()
  C.db_close(ins)
  C.db_connection_free(con)
  C.db_destroy(drv)
end
