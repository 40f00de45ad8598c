-- The Prometheus text format parser and the node exporter's counters and
-- figures (lua/lbench/promtext.lua, lua/lbench/nodeexp.lua).
local promtext = require("lbench.promtext")
local nodeexp = require("lbench.nodeexp")

describe("lbench.promtext", function()
  it("reads comments, HELP and TYPE lines, labels and plain samples", function()
    local page = promtext.parse(table.concat({
      "# HELP node_load1 1m load average.",
      "# TYPE node_load1 gauge",
      "# just a comment",
      "",
      "node_load1 0.25",
      'node_cpu_seconds_total{cpu="0",mode="idle"} 1234.5',
      'node_cpu_seconds_total{cpu="0",mode="user",} 10',
    }, "\n"))
    assert.are.equal("gauge", page.types.node_load1)
    assert.are.equal("1m load average.", page.help.node_load1)
    assert.are.equal(0.25, page.samples.node_load1[1].value)
    local cpu = page.samples.node_cpu_seconds_total
    assert.are.equal(2, #cpu)
    assert.are.same({ cpu = "0", mode = "idle" }, cpu[1].labels)
    assert.are.equal(10, cpu[2].value)
    assert.is_nil(page.bad)
  end)

  it("unescapes label values: quotes, backslashes, newlines, commas and braces", function()
    local name, labels, v = promtext.sample('x{a="say \\"hi\\"",b="c:\\\\dir",c="l1\\nl2",d="a,b}{"} 1')
    assert.are.equal("x", name)
    assert.are.equal('say "hi"', labels.a)
    assert.are.equal("c:\\dir", labels.b)
    assert.are.equal("l1\nl2", labels.c)
    assert.are.equal("a,b}{", labels.d)
    assert.are.equal(1, v)
  end)

  it("reads exponents, NaN, +Inf, -Inf and a timestamp", function()
    local page = promtext.parse("a 1.32749934592e+11\nb NaN\nc +Inf\nd -Inf\ne 3 1700000000000\nf -2.5E-3\n")
    assert.are.equal(1.32749934592e11, page.samples.a[1].value)
    local nan = page.samples.b[1].value
    assert.is_true(nan ~= nan)
    assert.are.equal(math.huge, page.samples.c[1].value)
    assert.are.equal(-math.huge, page.samples.d[1].value)
    assert.are.equal(1700000000000, page.samples.e[1].timestamp)
    assert.are.equal(-0.0025, page.samples.f[1].value)
  end)

  it("counts bad lines and keeps the rest", function()
    local page = promtext.parse('ok 1\nbroken{a="x} 1\nno_value\nbad 0x10\nhex{a="\\q"} 1\nok2 2\n')
    assert.are.equal(1, page.samples.ok[1].value)
    assert.are.equal(2, page.samples.ok2[1].value)
    assert.are.equal(4, page.bad.count)
    assert.are.equal("line 2: unterminated label value of 'a'", page.bad.first)
  end)

  it("keeps only the wanted metrics", function()
    local page = promtext.parse('a 1\nb{x="1"} 2\n', { b = true })
    assert.is_nil(page.samples.a)
    assert.are.equal(2, page.samples.b[1].value)
  end)
end)

-- A node exporter's page at one instant: CPU seconds per mode over two
-- CPUs, and disk counters.
local function page(user, idle, written, io)
  return table.concat({
    "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.",
    "# TYPE node_cpu_seconds_total counter",
    string.format('node_cpu_seconds_total{cpu="0",mode="user"} %g', user / 2),
    string.format('node_cpu_seconds_total{cpu="1",mode="user"} %g', user / 2),
    string.format('node_cpu_seconds_total{cpu="0",mode="idle"} %g', idle / 2),
    string.format('node_cpu_seconds_total{cpu="1",mode="idle"} %g', idle / 2),
    'node_cpu_seconds_total{cpu="0",mode="steal"} 0',
    string.format('node_disk_written_bytes_total{device="vda"} %.12e', written),
    string.format('node_disk_writes_completed_total{device="vda"} %d', written / 4096),
    string.format('node_disk_write_time_seconds_total{device="vda"} %g', io / 2),
    string.format('node_disk_io_time_seconds_total{device="vda"} %g', io),
    'node_disk_written_bytes_total{device="vda1"} 5',
    'node_disk_written_bytes_total{device="loop0"} 5',
    'node_disk_written_bytes_total{device="zram0"} 5',
    "",
  }, "\n")
end

describe("lbench.nodeexp", function()
  it("turns two pages into the local host's figure shapes", function()
    local a = assert(nodeexp.counters(page(100, 300, 1e9, 10)))
    local b = assert(nodeexp.counters(page(101.5, 300.5, 1e9 + 2 * 1048576 * 10, 10.5)))
    assert.are.same({ "vda" }, (function() local k = {} for n in pairs(b.disks) do k[#k + 1] = n end return k end)())
    local f = nodeexp.figures(a, b, 2)
    assert.are.equal(75, f.cpu.user_pct)
    assert.are.equal(25, f.cpu.idle_pct)
    assert.are.equal(0, f.cpu.iowait_pct)
    local d = f.devices.vda
    assert.are.equal(10, d.written_mib_per_sec)
    assert.are.equal(2560, d.writes_per_sec)
    assert.are.equal(25, d.util_pct)
    for _, k in ipairs({ "reads_per_sec", "writes_per_sec", "read_mib_per_sec", "written_mib_per_sec", "await_ms",
                         "util_pct" }) do
      assert.is_number(d[k])
    end
  end)

  it("gives no figures over a counter reset", function()
    local a = assert(nodeexp.counters(page(100, 300, 1e9, 10)))
    local b = assert(nodeexp.counters(page(1, 2, 1e6, 1)))
    local f = nodeexp.figures(a, b, 1)
    assert.is_nil(f.cpu)
    assert.is_nil(f.devices)
  end)

  it("says what is missing from a page that is not a node exporter's", function()
    local c, why = nodeexp.counters("# hello\nsomething_else 1\n")
    assert.is_nil(c)
    assert.are.equal("no node_cpu_seconds_total on the page", why)
  end)

  it("names an exporter by HOST:PORT and refuses what is not an http:// URL", function()
    assert.are.equal("db1:9100", nodeexp.key("http://db1:9100/metrics"))
    assert.are.equal("db1:80", nodeexp.key("http://db1/metrics"))
    assert.are.equal("http://db1:9100/metrics", (nodeexp.check_url("http://db1:9100/metrics")))
    local ok, why = nodeexp.check_url("https://db1:9100/metrics")
    assert.is_nil(ok)
    assert.are.equal("https is not supported (http:// only)", why)
  end)

  it("skips partitions, loop and RAM devices", function()
    for _, n in ipairs({ "vda1", "sdb2", "nvme0n1p3", "loop7", "ram0", "zram0", "mmcblk0p1" }) do
      assert.is_truthy(nodeexp.skip_device(n), n)
    end
    for _, n in ipairs({ "vda", "sdb", "nvme0n1", "dm-0", "md127", "mmcblk0" }) do
      assert.is_falsy(nodeexp.skip_device(n), n)
    end
  end)
end)
