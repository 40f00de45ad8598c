-- Specs of lbench.options: the core's option table, conversion of raw
-- values by type with its bounds and one-line messages, sizes, names,
-- resolution against specs (defaults, config-file origins), unknown names,
-- the command line, and the tools' argument parser.
local options = require("lbench.options")
local json = require("lbench.json")

-- The one-line message of a failing call (a usage error).
local function fails(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  assert.is_table(e)
  return e.lbench_message
end

-- convert's two results as one string: "value" or "nil: reason".
local function conv(spec, raw)
  local v, why = options.convert(spec, raw)
  if v == nil then return "nil: " .. tostring(why) end
  if type(v) == "table" then return json.encode(v) end
  return tostring(v)
end

describe("lbench.options core table", function()
  it("declares every core option once, typed, described, with a default that passes its own checks", function()
    local known = { bool = true, int = true, double = true, size = true, string = true, list = true, enum = true,
                    rate = true }
    local seen = {}
    for _, s in ipairs(options.core_specs()) do
      assert.is_nil(seen[s.name], s.name)
      seen[s.name] = true
      assert.truthy(s.name:match("^[a-z][a-z0-9%-]*$"), s.name)
      assert.is_true(known[s.type], s.name)
      assert.truthy(type(s.desc) == "string" and #s.desc > 0, s.name)
      if s.type == "enum" then
        assert.is_table(s.choices, s.name)
        assert.are.equal(s.default, options.convert(s, s.default), s.name)
      end
      if s.default ~= nil then
        local v, why = options.convert(s, s.default)
        assert.is_not_nil(v, s.name .. ": " .. tostring(why))
      end
    end
    assert.is_true(seen.threads and seen.time and seen.rate and seen["db-driver"] and seen["pgsql-port"])
  end)

  it("core_specs() copies the table in order, with bounds, checks and the --rate store", function()
    local specs = options.core_specs()
    assert.are.equal(#options.core, #specs)
    for i, d in ipairs(options.core) do
      assert.are.equal(d[1], specs[i].name)
      assert.are.equal(d[2], specs[i].type)
    end
    local by = {}
    for _, s in ipairs(specs) do by[s.name] = s end
    assert.are.same({ 1, 10000 }, { by.threads.min, by.threads.max })
    assert.are.equal(1, by.threads.default)
    assert.are.equal(0.001, by["report-interval"].nonzero_min)
    assert.are.equal("double", by.percentiles.item)
    assert.is_function(by["db-ignore-errors"].check)
    assert.is_function(by.rate.store)
    assert.is_true(by["mysql-password"].secret)
    -- a fresh copy: changing it leaves the table alone
    by.threads.min = 99
    assert.are.equal(1, options.core_specs()[1].min)
  end)
end)

describe("lbench.options convert", function()
  it("converts integers within their bounds; the message names the bound", function()
    local s = { type = "int", min = 1, max = 10 }
    assert.are.equal("5", conv(s, "5"))
    assert.are.equal("10", conv(s, 10))
    assert.are.equal("nil: expected an integer >= 1", conv(s, "0"))
    assert.are.equal("nil: expected an integer <= 10", conv(s, "11"))
    assert.are.equal("nil: expected an integer", conv(s, "1.5"))
    assert.are.equal("nil: expected an integer", conv(s, "x"))
    assert.are.equal("nil: expected an integer", conv(s, ""))
    -- sizes are integers too; past 2^53 no integer is exact
    assert.are.equal("4096", conv({ type = "int" }, "4K"))
    assert.are.equal("-3", conv({ type = "int" }, "-3"))
    assert.are.equal("nil: expected an integer", conv({ type = "int" }, "9007199254740994"))
  end)

  it("converts doubles, refusing NaN and infinities, with 0-or-at-least bounds", function()
    assert.are.equal("0.25", conv({ type = "double", min = 0 }, "0.25"))
    assert.are.equal("1000", conv({ type = "double" }, "1e3"))
    assert.are.equal("nil: expected a number", conv({ type = "double" }, "nan"))
    assert.are.equal("nil: expected a number", conv({ type = "double" }, "inf"))
    assert.are.equal("nil: expected a number", conv({ type = "double" }, 0 / 0))
    assert.are.equal("nil: expected a number >= 0", conv({ type = "double", min = 0 }, "-0.5"))
    assert.are.equal("nil: expected a number <= 100", conv({ type = "double", max = 100 }, "100.5"))
    local ri = { type = "double", min = 0, nonzero_min = 0.001 }
    assert.are.equal("0", conv(ri, "0"))
    assert.are.equal("0.001", conv(ri, "0.001"))
    assert.are.equal("nil: expected 0 or a number >= 0.001", conv(ri, "0.0001"))
  end)

  it("converts sizes with units, and refuses other text with an example", function()
    assert.are.equal("2097152", conv({ type = "size" }, "2M"))
    assert.are.equal("1536", conv({ type = "size" }, "1.5K"))
    assert.are.equal("100", conv({ type = "size" }, 100))
    assert.are.equal("nil: expected a size such as 4096, 16K, 2M or 1G", conv({ type = "size" }, "2X"))
    assert.are.equal("nil: expected a size such as 4096, 16K, 2M or 1G", conv({ type = "size" }, "16E"))
    assert.are.equal("nil: expected a size >= 4096", conv({ type = "size", min = 4096 }, "1K"))
  end)

  it("converts booleans in any case, enums only to a listed choice", function()
    for _, t in ipairs({ "on", "ON", "yes", "true", "True", "1" }) do assert.are.equal("true", conv({ type = "bool" }, t)) end
    for _, f in ipairs({ "off", "no", "false", "FALSE", "0" }) do assert.are.equal("false", conv({ type = "bool" }, f)) end
    assert.are.equal("true", conv({ type = "bool" }, true))
    assert.are.equal("nil: expected on/off, true/false, yes/no or 1/0", conv({ type = "bool" }, "maybe"))
    local e = { type = "enum", choices = { "text", "json", "csv" } }
    assert.are.equal("csv", conv(e, "csv"))
    assert.are.equal("nil: expected one of text, json, csv", conv(e, "CSV"))
  end)

  it("splits lists on commas, trims entries, refuses empty entries, checks typed entries", function()
    assert.are.equal('["a","b","c"]', conv({ type = "list" }, "a, b ,c"))
    assert.are.equal("{}", conv({ type = "list" }, ""))
    assert.are.equal("{}", conv({ type = "list" }, "  "))
    assert.are.equal("nil: entry 2 is empty (expected a comma-separated list)", conv({ type = "list" }, "a,,b"))
    assert.are.equal("nil: entry 3 is empty (expected a comma-separated list)", conv({ type = "list" }, "a,b,"))
    local ports = { type = "list", item = "int", min = 1, max = 65535 }
    assert.are.equal('["3306","3307"]', conv(ports, "3306,3307"))
    assert.are.equal("nil: entry '70000': expected an integer <= 65535", conv(ports, "3306,70000"))
    -- entries are kept as written: "99.9" is a key as much as a number
    assert.are.equal('["50","99.90"]', conv({ type = "list", item = "double", min = 0, max = 100 }, "50,99.90"))
    -- a table (a script's default) passes as it is
    assert.are.equal('["x"]', conv({ type = "list" }, { "x" }))
  end)

  it("reads --rate as a number or a schedule whose peak is the value", function()
    local r = { type = "rate", min = 0 }
    assert.are.equal("100", conv(r, "100"))
    assert.are.equal("5000", conv(r, "1000@60,ramp:1000-5000@120"))
    assert.are.equal("nil: entry 1 'x@1': expected RATE@SECONDS or ramp:FROM-TO@SECONDS (e.g. 1000@60, ramp:0-5000@5m)",
      conv(r, "x@1"))
    assert.are.equal("nil: expected a number >= 0", conv(r, "-1"))
  end)

  it("runs a spec's check last: error codes are normalised or refused", function()
    local spec
    for _, s in ipairs(options.core_specs()) do if s.name == "db-ignore-errors" then spec = s end end
    assert.are.equal('["40P01","40*","1213","all"]', conv(spec, "40p01,40*,1213,all"))
    assert.are.equal("nil: 'abc' is not an error code (expected MySQL error numbers, SQLSTATEs such as 40P01, "
      .. "classes such as 40*, 'all' or 'none')", conv(spec, "1213,abc"))
    -- strings pass unchanged (numbers become their text)
    assert.are.equal("x y", conv({ type = "string" }, "x y"))
    assert.are.equal("5", conv({ type = "string" }, 5))
  end)
end)

describe("lbench.options parse_size and names", function()
  it("reads binary units k/m/g/t/p in any case, with an optional iB or B, decimals rounded", function()
    local cases = {
      { "1024", 1024 }, { "16K", 16384 }, { "16k", 16384 }, { "16KiB", 16384 }, { "16kb", 16384 },
      { "1.5M", 1572864 }, { "0.5g", 536870912 }, { " 2 G ", 2147483648 }, { "1t", 1024 ^ 4 },
      { "1P", 1024 ^ 5 }, { "0.1k", 102 }, { "1 KB", 1024 }, { "1B", 1 }, { "2MiB", 2097152 }, { 12, 12 },
    }
    for _, c in ipairs(cases) do assert.are.equal(c[2], options.parse_size(c[1]), tostring(c[1])) end
  end)

  it("refuses what is not a size", function()
    for _, bad in ipairs({ "", "k", "lots", "1.2.3", "-1", "1e3", "1x", "1 K B", "K1" }) do
      assert.is_nil(options.parse_size(bad), bad)
    end
    assert.is_nil(options.parse_size(nil))
  end)

  it("writes names with dashes and keys with underscores", function()
    assert.are.equal("table-size", options.norm("table_size"))
    assert.are.equal("table-size", options.norm("table-size"))
    assert.are.equal("table_size", options.key("table-size"))
    assert.are.equal("a_b_c", options.key("a-b_c"))
  end)

  it("infers a script option's type from its default; a bad declaration fails in one line", function()
    local s = options.spec_from_script("my_opt", { "desc" })
    assert.are.same({ "my-opt", "string", "", "desc", true }, { s.name, s.type, s.default, s.desc, s.script })
    assert.are.same({}, options.spec_from_script("l", { "d", nil, "list" }).default)
    assert.are.equal("int", options.spec_from_script("n", { "d", 3 }).type)
    assert.are.equal("double", options.spec_from_script("n", { "d", 3.5 }).type)
    assert.are.equal("list", options.spec_from_script("n", { "d", { "a" } }).type)
    assert.are.equal("size", options.spec_from_script("n", { "d", "1M", type = "size" }).type)
    assert.are.equal("option 'x': unknown type 'weird'", fails(options.spec_from_script, "x", { "d", 1, "weird" }))
    assert.are.equal('option \'x\': declaration must be a table {"description", default}',
      fails(options.spec_from_script, "x", "nope"))
    assert.are.equal("option 'x': unknown item type 'bool'", fails(options.spec_from_script, "x", { "d", {}, item = "bool" }))
  end)
end)

describe("lbench.options resolve", function()
  after_each(function() options.config_origin = {} end)

  it("fills defaults under underscore keys and keeps values already set", function()
    local specs = { { name = "x-y", type = "int", default = 5 }, { name = "z", type = "bool", default = false },
                    { name = "w", type = "string", default = "d" } }
    assert.are.same({ x_y = 5, z = false, w = "d" }, options.resolve(specs, {}))
    assert.are.same({ x_y = 7, z = true, w = "d" }, options.resolve(specs, { z = true }, { x_y = 7 }))
    assert.are.same({ x_y = 8, z = false, w = "d" }, options.resolve(specs, { ["x-y"] = "8" }, { x_y = 7 }))
  end)

  it("says which option needs a value and why a value is refused", function()
    local core = options.core_specs()
    assert.are.equal("--threads needs a value (int)", fails(options.resolve, core, { threads = true }))
    assert.are.equal("--output needs a value (one of text, json, csv)", fails(options.resolve, core, { output = true }))
    assert.are.equal("--threads=0: expected an integer >= 1", fails(options.resolve, core, { threads = "0" }))
    assert.are.equal("--threads=10001: expected an integer <= 10000", fails(options.resolve, core, { threads = "10001" }))
    assert.are.equal("--percentiles=50,101: entry '101': expected a number <= 100",
      fails(options.resolve, core, { percentiles = "50,101" }))
  end)

  it("stores a --rate schedule: its peak, its segments, and the run's length", function()
    local o = options.resolve(options.core_specs(), { rate = "1000@60,ramp:1000-3000@30" })
    assert.are.equal(3000, o.rate)
    assert.are.equal(90, o.time)
    assert.are.equal(2, #o.rate_schedule)
    assert.are.same({ 30, 1000, 3000 }, { o.rate_schedule[2].dur_s, o.rate_schedule[2].rate0, o.rate_schedule[2].rate1 })
    local plain = options.resolve(options.core_specs(), { rate = "250" })
    assert.are.same({ 250, 10 }, { plain.rate, plain.time })
    assert.is_nil(plain.rate_schedule)
    assert.are.equal("--time=10: --rate's schedule lasts 60 s; leave --time out (the run lasts the schedule)",
      fails(options.resolve, options.core_specs(), { rate = "1000@60", time = "10" }))
  end)

  it("blames a config file's line for its bad value or unknown name, not for a value the command line set", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("# a comment\nthreads = 0\n--thread=2\n")
    f:close()
    local raw = options.read_config_file(path)
    assert.are.same({ threads = "0", thread = "2" }, raw)
    assert.are.equal(path .. ":2: --threads=0: expected an integer >= 1", fails(options.resolve, options.core_specs(), raw))
    assert.are.equal(path .. ":3: unknown option '--thread' (did you mean '--threads'?)",
      fails(options.check_unknown, raw, { options.core_specs() }))
    raw.threads = "0x" -- overridden on the command line
    assert.are.equal("--threads=0x: expected an integer", fails(options.resolve, options.core_specs(), raw))
    f = assert(io.open(path, "w"))
    f:write("threads 4\n")
    f:close()
    assert.are.equal(path .. ":1: expected name=value, got 'threads 4'", fails(options.read_config_file, path))
    os.remove(path)
    assert.are.equal("--config-file: cannot read '" .. path .. "': No such file or directory",
      fails(options.read_config_file, path))
    assert.are.equal("--config-file needs a value (a file name)", fails(options.read_config_file, true))
  end)

  it("names an unknown option with the closest known one, or points to the help", function()
    local core = { options.core_specs() }
    assert.are.equal("unknown option '--tabels' (did you mean '--tables'?)",
      fails(options.check_unknown, { tabels = "1" }, { { { name = "tables" } }, { { name = "time" } } }))
    assert.are.equal("unknown option '--qqqqqqqqq' (see 'lbench --help' and 'lbench <scenario> help')",
      fails(options.check_unknown, { qqqqqqqqq = "1" }, core))
    assert.has_no.errors(function() options.check_unknown({ threads = "2", ["db-driver"] = "null" }, core) end)
  end)
end)

describe("lbench.options command lines", function()
  it("parse_argv: options anywhere, later ones win, bare flags true, names normalised", function()
    local opts, pos, order = options.parse_argv({ "--a=1", "x", "--b_c=2", "--a=3", "--", "--flag", "--e=" })
    assert.are.same({ a = "3", ["b-c"] = "2", flag = true, e = "" }, opts)
    assert.are.same({ "x", "--" }, pos)
    assert.are.same({ "a", "b-c", "flag", "e" }, order)
  end)

  it("parse_tool_args: values, flags, repeated options and positionals from argv[2]", function()
    local known = { set = "multi", force = "flag", ["out-file"] = true, names = "value" }
    local opts, pos = options.parse_tool_args({ "compare", "a.json", "--set=x=1", "--set=y=2", "--force",
      "--out_file=f", "b.json", "--names=p,q" }, known, "compare")
    assert.are.same({ set = { "x=1", "y=2" }, force = true, ["out-file"] = "f", names = "p,q" }, opts)
    assert.are.same({ "a.json", "b.json" }, pos)
    -- `true` takes a bare flag too; `first` skips a subcommand
    local o2, p2 = options.parse_tool_args({ "history", "list", "--out-file", "x" }, known, "history list", 3)
    assert.are.same({ ["out-file"] = true }, o2)
    assert.are.same({ "x" }, p2)
  end)

  it("parse_tool_args: one line for an unknown option, a flag given a value, a value missing", function()
    local known = { names = "value", force = "flag", set = "multi" }
    local function args(...) return { "compare", ... } end
    assert.are.equal("lbench compare: unknown option '--nmaes' (did you mean '--names'?) (options: --force, --names, --set)",
      fails(options.parse_tool_args, args("--nmaes=a"), known, "compare"))
    assert.are.equal("lbench compare: unknown option '--zzzzzz' (options: --force, --names, --set)",
      fails(options.parse_tool_args, args("--zzzzzz"), known, "compare"))
    assert.are.equal("lbench compare: --force takes no value", fails(options.parse_tool_args, args("--force=1"), known, "compare"))
    assert.are.equal("lbench compare: --names needs a value (--names=...)",
      fails(options.parse_tool_args, args("--names"), known, "compare"))
    assert.are.equal("lbench compare: --names needs a value (--names=...)",
      fails(options.parse_tool_args, args("--names="), known, "compare"))
    assert.are.equal("lbench compare: --set needs a value (--set=...)",
      fails(options.parse_tool_args, args("--set=a", "--set"), known, "compare"))
  end)

  it("help: one line per option, its argument form and default", function()
    local text = options.help({ { name = "a-b", type = "int", default = 3, desc = "thing" },
      { name = "flag", type = "bool", default = false, desc = "f" },
      { name = "e", type = "enum", choices = { "x", "y" }, default = "x", desc = "e" },
      { name = "l", type = "list", default = { "1", "2" }, desc = "l" },
      { name = "s", type = "string", desc = "s" } })
    assert.are.equal(table.concat({
      "  --a-b=N                             thing [3]",
      "  --flag[=on|off]                     f [off]",
      "  --e=x|y                             e [x]",
      "  --l=LIST                            l [1,2]",
      "  --s=STRING                          s" }, "\n"), text)
  end)
end)
