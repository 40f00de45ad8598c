-- fileio's machinery: the file set and its manifest, option interpretation,
-- jobs, data points and the steady-state rule.  The scenario file reads as
-- a description of the commands; everything here is plumbing.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local bit = require("bit")

local M = {}

M.MANIFEST = "lbench-fileio.manifest"
M.GENMAP = "lbench-fileio.genmap"
M.MODES = { seqwr = true, seqrewr = true, seqrd = true, rndrd = true, rndwr = true, rndrw = true }

local function fail(fmt, ...) util.fail("fileio: " .. fmt, ...) end
M.fail = fail

-- ---- sizes ------------------------------------------------------------------
local size_units = { [""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4 }
function M.parse_size(s)
  local num, unit = tostring(s):lower():match("^%s*([%d%.]+)%s*([kmgt]?)i?b?%s*$")
  local n = tonumber(num)
  if not n then return nil end
  return math.floor(n * size_units[unit] + 0.5)
end

function M.fmt_size(b)
  local units = { "bytes", "KiB", "MiB", "GiB", "TiB" }
  local i = 1
  while b >= 1024 and i < #units do b = b / 1024; i = i + 1 end
  if i == 1 then return string.format("%d bytes", b) end
  return (string.format("%.1f", b):gsub("%.0$", "")) .. " " .. units[i]
end

-- ---- paths ------------------------------------------------------------------
local function join(dir, name) return (dir:gsub("/+$", "")) .. "/" .. name end
M.join = join

local function errstr(rc) return ffi.string(ffi.C.strerror(-rc)) end
pcall(ffi.cdef, "char *strerror(int errnum);")
M.errstr = errstr

-- The file set the options describe: directory of files, or a raw device.
-- Returns { kind = "dir"|"device", dir, device, manifest, genmap }.
function M.target(opt)
  local t = {}
  if opt.target and opt.target ~= "" then
    local kind = C.lb_io_path_kind(opt.target)
    if kind ~= C.LB_IO_PATH_BLOCKDEV then
      fail("--target=%s is not a block device (use --target-dir=DIR for a set of files)", opt.target)
    end
    t.kind, t.device = "device", opt.target
    local base = opt.target:match("([^/]+)$")
    t.manifest = opt.manifest ~= "" and opt.manifest or ("lbench-fileio-" .. base .. ".manifest")
    t.genmap = t.manifest:gsub("%.manifest$", "") .. ".genmap"
    t.key = "dev:" .. opt.target
  else
    t.kind, t.dir = "dir", opt.target_dir
    t.manifest = opt.manifest ~= "" and opt.manifest or join(t.dir, M.MANIFEST)
    t.genmap = join(t.dir, M.GENMAP)
    t.key = "dir:" .. t.dir
  end
  return t
end

-- ---- manifest ---------------------------------------------------------------
function M.load_manifest(t)
  local src = util.read_file(t.manifest)
  if not src then return nil end
  local ok, m = pcall(json.decode, src)
  if not ok or type(m) ~= "table" or m.tool ~= "lbench fileio" then
    fail("%s is not an lbench fileio manifest; refusing to touch the set", t.manifest)
  end
  return m
end

-- The manifest of a prepared set, or a clear error.
function M.require_manifest(t)
  local m = M.load_manifest(t)
  if not m then
    fail("no prepared file set at %s (run: lbench fileio %s prepare)", t.kind == "dir" and t.dir or t.device,
      t.kind == "dir" and ("--target-dir=" .. t.dir) or ("--target=" .. t.device .. " --allow-destructive"))
  end
  if m.state ~= "ready" then
    fail("the file set at %s is incomplete (state '%s'): run prepare again", t.dir or t.device, tostring(m.state))
  end
  return m
end

function M.save_manifest(t, m)
  local o = json.object()
  for _, k in ipairs({ "tool", "version", "kind", "target", "created_dir", "state", "file_num", "file_size",
                       "total_size", "files", "vbs", "generation", "fill_pct", "prepared_at", "preconditioned" }) do
    local v = m[k]
    if k == "files" and v then v = json.array(v) end
    if v ~= nil then o[k] = v end
  end
  local tmp = t.manifest .. ".tmp"
  local f, e = io.open(tmp, "wb")
  if not f then fail("cannot write %s: %s", tmp, e) end
  f:write(json.encode(o, "  "), "\n")
  f:close()
  local ok, e2 = os.rename(tmp, t.manifest)
  if not ok then fail("cannot write %s: %s", t.manifest, e2) end
end

-- Paths of the set's files.
function M.paths(t, m)
  if t.kind == "device" then return { t.device } end
  local p = {}
  for i, name in ipairs(m.files) do p[i] = join(t.dir, name) end
  return p
end

-- Drop the set from the page cache (--invalidate), so that a test reading
-- through the cache starts from the device, as fio's jobs do.
function M.invalidate(t, m)
  for _, path in ipairs(M.paths(t, m)) do
    local rc = ffi.C.lb_io_invalidate(path)
    if rc < 0 then fail("--invalidate: cannot drop %s from the page cache: %s (--invalidate=off skips this)", path, errstr(rc)) end
  end
end

-- ---- option interpretation ---------------------------------------------------
-- Block sizes: --bssplit=4k/50:64k/50 or --file-block-size.
function M.block_sizes(opt)
  local list = {}
  if opt.bssplit and opt.bssplit ~= "" then
    local spec = opt.bssplit:match("^([^,]*)")   -- fio's read,write form: reads' split for both
    local rest = 100
    local nopct = {}
    for item in spec:gmatch("[^:]+") do
      local s, p = item:match("^%s*([^/]+)/?([%d%.]*)%s*$")
      local bs = s and M.parse_size(s)
      if not bs or bs <= 0 then fail("--bssplit: '%s' is not size/percent (e.g. 4k/50:64k/50)", item) end
      local e = { bs = bs, pct = tonumber(p) }
      if e.pct then rest = rest - e.pct else nopct[#nopct + 1] = e end
      list[#list + 1] = e
    end
    for _, e in ipairs(nopct) do e.pct = math.max(rest, 0) / #nopct end
    if #list == 0 or #list > C.LB_IO_MAX_BS then fail("--bssplit: 1 to %d sizes", C.LB_IO_MAX_BS) end
  else
    list[1] = { bs = opt.file_block_size, pct = 100 }
  end
  return list
end

-- Read share in % for a test mode.
function M.read_pct(opt, mode)
  if mode == "seqrd" or mode == "rndrd" then return 100 end
  if mode == "rndrw" then
    if opt.rwmixread >= 0 then return opt.rwmixread end
    local r = opt.file_rw_ratio
    return r / (1 + r) * 100
  end
  return 0
end

local dists = { uniform = C.LB_IO_DIST_UNIFORM, random = C.LB_IO_DIST_UNIFORM, zipf = C.LB_IO_DIST_ZIPF,
                pareto = C.LB_IO_DIST_PARETO, normal = C.LB_IO_DIST_NORMAL }
function M.distribution(s)
  local name, arg = tostring(s):match("^%s*(%a+)%s*:?%s*([%d%.]*)%s*$")
  local d = name and dists[name:lower()]
  if not d then fail("--random-distribution=%s: expected uniform, zipf[:theta], pareto[:h] or normal[:sigma%%]", s) end
  return d, tonumber(arg) or 0, name:lower()
end

function M.engine(opt)
  local e = opt.ioengine
  if not e or e == "" then
    e = ({ sync = "sync", async = "libaio", mmap = "mmap" })[opt.file_io_mode]
    if not e then fail("--file-io-mode=%s: expected sync, async or mmap", tostring(opt.file_io_mode)) end
  end
  if e == "psync" then e = "sync" end
  if e == "uring" then e = "io_uring" end
  local err = ffi.new("char[?]", 512)
  local rc = C.lb_io_engine_probe(e, err, 512)
  if rc ~= 0 then fail("%s", ffi.string(err)) end
  return e
end

function M.iodepth(opt, engine)
  if engine == "sync" or engine == "mmap" then return 1 end
  if opt.iodepth > 0 then return opt.iodepth end
  if opt.file_io_mode == "async" then return opt.file_async_backlog end
  return 1
end

function M.open_flags(opt)
  local f = 0
  for _, x in ipairs(opt.file_extra_flags or {}) do
    if x == "direct" then f = bit.bor(f, C.LB_IO_F_DIRECT)
    elseif x == "sync" then f = bit.bor(f, C.LB_IO_F_SYNC)
    elseif x == "dsync" then f = bit.bor(f, C.LB_IO_F_DSYNC)
    elseif x ~= "" then fail("--file-extra-flags: unknown flag '%s' (direct, sync, dsync)", x) end
  end
  return f
end

-- Validate what a run needs (main state, before workers start).
function M.check_run(opt, mode)
  if not mode or mode == "" then
    fail("missing --file-test-mode (seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw)")
  end
  if not M.MODES[mode] then
    fail("--file-test-mode=%s: expected seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw", mode)
  end
  M.open_flags(opt)
  M.distribution(opt.random_distribution)
  if opt.rwmixread > 100 then fail("--rwmixread must be in 0..100") end
  if opt.buffer_compress_percentage < 0 or opt.buffer_compress_percentage > 100 then
    fail("--buffer-compress-percentage must be in 0..100")
  end
  return M.engine(opt)
end

-- ---- jobs -----------------------------------------------------------------------
-- I/Os per submit call and completions taken at once (0: the whole queue):
-- --iodepth-batch and --iodepth-batch-complete-max, or where they are 0 the
-- defaults.  io_uring: the whole queue both ways.  libaio: fio's pattern, each
-- completion taken and replaced on its own (one io_submit per I/O), except
-- in a test that only writes at depth 8 or more: there completions waiting
-- together, up to iodepth/8 and at most 4, are replaced with one io_submit.
-- Measured on the development VM's virtio disk at QD32 (24 alternating pairs of
-- 3 s runs): 12 % less CPU per write at equal IOPS.  For reads the same
-- cost 4 % IOPS, and whole-queue batches cost 5-15 % either way (requests
-- fall into lock-step convoys).
function M.batching(opt, engine, iodepth, read_pct)
  local n = 0
  if engine == "libaio" then
    n = read_pct == 0 and math.max(math.min(math.floor(iodepth / 8), 4), 1) or 1
  end
  local b, rm = opt.iodepth_batch or 0, opt.iodepth_batch_complete_max or 0
  return b > 0 and b or n, rm > 0 and rm or n
end

-- A job over the prepared set `m` for worker `tid` of `threads`.
-- o = { mode, engine, iodepth, generation, stamp, types = {r, w, f}, max_ios, passes,
--       flags, bss, shared, genmap }
function M.new_job(t, m, opt, tid, threads, o)
  local p = ffi.new("lb_io_params")
  C.lb_io_params_init(p)
  p.iodepth = o.iodepth
  p.read_pct = M.read_pct(opt, o.mode)
  p.batch, p.reap_max = M.batching(opt, o.engine, o.iodepth, p.read_pct)
  p.reap_min = opt.iodepth_batch_complete_min or 0
  local seq = o.mode:sub(1, 3) == "seq"
  p.pattern = seq and C.LB_IO_SEQ or C.LB_IO_RAND
  local d, darg = M.distribution(o.dist or opt.random_distribution)
  p.dist, p.dist_arg = d, darg
  local bss = o.bss or M.block_sizes(opt)
  p.nbs = #bss
  local maxbs = 0
  for i, e in ipairs(bss) do
    p.bs[i - 1] = e.bs
    p.bs_pct[i - 1] = e.pct
    if e.bs > maxbs then maxbs = e.bs end
  end
  p.fsync_freq = o.fsync_freq or opt.file_fsync_freq
  p.fsync_all = (o.fsync_freq == nil and opt.file_fsync_all) and 1 or 0
  p.fsync_op = opt.file_fsync_mode == "fdatasync" and C.LB_IO_FDATASYNC or C.LB_IO_FSYNC
  if o.fsync_end ~= nil then p.fsync_end = o.fsync_end and 1 or 0 else p.fsync_end = opt.file_fsync_end and 1 or 0 end
  p.compress_pct = opt.buffer_compress_percentage
  p.stamp = o.stamp and 1 or 0
  p.vbs = m.vbs
  p.generation = o.generation or m.generation
  p.tid = tid
  p.seed = opt.rand_seed ~= 0 and opt.rand_seed or (C.lb_clock_ns() % 2 ^ 52)
  p.max_ios = o.max_ios or 0
  p.passes = o.passes or 0
  p.type_read, p.type_write, p.type_fsync = o.types[1], o.types[2], o.types[3]
  if o.step_ns then p.step_ns = o.step_ns end
  local total = m.file_size * #m.files
  if seq and threads > 1 then
    -- Each thread walks its own slice of the set, aligned to the largest block.
    local per = math.floor(total / threads / maxbs) * maxbs
    p.region_start = per * tid
    p.region_end = tid == threads - 1 and total or per * (tid + 1)
    if per == 0 then fail("the set is too small to split between %d threads", threads) end
  end
  local err = ffi.new("char[?]", 512)
  local job = C.lb_io_job_new(o.engine, p, err, 512)
  if job == nil then fail("%s", ffi.string(err)) end
  job = ffi.gc(job, C.lb_io_job_free)
  local function check(rc)
    if rc < 0 then fail("%s", ffi.string(C.lb_io_job_error(job))) end
  end
  for _, path in ipairs(M.paths(t, m)) do
    check(C.lb_io_job_add_file(job, path, m.file_size, bit.bor(o.flags or 0, o.create and C.LB_IO_F_CREATE or 0)))
  end
  if o.genmap then check(C.lb_io_job_set_genmap(job, t.genmap)) end
  if o.shared ~= nil then C.lb_io_job_set_shared(job, o.shared) end
  check(C.lb_io_job_start(job))
  return job
end

-- ---- data points -----------------------------------------------------------------
-- Latency percentiles of every point (per window, reads and writes apart), in
-- the order of lb_io_point's read_lat_ms[] / write_lat_ms[] (LB_IO_PCT_*).
M.POINT_PCTS = { "p50", "p95", "p99", "p99_9", "max" }

function M.points(sh)
  local out = json.array()
  if sh == nil then return out end
  local pt = ffi.new("lb_io_point")
  for i = 0, C.lb_io_shared_npoints(sh) - 1 do
    C.lb_io_shared_point(sh, i, pt)
    local o = json.object()
    local secs = pt.secs > 0 and pt.secs or 1e-9
    o.ios = tonumber(pt.ios)
    o.time_s = pt.time_s
    o.secs = pt.secs
    o.iops = tonumber(pt.reads + pt.writes) / secs
    o.reads_per_sec = tonumber(pt.reads) / secs
    o.writes_per_sec = tonumber(pt.writes) / secs
    o.fsyncs_per_sec = tonumber(pt.fsyncs) / secs
    o.read_mib_per_sec = tonumber(pt.bytes_read) / secs / 1048576
    o.written_mib_per_sec = tonumber(pt.bytes_written) / secs / 1048576
    o.read_lat_avg_ms = pt.read_lat_avg_ms
    o.write_lat_avg_ms = pt.write_lat_avg_ms
    for i, suffix in ipairs(M.POINT_PCTS) do   -- read_lat_ms[] / write_lat_ms[] in this order
      o["read_lat_" .. suffix .. "_ms"] = pt.read_lat_ms[i - 1]
      o["write_lat_" .. suffix .. "_ms"] = pt.write_lat_ms[i - 1]
    end
    out[#out + 1] = o
  end
  return out
end

M.POINT_COLS = { "ios", "time_s", "secs", "iops", "reads_per_sec", "writes_per_sec", "fsyncs_per_sec",
                 "read_mib_per_sec", "written_mib_per_sec", "read_lat_avg_ms", "write_lat_avg_ms" }
for _, kind in ipairs({ "read", "write" }) do
  for _, suffix in ipairs(M.POINT_PCTS) do M.POINT_COLS[#M.POINT_COLS + 1] = kind .. "_lat_" .. suffix .. "_ms" end
end

function M.point_line(p)
  return string.format("[ %d ios ] %.3fs iops: %.2f (r/w/f: %.2f/%.2f/%.2f) read: %.2f MiB/s written: %.2f MiB/s lat avg (ms) r/w: %.3f/%.3f p99 (ms) r/w: %.3f/%.3f",
    p.ios, p.time_s, p.iops, p.reads_per_sec, p.writes_per_sec, p.fsyncs_per_sec, p.read_mib_per_sec,
    p.written_mib_per_sec, p.read_lat_avg_ms, p.write_lat_avg_ms, p.read_lat_p99_ms, p.write_lat_p99_ms)
end

function M.points_csv(points)
  local rows = { table.concat(M.POINT_COLS, ",") }
  for _, p in ipairs(points) do
    local v = {}
    for i, k in ipairs(M.POINT_COLS) do v[i] = string.format("%.6g", p[k]) end
    rows[#rows + 1] = table.concat(v, ",")
  end
  return table.concat(rows, "\n")
end

-- ---- steady state ------------------------------------------------------------------
function M.steady(series, window, range_pct, slope_pct)
  local n = #series
  local y = ffi.new("double[?]", math.max(n, 1))
  for i, v in ipairs(series) do y[i - 1] = v end
  local s = ffi.new("lb_io_steady")
  C.lb_io_steady_state(y, n, window, range_pct, slope_pct, s)
  return { steady = s.steady == 1, window = s.window, avg = s.avg, min = s.min, max = s.max,
           range_pct = s.range_pct, slope = s.slope, excursion_pct = s.excursion_pct }
end

-- --precondition=seq128k:2x,workload:steady  ->  steps
function M.precondition_steps(s)
  local steps = {}
  for item in tostring(s):gmatch("[^,]+") do
    item = util.trim(item)
    local bs, n = item:match("^seq([%w%.]+):(%d+)x$")
    if not bs then bs = item:match("^seq([%w%.]+)$"); n = bs and "2" end
    if bs then
      local b = M.parse_size(bs)
      if not b or b <= 0 then fail("--precondition: bad block size in '%s'", item) end
      steps[#steps + 1] = { kind = "seq", bs = b, passes = tonumber(n) }
    else
      local what = item:match("^workload:?(.*)$")
      if not what then fail("--precondition: '%s' is neither seq<size>:<N>x nor workload[:steady|:<rounds>]", item) end
      if what == "" or what == "steady" then steps[#steps + 1] = { kind = "workload", steady = true }
      elseif tonumber(what) then steps[#steps + 1] = { kind = "workload", rounds = tonumber(what) }
      else fail("--precondition: '%s': workload:steady or workload:<rounds>", item) end
    end
  end
  if #steps == 0 then fail("--precondition: nothing to do") end
  return steps
end

return M
