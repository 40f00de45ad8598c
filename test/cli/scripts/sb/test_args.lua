-- Options declared through sysbench's C call, as sysbench's
-- read_cmdline_options does (a script that builds its own declarations).
local args = ffi.new("sb_arg_t[3]")
local keep = { "batch", "Rows per batch", "25", "mode", "Load mode", "fast", "hosts", "Hosts", "a,b" }
args[0].name, args[0].desc, args[0].value, args[0].type = keep[1], keep[2], keep[3], ffi.C.SB_ARG_TYPE_INT
args[1].name, args[1].desc, args[1].value, args[1].type = keep[4], keep[5], keep[6], ffi.C.SB_ARG_TYPE_STRING
args[2].name, args[2].desc, args[2].value, args[2].type = keep[7], keep[8], keep[9], ffi.C.SB_ARG_TYPE_LIST
assert(ffi.C.sb_lua_set_test_args(args, 3) == 0)

sysbench.cmdline.commands = {
  show = {function()
    print(string.format("batch=%s(%s) mode=%s hosts=%s", tostring(sysbench.opt.batch), type(sysbench.opt.batch),
      sysbench.opt.mode, table.concat(sysbench.opt.hosts, "+")))
  end},
}
function event() end
