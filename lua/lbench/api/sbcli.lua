-- sysbench 1.0.20's command line beyond lbench's own: the options that
-- sysbench 0.5 users still type (--test, --max-requests, --max-time,
-- --num-threads, --tx-rate) with the warnings sysbench prints for them, and
-- what is known of the name the program was started under.
local options = require("lbench.options")
local base = require("lbench.api.base")

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

-- sysbench 0.4/0.5's built-in OLTP test (--test=oltp): its --oltp-*
-- options and the stock scenario that does what its mode asked for.
local OLTP_OPTIONS = { "table-size", "tables-count", "range-size", "point-selects", "simple-ranges", "sum-ranges",
  "order-ranges", "distinct-ranges", "index-updates", "non-index-updates", "delete-inserts", "skip-trx", "auto-inc",
  "secondary", "create-secondary", "range-selects", "dist-type" }
local OLTP_RENAMED = { ["tables-count"] = "tables", ["dist-type"] = "rand-type" }

local function legacy_oltp(raw)
  local mode = raw["oltp-test-mode"] or "complex"
  local read_only = raw["oltp-read-only"] ~= nil and M.flag(raw["oltp-read-only"])
  raw["oltp-test-mode"], raw["oltp-read-only"] = nil, nil
  if raw["mysql-table-engine"] ~= nil then
    raw["mysql-storage-engine"], raw["mysql-table-engine"] = raw["mysql-table-engine"], nil
  end
  for _, k in ipairs(OLTP_OPTIONS) do
    if raw["oltp-" .. k] ~= nil then
      raw[OLTP_RENAMED[k] or k], raw["oltp-" .. k] = raw["oltp-" .. k], nil
    end
  end
  -- simple: one point select per transaction; nontrx: the same outside a
  -- transaction (lbench's point select has none); complex: the full mix.
  if mode == "simple" or mode == "nontrx" then return "oltp_point_select" end
  return read_only and "oltp_read_only" or "oltp_read_write"
end

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
    if test == "oltp" then test = legacy_oltp(raw) end
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

-- sysbench's words for a test given no command.
function M.command_required(name)
  return string.format("The '%s' test requires a command argument. See 'sysbench %s help'", name, name)
end

-- What a script or a parser checking for sysbench 1.0 reads.
M.VERSION = base.SYSBENCH_VERSION
M.VERSION_STRING = base.SYSBENCH_VERSION_STRING

-- sysbench's first line: its version and the LuaJIT it runs on (lbench
-- runs on the system's LuaJIT, as Debian's sysbench does).
function M.banner()
  return string.format("%s (using system %s)", M.VERSION_STRING, jit and jit.version or "LuaJIT")
end

-- A boolean option's raw value (true, "on", "1", ...) read as sysbench does.
function M.flag(v)
  return v == true or v == "on" or v == "true" or v == "yes" or v == "1"
end

-- A script's declared options as sysbench's sb_print_test_options() lists
-- them: the names as declared, sorted, in one column as wide as the widest
-- plus one, the default in brackets only when one was declared; a blank
-- line after them.  decls: sysbench.cmdline.options.  A stock scenario
-- standing for one of sysbench's built-in tests lists its options in
-- sysbench's order (`order = n` in a declaration) and may name the value
-- as sysbench does (`metavar = "SIZE"` for a size it reads itself).
local SCRIPT_ARG = { bool = "[=on|off]", int = "=N", double = "=N", list = "=[LIST,...]", size = "=SIZE" }
function M.script_options_help(decls)
  local rows, width = {}, 0
  local names = {}
  for k in pairs(decls or {}) do names[#names + 1] = k end
  local function rank(n) return type(decls[n]) == "table" and tonumber(decls[n].order) or math.huge end
  table.sort(names, function(a, b)
    if rank(a) ~= rank(b) then return rank(a) < rank(b) end
    return a < b
  end)
  for _, name in ipairs(names) do
    local decl = decls[name]
    local spec = options.spec_from_script(name, decl)
    local left = "--" .. name .. (decl.metavar and "=" .. decl.metavar or SCRIPT_ARG[spec.type] or "=STRING")
    local d = decl[2]
    if type(d) == "table" then d = table.concat(d, ",") end
    if type(d) == "boolean" then d = d and "on" or "off" end
    rows[#rows + 1] = { left, spec.desc .. (d ~= nil and " [" .. tostring(d) .. "]" or "") }
    if #left > width then width = #left end
  end
  local t = {}
  for i, r in ipairs(rows) do t[i] = "  " .. r[1] .. string.rep(" ", width + 1 - #r[1]) .. r[2] end
  return table.concat(t, "\n") .. (#t > 0 and "\n" or "") .. "\n"
end

-- sysbench's built-in tests, which take no script and need a command.
M.BUILTIN = { fileio = true, cpu = true, memory = true, threads = true, mutex = true }

-- Messages that sysbench prints as they are, without "FATAL: " (its
-- command-line parser's and its commands' refusals).
local OWN = { "^FATAL: ", "^invalid option: ", "^Unrecognized command line argument: ",
              "^'.-' test does not implement the '.-' command%.$" }
function M.own_words(msg)
  for _, p in ipairs(OWN) do
    if msg:match(p) then return true end
  end
  return false
end

-- An error of lbench's or of the script (msg, its first line: sysbench
-- prints no traceback) as sysbench words it, for the command cmd: a bad
-- option value as its parser refuses it, an unknown driver as its DB layer
-- and the failed command report it, anything else as one "FATAL: " line.
function M.error_text(msg, cmd, script)
  local driver = msg:match("^%-%-db%-driver=(.-): ")
  if driver then
    -- sysbench names where its script asked for the driver; the script is
    -- what lbench can name
    return string.format("FATAL: invalid database driver name: '%s'\n"
      .. "FATAL: `%s' function failed: %s: failed to initialize the DB driver", driver, cmd, script or "?")
  end
  local bad = msg:match("^(%-%-[%w_%-]+=.-): ")
  if bad then return "invalid option: " .. bad end
  if M.own_words(msg) then return msg end
  -- sysbench reads the options table in its own Lua module, whose failure
  -- it reports by that module's name
  if msg:match("^wrong table structure in sysbench%.cmdline%.options") then
    return "FATAL: `sysbench.cmdline.read_cmdline_options' function failed: [string \"sysbench.cmdline.lua\"]:1: "
      .. "wrong table structure in sysbench.cmdline.options"
  end
  return "FATAL: " .. msg
end

-- Started as `sysbench` (a symlink to lbench): print what sysbench 1.0.20
-- prints.  argv0 is the name the program was started under.
function M.is_sysbench_name(argv0)
  return type(argv0) == "string" and argv0:match("([^/]*)$") == "sysbench"
end

return M
