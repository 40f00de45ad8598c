-- Evaluates a Lua expression over a decoded JSON file; used by the shell
-- tests (no jq or python needed on a fresh machine).  A result document
-- (one with lbench_version) is first checked against the schema
-- (result.validate), so every document the suite looks at is validated.
lbench.cmdline.options = { file = { "JSON file" }, expr = { "Lua expression over r" } }
function check()
  local json = require("lbench.json")
  local util = require("lbench.util")
  local src = assert(util.read_file(lbench.opt.file), "cannot read " .. tostring(lbench.opt.file))
  local r = json.decode(src)
  if type(r) == "table" and r.lbench_version ~= nil then
    local ok, why = require("lbench.result.document").validate(r)
    if not ok then error("not a valid result document: " .. tostring(why), 0) end
  end
  local f = assert(loadstring("local r = ...; return " .. lbench.opt.expr))
  local ok, v = pcall(f, r)
  if not ok or not v then
    error("assertion failed: " .. lbench.opt.expr .. (ok and "" or (" (" .. tostring(v) .. ")")), 0)
  end
end
lbench.cmdline.commands = { check = { check } }
