-- pgbench 15's command line, for lbench started under the name `pgbench`
-- (or with --pgbench-compat): `pgbench [OPTION]... [DBNAME]` read as
-- pgbench's getopt_long reads it (short options bundled or with their
-- value attached, long ones by a unique prefix, options after DBNAME), the
-- values checked with pgbench's words, and the whole turned into the
-- command line of lbench's pgbench scenario (`pgbench ... run` or
-- `prepare`).  -V, --help and `-b list` are answered here.
--
-- The connection is a libpq connection string of what was given (-h -p -U
-- DBNAME): libpq fills in the rest from PGHOST, PGPORT, PGUSER,
-- PGDATABASE, PGPASSWORD and ~/.pgpass, as it does for pgbench.
local M = {}

M.VERSION = "15"

-- The status a failed run asks to exit with instead of 1, set by the
-- scenario before it raises its error: 2 when clients aborted, as pgbench.
M.exit_status = nil

-- name -> { key, takes a value }.  The key is the short option's letter,
-- or the long name for those without one.
local LONG = {
  builtin = { "b", true }, client = { "c", true }, connect = { "C", false }, debug = { "d", false },
  define = { "D", true }, file = { "f", true }, fillfactor = { "F", true }, host = { "h", true },
  initialize = { "i", false }, ["init-steps"] = { "I", true }, jobs = { "j", true }, log = { "l", false },
  ["latency-limit"] = { "L", true }, ["no-vacuum"] = { "n", false }, port = { "p", true },
  progress = { "P", true }, protocol = { "M", true }, quiet = { "q", false },
  ["report-per-command"] = { "r", false }, rate = { "R", true }, scale = { "s", true },
  ["select-only"] = { "S", false }, ["skip-some-updates"] = { "N", false }, time = { "T", true },
  transactions = { "t", true }, username = { "U", true }, ["vacuum-all"] = { "v", false },
}
for _, n in ipairs({ "tablespace", "index-tablespace", "sampling-rate", "aggregate-interval", "log-prefix",
                     "random-seed", "show-script", "partitions", "partition-method", "max-tries" }) do
  LONG[n] = { n, true }
end
for _, n in ipairs({ "unlogged-tables", "progress-timestamp", "foreign-keys", "failures-detailed",
                     "verbose-errors" }) do
  LONG[n] = { n, false }
end

-- Short options; ':' after a letter: it takes a value.
local SHORT = "iI:h:nvp:dqb:SNc:j:Crs:t:T:U:lf:D:F:M:P:R:L:"

-- The three built-in scripts, as `-b list` shows them.
M.BUILTINS = {
  { "tpcb-like", "<builtin: TPC-B (sort of)>" },
  { "simple-update", "<builtin: simple update>" },
  { "select-only", "<builtin: select only>" },
}

