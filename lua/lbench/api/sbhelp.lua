-- `--help` started as `sysbench`: sysbench 1.0.20's layout and option
-- list, block by block (scripts and sysbench's own test suite read it by
-- its headings and lines), with lbench's further options in a block of
-- their own between the drivers' blocks and the tests.  Every option
-- listed here is one lbench takes.
local M = {}

-- {name, argument, description, default (nil: none shown)}
local GENERAL = {
  { "threads", "=N", "number of threads to use", "1" },
  { "events", "=N", "limit for total number of events", "0" },
  { "time", "=N", "limit for total execution time in seconds", "10" },
  { "forced-shutdown", "=STRING", "number of seconds to wait after the --time limit before forcing shutdown, "
    .. "or 'off' to disable", "off" },
  { "thread-stack-size", "=SIZE", "size of stack per thread", "64K" },
  { "rate", "=N", "average transactions rate. 0 for unlimited rate", "0" },
  { "report-interval", "=N", "periodically report intermediate statistics with a specified interval in seconds. "
    .. "0 disables intermediate reports", "0" },
  { "report-checkpoints", "=[LIST,...]", "dump full statistics and reset all counters at specified points in time. "
    .. "The argument is a list of comma-separated values representing the amount of time in seconds elapsed from "
    .. "start of test when report checkpoint(s) must be performed. Report checkpoints are off by default.", "" },
  { "debug", "[=on|off]", "print more debugging info", "off" },
  { "validate", "[=on|off]", "perform validation checks where possible", "off" },
  { "help", "[=on|off]", "print help and exit", "off" },
  { "version", "[=on|off]", "print version and exit", "off" },
  { "config-file", "=FILENAME", "File containing command line options" },
  { "tx-rate", "=N", "deprecated alias for --rate", "0" },
  { "max-requests", "=N", "deprecated alias for --events", "0" },
  { "max-time", "=N", "deprecated alias for --time", "0" },
  { "num-threads", "=N", "deprecated alias for --threads", "1" },
}

local RAND = {
  { "rand-type", "=STRING", "random numbers distribution {uniform,gaussian,special,pareto}", "special" },
  { "rand-spec-iter", "=N", "number of iterations used for numbers generation", "12" },
  { "rand-spec-pct", "=N", "percentage of values to be treated as 'special' (for special distribution)", "1" },
  { "rand-spec-res", "=N", "percentage of 'special' values to use (for special distribution)", "75" },
  { "rand-seed", "=N", "seed for random number generator. When 0, the current time is used as a RNG seed.", "0" },
  { "rand-pareto-h", "=N", "parameter h for pareto distribution", "0.2" },
}

local LOG = { { "verbosity", "=N", "verbosity level {5 - debug, 0 - only critical messages}", "3" } }

local REPORT = {
  { "percentile", "=N", "percentile to calculate in latency statistics (1-100). Use the special value of 0 to "
    .. "disable percentile calculations", "95" },
  { "histogram", "[=on|off]", "print latency histogram in report", "off" },
}

local DB = {
  { "db-driver", "=STRING", "specifies database driver to use ('help' to get list of available drivers)", "mysql" },
  { "db-ps-mode", "=STRING", "prepared statements usage mode {auto, disable}", "auto" },
  { "db-debug", "[=on|off]", "print database-specific debug information", "off" },
}

local MYSQL = {
  { "mysql-host", "=[LIST,...]", "MySQL server host", "localhost" },
  { "mysql-port", "=[LIST,...]", "MySQL server port", "3306" },
  { "mysql-socket", "=[LIST,...]", "MySQL socket" },
  { "mysql-user", "=STRING", "MySQL user", "sbtest" },
  { "mysql-password", "=STRING", "MySQL password", "" },
  { "mysql-db", "=STRING", "MySQL database name", "sbtest" },
  { "mysql-ssl", "[=on|off]", "use SSL connections, if available in the client library", "off" },
  { "mysql-ssl-cipher", "=STRING", "use specific cipher for SSL connections", "" },
  { "mysql-compression", "[=on|off]", "use compression, if available in the client library", "off" },
  { "mysql-debug", "[=on|off]", "trace all client library calls", "off" },
  { "mysql-ignore-errors", "=[LIST,...]", "list of errors to ignore, or \"all\"", "1213,1020,1205" },
  { "mysql-dry-run", "[=on|off]", "Dry run, pretend that all MySQL client API calls are successful without "
    .. "executing them", "off" },
}

