-- Numbers bound to int2/int4/int8/float8 placeholders go in binary: each
-- value must come back as it was bound, signs and widths included; a value
-- the placeholder's type cannot hold goes as text, so the server refuses
-- it as it would any client's (SQLSTATE 22003).  Prints "PG BINARY OK".
local function check(cond, what) if not cond then error("pg_binary: " .. what, 0) end end
local T = lbench.sql.type

-- Execute `sql` with one parameter of `ty` set to `v`; the first column.
local function one(con, sql, ty, v)
  local st = con:prepare(sql)
  local p = st:bind_create(ty)
  st:bind_param(p)
  p:set(v)
  local rs = st:execute()
  local row = rs and rs:fetch_row()
  st:close()
  return row and row[1]
end

function check_cmd()
  local con = lbench.sql.driver():connect()
  check(one(con, "SELECT ? + 1", T.INT, 41) == "42", "int4")
  check(one(con, "SELECT ? + 1", T.INT, -43) == "-42", "negative int4")
  check(one(con, "SELECT ?::int8 * 2", T.BIGINT, 2 ^ 40 + 3) == tostring(2 * (2 ^ 40 + 3)):gsub("%.0$", ""), "int8")
  check(one(con, "SELECT ?::int8", T.BIGINT, -(2 ^ 40)) == "-1099511627776", "negative int8")
  check(one(con, "SELECT ?::int2", T.INT, -7) == "-7", "int2")
  check(one(con, "SELECT ?::float8 * 2", T.DOUBLE, 1.25) == "2.5", "float8")
  check(one(con, "SELECT ?::float8", T.DOUBLE, -0.1) == "-0.1", "negative float8")
  check(one(con, "SELECT length(?)", T.VARCHAR, "abc") == "3", "text")
  check(one(con, "SELECT ?::text", T.INT, 12345) == "12345", "an integer bound to a text placeholder goes as text")
  for _, c in ipairs({ { "SELECT ? + 1", T.BIGINT, 5e9 }, { "SELECT ?::int2", T.INT, 70000 } }) do
    local ok, e = pcall(one, con, c[1], c[2], c[3])
    check(not ok and tostring(e):find("22003", 1, true), "out of range for the placeholder: " .. tostring(e))
  end
  con:disconnect()
  print("PG BINARY OK")
end

lbench.cmdline.commands = { check = { check_cmd } }
