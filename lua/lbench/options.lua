-- Option declarations, parsing and validation.
--
-- Options are typed (bool, int, double, size, string, list, enum), declared
-- in one place per module (the core's here, a scenario's in
-- lbench.cmdline.options), parsed once, and carried as plain Lua values in
-- lbench.opt.  Names are written with dashes on the command line
-- (--table-size) and read with underscores in Lua (lbench.opt.table_size),
-- as in sysbench.
local C = require("lbench.ffi").C
local util = require("lbench.util")
local cpu = require("lbench.cpu")
local phases = require("lbench.phases")
local nodeexp = require("lbench.nodeexp")

local M = {}

-- The core's options: {name, type, default, description[, choices]}, with
-- optional bounds checked at parse time (see convert): min, max,
-- nonzero_min (0 means off, other values at least this), item (the type of
-- a list's entries), check (a function for what bounds cannot say).
--
-- Thread and connection counts are capped: each thread is an OS thread with
-- its own Lua state and each virtual user a connection, so beyond these
-- limits a run only exhausts memory or file descriptors.
local MAX_THREADS, MAX_CONNECTIONS = 10000, 1000000
local function check_cpus(s) return cpu.check_list(s) end
local function check_driver(name)
  if C.lb_db_driver_find(name) == nil then return nil, "unknown driver (available: mysql, pgsql, null)" end
  return name
end
-- MySQL error numbers, PostgreSQL SQLSTATEs (five digits or capital
-- letters) and SQLSTATE classes with a wildcard ("40*").
local function check_error_codes(list)
  for i, c in ipairs(list) do
    local u = c:upper()
    if c ~= "all" and c ~= "none" and not c:match("^%d+$") and not u:match("^[%dA-Z][%dA-Z][%dA-Z][%dA-Z][%dA-Z]$")
       and not u:match("^[%dA-Z][%dA-Z]?[%dA-Z]?[%dA-Z]?%*$") then
      return nil, string.format("'%s' is not an error code (expected MySQL error numbers, SQLSTATEs such as 40P01, "
        .. "classes such as 40*, 'all' or 'none')", c)
    end
    if c ~= "all" and c ~= "none" then list[i] = u end
  end
  return list
end

-- Each --node-exporter entry an http:// URL the fetch takes.
local function check_urls(list)
  for _, u in ipairs(list) do
    local ok, why = nodeexp.check_url(u)
    if not ok then return nil, why .. " (expected http://HOST:PORT/metrics)" end
  end
  return list
end

-- The longest --time and --warmup-time: the run's instants are int64
-- nanoseconds of the monotonic clock (up to 9.2e18, about 292 years), and
-- the deadline is the start plus both; 4e9 s (about 126 years) each keeps
-- their sum with the clock's own value within that range.
local TIME_MAX = 4e9
M.TIME_MAX = TIME_MAX

-- --rate's value goes in as a number or a schedule (phases.lua).
local function store_rate(into, v, r, raw) phases.store(into, v, r, raw, TIME_MAX) end

M.core = {
  { "threads", "int", 1, "number of worker threads", min = 1, max = MAX_THREADS },
  { "connections", "int", 0, "virtual users (each with its own connection and script instance) over all threads; "
    .. "at least --threads switches to async mode: every thread runs an event loop serving connections/threads users "
    .. "(0: thread mode, one per thread)", min = 0, max = MAX_CONNECTIONS },
  { "connect-concurrency", "int", 64, "virtual users opening their connection at once in async mode (the others "
    .. "wait their turn, so that the server's listen backlog is not overrun)", min = 1 },
  { "time", "double", 10, "limit for total execution time in seconds (0: no limit)", min = 0, max = TIME_MAX },
  { "events", "int", 0, "limit for the total number of events (0: no limit)", min = 0 },
  { "rate", "rate", 0, "target events per second over all threads (0: unlimited), or a schedule: "
    .. "RATE@SECONDS and ramp:FROM-TO@SECONDS entries (e.g. 1000@60,ramp:1000-5000@120)", min = 0,
    store = store_rate },
  { "phases", "list", {}, "names of the --rate schedule's entries (phases), one per entry" },
  { "rate-mode", "enum", "poisson", "arrival process under --rate", choices = { "poisson", "constant" } },
  { "warmup-time", "double", 0, "run events this many seconds before measuring; excluded from all statistics", min = 0,
    max = TIME_MAX },
  { "report-interval", "double", 0, "print an interval report every N seconds (0: off)", min = 0, nonzero_min = 0.001 },
  { "percentile", "double", 95, "latency percentile to report (sysbench's single form)", min = 0, max = 100 },
  { "percentiles", "list", nil, "latency percentiles to report, e.g. 50,95,99,99.9 (overrides --percentile)",
    item = "double", min = 0, max = 100 },
  { "histogram", "bool", false, "print the latency histogram in the final report" },
  { "report-checkpoints", "list", {}, "full reports at these seconds of the run, each of the period since the previous one",
    item = "int", min = 1 },
  { "validate", "bool", false, "perform validation checks where possible (sysbench's --validate)" },
  { "output", "enum", "text", "report format", choices = { "text", "json", "csv" } },
  { "result-file", "string", nil, "write the result document (JSON) to this file" },
  { "rank-timeout", "double", 30, "lbench-mpi: seconds rank 0 waits past the run's deadline for another rank's "
    .. "final figures before it aborts the job naming the ranks missing", min = 0.1 },
  { "rank-result-file", "string", nil, "lbench-mpi: each rank also writes its own result document to this path, "
    .. "%r replaced by the rank number" },
  { "history", "string", nil, "also store the result document in this SQLite history (default: $LBENCH_HISTORY)" },
  { "config-file", "string", nil, "read options from this file (name=value per line)" },
  { "metrics-addr", "string", nil, "serve Prometheus metrics at http://HOST:PORT/metrics during a run (HOST defaults to 127.0.0.1)" },
  { "metrics-allow-remote", "bool", false, "allow --metrics-addr on an address other than loopback" },
  { "cpu-affinity", "string", nil, "pin worker threads to these CPUs, e.g. 0,1 or 0-3 (worker i -> i-th CPU, cycling)",
    check = check_cpus },
  { "server-stats", "enum", "on", "record the server's settings and counters and this host's CPU and the server's "
    .. "device, per interval and for the run, on a connection of their own (all: every server variable too)",
    choices = { "on", "off", "all" } },
  { "node-exporter", "list", nil, "another host's CPU and disks per interval and for the run, read from its "
    .. "Prometheus node exporter at these URLs (http://HOST:9100/metrics, comma-separated; 1 s timeout)",
    check = check_urls },
  { "server-pid", "int", 0, "PID of a database server on this machine: report its CPU time per event (auto-detected for --mysql-socket)", min = 0 },
  { "strict-globals", "enum", "auto", "reading a global that was never assigned is an error (auto: on for stock "
    .. "scenarios, off for scripts given as a path, which read it as nil as sysbench does)", choices = { "auto", "on", "off" } },
  { "sysbench-compat", "bool", false, "print what sysbench 1.0.20 prints (banner, reports, help, errors); on when "
    .. "lbench is started under the name 'sysbench'" },
  { "pgbench-compat", "bool", false, "take pgbench 15's command line and print what it prints; on when lbench "
    .. "is started under the name 'pgbench'" },
  { "verbosity", "int", 3, "verbosity level (0: only critical messages, 5: debug)", min = 0, max = 5 },
  { "rand-type", "enum", "special", "default distribution of lbench.rand.default()",
    choices = { "uniform", "gaussian", "special", "pareto", "zipfian" } },
  { "rand-seed", "int", 0, "seed for random numbers (0: from the clock); same seed => same sequence per thread", min = 0 },
  { "rand-spec-iter", "int", 12, "iterations of the gaussian distribution (and of special's gaussian part)", min = 1 },
  { "rand-spec-pct", "double", 1, "special distribution: the hot window, as a percentage of the range, centred in "
    .. "it (as sysbench)", min = 0, max = 100 },
  { "rand-spec-res", "double", 75, "special distribution: percentage of draws in the hot window; the rest are "
    .. "gaussian (as sysbench)", min = 0, max = 100 },
  { "rand-pareto-h", "double", 0.2, "shape parameter of the pareto distribution", min = 0, max = 1 },
  { "rand-zipfian-exp", "double", 0.8, "exponent of the zipfian distribution", min = 0 },
  -- Database options are global, as in sysbench: any script may open a connection.
  { "db-driver", "string", "mysql", "database driver (mysql, pgsql, null)", check = check_driver },
  { "db-ps-mode", "enum", "auto", "prepared statements: auto (server-side), disable (client-side substitution) "
    .. "or extended (PostgreSQL: the unnamed statement, parsed at every execution; elsewhere as auto)",
    choices = { "auto", "disable", "extended" } },
  { "db-debug", "bool", false, "print every query sent to the database" },
  { "db-ignore-errors", "list", { "1213", "1020", "1205" }, "error codes that restart the event instead of stopping the run: "
    .. "MySQL numbers, PostgreSQL SQLSTATEs or classes (40*); 'all' for every code, 'none' for none (pgsql default: 40P01,40001,23505; tpcc and pgbench: 40P01,40001)",
    check = check_error_codes },
  { "mysql-ignore-errors", "list", nil, "sysbench's name for --db-ignore-errors", check = check_error_codes },
  { "mysql-host", "list", { "localhost" }, "MySQL server host(s); connections spread round-robin" },
  { "mysql-port", "list", { "3306" }, "MySQL server port(s); connections spread round-robin",
    item = "int", min = 1, max = 65535 },
  { "mysql-socket", "list", nil, "MySQL socket path(s)" },
  { "mysql-user", "string", "sbtest", "MySQL user" },
  { "mysql-password", "string", "", "MySQL password (visible in ps: prefer --mysql-password-file or LBENCH_MYSQL_PASSWORD)", secret = true },
  { "mysql-password-file", "string", nil, "read the MySQL password from this file (first line)" },
  { "mysql-db", "string", "sbtest", "MySQL database name" },
  { "mysql-ssl", "enum", "disabled", "TLS mode", choices = { "disabled", "preferred", "required", "verify_ca", "verify_identity", "on", "off" } },
  { "mysql-ssl-key", "string", nil, "TLS client key file" },
  { "mysql-ssl-cert", "string", nil, "TLS client certificate file" },
  { "mysql-ssl-ca", "string", nil, "TLS CA file" },
  { "mysql-ssl-cipher", "string", nil, "TLS cipher list" },
  { "mysql-compression", "bool", false, "use the compressed client/server protocol" },
  { "mysql-connect-timeout", "int", 10, "connect timeout in seconds", min = 1 },
  { "mysql-dry-run", "bool", false, "do not send queries (sysbench compatibility; same as --db-driver=null)" },
  { "pgsql-host", "list", { "localhost" }, "PostgreSQL server host(s) (a directory: its unix socket); connections spread round-robin" },
  { "pgsql-port", "list", { "5432" }, "PostgreSQL server port(s); connections spread round-robin",
    item = "int", min = 1, max = 65535 },
  { "pgsql-user", "string", "sbtest", "PostgreSQL user" },
  { "pgsql-password", "string", "", "PostgreSQL password (visible in ps: prefer --pgsql-password-file or LBENCH_PGSQL_PASSWORD)", secret = true },
  { "pgsql-password-file", "string", nil, "read the PostgreSQL password from this file (first line)" },
  { "pgsql-db", "string", "sbtest", "PostgreSQL database name" },
  { "pgsql-sslmode", "enum", "prefer", "libpq's sslmode",
    choices = { "disable", "allow", "prefer", "require", "verify-ca", "verify-full" } },
  { "pgsql-conninfo", "string", nil, "a libpq connection string or URI; when given it is the whole connection spec",
    secret = true },
  { "pgsql-application-name", "string", "lbench", "application_name the server shows for lbench's connections" },
  { "pgsql-connect-timeout", "int", 10, "connect timeout in seconds", min = 1 },
  { "pgsql-variant", "string", "postgresql", "sysbench's --pgsql-variant (postgresql, redshift): dialect of the OLTP tables" },
}

local function norm(name) return (name:gsub("_", "-")) end
M.norm = norm
function M.key(name) return (name:gsub("-", "_")) end

-- ---- value parsing ----------------------------------------------------
local size_units = { [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4, p = 1024 ^ 5 }

function M.parse_size(s)
  local num, unit = tostring(s):lower():match("^%s*([%d%.]+)%s*([kmgtp]?)i?b?%s*$")
  local n = tonumber(num)
  if not n then return nil end
  return math.floor(n * size_units[unit] + 0.5)
end

local bools = { on = true, yes = true, ["true"] = true, ["1"] = true,
                off = false, no = false, ["false"] = false, ["0"] = false }

-- The largest integer a double holds exactly: beyond it "an integer" is
-- neither exact nor meaningful for any option.
local INT_LIMIT = 2 ^ 53

-- Range check of a converted number against the spec's bounds: `min`,
-- `max`, and `nonzero_min` for options where 0 means "off" but a tiny
-- positive value would be absurd (a report every nanosecond).
local function in_range(spec, v, what)
  if spec.min and v < spec.min then return nil, string.format("expected %s >= %s", what, tostring(spec.min)) end
  if spec.max and v > spec.max then return nil, string.format("expected %s <= %s", what, tostring(spec.max)) end
  if spec.nonzero_min and v ~= 0 and v < spec.nonzero_min then
    return nil, string.format("expected 0 or %s >= %s", what, tostring(spec.nonzero_min))
  end
  return v
end

local function to_int(spec, raw)
  local v = tonumber(raw) or M.parse_size(raw)
  if not v or v ~= math.floor(v) or math.abs(v) > INT_LIMIT then return nil, "expected an integer" end
  return in_range(spec, v, "an integer")
end

local function to_double(spec, raw)
  local v = tonumber(raw)
  -- NaN and infinities are no use as a time, a rate or a share.
  if not v or v ~= v or v == math.huge or v == -math.huge then return nil, "expected a number" end
  return in_range(spec, v, "a number")
end

local function to_size(spec, raw)
  local v = type(raw) == "number" and raw or M.parse_size(raw)
  if not v or v > INT_LIMIT then return nil, "expected a size such as 4096, 16K, 2M or 1G" end
  return in_range(spec, v, "a size")
end

local function to_enum(spec, raw)
  for _, c in ipairs(spec.choices or {}) do if c == raw then return raw end end
  return nil, "expected one of " .. table.concat(spec.choices or {}, ", ")
end

-- --rate: a number, or a schedule (phases.lua), whose peak is the value.
local function to_rate(spec, raw)
  if type(raw) == "string" and raw:find("@", 1, true) then
    local segs, why = phases.parse(raw)
    if not segs then return nil, why end
    local peak = 0
    for _, sg in ipairs(segs) do peak = math.max(peak, sg.rate0, sg.rate1) end
    return peak
  end
  return to_double(spec, raw)
end

local scalar = { int = to_int, double = to_double, size = to_size, enum = to_enum, rate = to_rate }

-- A list: comma-separated entries.  An empty value is the empty list; an
-- empty entry inside a list is a typo (",,", a trailing comma) and refused.
-- With `item` (a scalar type) every entry is checked as that type against
-- the spec's min/max/choices; the list keeps the entries as written (the
-- percentile keys "99.9" are names as much as numbers).
local function to_list(spec, raw)
  local out = {}
  if util.trim(raw) == "" then return out end
  for i, item in ipairs(util.split(raw, ",")) do
    item = util.trim(item)
    if item == "" then return nil, string.format("entry %d is empty (expected a comma-separated list)", i) end
    if spec.item then
      local v, why = scalar[spec.item](spec, item)
      if v == nil then return nil, string.format("entry '%s': %s", item, why) end
    end
    out[#out + 1] = item
  end
  return out
end

-- Convert a raw string to the option's type; nil + reason when invalid.
-- A spec's `check(value)` (returning nil + reason to refuse) runs last,
-- for rules the declarative bounds cannot state.
function M.convert(spec, raw)
  local t = spec.type
  if type(raw) ~= "string" then
    if t == "list" and type(raw) == "table" then return raw end
    if t == "bool" and type(raw) == "boolean" then return raw end
    if (t == "int" or t == "double" or t == "size" or t == "rate") and type(raw) == "number" then
      return scalar[t](spec, raw)
    end
    raw = tostring(raw)
  end
  local v, why
  if t == "bool" then
    v = bools[raw:lower()]
    if v == nil then return nil, "expected on/off, true/false, yes/no or 1/0" end
  elseif scalar[t] then
    v, why = scalar[t](spec, raw)
  elseif t == "list" then
    v, why = to_list(spec, raw)
  else
    v = raw
  end
  if v ~= nil and spec.check then v, why = spec.check(v) end
  return v, why
end

-- Build a spec from a sysbench-style declaration {"description", default[, type]}.
function M.spec_from_script(name, decl)
  if type(decl) ~= "table" then
    util.fail("option '%s': declaration must be a table {\"description\", default}", name)
  end
  local desc, default, ty = decl[1], decl[2], decl[3] or decl.type
  if ty == nil then
    local d = type(default)
    if d == "boolean" then ty = "bool"
    elseif d == "number" then ty = (default == math.floor(default)) and "int" or "double"
    elseif d == "table" then ty = "list"
    else ty = "string" end
  end
  -- No default: sysbench gives a string option "", a list {}, a number 0
  -- and a boolean true.
  if default == nil and ty == "string" then default = "" end
  if default == nil and ty == "list" then default = {} end
  if default == nil and (ty == "int" or ty == "double" or ty == "size") then default = 0 end
  if default == nil and ty == "bool" then default = true end
  local known = { bool = 1, int = 1, double = 1, size = 1, string = 1, list = 1, enum = 1 }
  if not known[ty] then util.fail("option '%s': unknown type '%s'", name, tostring(ty)) end
  if decl.item and not ({ int = 1, double = 1, size = 1, enum = 1 })[decl.item] then
    util.fail("option '%s': unknown item type '%s'", name, tostring(decl.item))
  end
  return { name = norm(name), type = ty, default = default, desc = desc or "",
           choices = decl.choices, min = decl.min, max = decl.max, nonzero_min = decl.nonzero_min,
           item = decl.item, check = decl.check, script = true }
end

function M.core_specs()
  local out = {}
  for _, d in ipairs(M.core) do
    out[#out + 1] = { name = d[1], type = d[2], default = d[3], desc = d[4], choices = d.choices,
                      min = d.min, max = d.max, nonzero_min = d.nonzero_min, item = d.item, check = d.check,
                      secret = d.secret, store = d.store }
  end
  return out
end

-- ---- command line ----------------------------------------------------
-- Split argv into options {name -> raw string} and positional arguments.
-- Options may stand anywhere.  Later occurrences win.
function M.parse_argv(args)
  local opts, order, pos = {}, {}, {}
  for _, a in ipairs(args) do
    if a:sub(1, 2) == "--" and #a > 2 then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      if not name then name, value = a:sub(3), true end
      name = norm(name)
      if opts[name] == nil then order[#order + 1] = name end
      opts[name] = value
    else
      pos[#pos + 1] = a
    end
  end
  return opts, pos, order
end

-- Where each option of the last config file read came from: name ->
-- {value = raw, where = "file:line"}.  resolve and check_unknown name the
-- file and line of a bad value or an unknown name from it (the raw values
-- are merged with the command line's before they are checked, so the
-- origin is kept aside; a value the command line overrode is not blamed on
-- the file because it differs from the recorded one).
M.config_origin = {}

local function origin(name, raw)
  local o = M.config_origin[name]
  if o and o.value == raw then return o.where .. ": " end
  return ""
end

-- Options from a config file: "name=value" per line, '#' comments.
function M.read_config_file(path)
  if type(path) ~= "string" or path == "" then util.fail("--config-file needs a value (a file name)") end
  local src, err = util.read_file(path)
  if not src then util.fail("--config-file: cannot read '%s': %s", path, err) end
  if src:find("%z") then util.fail("--config-file: '%s' is not a text file", path) end
  M.config_origin = {}
  local opts, n = {}, 0
  for line in (src .. "\n"):gmatch("(.-)\r?\n") do
    n = n + 1
    line = util.trim(line:gsub("^%s*#.*$", ""))
    if line ~= "" then
      local name, value = line:match("^%-*([^=%s]+)%s*=%s*(.-)%s*$")
      if not name then
        util.fail("%s:%d: expected name=value, got '%s'", path, n, line)
      end
      opts[norm(name)] = value
      M.config_origin[norm(name)] = { value = value, where = path .. ":" .. n }
    end
  end
  return opts
end

-- Resolve raw options against specs: returns values keyed by underscore
-- names.  Raw values without a spec are left for later (`unknown`).
function M.resolve(specs, raw, into)
  into = into or {}
  for _, s in ipairs(specs) do
    local key = M.key(s.name)
    local r = raw[s.name]
    if r ~= nil then
      if r == true and s.type ~= "bool" then
        util.fail("--%s needs a value (%s)", s.name, s.type == "enum" and
          ("one of " .. table.concat(s.choices, ", ")) or s.type)
      end
      local v, why = M.convert(s, r)
      if v == nil then util.fail("%s--%s=%s: %s", origin(s.name, r), s.name, tostring(r), why) end
      if s.store then s.store(into, v, r, raw) else into[key] = v end
    elseif into[key] == nil then
      into[key] = s.default
    end
  end
  return into
end

function M.check_unknown(raw, specs_lists)
  local known, names = {}, {}
  for _, specs in ipairs(specs_lists) do
    for _, s in ipairs(specs) do known[s.name] = true; names[#names + 1] = s.name end
  end
  for _, name in ipairs(util.sorted_keys(raw)) do
    if not known[name] then
      local near = util.closest(name, names)
      local where = origin(name, raw[name])
      if near then util.fail("%sunknown option '--%s' (did you mean '--%s'?)", where, name, near) end
      util.fail("%sunknown option '--%s' (see 'lbench --help' and 'lbench <scenario> help')", where, name)
    end
  end
end

-- Help text for a list of specs.
function M.help(specs)
  local lines = {}
  for _, s in ipairs(specs) do
    local arg = ({ bool = "[=on|off]", int = "=N", double = "=N", size = "=SIZE", list = "=LIST",
                   enum = "=" .. table.concat(s.choices or {}, "|"), string = "=STRING" })[s.type] or "=VALUE"
    local d = s.default
    if type(d) == "table" then d = table.concat(d, ",") end
    if type(d) == "boolean" then d = d and "on" or "off" end
    local left = "  --" .. s.name .. arg
    local pad = #left < 38 and string.rep(" ", 38 - #left) or " "
    lines[#lines + 1] = left .. pad .. (s.desc or "") .. (d ~= nil and (" [" .. tostring(d) .. "]") or "")
  end
  return table.concat(lines, "\n")
end


-- The tools' arguments (compare, plot, sweep, history): --name=value
-- options and positional arguments, from argv[first or 2].  known[name]:
-- true (any value; a bare --flag is true), "value" (a value needed), "flag"
-- (no value) or "multi" (a value, repeatable: a list).  `tool` names the
-- tool in messages ("compare", "history list").
function M.parse_tool_args(argv, known, tool, first)
  local opts, pos = {}, {}
  for i = first or 2, #argv do
    local a = argv[i]
    if a:sub(1, 2) == "--" and #a > 2 then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      if not name then name, value = a:sub(3), true end
      name = norm(name)
      local kind = known[name]
      if not kind then
        local names = util.sorted_keys(known)
        local near = util.closest(name, names)
        util.fail("lbench %s: unknown option '--%s'%s (options: --%s)", tool, name,
          near and (" (did you mean '--" .. near .. "'?)") or "", table.concat(names, ", --"))
      end
      if kind == "flag" and value ~= true then util.fail("lbench %s: --%s takes no value", tool, name) end
      if (kind == "value" or kind == "multi") and (value == true or value == "") then
        util.fail("lbench %s: --%s needs a value (--%s=...)", tool, name, name)
      end
      if kind == "multi" then
        opts[name] = opts[name] or {}
        table.insert(opts[name], value)
      else
        opts[name] = value
      end
    else
      pos[#pos + 1] = a
    end
  end
  return opts, pos
end

return M
