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
  local max = con:query_row(string.format("SELECT COALESCE(MAX(id), 0) FROM sbtest%d", tid + 1))
  next_id = tonumber(max) + 1
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
