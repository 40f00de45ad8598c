-- Options of every kind, some without a default; init() prints how they read.
sysbench.cmdline.options = {
  str_a = { "a string" },
  str_b = { "another string", "b" },
  flag_a = { "a flag", false },
  flag_b = { "a flag without a default", nil, sysbench.cmdline.ARG_BOOL },
  count = { "a count without a default", nil, sysbench.cmdline.ARG_INT },
  ratio = { "a ratio", 0.5 },
  names = { "a list", { "x", "y" } },
}
function prepare()
  local o = sysbench.opt
  print(string.format("[%s] [%s] %s %s %s %s %s", o.str_a, o.str_b, tostring(o.flag_a), tostring(o.flag_b),
    tostring(o.count), tostring(o.ratio), table.concat(o.names, "+")))
end
