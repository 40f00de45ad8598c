-- A parallel command, as sysbench's oltp scripts declare prepare.
function par() print("par " .. sysbench.tid) end
sysbench.cmdline.commands = { par = { par, sysbench.cmdline.PARALLEL_COMMAND } }
