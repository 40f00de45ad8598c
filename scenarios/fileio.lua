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
-- This file is the options, the run (init, the workers' thread_init /
-- event / thread_done, the report hooks) and the command table.  The set
-- and its manifest are in fileio/manifest.lua, prepare and cleanup in
-- fileio/prepare.lua, precondition in fileio/precondition.lua, verify in
-- fileio/verify.lua, the data points in fileio/points.lua, the core job
-- set-up in fileio/job.lua and the options' interpretation in
-- fileio/lib.lua.
--
-- The per-I/O path is C (core/io): event() runs one batch of I/Os (about
-- 1 ms) per call, every I/O is timed and recorded by the core.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local devices = require("lbench.devices")
local lib = require("fileio.lib")
local manifest = require("fileio.manifest")
local job = require("fileio.job")
local points = require("fileio.points")
local prepare = require("fileio.prepare")
local precondition = require("fileio.precondition")
local verify = require("fileio.verify")
local sbmode = require("fileio.sbmode")
local fail = lib.fail

-- Bounds are checked when the options are parsed; 0 is allowed where it
-- means "off" or "the default".
lbench.cmdline.options = {
  -- sysbench fileio's options, same names, meanings and defaults
  file_num = { "number of files to create", 128, min = 1 },
  file_block_size = { "block size of every I/O operation", 16384, lbench.cmdline.ARG_SIZE, min = 1 },
  file_total_size = { "total size of the files to create (see also --fill)", 2 * 1024 ^ 3, lbench.cmdline.ARG_SIZE, min = 1 },
  file_test_mode = { "test mode: seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw", "" },
  file_io_mode = { "file operations mode: sync, async (libaio), mmap", "sync", type = "enum",
                   choices = { "sync", "async", "mmap" } },
  file_async_backlog = { "I/Os in flight per thread in async mode (when --iodepth is not given)", 128, min = 1 },
  file_extra_flags = { "extra open flags: direct, sync, dsync (a list)", {} },
  file_fsync_freq = { "fsync the written files after this many requests (0: never)", 100, min = 0 },
  file_fsync_all = { "fsync after every write", false },
  file_fsync_end = { "fsync the written files at the end of the test", true },
  file_fsync_mode = { "how to sync: fsync or fdatasync", "fsync", type = "enum", choices = { "fsync", "fdatasync" } },
  file_rw_ratio = { "reads/writes ratio of rndrw (when --rwmixread is not given)", 1.5, min = 0 },
  -- fio-like additions
  ioengine = { "I/O engine: sync (psync), libaio, io_uring, mmap, null; default from --file-io-mode", "" },
  iodepth = { "I/Os in flight per thread (0: 1, or --file-async-backlog in async mode)", 0, min = 0 },
  iodepth_batch = { "submit at most this many I/Os per system call (0: libaio 1, or up to iodepth/8 and 4 when only writing; io_uring the whole queue)", 0, min = 0 },
  iodepth_batch_complete_min = { "when no completion is there, wait for this many (0: 1)", 0, min = 0 },
  iodepth_batch_complete_max = { "take at most this many completions at once (0: --iodepth-batch's default)", 0, min = 0 },
  rwmixread = { "share of reads in % for rndrw (-1: from --file-rw-ratio)", -1, lbench.cmdline.ARG_DOUBLE, min = -1, max = 100 },
  bssplit = { "block size split, e.g. 4k/50:64k/30:1m/20 (overrides --file-block-size)", "" },
  random_distribution = { "offsets of random I/O: uniform, zipf[:theta], pareto[:h], normal[:sigma%]", "uniform" },
  buffer_compress_percentage = { "share of each written block that compresses (zeros); default 0: random, incompressible", 0, min = 0, max = 100 },
  stamp = { "stamp every written 4 KiB chunk with checksum, offset and generation (for verify)", true },
  seq_passes = { "sequential modes: stop after this many passes over the set (0: until --time)", 0, min = 0 },
  invalidate = { "drop the set from the page cache after prepare and before run and verify (as fio does)", true },
  -- the file set
  target_dir = { "directory of the file set (created if missing)", "lbench-fileio" },
  target = { "a raw block device instead of files (needs --allow-destructive to write)", "" },
  allow_destructive = { "allow writing a raw device, or a set into a non-empty directory lbench did not create", false },
  fill = { "size the set to this share of the filesystem (or device), e.g. 37.5%", "", check = lib.check_fill },
  manifest = { "manifest path (default: in the target directory; for --target: ./lbench-fileio-<dev>.manifest)", "" },
  -- reporting
  report_every_ios = { "one data point per N completed I/Os (the write-cliff curve)", 0, min = 0 },
  -- preconditioning
  precondition = { "steps: seq<size>:<N>x (sequential passes), workload[:steady|:<rounds>]", "seq128k:2x,workload:steady" },
  precondition_round_time = { "seconds per workload round", 60, lbench.cmdline.ARG_DOUBLE, min = 0.01 },
  precondition_max_rounds = { "round cap of workload:steady", 25, min = 1 },
  steady_window = { "rounds in the steady-state window (SNIA PTS: 5)", 5, min = 2 },
  steady_range_pct = { "max - min within the window, in % of the average (SNIA PTS: 20)", 20, lbench.cmdline.ARG_DOUBLE, min = 0 },
  steady_slope_pct = { "excursion of the least-squares line, in % of the average (SNIA PTS: 10)", 10, lbench.cmdline.ARG_DOUBLE, min = 0 },
  -- verify
  verify_direct = { "verify reads with O_DIRECT (what is on the device, not in the page cache)", true },
  verify_max_report = { "list at most this many mismatched blocks", 100, min = 0 },
}

