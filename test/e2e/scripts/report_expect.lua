-- Prints the value of a Lua expression over decoded JSON files, so that the
-- report suite can compare a page's figures with the result files they came
-- from:  lbench test/e2e/scripts/report_expect.lua eval --files=a.json,b.json
--   --expr='fmt_ratio(r[2].totals.events_per_sec / r[1].totals.events_per_sec)'
-- `r` is the list of documents; fmt.lua's num, ratio_text and pct are in
-- scope as fmt, fmt_ratio and fmt_pct (the page formats its figures with them).
lbench.cmdline.options = { files = { "JSON files, comma-separated" }, expr = { "Lua expression over r" } }
function eval()
  local json = require("lbench.json")
  local util = require("lbench.util")
  local fmt = require("lbench.fmt")
  local r = {}
  for _, f in ipairs(util.split(lbench.opt.files, ",")) do
    r[#r + 1] = json.decode(assert(util.read_file(f), "cannot read " .. f))
  end
  local env = { r = r, fmt = fmt.num, fmt_ratio = fmt.ratio_text, fmt_pct = fmt.pct, math = math, string = string,
                tostring = tostring, ipairs = ipairs, type = type }
  local f = assert(loadstring("return " .. lbench.opt.expr))
  setfenv(f, env)
  print(tostring(f()))
end
lbench.cmdline.commands = { eval = { eval } }
