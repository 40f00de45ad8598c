-- A script with options of each type, a custom command and a parallel one.
lbench.cmdline.options = {
  rows = { "Number of rows", 100 },
  ratio = { "A ratio", 0.5 },
  name = { "A name", "abc" },
  flag = { "A flag", false },
  block = { "Block size", 4096, lbench.cmdline.ARG_SIZE },
  items = { "A list", { "a", "b" } },
}
local helper = require("helper")
function show()
  print(string.format("rows=%d ratio=%g name=%s flag=%s block=%d items=%s helper=%s", lbench.opt.rows,
    lbench.opt.ratio, lbench.opt.name, tostring(lbench.opt.flag), lbench.opt.block,
    table.concat(lbench.opt.items, "+"), helper.answer()))
end
function par()
  print("worker " .. lbench.tid .. " of " .. lbench.opt.threads)
end
lbench.cmdline.commands = { show = { show }, par = { par, lbench.cmdline.PARALLEL_COMMAND } }
function event() end
