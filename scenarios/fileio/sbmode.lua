-- fileio started as `sysbench`: sysbench fileio's file set and words.  The
-- set is test_file.0 .. test_file.N-1 in the current directory, without a
-- manifest (sysbench keeps none): prepare creates or extends the files,
-- run checks that each is there and long enough, cleanup removes them, and
-- what they print is what sysbench 1.0.20 prints.  The I/O itself is
-- lbench's (core/io), counting events as sysbench does.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local bit = require("bit")
local lib = require("fileio.lib")

local M = {}

pcall(ffi.cdef, [[
int open(const char *path, int flags, ...);
int close(int fd);
long write(int fd, const void *buf, unsigned long n);
long lseek(int fd, long off, int whence);
int fsync(int fd);
char *strerror(int errnum);
]])
local O_WRONLY, O_CREAT, O_SYNC, O_DSYNC, O_DIRECT = 1, 64, 1052672, 4096, 16384
local SEEK_END = 2

-- sysbench mode applies when started as sysbench with the set left where
-- sysbench keeps it (no --target, no --target-dir of one's own).
function M.active(opt)
  return opt.sysbench_compat == true and (opt.target or "") == "" and opt.target_dir == "lbench-fileio"
end

-- A one-line error in sysbench's words, with its warning line after it.
local function fatal(msg, warning)
  error({ lbench_message = msg .. (warning and ("\nWARNING: " .. warning) or "") }, 0)
end

local function name(i) return "test_file." .. i end

local function geometry(opt)
  local n = opt.file_num
  return n, math.floor(opt.file_total_size / n)
end

-- sysbench's sizes: the largest unit the value reaches, %.5g of it.
function M.size(v)
  local units, i = { "K", "M", "G", "T" }, 0
  while i < #units and v >= 1024 do v, i = v / 1024, i + 1 end
  return i > 0 and string.format("%.5g%si", v, units[i]) or string.format("%.5g", v)
end

local function flags_text(opt)
  local set = {}
  for _, f in ipairs(opt.file_extra_flags or {}) do set[f] = true end
  local s = (set.sync and "sync " or "") .. (set.dsync and "dsync " or "") .. (set.direct and "directio" or "")
  return "Extra file open flags: " .. (s == "" and "(none)" or s)
end

local MODE_TEXT = { seqwr = "sequential write (creation)", seqrewr = "sequential rewrite", seqrd = "sequential read",
                    rndrd = "random read", rndwr = "random write", rndrw = "random r/w" }

-- The test mode, refused as sysbench refuses it.
function M.mode(opt)
  local mode = opt.file_test_mode
  if mode == "" then fatal("Missing required argument: --file-test-mode") end
  if not MODE_TEXT[mode] then fatal(string.format("Invalid IO operations mode: %s.", mode)) end
  return mode
end

-- The set as lbench's jobs take it (a manifest of the files), after
-- sysbench's checks: each file opens and is at least as long as the
-- options imply.  The creation test (seqwr) writes new files: `fresh`
-- (main state, once) recreates them empty, as sysbench does.
function M.manifest(opt, mode, fresh)
  local n, file_size = geometry(opt)
  local files = {}
  for i = 0, n - 1 do
    files[i + 1] = name(i)
    if mode == "seqwr" and fresh then
      os.remove(name(i))
      local f = io.open(name(i), "wb")
      if not f then fatal(string.format("Cannot create file '%s'", name(i))) end
      f:close()
    end
    local kind = C.lb_io_path_kind(name(i))
    if kind ~= C.LB_IO_PATH_FILE then
      fatal(string.format("Cannot open file '%s' errno = 2 (No such file or directory)", name(i)),
        "Did you forget to run the prepare step?")
    end
    local have = tonumber(C.lb_io_path_size(name(i)))
    if have < file_size and mode ~= "seqwr" then
      fatal(string.format("Size of file '%s' is %sB, but at least %sB is expected.", name(i), M.size(have),
        M.size(file_size)), "Did you run 'prepare' with different --file-total-size or --file-num values?")
    end
  end
  return { state = "ready", files = files, file_size = file_size, total_size = file_size * n, vbs = 4096,
           generation = 0 }
end

-- sysbench's lines about the test, before "Initializing worker threads...".
function M.header(opt, mode)
  local n, file_size = geometry(opt)
  local out = { flags_text(opt), string.format("%d files, %sB each", n, M.size(file_size)),
                string.format("%sB total file size", M.size(file_size * n)),
                string.format("Block size %sB", M.size(opt.file_block_size)) }
  if mode:sub(1, 3) == "rnd" then
    out[#out + 1] = string.format("Number of IO requests: %d", opt.events)
    out[#out + 1] = string.format("Read/Write ratio for combined random IO test: %2.2f", opt.file_rw_ratio)
  end
  if opt.file_fsync_freq > 0 then
    out[#out + 1] = string.format("Periodic FSYNC enabled, calling fsync() each %d requests.", opt.file_fsync_freq)
  end
  if opt.file_fsync_end then out[#out + 1] = "Calling fsync() at the end of test, Enabled." end
  if opt.file_fsync_all then out[#out + 1] = "Calling fsync() after each write operation." end
  local io = ({ sync = "synchronous", async = "asynchronous", mmap = "mmap" })[opt.file_io_mode] or opt.file_io_mode
  out[#out + 1] = string.format("Using %s I/O mode", io)
  if opt.validate then out[#out + 1] = "Using checksums validation." end
  out[#out + 1] = "Doing " .. MODE_TEXT[mode] .. " test"
  return table.concat(out, "\n") .. "\n"
end

local function say(opt, s) if opt.verbosity >= 3 then print(s) end end

-- sysbench's prepare: create the files, or extend those too short, in
-- whole blocks; each file fsynced.
function M.prepare(opt)
  local n, file_size = geometry(opt)
  local flags = lib.open_flags(opt)
  local oflags = bit.bor(O_WRONLY, O_CREAT, bit.band(flags, C.LB_IO_F_SYNC) ~= 0 and O_SYNC or 0,
    bit.band(flags, C.LB_IO_F_DSYNC) ~= 0 and O_DSYNC or 0, bit.band(flags, C.LB_IO_F_DIRECT) ~= 0 and O_DIRECT or 0)
  say(opt, string.format("%d files, %dKb each, %dMb total", n, math.floor(file_size / 1024),
    math.floor(file_size * n / 1024 / 1024)))
  say(opt, "Creating files for the test...")
  say(opt, flags_text(opt))
  local bs = opt.file_block_size
  local buf = ffi.new("uint8_t[?]", bs)
  local written, t0 = 0, C.lb_clock_now()
  for i = 0, n - 1 do
    local fd = ffi.C.open(name(i), oflags, ffi.new("int", 384))
    if fd < 0 then fatal("Can't open file: " .. ffi.string(ffi.C.strerror(ffi.errno()))) end
    local off = tonumber(ffi.C.lseek(fd, 0, SEEK_END))
    say(opt, (off >= file_size and "Reusing existing file " or off > 0 and "Extending existing file "
      or "Creating file ") .. name(i))
    while off < file_size do
      if ffi.C.write(fd, buf, bs) < 0 then
        local e = ffi.string(ffi.C.strerror(ffi.errno()))
        ffi.C.close(fd)
        fatal("Failed to write file! " .. e)
      end
      off, written = off + bs, written + bs
    end
    ffi.C.fsync(fd)
    ffi.C.close(fd)
  end
  local secs = math.max(C.lb_clock_now() - t0, 1e-9)
  if written > 0 then
    say(opt, string.format("%d bytes written in %.2f seconds (%.2f MiB/sec).", written, secs, written / 1048576 / secs))
  else
    say(opt, "No bytes written.")
  end
end

function M.cleanup(opt)
  say(opt, "Removing test files...")
  for i = 0, opt.file_num - 1 do os.remove(name(i)) end
end

return M
