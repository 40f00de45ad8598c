-- A script's own LOAD DATA LOCAL INFILE: lbench serves local-infile data
-- only to its bulk loads, so a server can never make it read a file.
local function probe()
  local con = lbench.sql.driver():connect()
  con:query("CREATE TABLE IF NOT EXISTS infile_probe (line TEXT)")
  local ok, e = pcall(function()
    con:query("LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE infile_probe")
  end)
  local n = con:query_row("SELECT COUNT(*) FROM infile_probe")
  con:query("DROP TABLE infile_probe")
  print(string.format("loaded=%s rows=%s error=%s", tostring(ok), n, tostring(type(e) == "table" and (e.message or e.msg or e.errmsg) or e)))
end

lbench.cmdline.commands = { probe = { probe } }