local TYPE_READ = lbench.stat.type("read")
local TYPE_WRITE = lbench.stat.type("write")
local TYPE_FSYNC = lbench.stat.type("fsync")

local S = {}   -- main-state bookkeeping of the current run

-- ---- run ---------------------------------------------------------------------
-- The banner of a run (sysbench's lines, then the engine's).
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
  if lib.writes(mode) and opt.file_fsync_freq > 0 then
    out[#out + 1] = string.format("Periodic FSYNC enabled, calling %s() each %d requests.", opt.file_fsync_mode, opt.file_fsync_freq)
  end
  if lib.writes(mode) then
    out[#out + 1] = "Calling fsync() at the end of test, " .. (opt.file_fsync_end and "Enabled." or "Disabled.")
  end
  out[#out + 1] = string.format("I/O engine %s, iodepth %d, offsets %s", engine, depth, opt.random_distribution)
  local what = { seqwr = "sequential write (creation)", seqrewr = "sequential rewrite", seqrd = "sequential read",
                 rndrd = "random read", rndwr = "random write", rndrw = "random r/w" }
  out[#out + 1] = "Doing " .. what[mode] .. " test"
  return table.concat(out, "\n")
end

function init()
  require("lbench.result.render").io_run = true -- CSV intervals carry the I/O columns
  if precondition.active() then return end
  local opt = lbench.opt
  if sbmode.active(opt) then
    -- started as sysbench: its file set and its words (fileio/sbmode.lua)
    local mode = sbmode.mode(opt)
    local engine = lib.check_run(opt, mode)
    -- the files are checked (and for seqwr created) by run_check, after
    -- the lines about the test, as sysbench does
    S.run = { t = { kind = "dir", dir = "." }, m = {}, engine = engine, depth = lib.iodepth(opt, engine),
              mode = mode, sb = true }
    return
  end
  local mode = opt.file_test_mode
  local engine = lib.check_run(opt, mode)
  local t = manifest.target(opt)
  local m = manifest.require(t)
  if lib.writes(mode) then
    manifest.check_device_write(t, opt, "this test")
    m.generation = m.generation + 1
    manifest.save(t, m)
  end
  for _, e in ipairs(lib.block_sizes(opt)) do
    if opt.stamp and engine ~= "null" and e.bs % m.vbs ~= 0 and lib.writes(mode) then
      fail("block size %d is not a multiple of the set's %d-byte verify chunk; prepare with this block size, or use --stamp=off", e.bs, m.vbs)
    end
  end
  if opt.invalidate then manifest.invalidate(t, m) end
  S.run = { t = t, m = m, engine = engine, depth = lib.iodepth(opt, engine), mode = mode }
  if S.sh ~= nil then C.lb_io_shared_close(S.sh); S.sh = nil end   -- left by a failed run
  S.sh = points.open(t, opt.report_every_ios)
  -- The device under the set: its own counters beside lbench's, per
  -- interval (run/observe.lua, through observed_paths) and per point.
  S.storage = opt.server_stats ~= "off" and devices.of_target(t.dir or t.device) or nil
  if S.sh ~= nil and S.storage and S.storage.device then C.lb_io_shared_watch_device(S.sh, S.storage.device) end
  if opt.output == "text" and opt.verbosity >= 3 then
    print(describe(opt, m, engine, S.run.depth, mode) .. "\n")
  end
end

local W, j, sh, live, tick

function thread_init(tid)
  W = lbench.worker_ptr()
  local opt = lbench.opt
  local sb = sbmode.active(opt)
  local t = sb and { kind = "dir", dir = "." } or manifest.target(opt)
  local mode = opt.file_test_mode
  local m = sb and sbmode.manifest(opt, mode) or manifest.require(t)
  local engine = lib.engine(opt)
  local threads = opt.threads
  local max_ios
  if opt.events > 0 then
    max_ios = math.floor(opt.events / threads) + (tid < opt.events % threads and 1 or 0)
    if max_ios == 0 then return end   -- nothing for this thread
  end
  sh = not sb and C.lb_io_shared_lookup(t.key) or nil
  j = job.new(t, m, opt, tid, threads, {
    mode = mode, engine = engine, iodepth = lib.iodepth(opt, engine), stamp = opt.stamp and not sb,
    types = { TYPE_READ, TYPE_WRITE, TYPE_FSYNC }, max_ios = max_ios, passes = opt.seq_passes,
    flags = lib.open_flags(opt), shared = sh, genmap = lib.writes(mode) and not sb, sysbench = sb,
    create = sb and mode == "seqwr",
  })
  live = sh ~= nil and tid == 0 and opt.output == "text" and (opt.verbosity >= 3 or opt.points_live == true)
  tick = 0
end

function event()
  if j == nil then return true end
  -- The event is a step of the job, not an I/O: not recorded itself (the
  -- job records each completed I/O in the worker).
  C.lb_worker_ev_skip(W)
  local n = C.lb_io_job_step(j, W)
  if n > 0 then
    if live then
      tick = tick + 1
      if tick % 64 == 0 then points.print_new(sh) end
    end
    return false
  end
  if n == 0 then return true end
  error("fileio: " .. ffi.string(C.lb_io_job_error(j)), 0)
end

function thread_done()
  if j == nil then return end
  local rc = C.lb_io_job_finish(j, W)
  if live then points.print_new(sh) end
  if rc < 0 then error("fileio: " .. ffi.string(C.lb_io_job_error(j)), 0) end
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

lbench.hooks.observed_paths = function()
  return S.run and not precondition.active() and { S.run.t.dir or S.run.t.device } or {}
end

-- What reached the device under the set against what lbench issued, over
-- the measured period (the document's host_stats, from /proc/diskstats):
-- write amplification > 1 is the filesystem's and the device driver's own
-- writes (journal, metadata, a read-modify-write), read amplification > 1
-- read-ahead, < 1 the page cache; issued writes per device write > 1 is
-- the block layer merging requests.
local function device_section(r, storage)
  local devs = type(r.host_stats) == "table" and r.host_stats.devices
  local d = storage and storage.device and devs and devs[storage.device]
  if not d or not r.io then return nil end
  local o = json.object()
  o.name, o.model, o.rotational, o.scheduler = storage.device, storage.model, storage.rotational, storage.scheduler
  o.fs, o.mount_options = storage.fs, storage.mount_options
  -- Both as amounts: the device's rates over its window, lbench's over the run.
  local win, secs = r.host_stats.window_s or r.duration_s, r.duration_s
  local function ratio(dev_rate, own_rate)
    local own = (own_rate or 0) * secs
    return own > 0 and (dev_rate or 0) * win / own or nil
  end
  o.reads_per_sec, o.writes_per_sec = d.reads_per_sec, d.writes_per_sec
  o.read_mib_per_sec, o.written_mib_per_sec = d.read_mib_per_sec, d.written_mib_per_sec
  o.await_ms, o.util_pct = d.await_ms, d.util_pct
  o.write_amplification = ratio(d.written_mib_per_sec, r.io.written_mib_per_sec)
  o.read_amplification = ratio(d.read_mib_per_sec, r.io.read_mib_per_sec)
  local dw, dr = (d.writes_per_sec or 0) * win, (d.reads_per_sec or 0) * win
  o.writes_merged = dw > 0 and r.io.writes > 0 and r.io.writes / dw or nil
  o.reads_merged = dr > 0 and r.io.reads > 0 and r.io.reads / dr or nil
  return o
end

-- The result's `fileio` section: what ran on which set, and the points.
lbench.hooks.result = function(r)
  if precondition.active() or not S.run then return end
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
  f.device = device_section(r, S.storage)
  if S.sh ~= nil then
    f.report_every_ios = opt.report_every_ios
    f.points = points.finish(S.sh, opt.output == "text" and opt.verbosity >= 3, S.watched)
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
    return f.points and ("\n" .. points.csv(f.points)) or nil
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
  local d = f.device
  if d then
    local function x(v) return v and string.format("%.2fx", v) or "-" end
    out[#out + 1] = string.format("    device %s: %.1f r/s, %.1f w/s, %.2f MiB/s read, %.2f MiB/s written, await %.2f ms, "
      .. "util %.1f %%", d.name, d.reads_per_sec, d.writes_per_sec, d.read_mib_per_sec, d.written_mib_per_sec,
      d.await_ms, d.util_pct)
    out[#out + 1] = string.format("    device against issued: written %s, read %s, writes merged %s, reads merged %s",
      x(d.write_amplification), x(d.read_amplification), x(d.writes_merged), x(d.reads_merged))
  end
  if f.points then
    out[#out + 1] = string.format("    data points: %d, one per %d I/Os (result file: fileio.points)", #f.points, f.report_every_ios)
  end
  return table.concat(out, "\n") .. "\n"
end

-- What a sweep with --prepare-each records of each point's set.
lbench.hooks.loaded_size = function() return prepare.loaded_size(lbench.opt) end

-- Started as sysbench: its lines about the test before the run.
lbench.hooks.run_header = function()
  if S.run and S.run.sb then return sbmode.header(lbench.opt, S.run.mode) end
end
lbench.hooks.run_check = function()
  if S.run and S.run.sb then S.run.m = sbmode.manifest(lbench.opt, S.run.mode, true) end
end

lbench.cmdline.commands = {
  prepare = { function()
    if sbmode.active(lbench.opt) then sbmode.prepare(lbench.opt) else prepare.prepare(lbench.opt) end
  end },
  _prepare_write = { function() prepare.write_worker(lbench.opt) end, lbench.cmdline.PARALLEL_COMMAND },
  cleanup = { function()
    if sbmode.active(lbench.opt) then sbmode.cleanup(lbench.opt) else prepare.cleanup(lbench.opt) end
  end },
  precondition = { function() precondition.run(lbench.opt) end },
  verify = { function() verify.run(lbench.opt) end },
}
