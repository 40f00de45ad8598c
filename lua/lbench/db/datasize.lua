-- The size of what a scenario loaded into a database server, as cheaply as
-- the server can tell it: the figures its catalogue keeps, never a scan
-- of the data (a COUNT(*) over a terabyte takes longer than the
-- benchmark).  Scenarios call it from lbench.hooks.loaded_size, which
-- `lbench sweep --prepare-each` records for every point; text() is such a
-- record as the sweep table and `lbench report` show it.
local M = {}
local fmt = require("lbench.fmt")

local function quoted(names)
  local q = {}
  for i, n in ipairs(names) do q[i] = "'" .. tostring(n):gsub("'", "''") .. "'" end
  return table.concat(q, ", ")
end

-- Bytes of the tables `names` of the connection's database, data and
-- indexes, or nil when the server cannot tell (the null driver, no
-- privilege, a catalogue without the figures).
--
-- MySQL/MariaDB: information_schema.tables' data_length + index_length.
-- InnoDB refreshes those statistics in the background, so right after a
-- load they can still show the empty table's one page: ANALYZE TABLE
-- first, which samples a few pages per index (innodb_stats_persistent_
-- sample_pages, 20 by default) and so costs milliseconds at any size.
-- PostgreSQL: pg_total_relation_size (heap, indexes, TOAST), exact.
function M.sql_tables_bytes(con, pg, names)
  if #names == 0 then return 0 end
  local ok, v = pcall(function()
    if pg then
      local parts = {}
      for i, n in ipairs(names) do parts[i] = string.format("COALESCE(pg_total_relation_size(to_regclass('%s')), 0)", n) end
      return con:query_row("SELECT " .. table.concat(parts, " + "))
    end
    -- In batches: one statement per 100 tables keeps it short for
    -- --tables=10000.
    for i = 1, #names, 100 do
      con:query("ANALYZE TABLE " .. table.concat(names, ", ", i, math.min(i + 99, #names)))
    end
    return con:query_row("SELECT SUM(data_length + index_length) FROM information_schema.tables " ..
      "WHERE table_schema = DATABASE() AND table_name IN (" .. quoted(names) .. ")")
  end)
  return ok and tonumber(v) or nil
end

-- A record's figures as the sweep table's cell: "2 wh, 180 MiB",
-- "5000 rows, 1.52 MiB", "16 MiB (25 %)".
function M.text(l)
  if type(l) ~= "table" then return "-" end
  local parts = {}
  if tonumber(l.warehouses) then parts[#parts + 1] = fmt.num(l.warehouses) .. " wh" end
  if tonumber(l.rows) then parts[#parts + 1] = fmt.num(l.rows) .. (l.rows == 1 and " row" or " rows") end
  if tonumber(l.bytes) then
    local pct = tonumber(l.fill_pct) or tonumber(l.filesystem_pct)
    parts[#parts + 1] = fmt.size(l.bytes) .. (pct and string.format(" (%.3g %%)", pct) or "")
  end
  return #parts > 0 and table.concat(parts, ", ") or "-"
end

return M
