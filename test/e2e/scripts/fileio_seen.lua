-- The fileio scenario, with a record of its set as it is on disk when a
-- run starts: the sum of the sizes of the test files in --target-dir is
-- appended to --seen, so that what a sweep with --prepare-each recorded
-- for each point can be checked against what was really there.
assert(loadfile("scenarios/fileio.lua"))()
lbench.cmdline.options.seen = { "file the set's size on disk is appended to", "" }
local fileio_init = init
function init()
  local opt = lbench.opt
  -- Precondition's rounds are runs too; only the measured point counts.
  if lbench.cmdline.command ~= "run" then return fileio_init() end
  local p = assert(io.popen("stat -c %s '" .. opt.target_dir .. "'/test_file.* 2>/dev/null"))
  local bytes = 0
  for line in p:lines() do bytes = bytes + tonumber(line) end
  p:close()
  local f = assert(io.open(opt.seen, "a"))
  f:write(string.format("%.0f\n", bytes))
  f:close()
  return fileio_init()
end
