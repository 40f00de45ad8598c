-- fileio's I/O jobs: a core job (core/io/io.c) over the prepared set, set
-- up from the options.  One function serves every command that does I/O
-- (prepare's writers, precondition's rounds and run's workers), so they
-- all read the options the same way.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local bit = require("bit")
local lib = require("fileio.lib")
local manifest = require("fileio.manifest")
local fail = lib.fail

local M = {}

-- The job's parameters apart from its files.
local function params(m, opt, tid, threads, o)
  local p = ffi.new("lb_io_params")
  C.lb_io_params_init(p)
  p.iodepth = o.iodepth
  p.read_pct = lib.read_pct(opt, o.mode)
  p.batch, p.reap_max = lib.batching(opt, o.engine, o.iodepth, p.read_pct)
  p.reap_min = opt.iodepth_batch_complete_min or 0
  local seq = o.mode:sub(1, 3) == "seq"
  p.pattern = seq and C.LB_IO_SEQ or C.LB_IO_RAND
  local d, darg = lib.distribution(o.dist or opt.random_distribution)
  p.dist, p.dist_arg = d, darg
  local bss = o.bss or lib.block_sizes(opt)
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
  p.sysbench_counts = o.sysbench and 1 or 0
  local total = m.file_size * #m.files
  if seq and threads > 1 then
    -- Each thread walks its own slice of the set, aligned to the largest block.
    local per = math.floor(total / threads / maxbs) * maxbs
    p.region_start = per * tid
    p.region_end = tid == threads - 1 and total or per * (tid + 1)
    if per == 0 then fail("the set is too small to split between %d threads", threads) end
  end
  return p
end

-- A started job over the prepared set `m` (target `t`) for worker `tid` of
-- `threads`.
-- o = { mode, engine, iodepth, generation, stamp, types = {r, w, f}, max_ios, passes,
--       flags, bss, shared, genmap, create, dist, fsync_freq, fsync_end, step_ns, sysbench }
-- where a field left out takes the options' value.
function M.new(t, m, opt, tid, threads, o)
  local err = ffi.new("char[?]", 512)
  local job = C.lb_io_job_new(o.engine, params(m, opt, tid, threads, o), err, 512)
  if job == nil then fail("%s", ffi.string(err)) end
  job = ffi.gc(job, C.lb_io_job_free)
  local function check(rc)
    if rc < 0 then fail("%s", ffi.string(C.lb_io_job_error(job))) end
  end
  for _, path in ipairs(manifest.paths(t, m)) do
    check(C.lb_io_job_add_file(job, path, m.file_size, bit.bor(o.flags or 0, o.create and C.LB_IO_F_CREATE or 0)))
  end
  if o.genmap then check(C.lb_io_job_set_genmap(job, t.genmap)) end
  if o.shared ~= nil then C.lb_io_job_set_shared(job, o.shared) end
  check(C.lb_io_job_start(job))
  return job
end

return M
