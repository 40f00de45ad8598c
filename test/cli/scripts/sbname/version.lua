function event()
  print(sysbench.version .. " " .. sysbench.version_string .. " " .. sysbench.cmdline.argv[0])
end
