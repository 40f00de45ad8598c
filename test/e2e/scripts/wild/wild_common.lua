-- Common code of the with_common.lua script, in a module of its own next
-- to it, as script collections share their helpers: it declares the
-- options and the table, the connection and the prepare/cleanup steps.
sysbench.cmdline.options = {
  table_rows = {"Rows in the table", 50},
  use_trx = {"Wrap each event in a transaction", true},
  label = {"A label stored with each row", "wild"},
  ranges = {"Range sizes to select", {"1", "5"}},
  ratio = {"A ratio", 0.5},
  note = {"A note without a default"},
}

function common_connect()
  drv = sysbench.sql.driver()
  return drv:connect()
end

function common_prepare()
  local con = common_connect()
  con:query("DROP TABLE IF EXISTS wild_common")
  con:query("CREATE TABLE wild_common (id INT PRIMARY KEY, label VARCHAR(32), n INT NOT NULL)")
  for i = 1, sysbench.opt.table_rows do
    con:query(string.format("INSERT INTO wild_common VALUES (%d, '%s', 0)", i, sysbench.opt.label))
  end
end

function common_cleanup()
  common_connect():query("DROP TABLE IF EXISTS wild_common")
end

-- What scripts read from sysbench.opt, with the Lua type of each value.
function common_show_options()
  local o = sysbench.opt
  local names = {"table_rows", "use_trx", "label", "ratio", "note", "threads", "time", "events",
                 "report_interval", "percentile", "histogram", "rand_type", "rand_seed", "mysql_user",
                 "mysql_db", "db_driver", "mysql_ignore_errors", "mysql_host", "mysql_port"}
  for _, name in ipairs(names) do
    local v = o[name]
    if type(v) == "table" then v = "{" .. table.concat(v, ",") .. "}" end
    print(string.format("%s %s %s", name, type(o[name]), tostring(v)))
  end
  print("ranges " .. type(o.ranges) .. " " .. #o.ranges .. " " .. o.ranges[#o.ranges])
  print("command " .. tostring(sysbench.cmdline.command))
  local args = {}
  for i = 1, #sysbench.cmdline.argv do args[#args + 1] = sysbench.cmdline.argv[i] end
  print("argv " .. table.concat(args, " "))
end