local PGSQL = {
  { "pgsql-host", "=STRING", "PostgreSQL server host", "localhost" },
  { "pgsql-port", "=N", "PostgreSQL server port", "5432" },
  { "pgsql-user", "=STRING", "PostgreSQL user", "sbtest" },
  { "pgsql-password", "=STRING", "PostgreSQL password", "" },
  { "pgsql-db", "=STRING", "PostgreSQL database name", "sbtest" },
}

-- sysbench's built-in tests, which lbench has as stock scenarios.
M.TESTS = {
  { "fileio", "File I/O test" }, { "cpu", "CPU performance test" }, { "memory", "Memory functions speed test" },
  { "threads", "Threads subsystem performance test" }, { "mutex", "Mutex performance test" },
}

-- One block: the names and arguments in a column as wide as the widest
-- plus one, the description, the default in brackets when there is one.
local function block(t, rows)
  local width = 0
  for _, r in ipairs(rows) do width = math.max(width, #r[1] + #r[2] + 2) end
  for _, r in ipairs(rows) do
    local left = "--" .. r[1] .. r[2]
    t[#t + 1] = "  " .. left .. string.rep(" ", width + 1 - #left) .. r[3] .. (r[4] and " [" .. r[4] .. "]" or "")
  end
end

local ARG = { int = "=N", double = "=N", bool = "[=on|off]", size = "=SIZE", list = "=[LIST,...]" }

-- lbench's general options that sysbench's blocks do not list (specs:
-- options.core_specs(); the secret and internal ones left out).
local function lbench_rows(specs)
  local listed = { ["sysbench-compat"] = true, ["pgbench-compat"] = true }
  for _, b in ipairs({ GENERAL, RAND, LOG, REPORT, DB, MYSQL, PGSQL }) do
    for _, r in ipairs(b) do listed[r[1]] = true end
  end
  local rows = {}
  for _, s in ipairs(specs) do
    if not listed[s.name] and not s.secret and not s.name:match("^_") then
      local d = s.default
      if type(d) == "table" then d = table.concat(d, ",") end
      if type(d) == "boolean" then d = d and "on" or "off" end
      local desc = s.desc or ""
      if s.choices then desc = desc .. " {" .. table.concat(s.choices, ", ") .. "}" end
      rows[#rows + 1] = { s.name, ARG[s.type] or "=STRING", desc, d ~= nil and tostring(d) or nil }
    end
  end
  return rows
end

function M.usage(specs)
  local t = { "Usage:", "  sysbench [options]... [testname] [command]", "",
              "Commands implemented by most tests: prepare run cleanup help", "", "General options:" }
  block(t, GENERAL)
  t[#t + 1] = ""
  t[#t + 1] = "Pseudo-Random Numbers Generator options:"
  block(t, RAND)
  t[#t + 1] = ""
  t[#t + 1] = "Log options:"
  block(t, LOG)
  t[#t + 1] = ""
  block(t, REPORT)
  t[#t + 1] = ""
  t[#t + 1] = "General database options:"
  t[#t + 1] = ""
  block(t, DB)
  t[#t + 1] = ""
  t[#t + 1] = ""
  t[#t + 1] = "Compiled-in database drivers:"
  t[#t + 1] = "  mysql - MySQL driver"
  t[#t + 1] = "  pgsql - PostgreSQL driver"
  t[#t + 1] = ""
  t[#t + 1] = "mysql options:"
  block(t, MYSQL)
  t[#t + 1] = ""
  t[#t + 1] = "pgsql options:"
  block(t, PGSQL)
  t[#t + 1] = ""
  -- lbench's own (its null driver among them): sysbench has none of these
  t[#t + 1] = "lbench options (not in sysbench; see 'lbench --help'):"
  block(t, lbench_rows(specs))
  t[#t + 1] = ""
  t[#t + 1] = "Compiled-in tests:"
  for _, e in ipairs(M.TESTS) do t[#t + 1] = "  " .. e[1] .. " - " .. e[2] end
  t[#t + 1] = ""
  t[#t + 1] = "See 'sysbench <testname> help' for a list of options for each test."
  return table.concat(t, "\n") .. "\n\n"
end

return M
