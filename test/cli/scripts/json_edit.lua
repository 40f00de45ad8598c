-- Rewrites a JSON file through Lua statements over its decoded value `r`
-- (the shell tests make result documents with chosen figures this way: no
-- jq or python needed on a fresh machine).
lbench.cmdline.options = { file = { "JSON file" }, out = { "file to write" }, expr = { "Lua statements over r" } }
function edit()
  local json = require("lbench.json")
  local util = require("lbench.util")
  local src = assert(util.read_file(lbench.opt.file), "cannot read " .. tostring(lbench.opt.file))
  local r = json.decode(src)
  local f = assert(loadstring("local r = ...; " .. lbench.opt.expr))
  f(r)
  local out = assert(io.open(lbench.opt.out, "wb"))
  out:write(json.encode(r, "  "), "\n")
  out:close()
end
lbench.cmdline.commands = { edit = { edit } }
