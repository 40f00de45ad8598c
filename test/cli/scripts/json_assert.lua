-- Evaluates a Lua expression over a decoded JSON file; used by the shell
-- tests (no jq or python needed on a fresh machine).
lbench.cmdline.options = { file = { "JSON file" }, expr = { "Lua expression over r" } }
function check()
  local json = require("lbench.json")
  local util = require("lbench.util")
  local src = assert(util.read_file(lbench.opt.file), "cannot read " .. tostring(lbench.opt.file))
  local r = json.decode(src)
  local f = assert(loadstring("local r = ...; return " .. lbench.opt.expr))
  local ok, v = pcall(f, r)
  if not ok or not v then
    error("assertion failed: " .. lbench.opt.expr .. (ok and "" or (" (" .. tostring(v) .. ")")), 0)
  end
end
lbench.cmdline.commands = { check = { check } }
