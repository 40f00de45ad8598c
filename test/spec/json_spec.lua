-- Specs of lbench.json: what the encoder writes (key order, arrays and
-- objects, null, numbers, escapes, indentation) and what the decoder reads
-- back or refuses, with the one-line message it refuses with.
local ffi = require("ffi")
local json = require("lbench.json")
local util = require("lbench.util")

-- The message of a decode error (a usage error: one line, no traceback).
local function decode_error(s)
  local ok, e = pcall(json.decode, s)
  assert.is_false(ok)
  assert.is_true(util.is_usage_error(e))
  return e.lbench_message
end

describe("lbench.json encode", function()
  it("keeps the insertion order of json.object(); a key set again keeps its first place", function()
    local o = json.object()
    o.zeta = 1; o.alpha = 2; o.mid = 3
    o.zeta = 10
    assert.are.equal('{"zeta":10,"alpha":2,"mid":3}', json.encode(o))
    -- removed: left out; set again: back in its first place, listed once
    o.alpha = nil
    assert.are.equal('{"zeta":10,"mid":3}', json.encode(o))
    o.alpha = 20
    assert.are.equal('{"zeta":10,"alpha":20,"mid":3}', json.encode(o))
    local keys = {}
    for k, v in json.pairs(o) do keys[#keys + 1] = k .. "=" .. v end
    assert.are.equal("zeta=10 alpha=20 mid=3", table.concat(keys, " "))
  end)

  it("iterates with json.pairs in order and leaves keys set to nil out", function()
    local o = json.object()
    o.a = 1; o.b = 2; o.c = 3
    o.b = nil
    local seen = {}
    for k, v in json.pairs(o) do seen[#seen + 1] = { k, v } end
    assert.are.same({ { "a", 1 }, { "c", 3 } }, seen)
    -- a plain table iterates as pairs does
    local n = 0
    for _ in json.pairs({ x = 1, y = 2 }) do n = n + 1 end
    assert.are.equal(2, n)
  end)

  it("writes sequences as arrays, other tables as objects with sorted keys, {} as an object", function()
    assert.are.equal("[1,2,3]", json.encode({ 1, 2, 3 }))
    assert.are.equal('{"a":1,"b":2,"c":3}', json.encode({ c = 3, a = 1, b = 2 }))
    assert.are.equal("{}", json.encode({}))
    assert.are.equal("[]", json.encode(json.array()))
    assert.are.equal('["x"]', json.encode(json.array({ "x" })))
    -- a sequence with another key, or one with a hole, is an object (keys sorted as text)
    assert.are.equal('{"1":"a","2":"b","x":true}', json.encode({ "a", "b", x = true }))
    assert.are.equal('{"1":1,"10":10,"2":2}', json.encode({ [1] = 1, [2] = 2, [10] = 10 }))
    -- an empty json.object() is an object
    assert.are.equal("{}", json.encode(json.object()))
  end)

  it("writes nil and json.null as null, NaN and infinities as null", function()
    assert.are.equal("null", json.encode(nil))
    assert.are.equal("null", json.encode(json.null))
    assert.are.equal("null", tostring(json.null))
    assert.are.equal("[null,null,null,1]", json.encode(json.array({ 0 / 0, math.huge, -math.huge, 1 })))
    local o = json.object()
    o.p99 = json.null
    o.p50 = 0.5
    assert.are.equal('{"p99":null,"p50":0.5}', json.encode(o))
    assert.are.equal("true", json.encode(true))
    assert.are.equal("false", json.encode(false))
  end)

  it("writes integers exactly, doubles with 17 significant digits, 64-bit cdata exactly", function()
    assert.are.equal("0", json.encode(0))
    assert.are.equal("0", json.encode(-0.0))
    assert.are.equal("-42", json.encode(-42))
    assert.are.equal("9007199254740991", json.encode(2 ^ 53 - 1))
    assert.are.equal("-9007199254740991", json.encode(-(2 ^ 53 - 1)))
    -- at 2^53 and beyond, %.17g (still every digit of the double)
    assert.are.equal("9007199254740992", json.encode(2 ^ 53))
    assert.are.equal("9007199254740994", json.encode(2 ^ 53 + 2))
    assert.are.equal("0.5", json.encode(0.5))
    assert.are.equal("0.10000000000000001", json.encode(0.1))
    assert.are.equal("1.0000000000000001e+300", json.encode(1e300))
    -- the decoded text is the same double
    for _, v in ipairs({ 0.1, 1 / 3, 2 / 3 * 1e-12, 123456.789, 1e300, 5e-324 }) do
      assert.are.equal(v, json.decode(json.encode(v)))
    end
    -- int64/uint64 counters past 2^53 keep their last digit
    assert.are.equal("9007199254740993", json.encode(ffi.new("int64_t", 9007199254740993LL)))
    assert.are.equal("-9223372036854775808", json.encode(-9223372036854775807LL - 1))
    assert.are.equal("18446744073709551615", json.encode(18446744073709551615ULL))
    assert.are.equal("[7,1.5]", json.encode(json.array({ 7ULL, ffi.new("double", 1.5) })))
  end)

  it("escapes quotes, backslashes and control characters, passes UTF-8 and '/' through", function()
    assert.are.equal([["a\"b\\c"]], json.encode('a"b\\c'))
    assert.are.equal([["\b\f\n\r\t"]], json.encode("\b\f\n\r\t"))
    assert.are.equal([["\u0000\u0001\u001f\u007f"]], json.encode("\0\1\31\127"))
    assert.are.equal('"é € 😀 a/b"', json.encode("é € 😀 a/b"))
    -- keys are escaped as strings
    local o = json.object()
    o['k"1\n'] = 1
    assert.are.equal([[{"k\"1\n":1}]], json.encode(o))
  end)

  it("pretty-prints with the given indent; empty containers stay on one line", function()
    local o = json.object()
    o.name = "x"
    o.list = json.array({ 1, json.array({ 2 }) })
    o.empty = {}
    o.none = json.array()
    local inner = json.object()
    inner.k = json.null
    o.obj = inner
    assert.are.equal(table.concat({
      "{",
      '  "name": "x",',
      '  "list": [',
      "    1,",
      "    [",
      "      2",
      "    ]",
      "  ],",
      '  "empty": {},',
      '  "none": [],',
      '  "obj": {',
      '    "k": null',
      "  }",
      "}" }, "\n"), json.encode(o, "  "))
    assert.are.equal('{\n\t"a": [\n\t\t1\n\t]\n}', json.encode({ a = { 1 } }, "\t"))
    -- without an indent: no whitespace at all
    assert.are.equal('{"a":[1,{"b":2}]}', json.encode({ a = { 1, { b = 2 } } }))
  end)

  it("refuses values JSON has no form for", function()
    local ok, e = pcall(json.encode, { f = print })
    assert.is_false(ok)
    assert.truthy(tostring(e):find("cannot encode a function as JSON", 1, true))
  end)
end)

describe("lbench.json decode", function()
  it("reads every value kind and keeps the document's key order", function()
    local s = '{"b":1,"a":[true,false,null,"s",-12.5],"c":{"z":{},"y":[]},"d":0}'
    local v = json.decode(s)
    assert.are.equal(1, v.b)
    assert.are.same({ true, false, json.null, "s", -12.5 }, { v.a[1], v.a[2], v.a[3], v.a[4], v.a[5] })
    assert.are.equal(0, v.d)
    -- decoded objects are json.object()s, arrays json.array()s: the text round-trips
    assert.are.equal(s, json.encode(v))
    local keys = {}
    for k in json.pairs(v) do keys[#keys + 1] = k end
    assert.are.equal("b a c d", table.concat(keys, " "))
  end)

  it("keeps an array's positions past a null; a null member of an object is absent", function()
    local a = json.decode("[1,null,3]")
    assert.are.equal(3, #a)
    assert.are.equal(json.null, a[2])
    assert.are.equal(3, a[3])
    assert.are.equal("[1,null,3]", json.encode(a))
    local o = json.decode('{"a":null,"b":2}')
    assert.is_nil(o.a)
    assert.are.equal('{"b":2}', json.encode(o))
    assert.is_nil(json.decode("null"))
  end)

  it("reads numbers in every JSON form", function()
    assert.are.equal(-0.5, json.decode("-0.5"))
    assert.are.equal(1500, json.decode("1.5E+3"))
    assert.are.equal(0.015, json.decode("1.5e-2"))
    assert.are.equal(123456789012, json.decode("123456789012"))
    assert.are.equal(2 ^ 63, json.decode("9223372036854775808"))
    assert.are.equal(42, json.decode(" \t\r\n42 \n"))
  end)

  it("reads escapes, \\u escapes to UTF-8, and surrogate pairs as one character", function()
    assert.are.equal('"\\/\b\f\n\r\t', json.decode([["\"\\\/\b\f\n\r\t"]]))
    assert.are.equal("A", json.decode([["\u0041"]]))
    assert.are.equal("é", json.decode([["\u00e9"]]))
    assert.are.equal("€", json.decode([["\u20AC"]]))
    assert.are.equal("\240\159\152\128", json.decode([["\ud83d\ude00"]])) -- U+1F600, four bytes
    assert.are.equal("\244\143\191\191", json.decode([["\uDBFF\uDFFF"]])) -- U+10FFFF
    assert.are.equal("a\0b", json.decode([["a\u0000b"]]))
    -- raw UTF-8 passes through
    assert.are.equal("ü 😀", json.decode('"ü 😀"'))
  end)

  it("refuses broken escapes with a one-line message", function()
    assert.are.equal("invalid JSON at line 1: bad \\u escape (expected four hex digits)", decode_error([["\u12"]]))
    assert.are.equal("invalid JSON at line 1: bad \\u escape (expected four hex digits)", decode_error([["\u-001"]]))
    assert.are.equal("invalid JSON at line 1: bad \\u escape (a high surrogate without its low one)",
      decode_error([["\ud83dx"]]))
    assert.are.equal("invalid JSON at line 1: bad \\u escape (a high surrogate without its low one)",
      decode_error([["\ud83d\u0041"]]))
    assert.are.equal("invalid JSON at line 1: bad \\u escape (a low surrogate without its high one)",
      decode_error([["\ude00"]]))
    assert.are.equal("invalid JSON at line 1: bad escape", decode_error([["\x"]]))
  end)

  it("refuses truncated documents, trailing garbage and bad tokens, naming the line", function()
    assert.are.equal("invalid JSON at line 1: unexpected end of the document (truncated?)", decode_error(""))
    assert.are.equal("invalid JSON at line 2: unexpected end of the document (truncated?)", decode_error("\n  "))
    assert.are.equal("invalid JSON at line 1: unterminated string", decode_error('{"a":"xyz'))
    assert.are.equal("invalid JSON at line 1: expected ',' or '}'", decode_error('{"a":1'))
    assert.are.equal("invalid JSON at line 1: expected ',' or ']'", decode_error("[1,2"))
    assert.are.equal("invalid JSON at line 3: unexpected end of the document (truncated?)", decode_error('{\n"a":\n'))
    assert.are.equal("invalid JSON at line 1: trailing characters", decode_error('{"a":1} x'))
    assert.are.equal("invalid JSON at line 2: trailing characters", decode_error("[1]\n]"))
    assert.are.equal("invalid JSON at line 1: expected a key", decode_error("{1:2}"))
    assert.are.equal("invalid JSON at line 1: expected a key", decode_error('{"a":1,}'))
    assert.are.equal("invalid JSON at line 1: expected ':'", decode_error('{"a" 1}'))
    assert.are.equal("invalid JSON at line 1: unexpected character ']'", decode_error("[1,]"))
    assert.are.equal("invalid JSON at line 1: unexpected character 'N'", decode_error("[NaN]"))
    assert.are.equal("invalid JSON at line 1: unexpected character 't'", decode_error("tru"))
    assert.are.equal("invalid JSON at line 1: unexpected character '-'", decode_error("-"))
  end)

  it("refuses malformed numbers instead of reading them as nothing", function()
    assert.are.equal("invalid JSON at line 1: bad number '1-2'", decode_error("[1-2]"))
    assert.are.equal("invalid JSON at line 1: bad number '1e'", decode_error("[1e]"))
    assert.are.equal("invalid JSON at line 2: bad number '3e+'", decode_error('{"a":\n3e+}'))
  end)

  it("round-trips a result-shaped document", function()
    local doc = json.object()
    doc.scenario = "oltp_read_only"
    doc.threads = 8
    local t = json.object()
    t.events = 123456
    t.events_per_sec = 12345.6
    doc.totals = t
    local p = json.object()
    p["95"] = 1.25
    p["99.9"] = json.null
    doc.latency = p
    doc.buckets = json.array({ json.array({ 1000, 1023, 5 }), json.array({ 2048, 2049, 1 }) })
    local text = json.encode(doc, "  ")
    local back = json.decode(text)
    assert.are.equal(12345.6, back.totals.events_per_sec)
    assert.are.equal(1.25, back.latency["95"])
    assert.are.equal(2049, back.buckets[2][2])
    -- the null member is gone, everything else reads back identically
    p["99.9"] = nil
    assert.are.equal(json.encode(doc, "  "), json.encode(back, "  "))
  end)
end)
