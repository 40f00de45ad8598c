-- print() of several long arguments (past luaL_Buffer's first block).
function show()
  local a, b = string.rep("a", 5000), string.rep("b", 9000)
  print(a, b, 42, nil, a)
end
lbench.cmdline.commands = { show = { show } }
