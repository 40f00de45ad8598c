-- fileio: file and block-device I/O, sysbench fileio's options and output
-- plus what an fio user expects: I/O engines (sync, libaio, io_uring, mmap,
-- null), queue depth, read/write mixes, block-size splits, skewed offsets,
-- fill level, preconditioning to steady state, data points every N I/Os,
-- and verification of every block written.
--
--   lbench fileio --target-dir=/mnt/ssd/lb --fill=37.5% --file-num=16 prepare
--   lbench fileio --target-dir=/mnt/ssd/lb precondition --file-test-mode=rndwr
--   lbench fileio --target-dir=/mnt/ssd/lb --file-test-mode=rndrw --rwmixread=67 \
--                 --file-io-mode=async --iodepth=32 --file-extra-flags=direct run
--   lbench fileio --target-dir=/mnt/ssd/lb verify
--   lbench fileio --target-dir=/mnt/ssd/lb cleanup
--
-- The per-I/O path is C (core/io): event() runs one batch of I/Os (about
-- 1 ms) per call, every I/O is timed and recorded by the core.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local lib = require("fileio.lib")
local fail = lib.fail

lbench.cmdline.options = {
  -- sysbench fileio's options, same names, meanings and defaults
  file_num = { "number of files to create", 128 },
  file_block_size = { "block size of every I/O operation", 16384, lbench.cmdline.ARG_SIZE },
  file_total_size = { "total size of the files to create (see also --fill)", 2 * 1024 ^ 3, lbench.cmdline.ARG_SIZE },
  file_test_mode = { "test mode: seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw", "" },
  file_io_mode = { "file operations mode: sync, async (libaio), mmap", "sync", type = "enum",
                   choices = { "sync", "async", "mmap" } },
  file_async_backlog = { "I/Os in flight per thread in async mode (when --iodepth is not given)", 128 },
  file_extra_flags = { "extra open flags: direct, sync, dsync (a list)", {} },
  file_fsync_freq = { "fsync the written files after this many requests (0: never)", 100 },
  file_fsync_all = { "fsync after every write", false },
  file_fsync_end = { "fsync the written files at the end of the test", true },
  file_fsync_mode = { "how to sync: fsync or fdatasync", "fsync", type = "enum", choices = { "fsync", "fdatasync" } },
  file_rw_ratio = { "reads/writes ratio of rndrw (when --rwmixread is not given)", 1.5 },
  -- fio-like additions
  ioengine = { "I/O engine: sync (psync), libaio, io_uring, mmap, null; default from --file-io-mode", "" },
  iodepth = { "I/Os in flight per thread (0: 1, or --file-async-backlog in async mode)", 0 },
  iodepth_batch = { "submit at most this many I/Os per system call (0: libaio 1, or up to iodepth/8 and 4 when only writing; io_uring the whole queue)", 0 },
  iodepth_batch_complete_min = { "when no completion is there, wait for this many (0: 1)", 0 },
  iodepth_batch_complete_max = { "take at most this many completions at once (0: --iodepth-batch's default)", 0 },
  rwmixread = { "share of reads in % for rndrw (-1: from --file-rw-ratio)", -1, lbench.cmdline.ARG_DOUBLE },
  bssplit = { "block size split, e.g. 4k/50:64k/30:1m/20 (overrides --file-block-size)", "" },
  random_distribution = { "offsets of random I/O: uniform, zipf[:theta], pareto[:h], normal[:sigma%]", "uniform" },
  buffer_compress_percentage = { "share of each written block that compresses (zeros); default 0: random, incompressible", 0 },
  stamp = { "stamp every written 4 KiB chunk with checksum, offset and generation (for verify)", true },
  seq_passes = { "sequential modes: stop after this many passes over the set (0: until --time)", 0 },
  invalidate = { "drop the set from the page cache after prepare and before run and verify (as fio does)", true },
  -- the file set
  target_dir = { "directory of the file set (created if missing)", "lbench-fileio" },
  target = { "a raw block device instead of files (needs --allow-destructive to write)", "" },
  allow_destructive = { "allow writing a raw device, or a set into a non-empty directory lbench did not create", false },
  fill = { "size the set to this share of the filesystem (or device), e.g. 37.5%", "" },
  manifest = { "manifest path (default: in the target directory; for --target: ./lbench-fileio-<dev>.manifest)", "" },
  -- reporting
  report_every_ios = { "one data point per N completed I/Os (the write-cliff curve)", 0 },
  -- preconditioning
  precondition = { "steps: seq<size>:<N>x (sequential passes), workload[:steady|:<rounds>]", "seq128k:2x,workload:steady" },
  precondition_round_time = { "seconds per workload round", 60, lbench.cmdline.ARG_DOUBLE },
  precondition_max_rounds = { "round cap of workload:steady", 25 },
  steady_window = { "rounds in the steady-state window (SNIA PTS: 5)", 5 },
  steady_range_pct = { "max - min within the window, in % of the average (SNIA PTS: 20)", 20, lbench.cmdline.ARG_DOUBLE },
  steady_slope_pct = { "excursion of the least-squares line, in % of the average (SNIA PTS: 10)", 10, lbench.cmdline.ARG_DOUBLE },
  -- verify
  verify_direct = { "verify reads with O_DIRECT (what is on the device, not in the page cache)", true },
  verify_max_report = { "list at most this many mismatched blocks", 100 },
}