local function builtin_list()
  local t = { "Available builtin scripts:" }
  for _, b in ipairs(M.BUILTINS) do t[#t + 1] = string.format("  %13s: %s", b[1], b[2]) end
  return table.concat(t, "\n") .. "\n\n"
end

-- The built-in script named by `name` or a unique prefix of it.
local function find_builtin(name)
  local found = {}
  for _, b in ipairs(M.BUILTINS) do
    if b[1] == name then return b[1] end
    if b[1]:sub(1, #name) == name then found[#found + 1] = b[1] end
  end
  if #found == 1 then return found[1] end
  if #found == 0 then return nil, string.format("no builtin script found for name \"%s\"", name) end
  return nil, string.format("ambiguous builtin name: %d builtin scripts found for prefix \"%s\"", #found, name)
end

-- A usage error: pgbench's line, its hint, exit status 1.
local function usage_error(msg, hint)
  local e = "pgbench: error: " .. msg .. "\n"
  if hint ~= false then e = e .. "pgbench: hint: Try \"pgbench --help\" for more information.\n" end
  return { status = 1, stderr = e }
end

-- getopt_long over `args`: a list of { key, value } in order and the
-- operands, or nil and the error.
local function getopt(args)
  local got, operands = {}, {}
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--" then
      for k = i + 1, #args do operands[#operands + 1] = args[k] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, value = a:match("^%-%-([^=]*)=(.*)$")
      name = name or a:sub(3)
      local spec = LONG[name]
      if not spec then
        local cands = {}
        for n in pairs(LONG) do if n:sub(1, #name) == name then cands[#cands + 1] = n end end
        if #cands > 1 then return nil, string.format("option '--%s' is ambiguous", name) end
        spec, name = LONG[cands[1] or ""], cands[1] or name
      end
      if not spec then return nil, string.format("unrecognized option '%s'", a:match("^[^=]*")) end
      if spec[2] and value == nil then
        i = i + 1
        value = args[i]
        if value == nil then return nil, string.format("option '--%s' requires an argument", name) end
      elseif not spec[2] and value ~= nil then
        return nil, string.format("option '--%s' doesn't allow an argument", name)
      end
      got[#got + 1] = { spec[1], value }
    elseif a:sub(1, 1) == "-" and #a > 1 then
      local k = 2
      while k <= #a do
        local c = a:sub(k, k)
        local at = SHORT:find(c, 1, true)
        if not at or c == ":" then return nil, string.format("invalid option -- '%s'", c) end
        if SHORT:sub(at + 1, at + 1) == ":" then
          local value = a:sub(k + 1)
          if value == "" then
            i = i + 1
            value = args[i]
            if value == nil then return nil, string.format("option requires an argument -- '%s'", c) end
          end
          got[#got + 1] = { c, value }
          break
        end
        got[#got + 1] = { c, nil }
        k = k + 1
      end
    else
      operands[#operands + 1] = a
    end
    i = i + 1
  end
  return got, operands
end

-- pgbench's integer options: a whole number within [lo, hi], else its words.
local function int_in(v, what, lo, hi)
  local n = tonumber(v)
  if not v:match("^%s*[-+]?%d+%s*$") or not n then
    return nil, string.format("invalid value \"%s\" for option %s", v, what)
  end
  if n < lo or n > hi then return nil, string.format("%s must be in range %d..%d", what, lo, hi) end
  return n
end

local INT_MAX = 2147483647
local INTS = {
  c = { "-c/--clients", 1 }, j = { "-j/--jobs", 1 }, s = { "-s/--scale", 1 }, t = { "-t/--transactions", 1 },
  T = { "-T/--time", 1 }, P = { "-P/--progress", 1 }, F = { "-F/--fillfactor", 10, 100 },
  partitions = { "--partitions", 0 }, ["aggregate-interval"] = { "--aggregate-interval", 1 },
}

-- The weight after the last '@' of a -b or -f value: nil, or pgbench's
-- refusal of it (checked here so that the line is pgbench's own, before
-- any script is looked at).
local function weight_error(v)
  local w = v:match("@([^@]*)$")
  if not w then return nil end
  if not w:match("^-?%d+$") then return string.format("invalid weight specification: @%s", w) end
  local n = tonumber(w)
  if n < 0 or n > INT_MAX then return string.format("weight specification out of range (0 .. %d): %s", INT_MAX, w) end
  return nil
end

-- The option values of a command line: o (key -> value, the last one),
-- lists for the repeatable ones (and the scripts in their order), or nil
-- and a usage error.
local function collect(got)
  local o, files, builtins, defines, scripts = {}, {}, {}, {}, {}
  for _, g in ipairs(got) do
    local k, v = g[1], g[2]
    if INTS[k] then
      local n, why = int_in(v, INTS[k][1], INTS[k][2], INTS[k][3] or INT_MAX)
      if not n then return nil, usage_error(why, false) end
      v = n
    end
    local werr = (k == "b" or k == "f") and weight_error(v)
    if werr then return nil, usage_error(werr, false) end
    if k == "f" then
      files[#files + 1] = v
      scripts[#scripts + 1] = "--file=" .. v
    elseif k == "b" or k == "S" or k == "N" then
      local name, w = (v or ""):match("^([^@]*)(.*)$")
      if k == "S" then name, w = "select-only", "" elseif k == "N" then name, w = "simple-update", "" end
      if name == "list" then return nil, { status = 0, stderr = builtin_list() } end
      local b, why = find_builtin(name)
      if not b then return nil, { status = 1, stderr = "pgbench: error: " .. why .. "\n" .. builtin_list() } end
      builtins[#builtins + 1] = b .. w
      scripts[#scripts + 1] = "--builtin=" .. b .. w
    elseif k == "D" then
      if not v:match("^[^=]+=") then
        return nil, usage_error(string.format("invalid variable definition: \"%s\"", v), false)
      end
      defines[#defines + 1] = v
    elseif k == "M" and v ~= "simple" and v ~= "extended" and v ~= "prepared" then
      return nil, usage_error(string.format("invalid query mode (-M): \"%s\"", v), false)
    elseif k == "R" and (not tonumber(v) or tonumber(v) <= 0) then
      return nil, usage_error(string.format("invalid rate limit: \"%s\"", v), false)
    elseif k == "L" and (not tonumber(v) or tonumber(v) <= 0) then
      return nil, usage_error(string.format("invalid latency limit: \"%s\"", v), false)
    elseif k == "sampling-rate" and (not tonumber(v) or tonumber(v) <= 0 or tonumber(v) > 1) then
      return nil, usage_error(string.format("invalid sampling rate: \"%s\"", v), false)
    elseif k == "max-tries" and not (v or ""):match("^%d+$") then
      return nil, usage_error(string.format("invalid number of maximum tries: \"%s\"", tostring(v)), false)
    elseif k == "partition-method" and v:lower() ~= "range" and v:lower() ~= "hash" then
      return nil, usage_error(string.format("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"",
        v), false)
    elseif k == "random-seed" and v ~= "time" and v ~= "rand" and not v:match("^%d+$") then
      -- pgbench's three lines of this refusal, as one
      return nil, usage_error(string.format("error while setting random seed from --random-seed option: "
        .. "unrecognized random seed option \"%s\" (Expecting an unsigned integer, \"time\" or \"rand\")", v), false)
    elseif k == "I" then
      local bad = v:match("[^dtgGvpf ]")
      if bad then
        return nil, { status = 1, stderr = string.format("pgbench: error: unrecognized initialization step \"%s\"\n"
          .. "pgbench: detail: Allowed step characters are: \"dtgGvpf\".\n", bad) }
      end
    end
    o[k] = v == nil and true or v
  end
  if #files + #builtins > 128 then return nil, usage_error("at most 128 SQL scripts are allowed", false) end
  return { o = o, files = files, builtins = builtins, defines = defines, scripts = scripts }
end

-- libpq's connection string of what the command line gave.
local function conninfo(o, dbname)
  local parts = { "fallback_application_name='pgbench'" }
  local function add(k, v)
    if v then parts[#parts + 1] = k .. "='" .. tostring(v):gsub("\\", "\\\\"):gsub("'", "\\'") .. "'" end
  end
  add("host", o.h)
  add("port", o.p)
  add("user", o.U)
  add("dbname", dbname)
  return table.concat(parts, " ")
end

-- Options of the initialization mode, and those of benchmarking.
local INIT_ONLY = { "I", "F", "q", "unlogged-tables", "foreign-keys", "partitions", "partition-method", "tablespace",
                    "index-tablespace" }
local BENCH_ONLY = { "c", "j", "T", "t", "f", "b", "S", "N", "M", "D", "P", "R", "L", "l", "r", "C", "sampling-rate",
                     "aggregate-interval", "log-prefix", "max-tries", "failures-detailed", "verbose-errors", "v",
                     "progress-timestamp" }

local function any(o, list)
  for _, k in ipairs(list) do if o[k] ~= nil then return true end end
  return false
end

-- lbench's arguments for `pgbench -i ...`.
local function init_args(c, a)
  local o = c.o
  if any(o, BENCH_ONLY) or #c.files > 0 or #c.builtins > 0 or #c.defines > 0 then
    return nil, usage_error("some of the specified options cannot be used in initialization (-i) mode", false)
  end
  if o["partition-method"] and (o.partitions or 0) == 0 then
    return nil, usage_error("--partition-method requires greater than zero --partitions", false)
  end
  local steps = o.I or "dtgvp"
  steps = steps:gsub(" ", "")
  if o.n then steps = steps:gsub("v", "") end
  if o["foreign-keys"] and not steps:find("f", 1, true) then steps = steps .. "f" end
  a[#a + 1] = "--init-steps=" .. steps
  if o.s then a[#a + 1] = "--scale=" .. o.s end
  if o.F then a[#a + 1] = "--fillfactor=" .. o.F end
  if o["unlogged-tables"] then a[#a + 1] = "--unlogged-tables=on" end
  if o["partition-method"] and (o.partitions or 0) == 0 then
    return nil, usage_error("--partition-method requires greater than zero --partitions", false)
  end
  if (o.partitions or 0) > 0 then
    a[#a + 1] = "--partitions=" .. o.partitions
    a[#a + 1] = "--partition-method=" .. (o["partition-method"] or "range"):lower()
  end
  if o.tablespace then a[#a + 1] = "--tablespace=" .. o.tablespace end
  if o["index-tablespace"] then a[#a + 1] = "--index-tablespace=" .. o["index-tablespace"] end
  if o.q then a[#a + 1] = "--init-quiet=on" end
  a[#a + 1] = "prepare"
  return a
end

-- lbench's arguments for a benchmarking run.
local function run_args(c, a)
  local o = c.o
  if any(o, INIT_ONLY) then
    return nil, usage_error("some of the specified options cannot be used in benchmarking mode", false)
  end
  if o.t and o.T then
    return nil, usage_error("specify either a number of transactions (-t) or a duration (-T), not both", false)
  end
  if o["progress-timestamp"] and not o.P then
    return nil, usage_error("--progress-timestamp is allowed only under --progress", false)
  end
  if o["max-tries"] and tonumber(o["max-tries"]) == 0 and not o.L and not o.T then
    return nil, usage_error("an unlimited number of transaction tries can only be used with --latency-limit or a "
      .. "duration (-T)", false)
  end
  local clients = o.c or 1
  local threads = math.min(o.j or 1, clients)
  a[#a + 1] = "--threads=" .. threads
  if clients > threads then a[#a + 1] = "--connections=" .. clients end
  if o.T then
    a[#a + 1] = "--time=" .. o.T
  else
    a[#a + 1] = "--time=0"
    a[#a + 1] = "--events=" .. (o.t or 10) * clients
    a[#a + 1] = "--pgbench-per-client=" .. (o.t or 10)
  end
  -- pgbench numbers the scripts in the command line's order: with a file,
  -- each in its place (the script language reads them in order); built-ins
  -- alone as one list.
  if #c.files > 0 then
    for _, s in ipairs(c.scripts) do a[#a + 1] = s end
  elseif #c.builtins > 0 then
    a[#a + 1] = "--builtin=" .. table.concat(c.builtins, ",")
  end
  for _, d in ipairs(c.defines) do a[#a + 1] = "--define=" .. d end
  local map = { M = "protocol", s = "scale", P = "report-interval", R = "rate", ["random-seed"] = "random-seed",
                ["sampling-rate"] = "sampling-rate", ["aggregate-interval"] = "aggregate-interval",
                ["log-prefix"] = "log-prefix" }
  for _, k in ipairs({ "M", "s", "P", "R", "random-seed", "sampling-rate", "aggregate-interval", "log-prefix" }) do
    if o[k] ~= nil then a[#a + 1] = "--" .. map[k] .. "=" .. tostring(o[k]) end
  end
  if not o.M then a[#a + 1] = "--protocol=simple" end
  if o.R then a[#a + 1] = "--rate-mode=poisson" end
  if o.l then a[#a + 1] = "--log=on" end
  if o.r then a[#a + 1] = "--report-per-command=on" end
  if o.C then a[#a + 1] = "--connect-per-transaction=on" end
  if o.L then a[#a + 1] = "--latency-limit=" .. o.L end
  if o["max-tries"] then a[#a + 1] = "--max-tries=" .. o["max-tries"] end
  if o["failures-detailed"] then a[#a + 1] = "--failures-detailed=on" end
  if o["verbose-errors"] then a[#a + 1] = "--verbose-errors=on" end
  if o.d then a[#a + 1] = "--pgbench-debug=on" end
  if o.n then a[#a + 1] = "--vacuum=off" end
  if o.v then a[#a + 1] = "--vacuum-all=on" end
  if o["progress-timestamp"] then a[#a + 1] = "--progress-timestamp=on" end
  a[#a + 1] = "run"
  return a
end

-- --help in pgbench's layout (its usage line, its headings, one option a
-- line with the short and long forms in one column), in lbench's words.
local HELP = {
  "pgbench (lbench) is a benchmarking tool for PostgreSQL: pgbench's benchmark on lbench's engine.",
  "",
  "Usage:",
  "  pgbench [OPTION]... [DBNAME]",
  "",
  "Initialization options:",
  "  -i, --initialize         initialize: create and load the pgbench tables",
  "  -I, --init-steps=[dtgGvpf]+ (default \"dtgvp\")",
  "                           the initialization steps to run, in order",
  "  -F, --fillfactor=NUM     fillfactor of the accounts, tellers and branches tables",
  "  -n, --no-vacuum          leave out the vacuum step",
  "  -q, --quiet              fewer progress messages while loading",
  "  -s, --scale=NUM          scale factor",
  "  --foreign-keys           add the foreign keys between the tables",
  "  --index-tablespace=TABLESPACE",
  "                           create the primary keys' indexes in this tablespace",
  "  --partition-method=(range|hash)",
  "                           partition pgbench_accounts with this method (default: range)",
  "  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)",
  "  --tablespace=TABLESPACE  create the tables in this tablespace",
  "  --unlogged-tables        create the tables UNLOGGED",
  "",
  "Options to select what to run:",
  "  -b, --builtin=NAME[@W]   add the built-in script NAME with weight W (default: 1)",
  "                           (use \"-b list\" to list the built-in scripts)",
  "  -f, --file=FILENAME[@W]  add the script FILENAME with weight W (default: 1)",
  "  -N, --skip-some-updates  same as \"-b simple-update\"",
  "  -S, --select-only        same as \"-b select-only\"",
  "",
  "Benchmarking options:",
  "  -c, --client=NUM         number of clients, each with its connection (default: 1)",
  "  -C, --connect            a new connection for each transaction",
  "  -D, --define=VARNAME=VALUE",
  "                           set a variable of the scripts",
  "  -j, --jobs=NUM           number of threads (default: 1)",
  "  -l, --log                write each transaction to a log file",
  "  -M, --protocol=simple|extended|prepared",
  "                           how statements are sent (default: simple)",
  "  -n, --no-vacuum          do not vacuum the tables before the run",
  "  -v, --vacuum-all         also vacuum pgbench_accounts before the run",
  "  -P, --progress=NUM       print a progress line every NUM seconds",
  "  --progress-timestamp     progress lines with the Unix time in place of the elapsed time",
  "  -r, --report-per-command report the latencies of each command of the scripts",
  "  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late",
  "  -R, --rate=NUM           target rate in transactions per second",
  "  -s, --scale=NUM          the scale in the output (the tables' own scale is used)",
  "  -t, --transactions=NUM   transactions each client runs (default: 10)",
  "  -T, --time=NUM           run for NUM seconds",
  "  --aggregate-interval=NUM one log line per NUM seconds",
  "  --log-prefix=PREFIX      prefix of the log files' names (default: \"pgbench_log\")",
  "  --failures-detailed      split the failures into serialization and deadlock failures",
  "  --verbose-errors         a line for each serialization failure or deadlock, and what follows it",
  "  --max-tries=NUM          tries of a transaction that meets a serialization failure or a deadlock",
  "                           (default: 1; 0: unlimited, with -T or -L)",
  "  --random-seed=SEED       seed of the random numbers (\"time\", \"rand\" or an integer)",
  "  --sampling-rate=NUM      fraction of the transactions to log",
  "  --show-script=NAME       print the built-in script NAME, then exit",
  "",
  "Common options:",
  "  -d, --debug              print debugging output (each client's scripts, statements and meta-commands)",
  "  -h, --host=HOSTNAME      server host or socket directory",
  "  -p, --port=PORT          server port",
  "  -U, --username=USERNAME  user name",
  "  -V, --version            print the version, then exit",
  "  -?, --help               print this help, then exit",
  "",
  "Connection defaults come from PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSWORD, as for libpq.",
  "",
  "Report bugs to lbench's maintainers, with the command line and `pgbench -V`'s output.",
}
M.HELP = table.concat(HELP, "\n") .. "\n"

-- `args`: pgbench's command line (without the program's name).  Returns
-- either { args = lbench's command line } or { status, stdout, stderr }
-- for what is answered here (-V, --help, -b list, a usage error).
function M.translate(args, lbench_version)
  if args[1] == "-V" or args[1] == "--version" then
    return { status = 0, stdout = "pgbench (PostgreSQL) " .. M.VERSION .. " (" .. lbench_version .. ")\n" }
  end
  if args[1] == "-?" or args[1] == "--help" then return { status = 0, stdout = M.HELP } end
  local got, operands = getopt(args)
  if not got then
    return { status = 1, stderr = "pgbench: " .. operands .. "\npgbench: hint: Try \"pgbench --help\" for more "
      .. "information.\n" }
  end
  local c, err = collect(got)
  if not c then return err end
  if #operands > 1 then
    return usage_error(string.format("too many command-line arguments (first is \"%s\")", operands[2]))
  end
  local o = c.o
  local a = { "pgbench", "--pgbench-compat=on", "--db-driver=pgsql", "--pgsql-conninfo=" .. conninfo(o, operands[1]),
              "--pgsql-application-name=pgbench", "--server-stats=off" }
  if o["show-script"] then
    local b, why = find_builtin(o["show-script"])
    if not b then return { status = 1, stderr = "pgbench: error: " .. why .. "\n" .. builtin_list() } end
    a[#a + 1] = "--builtin=" .. b
    a[#a + 1] = "show-script"
    return { args = a }
  end
  local r, e
  if o.i then r, e = init_args(c, a) else r, e = run_args(c, a) end
  return r and { args = r } or e
end

return M
