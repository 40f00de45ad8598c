-- sysbench 0.5's SQL API, which sysbench 1.0 keeps for old scripts:
-- sysbench.db.* and the db_* globals, on one implicit connection per state
-- (a thread's, or the main state's for prepare and cleanup), made on first
-- use or by db_connect(), on lbench's own SQL API (api/sql.lua), so that
-- its queries are counted, its errors classified and ignored as lbench's
-- are.
local M = {}

-- sysbench 1.0's values of the 0.5 error codes (its db_error_t).
local DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED = 0, 1, 2

-- A Lua value's parameter type: sysbench binds a number as an integer
-- (a double when it has a fraction) and anything else as a string.
local function param_type(types, v)
  if type(v) == "number" then return v == math.floor(v) and types.BIGINT or types.DOUBLE end
  return types.CHAR
end

function M.install(lb)
  -- lb.sql is made on first use (and marks the run as an SQL one, for the
  -- report's layout): read only when a db_* function is called.
  local con
  local db = {}

  function db.connect()
    local drv = lb.sql.driver()
    rawset(_G, "db_driver", drv:name())
    if not con then con = drv:connect() end
  end
  local function conn()
    if not con then db.connect() end
    return con
  end
  function db.disconnect()
    if con then con:disconnect() end
    con = nil
  end
  -- The result, if any, is freed: 0.5 scripts read none from db_query.
  function db.query(q)
    local rs = conn():query(q)
    if type(rs) == "table" and rs.free then rs:free() end
  end
  function db.bulk_insert_init(prefix) conn():bulk_insert_init(prefix) end
  function db.bulk_insert_next(v) conn():bulk_insert_next(v) end
  function db.bulk_insert_done() conn():bulk_insert_done() end

  -- A statement remembers the table of values given to db_bind_param:
  -- 0.5 scripts change its entries and execute again, and each execute
  -- sends the values the table holds then.
  function db.prepare(q) return { st = conn():prepare(q) } end
  function db.bind_param(stmt, values)
    if type(stmt) ~= "table" or not stmt.st then error("db_bind_param: not a statement of db_prepare", 2) end
    if type(values) ~= "table" then error("db_bind_param: the values must be a table", 2) end
    local params, types = {}, lb.sql.type
    for i, v in ipairs(values) do
      local ty = param_type(types, v)
      params[i] = stmt.st:bind_create(ty, ty == types.CHAR and math.max(255, #tostring(v)) or nil)
    end
    stmt.st:bind_param(unpack(params))
    stmt.values, stmt.params = values, params
  end
  -- sysbench 1.0.20's MySQL driver never fills result buffers either.
  function db.bind_result() end
  function db.execute(stmt)
    if type(stmt) ~= "table" or not stmt.st then error("db_execute: not a statement of db_prepare", 2) end
    for i, p in ipairs(stmt.params or {}) do p:set(stmt.values[i]) end
    return stmt.st:execute()
  end
  function db.store_results() end
  function db.free_results(rs)
    if type(rs) == "table" and rs.free then rs:free() end
  end
  function db.close(stmt)
    if type(stmt) == "table" and stmt.st then stmt.st:close() end
  end
  db.DB_ERROR_NONE, db.DB_ERROR_RESTART_TRANSACTION, db.DB_ERROR_FAILED =
    DB_ERROR_NONE, DB_ERROR_RESTART_TRANSACTION, DB_ERROR_FAILED

  lb.db = db
  for _, name in ipairs({ "connect", "disconnect", "query", "bulk_insert_init", "bulk_insert_next",
                          "bulk_insert_done", "prepare", "bind_param", "bind_result", "execute",
                          "store_results", "free_results", "close" }) do
    rawset(_G, "db_" .. name, db[name])
  end
  rawset(_G, "DB_ERROR_NONE", DB_ERROR_NONE)
  rawset(_G, "DB_ERROR_RESTART_TRANSACTION", DB_ERROR_RESTART_TRANSACTION)
  rawset(_G, "DB_ERROR_FAILED", DB_ERROR_FAILED)
end

return M