local TYPE_READ = lbench.stat.type("read")
local TYPE_WRITE = lbench.stat.type("write")
local TYPE_FSYNC = lbench.stat.type("fsync")

local S = { in_precondition = false }   -- main-state bookkeeping

local function writes(mode) return mode ~= "seqrd" and mode ~= "rndrd" end

local function check_device_write(t, opt, what)
  if t.kind == "device" and not opt.allow_destructive then
    fail("--target=%s is a raw block device and %s writes to it, destroying its contents; add --allow-destructive",
      t.device, what)
  end
end

local function space_of(path)
  -- Tests may simulate a filesystem: LBENCH_FILEIO_SPACE=total_bytes:avail_bytes.
  local fake = os.getenv("LBENCH_FILEIO_SPACE")
  if fake then
    local tot, av = fake:match("^(%d+):(%d+)$")
    if tot then return { total = tonumber(tot), avail = tonumber(av) } end
  end
  local sp = ffi.new("lb_io_space")
  local rc = C.lb_io_space_of(path, sp)
  if rc < 0 then fail("cannot query the space of %s: %s", path, lib.errstr(rc)) end
  return { total = tonumber(sp.total), avail = tonumber(sp.avail), blockdev = sp.is_blockdev == 1 }
end

local function gcd(a, b) while b > 0 do a, b = b, a % b end return a end
local function lcm(a, b) return a / gcd(a, b) * b end

-- The block sizes' greatest common divisor and least common multiple.
local function block_gcd_lcm(opt)
  local g, l = 0, 1
  for _, e in ipairs(lib.block_sizes(opt)) do g = gcd(e.bs, g); l = lcm(l, e.bs) end
  return g, l
end

pcall(ffi.cdef, "int truncate(const char *path, int64_t length);")

