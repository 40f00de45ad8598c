-- A script whose prepare is a parallel command with its own options: each
-- thread creates and bulk-loads its share of the tables, with values from
-- sysbench's C string generator (sb_rand_str); the run reads through a
-- prepared statement and updates through another.
ffi.cdef[[
void sb_rand_str(const char *, char *);
]]

sysbench.cmdline.options = {
  tables = {"Number of tables", 3},
  rows = {"Rows per table", 200},
  pad = {"Template of the pad column", "###-@@@-###"},
}

local function pad()
  local buf = ffi.new("char[?]", #sysbench.opt.pad)
  ffi.C.sb_rand_str(sysbench.opt.pad, buf)
  return ffi.string(buf, #sysbench.opt.pad)
end

local function load_tables()
  local con = sysbench.sql.driver():connect()
  for t = sysbench.tid + 1, sysbench.opt.tables, sysbench.opt.threads do
    con:query("DROP TABLE IF EXISTS wild_par" .. t)
    con:query("CREATE TABLE wild_par" .. t .. " (id INT PRIMARY KEY, pad CHAR(20) NOT NULL)")
    con:bulk_insert_init("INSERT INTO wild_par" .. t .. " (id, pad) VALUES")
    for i = 1, sysbench.opt.rows do
      con:bulk_insert_next(string.format("(%d, '%s')", i, pad()))
    end
    con:bulk_insert_done()
  end
end

local function drop_tables()
  local con = sysbench.sql.driver():connect()
  for t = 1, sysbench.opt.tables do con:query("DROP TABLE IF EXISTS wild_par" .. t) end
end

sysbench.cmdline.commands = {
  prepare = {load_tables, sysbench.cmdline.PARALLEL_COMMAND},
  cleanup = {drop_tables},
}

function thread_init()
  con = sysbench.sql.driver():connect()
  sel = con:prepare("SELECT pad FROM wild_par1 WHERE id = ?")
  sel_id = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(sel_id)
  upd = con:prepare("UPDATE wild_par1 SET pad = ? WHERE id = ?")
  upd_pad = upd:bind_create(sysbench.sql.type.CHAR, 20)
  upd_id = upd:bind_create(sysbench.sql.type.INT)
  upd:bind_param(upd_pad, upd_id)
end

function event()
  sel_id:set(sysbench.rand.uniform(1, sysbench.opt.rows))
  sel:execute()
  upd_id:set(sysbench.rand.uniform(1, sysbench.opt.rows))
  upd_pad:set_rand_str(sysbench.opt.pad)
  upd:execute()
end
