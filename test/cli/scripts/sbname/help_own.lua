sysbench.cmdline.options = { rows = { "rows", 10 } }
function help() print("own help") end
function event() end
