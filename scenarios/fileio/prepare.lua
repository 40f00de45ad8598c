-- fileio prepare and cleanup: create the file set (or claim the first part
-- of a raw device), stamp every chunk once so that verify and the first
-- read test find real data, and remove exactly what prepare created.
-- Files that lbench did not create are never written or removed: the
-- manifest lists ours and is written before the first byte of data.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local progress = require("lbench.run.progress")
local lib = require("fileio.lib")
local manifest = require("fileio.manifest")
local job = require("fileio.job")
local fail = lib.fail

local M = {}

local MIB = 1048576

pcall(ffi.cdef, "int truncate(const char *path, int64_t length);")

local function space_of(path)
  -- Tests may simulate a filesystem: LBENCH_FILEIO_SPACE=total_bytes:avail_bytes.
  local fake = os.getenv("LBENCH_FILEIO_SPACE")
  if fake then
    local tot, av = fake:match("^(%d+):(%d+)$")
    if tot then return { total = tonumber(tot), avail = tonumber(av) } end
  end
  local sp = ffi.new("lb_io_space")
  local rc = C.lb_io_space_of(path, sp)
  if rc < 0 then fail("cannot query the space of %s: %s", path, manifest.errstr(rc)) end
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

-- Prepare writes in blocks of 1 MiB where the file size allows, else in the
-- least common multiple of the block sizes (every test's block divides it).
local function prepare_block(opt, file_size)
  if file_size % MIB == 0 then return MIB end
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
  local j = job.new(t, m, opt, tid, threads, {
    mode = "seqwr", engine = "sync", iodepth = 1, stamp = true,
    bss = { { bs = prepare_block(opt, m.file_size), pct = 100 } },
    types = { -1, -1, -1 }, passes = 1, create = t.kind == "dir", genmap = true, step_ns = 250e6,
    fsync_freq = 0, fsync_end = true, dist = "uniform",
  })
  local counters = C.lb_io_job_counters(j)
  while true do
    local n = C.lb_io_job_step(j, nil)
    if n < 0 then fail("prepare: %s", ffi.string(C.lb_io_job_error(j))) end
    if n == 0 then break end
    report(tonumber(counters.bytes_written), C.lb_clock_now())
    if lbench.should_stop() then
      fail("prepare interrupted after writing %s: the set is incomplete; run prepare again (or cleanup)",
        lib.fmt_size(tonumber(counters.bytes_written)))
    end
  end
  if C.lb_io_job_finish(j, nil) < 0 then fail("prepare: %s", ffi.string(C.lb_io_job_error(j))) end
  report(tonumber(counters.bytes_written), C.lb_clock_now())
  return tonumber(counters.bytes_written)
end

-- One writer thread of a parallel prepare (--threads > 1): the command
-- `_prepare_write`, run in every worker; the geometry comes from the
-- manifest the main state wrote.
function M.write_worker(opt)
  local t = manifest.target(opt)
  local m = manifest.load(t)
  local threads = prepare_threads(opt, m)
  if lbench.tid >= threads then return end
  local sent = 0
  write_slice(t, m, opt, lbench.tid, threads, function(done)
    local whole = math.floor(done / MIB)
    if whole > sent then lbench.progress.add(whole - sent); sent = whole end
  end)
end

-- The target is ours to write: a device with --allow-destructive, or a
-- directory that is new, empty, or already holds our set.  Creates a
-- missing directory; returns whether the set's directory is lbench's own
-- (cleanup then removes it too).
local function claim_target(t, opt, old)
  local created_dir = old and old.created_dir or false
  if t.kind == "device" then
    manifest.check_device_write(t, opt, "prepare")
    return created_dir
  end
  local kind = C.lb_io_path_kind(t.dir)
  if kind == C.LB_IO_PATH_NONE then
    local rc = C.lb_io_mkdir_p(t.dir)
    if rc < 0 then fail("cannot create %s: %s", t.dir, manifest.errstr(rc)) end
    created_dir = true
  elseif kind ~= C.LB_IO_PATH_DIR then
    fail("--target-dir=%s exists and is not a directory", t.dir)
  elseif not old and C.lb_io_dir_entries(t.dir) > 0 and not opt.allow_destructive then
    fail("%s is not empty and holds no lbench file set: refusing to write there (use a new or empty directory, "
      .. "or --allow-destructive to add the set beside the files already there, which are never touched)", t.dir)
  end
  return created_dir
end

-- Geometry: equal files whose size every block size divides, sized by
-- --file-total-size or --fill.  Returns { vbs, file_num, file_size, total,
-- fill_pct, space }.
local function geometry(t, opt)
  local g, align = block_gcd_lcm(opt)
  local vbs = math.min(4096, g)
  if vbs < 512 or vbs % 64 ~= 0 then fail("block sizes must be multiples of 512 bytes") end
  local file_num = t.kind == "device" and 1 or opt.file_num
  if file_num < 1 then fail("--file-num must be at least 1") end
  local sp = space_of(t.kind == "device" and t.device or t.dir)
  local total = opt.file_total_size
  local fill_pct
  if opt.fill ~= "" then
    fill_pct = lib.fill_pct(opt.fill)
    total = math.floor(sp.total * fill_pct / 100)
  elseif t.kind == "device" then
    total = math.min(total, sp.total)
  end
  local per = math.floor(total / file_num)
  if per >= 8 * MIB and MIB % align == 0 then align = MIB end
  local file_size = math.floor(per / align) * align
  if file_size < align or file_size == 0 then
    fail("%s over %d files leaves less than one %s block per file", lib.fmt_size(total), file_num, lib.fmt_size(align))
  end
  return { vbs = vbs, file_num = file_num, file_size = file_size, total = file_size * file_num, fill_pct = fill_pct,
           space = sp }
end

-- The set's file names, the names the old manifest calls ours, and the
-- bytes of ours that the new set reuses.  Never touch files we did not
-- create.
local function plan_files(t, old, geo)
  local ours = {}
  if old and old.files then for _, n in ipairs(old.files) do ours[n] = true end end
  if t.kind ~= "dir" then return { t.device }, ours, 0 end
  local names, reuse = {}, 0
  for i = 0, geo.file_num - 1 do
    local name = "test_file." .. i
    local path = manifest.join(t.dir, name)
    local kind = C.lb_io_path_kind(path)
    if kind ~= C.LB_IO_PATH_NONE then
      if not ours[name] then
        fail("%s exists and was not created by lbench: refusing to overwrite it", path)
      end
      if kind ~= C.LB_IO_PATH_FILE then fail("%s is not a regular file", path) end
      reuse = reuse + math.min(tonumber(C.lb_io_path_size(path)), geo.file_size)
    end
    names[#names + 1] = name
  end
  return names, ours, reuse
end

-- Refuse to fill a filesystem: the set plus its generation map must fit in
-- what is free (less what our old files already hold).
local function check_space(t, opt, geo, reuse)
  if t.kind ~= "dir" then return end
  local sp = geo.space
  local need = geo.total - reuse + geo.total / geo.vbs * 2
  if need > sp.avail then
    fail("%s%s needs %s (%d files of %s) but only %s is free on the filesystem of %s (%s in all): refusing to fill it",
      geo.fill_pct and ("--fill=" .. opt.fill .. " ") or "", "the set", lib.fmt_size(need), geo.file_num,
      lib.fmt_size(geo.file_size), lib.fmt_size(sp.avail), t.dir, lib.fmt_size(sp.total))
  end
end

-- Our files beyond the new set are removed; the kept ones are cut to size.
local function trim_ours(t, ours, names, file_size)
  if t.kind ~= "dir" then return end
  local keep = {}
  for _, n in ipairs(names) do keep[n] = true end
  for n in pairs(ours) do
    local path = manifest.join(t.dir, n)
    if not keep[n] then os.remove(path)
    elseif C.lb_io_path_kind(path) == C.LB_IO_PATH_FILE and C.lb_io_path_size(path) > file_size then
      ffi.C.truncate(path, file_size)
    end
  end
end

-- The manifest first, so an interrupted prepare still knows what is ours:
-- every file of the old set and the new one until the new set is written.
local function start_manifest(t, old, created_dir, geo, ours, names)
  local all = {}
  for n in pairs(ours) do all[#all + 1] = n end
  for _, n in ipairs(names) do if not ours[n] then all[#all + 1] = n end end
  table.sort(all)
  local m = { tool = "lbench fileio", version = 1, kind = t.kind, target = t.dir or t.device, created_dir = created_dir,
              state = "preparing", file_num = geo.file_num, file_size = geo.file_size, total_size = geo.total,
              files = t.kind == "dir" and all or { names[1] }, vbs = geo.vbs,
              generation = ((old and old.generation) or 0) + 1, fill_pct = geo.fill_pct }
  manifest.save(t, m)
  return m
end

-- A fresh generation map: every chunk "never written" until the writers
-- record theirs.
local function create_genmap(t, geo)
  local err = ffi.new("char[?]", 512)
  local gm = C.lb_io_genmap_open(t.genmap, geo.total / geo.vbs, 1, err, 512)
  if gm == nil then fail("%s", ffi.string(err)) end
  C.lb_io_genmap_close(gm)
end

local function announce(t, opt, geo)
  if opt.verbosity < 3 or opt.output ~= "text" then return end
  local share = geo.fill_pct and string.format(" (%g %% of %s)", geo.fill_pct, lib.fmt_size(geo.space.total)) or ""
  if t.kind == "dir" then
    print(string.format("%d files, %s each, %s total%s", geo.file_num, lib.fmt_size(geo.file_size),
      lib.fmt_size(geo.total), share))
    print("Creating files for the test in " .. t.dir .. " ...")
  else
    print(string.format("Raw device %s: writing the first %s%s ...", t.device, lib.fmt_size(geo.total), share))
  end
end

-- Write the whole set: in the workers when there are several writers
-- (run/runner.lua's progress bar), else here with a progress line on a
-- terminal.  Returns the bytes written.
local function write_set(t, m, opt)
  local total = m.total_size
  local threads = prepare_threads(opt, m)
  if threads > 1 then
    lbench.progress.total(math.ceil(total / MIB), "MiB")
    if not lbench.run_parallel("_prepare_write") then
      fail("prepare interrupted after writing %.0f of %d MiB: the set is incomplete; run prepare again (or cleanup)",
        lbench.progress.done(), math.ceil(total / MIB))
    end
    return total
  end
  local meter = progress.meter({ total = total, amount = lib.fmt_size,
                                 show = C.lb_runtime_isatty() == 1 and opt.verbosity >= 3 and opt.output == "text" })
  local written = write_slice(t, m, opt, 0, 1, function(done, now) meter:update(done, now) end)
  meter:finish(written)
  return written
end

-- The prepare command.
function M.prepare(opt)
  local t = manifest.target(opt)
  local old = manifest.load(t)
  local created_dir = claim_target(t, opt, old)
  local geo = geometry(t, opt)
  local names, ours, reuse = plan_files(t, old, geo)
  check_space(t, opt, geo, reuse)
  local m = start_manifest(t, old, created_dir, geo, ours, names)
  trim_ours(t, ours, names, geo.file_size)
  create_genmap(t, geo)
  announce(t, opt, geo)
  -- Threads write slices of the set; workers read the geometry from the manifest.
  m.files = t.kind == "dir" and names or m.files
  manifest.save(t, m)
  local t0 = C.lb_clock_now()
  local written = write_set(t, m, opt)
  local secs = C.lb_clock_now() - t0
  if opt.invalidate then manifest.invalidate(t, m) end
  m.state = "ready"
  m.prepared_at = os.date("!%Y-%m-%dT%H:%M:%SZ")
  manifest.save(t, m)
  if opt.verbosity < 1 then return end
  print(string.format("%d bytes written in %.2f seconds (%.2f MiB/sec).", written, secs,
    written / math.max(secs, 1e-9) / MIB))
  if t.kind == "dir" then
    print(string.format("Created %d file%s of %s (%s) in %s; manifest %s.", geo.file_num, geo.file_num > 1 and "s" or "",
      lib.fmt_size(geo.file_size), lib.fmt_size(geo.total), t.dir, t.manifest))
  else
    print(string.format("Prepared %s of %s; manifest %s.", lib.fmt_size(geo.total), t.device, t.manifest))
  end
end

-- What the set holds now (lbench.hooks.loaded_size: lbench sweep
-- --prepare-each records it per point): the bytes of its files as they
-- are on disk (the device's prepared part for a raw device), their count,
-- the --fill asked for, and the share of the filesystem the set takes.
-- nil when there is no set.
function M.loaded_size(opt)
  local t = manifest.target(opt)
  local m = manifest.load(t)
  if not m then return nil end
  local bytes = 0
  if t.kind == "dir" then
    for _, name in ipairs(m.files or {}) do
      local path = manifest.join(t.dir, name)
      if C.lb_io_path_kind(path) == C.LB_IO_PATH_FILE then bytes = bytes + tonumber(C.lb_io_path_size(path)) end
    end
  else
    bytes = m.total_size
  end
  local sp = space_of(t.kind == "device" and t.device or t.dir)
  return { bytes = bytes, files = #(m.files or {}), fill_pct = m.fill_pct, filesystem_bytes = sp.total,
           filesystem_pct = sp.total > 0 and bytes / sp.total * 100 or nil, state = m.state }
end

-- The cleanup command: our files, the generation map and the manifest;
-- the directory only when prepare created it and it is empty now.  A raw
-- device is left as it is.
function M.cleanup(opt)
  local t = manifest.target(opt)
  local m = manifest.load(t)
  if not m then
    print("No lbench file set at " .. (t.dir or t.device) .. ": nothing removed.")
    return
  end
  local n = 0
  if t.kind == "dir" then
    for _, name in ipairs(m.files or {}) do
      if os.remove(manifest.join(t.dir, name)) then n = n + 1 end
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

return M
