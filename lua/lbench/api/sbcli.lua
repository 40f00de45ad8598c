-- sysbench 1.0.20's command line beyond lbench's own: the options that
-- sysbench 0.5 users still type (--test, --max-requests, --max-time,
-- --num-threads, --tx-rate) with the warnings sysbench prints for them, and
-- what is known of the name the program was started under.
local M = {}

-- Aliases and their targets, in the order sysbench checks them (its
-- warnings come in this order).  sysbench warns, and copies the value,
-- only for a value above the alias's default (num-threads 1, the others 0).
local aliases = {
  { "num-threads", "threads", 1 },
  { "max-requests", "events", 0 },
  { "max-time", "time", 0 },
  { "tx-rate", "rate", 0 },
}

-- Rewrite raw options (name -> raw value, from options.parse_argv) and the
-- positional arguments in place.  Returns two lists of lines: for standard
-- error (sysbench writes --test's warning there, before its log is set up)
-- and for the output (its log's warnings).  An alias given with a value that
-- is not a number is left to the target's own check.
function M.translate(raw, pos)
  local err, out = {}, {}
  local test = raw.test
  if test ~= nil then
    raw.test = nil
    err[#err + 1] = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line "
      .. "without any options."
    -- sysbench takes --test's value as the test and every positional
    -- argument as the command.
    if type(test) == "string" and test ~= "" then table.insert(pos, 1, test) end
  end
  for _, a in ipairs(aliases) do
    local v = raw[a[1]]
    if v ~= nil then
      raw[a[1]] = nil
      local n = tonumber(v)
      if n == nil or n > a[3] then
        out[#out + 1] = string.format("WARNING: --%s is deprecated, use --%s instead", a[1], a[2])
        raw[a[2]] = v
      end
    end
  end
  return err, out
end

-- What a script or a parser checking for sysbench 1.0 reads.
M.VERSION = "1.0.20"
M.VERSION_STRING = "sysbench " .. M.VERSION

-- sysbench's first line: its version and the LuaJIT it runs on (lbench
-- runs on the system's LuaJIT, as Debian's sysbench does).
function M.banner()
  return string.format("%s (using system %s)", M.VERSION_STRING, jit and jit.version or "LuaJIT")
end

-- A boolean option's raw value (true, "on", "1", ...) read as sysbench does.
function M.flag(v)
  return v == true or v == "on" or v == "true" or v == "yes" or v == "1"
end

-- Started as `sysbench` (a symlink to lbench): print what sysbench 1.0.20
-- prints.  argv0 is the name the program was started under.
function M.is_sysbench_name(argv0)
  return type(argv0) == "string" and argv0:match("([^/]*)$") == "sysbench"
end

return M
