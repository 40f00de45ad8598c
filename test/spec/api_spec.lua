-- Specs of the scenario API, run under lbench's own LuaJIT runtime.
local json = require("lbench.json")
local options = require("lbench.options")
local util = require("lbench.util")

describe("lbench.rand", function()
  it("uniform stays in range and reaches both ends", function()
    local lo, hi = false, false
    for _ = 1, 20000 do
      local v = lbench.rand.uniform(1, 10)
      assert.is_true(v >= 1 and v <= 10 and v == math.floor(v))
      if v == 1 then lo = true end
      if v == 10 then hi = true end
    end
    assert.is_true(lo and hi)
  end)
  it("handles ids beyond 2^32", function()
    local v = lbench.rand.uniform(2^40, 2^40 + 10)
    assert.is_true(v >= 2^40 and v <= 2^40 + 10)
  end)
  it("string templates replace # and @", function()
    local s = lbench.rand.string("###-@@@")
    assert.is_truthy(s:match("^%d%d%d%-%l%l%l$"))
  end)
  it("varstring length within bounds", function()
    for _ = 1, 200 do
      local n = #lbench.rand.varstring(3, 7)
      assert.is_true(n >= 3 and n <= 7)
    end
  end)
  it("nurand stays in [x, y] with a fixed run-time constant", function()
    for _ = 1, 1000 do
      local v = lbench.rand.nurand(255, 0, 999)
      assert.is_true(v >= 0 and v <= 999)
    end
  end)
  it("unique values do not repeat", function()
    local seen = {}
    for _ = 1, 50000 do
      local v = lbench.rand.unique()
      assert.is_nil(seen[v])
      seen[v] = true
    end
  end)
  it("sysbench alias and legacy helpers exist", function()
    assert.are.equal(lbench, sysbench)
    assert.is_function(sb_rand)
    assert.is_function(sysbench.rand.default)
  end)
end)

describe("lbench.histogram", function()
  it("gives exact percentiles for small integers", function()
    local h = lbench.histogram.new()
    for i = 1, 1000 do h:record(i) end
    assert.are.equal(500, h:percentile(50))
    assert.are.equal(990, h:percentile(99))
    assert.are.equal(1, h:min())
    assert.are.equal(1000, h:max())
    assert.are.equal(1000, h:count())
  end)
  it("stays within the stated relative error for large values", function()
    local h = lbench.histogram.new()
    local vals = {}
    for i = 1, 10000 do vals[i] = i * 1234567; h:record(vals[i]) end
    local exact = vals[9900]
    assert.is_true(math.abs(h:percentile(99) - exact) / exact <= 0.001)
  end)
  it("counts overflow instead of clamping", function()
    local h = lbench.histogram.new({ lowest = 1, highest = 1000 })
    h:record(5)
    h:record(10^6)
    assert.are.equal(1, h:overflow())
    assert.are.equal(math.huge, h:percentile(100))
  end)
  it("merges exactly", function()
    local a, b, c = lbench.histogram.new(), lbench.histogram.new(), lbench.histogram.new()
    for i = 1, 100 do a:record(i); c:record(i) end
    for i = 101, 300 do b:record(i * 7); c:record(i * 7) end
    a:merge(b)
    assert.are.same(c:buckets(), a:buckets())
  end)
  it("accepts sysbench's histogram.new(size, min, max) form", function()
    local h = sysbench.histogram.new(1024, 0.001, 100000)
    h:update(1.5)
    h:update(2.5)
    assert.is_true(math.abs(h:percentile(100) - 2.5) < 0.01)
  end)
end)

describe("timers and clock", function()
  it("records a span into a histogram", function()
    local t = lbench.timer("spec")
    t:start()
    lbench.sleep(2)
    local ns = t:stop()
    assert.is_true(ns >= 2e6)
    assert.are.equal(1, lbench.histograms.spec:count())
  end)
end)

describe("options", function()
  it("parses sizes", function()
    assert.are.equal(16384, options.parse_size("16K"))
    assert.are.equal(2 * 1024 ^ 3, options.parse_size("2G"))
    assert.is_nil(options.parse_size("lots"))
  end)
  it("infers types from sysbench declarations", function()
    assert.are.equal("int", options.spec_from_script("table_size", { "rows", 10000 }).type)
    assert.are.equal("bool", options.spec_from_script("skip_trx", { "skip", false }).type)
    assert.are.equal("double", options.spec_from_script("x", { "x", 0.5 }).type)
    assert.are.equal("string", options.spec_from_script("x", { "x" }).type)
  end)
  it("rejects bad values with the option name", function()
    local ok, e = pcall(options.resolve, { { name = "threads", type = "int", min = 1 } }, { threads = "x" })
    assert.is_false(ok)
    assert.is_truthy(e.lbench_message:match("%-%-threads=x"))
  end)
  it("suggests the closest option name", function()
    local ok, e = pcall(options.check_unknown, { ["thread"] = "2" }, { options.core_specs() })
    assert.is_false(ok)
    assert.is_truthy(e.lbench_message:match("did you mean '%-%-threads'"))
  end)
  it("lets options stand anywhere on the command line", function()
    local raw, pos = options.parse_argv({ "--threads=2", "s.lua", "--time=3", "run", "--x" })
    assert.are.same({ "s.lua", "run" }, pos)
    assert.are.equal("2", raw.threads)
    assert.are.equal(true, raw.x)
  end)
end)

