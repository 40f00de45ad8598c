-- Multi-row INSERTs as fast as possible: thread i appends rows to its own
-- table sbtest<i+1>(id, k) through one growing bulk statement.
lbench.cmdline.options = {}
local opt = lbench.opt

local function create(con, n)
  print(string.format("Creating table 'sbtest%d'...", n))
  con:query(string.format("CREATE TABLE IF NOT EXISTS sbtest%d (id INTEGER NOT NULL, " ..
    "k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))", n))
end

function prepare()
  local con = lbench.sql.driver():connect()
  for i = 1, opt.threads do create(con, i) end
  con:disconnect()
end

function cleanup()
  local con = lbench.sql.driver():connect()
  for i = 1, opt.threads do
    print(string.format("Dropping table 'sbtest%d'...", i))
    con:query("DROP TABLE IF EXISTS sbtest" .. i)
  end
  con:disconnect()
end

local con, next_id
function thread_init(tid)
  con = lbench.sql.driver():connect()
  local ok, max = pcall(con.query_row, con, string.format("SELECT COALESCE(MAX(id), 0) FROM sbtest%d", tid + 1))
  if not ok then
    -- Thread i writes sbtest<i+1>: prepare makes one table per thread.
    if con.last_error and con.last_error.sql_errno == 1146 then
      require("lbench.util").fail("table sbtest%d does not exist: run prepare with --threads=%d (one table per thread)",
        tid + 1, opt.threads)
    end
    error(max, 0)
  end
  next_id = (tonumber(max) or 0) + 1 -- the null driver returns no row
  con:bulk_insert_init(string.format("INSERT INTO sbtest%d VALUES", tid + 1))
end

function event()
  con:bulk_insert_next(string.format("(%d, %d)", next_id, next_id))
  next_id = next_id + 1
end

function thread_done()
  con:bulk_insert_done()
  con:disconnect()
end