-- ---- prepare ---------------------------------------------------------------
-- Prepare writes in blocks of 1 MiB where the file size allows, else in the
-- least common multiple of the block sizes (every test's block divides it).
local function prepare_block(opt, file_size)
  if file_size % 1048576 == 0 then return 1048576 end
  local _, l = block_gcd_lcm(opt)
  return l
end

-- Writer threads: --threads, at most one per prepare block of the set.
local function prepare_threads(opt, m)
  return math.max(1, math.min(opt.threads, math.floor(m.total_size / prepare_block(opt, m.file_size))))
end

-- Write slice `tid` of `threads` of the set through the page cache, fsync at
-- the end; report(bytes done, now) after every step.  Returns bytes written.
local function write_slice(t, m, opt, tid, threads, report)
  local job = lib.new_job(t, m, opt, tid, threads, {
    mode = "seqwr", engine = "sync", iodepth = 1, stamp = true,
    bss = { { bs = prepare_block(opt, m.file_size), pct = 100 } },
    types = { -1, -1, -1 }, passes = 1, create = t.kind == "dir", genmap = true, step_ns = 250e6,
    fsync_freq = 0, fsync_end = true, dist = "uniform",
  })
  local counters = C.lb_io_job_counters(job)
  while true do
    local n = C.lb_io_job_step(job, nil)
    if n < 0 then fail("prepare: %s", ffi.string(C.lb_io_job_error(job))) end
    if n == 0 then break end
    report(tonumber(counters.bytes_written), C.lb_clock_now())
    if lbench.should_stop() then fail("prepare interrupted; run prepare again") end
  end
  if C.lb_io_job_finish(job, nil) < 0 then fail("prepare: %s", ffi.string(C.lb_io_job_error(job))) end
  report(tonumber(counters.bytes_written), C.lb_clock_now())
  return tonumber(counters.bytes_written)
end

-- One writer thread of a parallel prepare (--threads > 1).
local function prepare_write()
  local opt = lbench.opt
  local t = lib.target(opt)
  local m = lib.load_manifest(t)
  local threads = prepare_threads(opt, m)
  if lbench.tid >= threads then return end
  local mib, sent = 1048576, 0
  write_slice(t, m, opt, lbench.tid, threads, function(done)
    local whole = math.floor(done / mib)
    if whole > sent then lbench.progress.add(whole - sent); sent = whole end
  end)
end

local function prepare()
  local opt = lbench.opt
  local t = lib.target(opt)
  local old = lib.load_manifest(t)
  local created_dir = old and old.created_dir or false
  if t.kind == "device" then
    check_device_write(t, opt, "prepare")
  else
    local kind = C.lb_io_path_kind(t.dir)
    if kind == C.LB_IO_PATH_NONE then
      local rc = C.lb_io_mkdir_p(t.dir)
      if rc < 0 then fail("cannot create %s: %s", t.dir, lib.errstr(rc)) end
      created_dir = true
    elseif kind ~= C.LB_IO_PATH_DIR then
      fail("--target-dir=%s exists and is not a directory", t.dir)
    elseif not old and C.lb_io_dir_entries(t.dir) > 0 and not opt.allow_destructive then
      fail("%s is not empty and holds no lbench file set: refusing to write there (use a new or empty directory, "
        .. "or --allow-destructive to add the set beside the files already there, which are never touched)", t.dir)
    end
  end

  -- Geometry: equal files whose size every block size divides.
  local g, align = block_gcd_lcm(opt)
  local vbs = math.min(4096, g)
  if vbs < 512 or vbs % 64 ~= 0 then fail("block sizes must be multiples of 512 bytes") end
  local file_num = t.kind == "device" and 1 or opt.file_num
  if file_num < 1 then fail("--file-num must be at least 1") end
  local sp = space_of(t.kind == "device" and t.device or t.dir)
  local total = opt.file_total_size
  local fill_pct
  if opt.fill ~= "" then
    fill_pct = tonumber((opt.fill:gsub("%%%s*$", "")))
    if not fill_pct or fill_pct <= 0 or fill_pct > 100 then fail("--fill=%s: expected a percentage in (0, 100], e.g. 37.5%%", opt.fill) end
    total = math.floor(sp.total * fill_pct / 100)
  elseif t.kind == "device" then
    total = math.min(total, sp.total)
  end
  local per = math.floor(total / file_num)
  if per >= 8 * 1048576 and 1048576 % align == 0 then align = 1048576 end
  local file_size = math.floor(per / align) * align
  if file_size < align or file_size == 0 then
    fail("%s over %d files leaves less than one %s block per file", lib.fmt_size(total), file_num, lib.fmt_size(align))
  end
  total = file_size * file_num

  -- Never touch files we did not create; reuse ours.
  local ours = {}
  if old and old.files then for _, n in ipairs(old.files) do ours[n] = true end end
  local names, reuse = {}, 0
  if t.kind == "dir" then
    for i = 0, file_num - 1 do
      local name = "test_file." .. i
      local path = lib.join(t.dir, name)
      local kind = C.lb_io_path_kind(path)
      if kind ~= C.LB_IO_PATH_NONE then
        if not ours[name] then
          fail("%s exists and was not created by lbench: refusing to overwrite it", path)
        end
        if kind ~= C.LB_IO_PATH_FILE then fail("%s is not a regular file", path) end
        reuse = reuse + math.min(tonumber(C.lb_io_path_size(path)), file_size)
      end
      names[#names + 1] = name
    end
  else
    names[1] = t.device
  end
  local nchunks = total / vbs
  local map_bytes = nchunks * 2
  if t.kind == "dir" then
    local need = total - reuse + map_bytes
    if need > sp.avail then
      fail("%s%s needs %s (%d files of %s) but only %s is free on the filesystem of %s (%s in all): refusing to fill it",
        fill_pct and ("--fill=" .. opt.fill .. " ") or "", "the set", lib.fmt_size(need), file_num,
        lib.fmt_size(file_size), lib.fmt_size(sp.avail), t.dir, lib.fmt_size(sp.total))
    end
  end

  -- The manifest first, so an interrupted prepare still knows what is ours.
  local all = {}
  for n in pairs(ours) do all[#all + 1] = n end
  for _, n in ipairs(names) do if not ours[n] then all[#all + 1] = n end end
  table.sort(all)
  local m = { tool = "lbench fileio", version = 1, kind = t.kind, target = t.dir or t.device, created_dir = created_dir,
              state = "preparing", file_num = file_num, file_size = file_size, total_size = total,
              files = t.kind == "dir" and all or { names[1] }, vbs = vbs,
              generation = ((old and old.generation) or 0) + 1, fill_pct = fill_pct }
  lib.save_manifest(t, m)
  -- Our files beyond the new set are removed; the kept ones are cut to size.
  if t.kind == "dir" then
    local keep = {}
    for _, n in ipairs(names) do keep[n] = true end
    for n in pairs(ours) do
      local path = lib.join(t.dir, n)
      if not keep[n] then os.remove(path)
      elseif C.lb_io_path_kind(path) == C.LB_IO_PATH_FILE and C.lb_io_path_size(path) > file_size then
        ffi.C.truncate(path, file_size)
      end
    end
  end
  local err = ffi.new("char[?]", 512)
  local gm = C.lb_io_genmap_open(t.genmap, nchunks, 1, err, 512)
  if gm == nil then fail("%s", ffi.string(err)) end
  C.lb_io_genmap_close(gm)

  local verbose = opt.verbosity >= 3 and opt.output == "text"
  local share = fill_pct and string.format(" (%g %% of %s)", fill_pct, lib.fmt_size(sp.total)) or ""
  if verbose and t.kind == "dir" then
    print(string.format("%d files, %s each, %s total%s", file_num, lib.fmt_size(file_size), lib.fmt_size(total), share))
    print("Creating files for the test in " .. t.dir .. " ...")
  elseif verbose then
    print(string.format("Raw device %s: writing the first %s%s ...", t.device, lib.fmt_size(total), share))
  end
  -- Threads write slices of the set; workers read the geometry from the manifest.
  m.files = t.kind == "dir" and names or m.files
  lib.save_manifest(t, m)
  local threads = prepare_threads(opt, m)
  local t0 = C.lb_clock_now()
  local written
  if threads > 1 then
    lbench.progress.total(math.ceil(total / 1048576), "MiB")
    lbench.run_parallel("_prepare_write")
    written = total
  else
    local tty = C.lb_io_isatty(1) == 1 and opt.verbosity >= 3 and opt.output == "text"
    local last = t0
    local function progress(done, now)
      local rate = done / math.max(now - t0, 1e-9)
      print(string.format("  %s of %s (%.0f %%), %.1f MiB/s, ETA %ds", lib.fmt_size(done), lib.fmt_size(total),
        done / total * 100, rate / 1048576, math.floor((total - done) / math.max(rate, 1) + 0.5)))
    end
    written = write_slice(t, m, opt, 0, 1, function(done, now)
      if tty and now - last >= 1 then
        last = now
        progress(done, now)
      end
    end)
    if tty then progress(written, C.lb_clock_now()) end
  end
  local secs = C.lb_clock_now() - t0
  if opt.invalidate then lib.invalidate(t, m) end
  m.state = "ready"
  m.prepared_at = os.date("!%Y-%m-%dT%H:%M:%SZ")
  lib.save_manifest(t, m)
  if opt.verbosity >= 1 then
    print(string.format("%d bytes written in %.2f seconds (%.2f MiB/sec).", written, secs,
      written / math.max(secs, 1e-9) / 1048576))
    if t.kind == "dir" then
      print(string.format("Created %d file%s of %s (%s) in %s; manifest %s.", file_num, file_num > 1 and "s" or "",
        lib.fmt_size(file_size), lib.fmt_size(total), t.dir, t.manifest))
    else
      print(string.format("Prepared %s of %s; manifest %s.", lib.fmt_size(total), t.device, t.manifest))
    end
  end
end

-- ---- cleanup ---------------------------------------------------------------
local function cleanup()
  local t = lib.target(lbench.opt)
  local m = lib.load_manifest(t)
  if not m then
    print("No lbench file set at " .. (t.dir or t.device) .. ": nothing removed.")
    return
  end
  local n = 0
  if t.kind == "dir" then
    for _, name in ipairs(m.files or {}) do
      if os.remove(lib.join(t.dir, name)) then n = n + 1 end
    end
  end
  os.remove(t.genmap)
  os.remove(t.manifest)
  if t.kind == "dir" and m.created_dir then os.remove(t.dir) end  -- only when empty
  if t.kind == "dir" then
    print(string.format("Removed %d file%s of the set in %s.", n, n == 1 and "" or "s", t.dir))
  else
    print(string.format("Forgot the set on %s (manifest and generation map removed; the device is left as it is).", t.device))
  end
end

-- ---- run ---------------------------------------------------------------------
local function describe(opt, m, engine, depth, mode)
  local flags = #opt.file_extra_flags > 0 and table.concat(opt.file_extra_flags, " ") or "(none)"
  local bss = lib.block_sizes(opt)
  local bs = {}
  for _, e in ipairs(bss) do bs[#bs + 1] = lib.fmt_size(e.bs) .. (#bss > 1 and string.format("/%g%%", e.pct) or "") end
  local out = {
    "Extra file open flags: " .. flags,
    string.format("%d files, %s each", #m.files, lib.fmt_size(m.file_size)),
    string.format("%s total file size", lib.fmt_size(m.total_size)),
    "Block size " .. table.concat(bs, ":"),
    string.format("Number of IO requests: %d", opt.events),
  }
  if mode == "rndrw" then out[#out + 1] = string.format("Read share of the random r/w test: %.2f %%", lib.read_pct(opt, mode)) end
  if writes(mode) and opt.file_fsync_freq > 0 then
    out[#out + 1] = string.format("Periodic FSYNC enabled, calling %s() each %d requests.", opt.file_fsync_mode, opt.file_fsync_freq)
  end
  if writes(mode) then
    out[#out + 1] = "Calling fsync() at the end of test, " .. (opt.file_fsync_end and "Enabled." or "Disabled.")
  end
  out[#out + 1] = string.format("I/O engine %s, iodepth %d, offsets %s", engine, depth, opt.random_distribution)
  local what = { seqwr = "sequential write (creation)", seqrewr = "sequential rewrite", seqrd = "sequential read",
                 rndrd = "random read", rndwr = "random write", rndrw = "random r/w" }
  out[#out + 1] = "Doing " .. what[mode] .. " test"
  return table.concat(out, "\n")
end

function init()
  if S.in_precondition then return end
  local opt = lbench.opt
  local mode = opt.file_test_mode
  local engine = lib.check_run(opt, mode)
  local t = lib.target(opt)
  local m = lib.require_manifest(t)
  if writes(mode) then
    check_device_write(t, opt, "this test")
    m.generation = m.generation + 1
    lib.save_manifest(t, m)
  end
  for _, e in ipairs(lib.block_sizes(opt)) do
    if opt.stamp and engine ~= "null" and e.bs % m.vbs ~= 0 and writes(mode) then
      fail("block size %d is not a multiple of the set's %d-byte verify chunk; prepare with this block size, or use --stamp=off", e.bs, m.vbs)
    end
  end
  if opt.invalidate then lib.invalidate(t, m) end
  S.run = { t = t, m = m, engine = engine, depth = lib.iodepth(opt, engine), mode = mode }
  if S.sh ~= nil then C.lb_io_shared_close(S.sh); S.sh = nil end   -- left by a failed run
  if opt.report_every_ios > 0 then S.sh = C.lb_io_shared_open(t.key, opt.report_every_ios) end
  if opt.output == "text" and opt.verbosity >= 3 then
    print(describe(opt, m, engine, S.run.depth, mode) .. "\n")
  end
end

local W, job, sh, live, tick

function thread_init(tid)
  W = lbench.worker_ptr()
  local opt = lbench.opt
  local t = lib.target(opt)
  local m = lib.require_manifest(t)
  local mode = opt.file_test_mode
  local engine = lib.engine(opt)
  local threads = opt.threads
  local max_ios
  if opt.events > 0 then
    max_ios = math.floor(opt.events / threads) + (tid < opt.events % threads and 1 or 0)
    if max_ios == 0 then return end   -- nothing for this thread
  end
  sh = C.lb_io_shared_lookup(t.key)
  job = lib.new_job(t, m, opt, tid, threads, {
    mode = mode, engine = engine, iodepth = lib.iodepth(opt, engine), stamp = opt.stamp,
    types = { TYPE_READ, TYPE_WRITE, TYPE_FSYNC }, max_ios = max_ios, passes = opt.seq_passes,
    flags = lib.open_flags(opt), shared = sh, genmap = writes(mode),
  })
  live = sh ~= nil and tid == 0 and opt.output == "text" and opt.verbosity >= 3
  tick = 0
end

local first = ffi.new("int32_t[1]")
local function print_points(series)
  local n = C.lb_io_shared_take_unprinted(series, first)
  if n > 0 then
    local pts = lib.points(series)
    for i = first[0] + 1, first[0] + n do print(lib.point_line(pts[i])) end
  end
end

function event()
  if job == nil then return true end
  local n = C.lb_io_job_step(job, W)
  if n > 0 then
    if live then
      tick = tick + 1
      if tick % 64 == 0 then print_points(sh) end
    end
    return false
  end
  if n == 0 then return true end
  error("fileio: " .. ffi.string(C.lb_io_job_error(job)), 0)
end

function thread_done()
  if job == nil then return end
  local rc = C.lb_io_job_finish(job, W)
  if live then print_points(sh) end
  if rc < 0 then error("fileio: " .. ffi.string(C.lb_io_job_error(job)), 0) end
end

-- Interval lines: read and write latencies apart (the interval JSON and
-- the result carry every percentile per type).
lbench.hooks.interval_extra = function(iv)
  if not iv.types or not iv.io then return end
  local vals = {}
  for _, name in ipairs({ "read", "write" }) do
    local ty = iv.types[name]
    if ty and ty.events > 0 then
      local v = {}
      for _, p in ipairs(ty.latency_ms.pct_list or {}) do
        v[#v + 1] = p.ms and string.format("%.2f", p.ms) or "overflow"
      end
      vals[#vals + 1] = (name == "read" and "rd" or "wr") .. " lat: " .. table.concat(v, "/")
    end
  end
  if #vals > 0 then iv.types_line = table.concat(vals, " ") end
end

lbench.hooks.result = function(r)
  if S.in_precondition or not S.run then return end
  local opt, run = lbench.opt, S.run
  local f = json.object()
  f.mode = run.mode
  f.engine = run.engine
  f.iodepth = run.depth
  local bs = json.array()
  for _, e in ipairs(lib.block_sizes(opt)) do
    local o = json.object(); o.bytes = e.bs; o.pct = e.pct; bs[#bs + 1] = o
  end
  f.block_sizes = bs
  f.read_pct = lib.read_pct(opt, run.mode)
  f.iodepth_batch, f.iodepth_batch_complete_max = lib.batching(opt, run.engine, run.depth, f.read_pct)
  f.invalidate = opt.invalidate
  f.random_distribution = opt.random_distribution
  f.extra_flags = json.array(opt.file_extra_flags)
  f.target = run.t.dir or run.t.device
  f.files = #run.m.files
  f.file_size = run.m.file_size
  f.total_size = run.m.total_size
  f.fill_pct = run.m.fill_pct
  f.generation = run.m.generation
  if S.sh ~= nil then
    if opt.output == "text" and opt.verbosity >= 3 then print_points(S.sh) end
    f.report_every_ios = opt.report_every_ios
    f.points = lib.points(S.sh)
    C.lb_io_shared_close(S.sh)
    S.sh = nil
  end
  r.fileio = f
end

-- The text report's own section, and the points as a CSV block after the
-- totals (--output=csv).
lbench.hooks.report_extra = function(r, kind)
  local f = r.fileio
  if not f then return nil end
  if kind == "csv" then
    return f.points and ("\n" .. lib.points_csv(f.points)) or nil
  end
  local bs = {}
  for _, e in ipairs(f.block_sizes) do bs[#bs + 1] = lib.fmt_size(e.bytes) .. (#f.block_sizes > 1 and string.format("/%g%%", e.pct) or "") end
  local out = {
    "fileio:",
    string.format("    %s, engine %s, iodepth %d, block size %s, reads %.0f %%, offsets %s", f.mode, f.engine, f.iodepth,
      table.concat(bs, ":"), f.read_pct, f.random_distribution),
    string.format("    set: %d file%s of %s (%s%s) in %s, generation %d", f.files, f.files == 1 and "" or "s",
      lib.fmt_size(f.file_size), lib.fmt_size(f.total_size), f.fill_pct and string.format(", %g %% fill", f.fill_pct) or "",
      f.target, f.generation),
  }
  if f.points then
    out[#out + 1] = string.format("    data points: %d, one per %d I/Os (result file: fileio.points)", #f.points, f.report_every_ios)
  end
  return table.concat(out, "\n") .. "\n"
end

-- ---- precondition ------------------------------------------------------------
local function round_summary(k, r)
  local o = json.object()
  local io, secs = r.io or {}, r.duration_s > 0 and r.duration_s or 1
  o.round = k
  o.duration_s = r.duration_s
  o.iops = ((io.reads or 0) + (io.writes or 0)) / secs
  o.reads_per_sec = io.reads_per_sec or 0
  o.writes_per_sec = io.writes_per_sec or 0
  o.read_mib_per_sec = io.read_mib_per_sec or 0
  o.written_mib_per_sec = io.written_mib_per_sec or 0
  local function p99(name)
    local ty = r.types and r.types[name]
    return ty and ty.latency_ms.percentiles["99"] or json.null
  end
  o.read_p99_ms = p99("read")
  o.write_p99_ms = p99("write")
  return o
end

local function write_doc(path, doc)
  local f, e = io.open(path, "wb")
  if not f then fail("--result-file: cannot write '%s': %s", path, e) end
  f:write(json.encode(doc, "  "), "\n")
  f:close()
end


local function precondition()
  local opt = lbench.opt
  local t = lib.target(opt)
  local m = lib.require_manifest(t)
  check_device_write(t, opt, "precondition")
  local steps = lib.precondition_steps(opt.precondition)
  local started = os.date("!%Y-%m-%dT%H:%M:%SZ")
  for _, st in ipairs(steps) do
    if st.kind == "workload" and opt.file_test_mode == "" then
      -- No workload named: random writes, the usual SSD preconditioning.
      opt.file_test_mode = "rndwr"
      if opt.output == "text" then print("Workload: rndwr (no --file-test-mode given)") end
    end
    if st.kind == "workload" then
      lib.check_run(opt, opt.file_test_mode)
      if not writes(opt.file_test_mode) then
        fail("workload preconditioning needs a workload that writes (--file-test-mode=rndwr, rndrw, seqwr, seqrewr)")
      end
    end
  end
  S.in_precondition = true
  local sh = opt.report_every_ios > 0 and C.lb_io_shared_open(t.key, opt.report_every_ios) or nil
  local out = json.array()
  local verdict = json.object()
  local text = opt.output == "text"
  local function run(over)
    m.generation = m.generation + 1
    lib.save_manifest(t, m)
    over.warmup_time = 0
    over.rate = 0
    local r, failed, err = lbench.run(over)
    if failed then
      S.in_precondition = false
      if sh ~= nil then C.lb_io_shared_close(sh) end
      fail("precondition: %s", tostring(err))
    end
    return r
  end
  for _, st in ipairs(steps) do
    if st.kind == "seq" then
      if text then
        print(string.format("Workload-independent preconditioning: sequential %s writes, %d pass%s over %s",
          lib.fmt_size(st.bs), st.passes, st.passes == 1 and "" or "es", lib.fmt_size(m.total_size)))
      end
      local r = run({ time = 0, events = 0, file_test_mode = "seqwr", bssplit = "", file_block_size = st.bs,
                      seq_passes = st.passes, file_fsync_freq = 0, random_distribution = "uniform" })
      local o = json.object()
      o.kind = "seq"
      o.block_size = st.bs
      o.passes = st.passes
      o.duration_s = r.duration_s
      o.written_mib_per_sec = r.io and r.io.written_mib_per_sec or 0
      out[#out + 1] = o
      if text then
        print(string.format("  done in %.1f s, %.1f MiB/s", o.duration_s, o.written_mib_per_sec))
      end
    else
      local o = json.object()
      o.kind = "workload"
      o.mode = opt.file_test_mode
      o.round_time_s = opt.precondition_round_time
      local rounds, series = json.array(), {}
      local cap = st.rounds or opt.precondition_max_rounds
      if text then
        print(string.format("Workload-dependent preconditioning: %s rounds of %g s%s", opt.file_test_mode,
          opt.precondition_round_time, st.steady and string.format(" until steady state (at most %d)", cap) or ""))
      end
      local ss
      for k = 1, cap do
        local r = run({ time = opt.precondition_round_time, events = 0 })
        local rs = round_summary(k, r)
        rounds[#rounds + 1] = rs
        series[#series + 1] = rs.iops
        ss = lib.steady(series, opt.steady_window, opt.steady_range_pct, opt.steady_slope_pct)
        if text then
          local tail = ""
          if #series >= opt.steady_window then
            tail = string.format("  window: range %.1f %%, slope excursion %.1f %% -> %s", ss.range_pct,
              ss.excursion_pct, ss.steady and "steady" or "not steady")
          end
          print(string.format("  round %2d: %10.2f IOPS  read %8.2f MiB/s  written %8.2f MiB/s%s", k, rs.iops,
            rs.read_mib_per_sec, rs.written_mib_per_sec, tail))
        end
        if st.steady and ss.steady then break end
      end
      o.rounds = rounds
      local sv = json.object()
      sv.reached = ss.steady
      sv.rounds = #rounds
      sv.window = ss.window
      sv.avg_iops = ss.avg
      sv.min_iops = ss.min
      sv.max_iops = ss.max
      sv.range_pct = ss.range_pct
      sv.excursion_pct = ss.excursion_pct
      sv.range_limit_pct = opt.steady_range_pct
      sv.slope_limit_pct = opt.steady_slope_pct
      o.steady_state = sv
      verdict = sv
      out[#out + 1] = o
      if text then
        if ss.steady then
          print(string.format("Steady state reached after %d rounds (window of %d: avg %.2f IOPS, range %.1f %%, excursion %.1f %%)",
            #rounds, ss.window, ss.avg, ss.range_pct, ss.excursion_pct))
        elseif st.steady then
          print(string.format("Steady state NOT reached within %d rounds", #rounds))
        end
      end
    end
  end
  S.in_precondition = false
  local points
  if sh ~= nil then
    if text and opt.verbosity >= 3 then print_points(sh) end
    points = lib.points(sh)
    C.lb_io_shared_close(sh)
  end
  local pc = json.object()
  pc.at = started
  pc.spec = opt.precondition
  pc.steady_state = verdict.reached
  pc.rounds = verdict.rounds
  m.preconditioned = pc
  lib.save_manifest(t, m)
  local doc = json.object()
  doc.lbench_version = lbench.version
  doc.scenario = "fileio"
  doc.command = "precondition"
  doc.options = lbench.result_options()
  doc.started_at = started
  doc.status = "ok"
  local p = json.object()
  p.steps = out
  if verdict.reached ~= nil then p.steady_state = verdict end
  if points then p.report_every_ios = opt.report_every_ios; p.points = points end
  doc.precondition = p
  if opt.result_file then write_doc(opt.result_file, doc) end
  if opt.output == "json" then print(json.encode(doc, "  ")) end
  if opt.output == "csv" then
    for _, st in ipairs(out) do
      if st.rounds then
        local rows = { "round,duration_s,iops,reads_per_sec,writes_per_sec,read_mib_per_sec,written_mib_per_sec" }
        for _, r in ipairs(st.rounds) do
          rows[#rows + 1] = string.format("%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", r.round, r.duration_s, r.iops,
            r.reads_per_sec, r.writes_per_sec, r.read_mib_per_sec, r.written_mib_per_sec)
        end
        print(table.concat(rows, "\n"))
      end
    end
    if points then print("\n" .. lib.points_csv(points)) end
  end
end

-- ---- verify ----------------------------------------------------------------------
local KIND = { [1] = "lost", [2] = "torn", [3] = "misplaced", [4] = "newer than recorded" }

local function verify()
  local opt = lbench.opt
  local t = lib.target(opt)
  local m = lib.require_manifest(t)
  local err = ffi.new("char[?]", 512)
  local nchunks = m.total_size / m.vbs
  local gm = C.lb_io_genmap_open(t.genmap, nchunks, 0, err, 512)
  if gm == nil then
    print("warning: " .. ffi.string(err) .. "; checking headers and checksums only (lost writes go undetected)")
  else
    gm = ffi.gc(gm, C.lb_io_genmap_close)
  end
  local res = ffi.new("lb_io_verify_result")
  local maxbad = math.max(opt.verify_max_report, 1)
  local bad = ffi.new("lb_io_bad_block[?]", maxbad)
  local paths = lib.paths(t, m)
  if opt.invalidate then lib.invalidate(t, m) end
  local t0 = C.lb_clock_now()
  for i, path in ipairs(paths) do
    local rc = C.lb_io_verify_file(path, i - 1, m.file_size, m.vbs, gm, opt.verify_direct and 1 or 0, res, bad,
      maxbad, err, 512)
    if rc < 0 then fail("verify: %s", ffi.string(err)) end
  end
  local secs = C.lb_clock_now() - t0
  local list = json.array()
  for i = 0, res.nbad - 1 do
    local b = bad[i]
    local name = t.kind == "dir" and m.files[b.file + 1] or t.device
    local o = json.object()
    o.kind = KIND[b.kind]
    o.file = name
    o.offset = tonumber(b.offset)
    o.expected_generation = b.expected_gen
    o.found_generation = b.found_gen
    if b.found_file >= 0 then
      o.found_file = t.kind == "dir" and m.files[b.found_file + 1] or b.found_file
      o.found_offset = tonumber(b.found_offset)
    end
    list[#list + 1] = o
    local why = ({
      lost = b.found_gen == 0 and "no lbench header (never written or overwritten)"
        or string.format("holds generation %d, the last acknowledged write was generation %d", b.found_gen, b.expected_gen),
      torn = "checksum mismatch or only part of a multi-chunk write present",
      misplaced = string.format("holds the block of %s offset %d", tostring(o.found_file), tonumber(b.found_offset)),
      ["newer than recorded"] = string.format("holds generation %d, the map records %d", b.found_gen, b.expected_gen),
    })[o.kind]
    print(string.format("%s offset %d: %s (%s)", name, o.offset, o.kind, why))
  end
  local nbad = tonumber(res.lost + res.torn + res.misplaced + res.newer)
  if nbad > res.nbad then print(string.format("... and %d more", nbad - res.nbad)) end
  print(string.format("Verified %d chunks of %s in %d file%s (%s) in %.2f s: %d ok, %d lost, %d torn, %d misplaced, %d newer than recorded; %d unverifiable (written with --stamp=off), %d never written",
    tonumber(res.chunks), lib.fmt_size(m.vbs), #paths, #paths == 1 and "" or "s", lib.fmt_size(m.total_size), secs,
    tonumber(res.ok), tonumber(res.lost), tonumber(res.torn), tonumber(res.misplaced), tonumber(res.newer),
    tonumber(res.unverifiable), tonumber(res.unwritten)))
  if opt.result_file then
    local doc = json.object()
    doc.lbench_version = lbench.version
    doc.scenario = "fileio"
    doc.command = "verify"
    doc.options = lbench.result_options()
    doc.status = nbad == 0 and "ok" or "mismatch"
    local v = json.object()
    for _, k in ipairs({ "chunks", "ok", "lost", "torn", "misplaced", "newer", "unverifiable", "unwritten" }) do
      v[k] = tonumber(res[k])
    end
    v.chunk_size = m.vbs
    v.bad_blocks = list
    doc.verify = v
    write_doc(opt.result_file, doc)
  end
  if nbad > 0 then fail("verify: %d mismatched block%s", nbad, nbad == 1 and "" or "s") end
end

lbench.cmdline.commands = {
  prepare = { prepare },
  _prepare_write = { prepare_write, lbench.cmdline.PARALLEL_COMMAND },
  cleanup = { cleanup },
  precondition = { precondition },
  verify = { verify },
}