describe("json", function()
  it("round-trips and keeps key order", function()
    local o = json.object()
    o.b = 1; o.a = "x\"y\n"; o.c = json.array({ 1, 2.5, true })
    local s = json.encode(o)
    assert.are.equal('{"b":1,"a":"x\\"y\\n","c":[1,2.5,true]}', s)
    local back = json.decode(s)
    assert.are.equal("x\"y\n", back.a)
    assert.are.equal(2.5, back.c[2])
  end)
  it("writes NaN and infinity as null", function()
    assert.are.equal("[null,null]", json.encode(json.array({ 0 / 0, math.huge })))
  end)
  it("reports the line of a syntax error", function()
    local ok, e = pcall(json.decode, '{\n"a": }')
    assert.is_false(ok)
    assert.is_truthy(e.lbench_message:match("line 2"))
  end)
end)

describe("util", function()
  it("computes edit distances", function()
    assert.are.equal(1, util.levenshtein("thread", "threads"))
    assert.are.equal(3, util.levenshtein("kitten", "sitting"))
  end)
end)

describe("scenario files parsed once per process (lbench.loadfile)", function()
  local loadfile_cached = require("lbench.loadfile")
  local base = os.tmpname()
  local path = base .. ".lua"
  local function write(s)
    local f = assert(io.open(path, "wb")); f:write(s); f:close()
  end
  teardown(function() os.remove(path); os.remove(base) end)

  it("returns the chunk, and the same chunk from its bytecode later", function()
    write("return 41 + 1\n")
    assert.are.equal(42, assert(loadfile_cached(path))())
    assert.are.equal(42, assert(loadfile_cached(path))())
  end)
  it("keeps file and line in errors raised by a cached chunk", function()
    write("local x = 1\nerror('boom ' .. x)\n")
    for _ = 1, 2 do
      local ok, err = pcall(assert(loadfile_cached(path)))
      assert.is_false(ok)
      assert.are.equal(path .. ":2: boom 1", err)
    end
  end)
  it("uses the cached chunk while size and modification time are unchanged", function()
    write("return 'a'\n")
    assert.are.equal("a", loadfile_cached(path)())
    os.execute("touch -r " .. path .. " " .. path .. ".ref")
    write("return 'b'\n")                                  -- same size
    os.execute("touch -r " .. path .. ".ref " .. path)     -- same mtime
    os.remove(path .. ".ref")
    assert.are.equal("a", loadfile_cached(path)())
  end)
  it("parses a changed file anew", function()
    write("return 'first'\n")
    assert.are.equal("first", loadfile_cached(path)())
    write("return 'second, longer'\n")
    assert.are.equal("second, longer", loadfile_cached(path)())
  end)
  it("reports syntax errors and missing files as loadfile does", function()
    write("return = 1\n")
    local f, err = loadfile_cached(path)
    assert.is_nil(f)
    assert.is_truthy(err:find(path .. ":1:", 1, true))
    f, err = loadfile_cached(path .. ".missing")
    assert.is_nil(f)
    assert.is_truthy(err:find("cannot open", 1, true))
  end)
end)

describe("lbench.rank_block and lbench.rank_terminals (lbench-mpi's partitions)", function()
  -- The functions read lbench.nranks and lbench.opt when called: a job of
  -- `k` ranks is set up around each check and undone after it.
  local function as_job(k, opt, fn)
    local n0, o0 = lbench.nranks, lbench.opt
    lbench.nranks, lbench.opt = k, opt
    local ok, e = pcall(fn)
    lbench.nranks, lbench.opt = n0, o0
    if not ok then error(e, 0) end
  end
  it("gives every rank one contiguous block, the first n % k ranks one more, covering 1..n once", function()
    as_job(3, {}, function()
      local got = {}
      for r = 0, 2 do got[#got + 1] = table.concat({ lbench.rank_block(4, r) }, "-") end
      assert.are.equal("1-2 3-3 4-4", table.concat(got, " "))
      local lo, hi = lbench.rank_block(2, 2)
      assert.is_true(lo > hi)
    end)
    for k = 1, 5 do
      as_job(k, {}, function()
        for n = 1, 20 do
          local next_lo = 1
          for r = 0, k - 1 do
            local lo, hi = lbench.rank_block(n, r)
            assert.are.equal(next_lo, lo)
            assert.is_true(hi - lo + 1 == math.floor(n / k) or hi - lo + 1 == math.ceil(n / k))
            next_lo = hi + 1
          end
          assert.are.equal(n + 1, next_lo)
        end
      end)
    end
  end)
  it("numbers each rank's terminals contiguously over the job: threads, or virtual users", function()
    as_job(3, { threads = 6 }, function()
      for r = 0, 2 do
        local first, n = lbench.rank_terminals(r)
        assert.are.equal(2 * r, first)
        assert.are.equal(2, n)
      end
    end)
    -- 10 virtual users on 6 threads: 2,2,2,2,1,1 per thread (run/worker.lua's vus_of).
    as_job(3, { threads = 6, connections = 10 }, function()
      local got = {}
      for r = 0, 2 do got[#got + 1] = table.concat({ lbench.rank_terminals(r) }, ":") end
      assert.are.equal("0:4 4:4 8:2", table.concat(got, " "))
    end)
  end)
end)
