-- fileio's options, interpreted: sizes, block-size splits, test modes,
-- engines, queue depths, batching, open flags, distributions and the
-- --precondition steps, checked once in the main state and read the same
-- way by every module of the scenario (manifest, job, prepare,
-- precondition, verify, points).
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local bit = require("bit")

local M = {}

M.MODES = { seqwr = true, seqrewr = true, seqrd = true, rndrd = true, rndwr = true, rndrw = true }

local function fail(fmt, ...) util.fail("fileio: " .. fmt, ...) end
M.fail = fail

-- ---- sizes ------------------------------------------------------------------
-- The tree's one parser and one formatter of sizes.
M.parse_size = require("lbench.options").parse_size
M.fmt_size = require("lbench.fmt").size

-- ---- option interpretation ---------------------------------------------------

-- --fill as a share in percent (the '%' is optional), or nil.
function M.fill_pct(s)
  local v = tonumber((tostring(s):gsub("%s*%%%s*$", "")))
  if v and v > 0 and v <= 100 then return v end
  return nil
end

-- The option's check: a bad fill level is refused when the options are
-- parsed, before anything is written (a sweep over fill levels checks
-- every point's first).
function M.check_fill(s)
  if s == "" or M.fill_pct(s) then return s end
  return nil, "expected a percentage in (0, 100], e.g. 37.5%"
end
-- Block sizes: --bssplit=4k/50:64k/50 or --file-block-size.
function M.block_sizes(opt)
  local list = {}
  if opt.bssplit and opt.bssplit ~= "" then
    local spec = opt.bssplit:match("^([^,]*)")   -- fio's read,write form: reads' split for both
    -- fio's rule: the shares sum to 100; entries without a share divide
    -- what the others leave ("4k/50:8k" gives 8k the other 50).  A split
    -- that does not add up is refused rather than rescaled, since the
    -- user's numbers would then silently mean something else.
    local rest = 100
    local nopct = {}
    for item in (spec .. ":"):gmatch("([^:]*):") do
      local s, p = item:match("^%s*([^/]+)/?([%d%.]*)%s*$")
      local bs = s and M.parse_size(s)
      if not bs or bs <= 0 then fail("--bssplit: '%s' is not size/percent (e.g. 4k/50:64k/50)", item) end
      local e = { bs = bs, pct = tonumber(p) }
      if e.pct then rest = rest - e.pct else nopct[#nopct + 1] = e end
      list[#list + 1] = e
    end
    if #list == 0 or #list > C.LB_IO_MAX_BS then fail("--bssplit: 1 to %d sizes", C.LB_IO_MAX_BS) end
    local given = 100 - rest
    -- 0.01 of slack for thirds written as 33.33.
    if math.abs(rest) > 0.011 and (#nopct == 0 or rest < 0) then
      fail("--bssplit=%s: the shares sum to %g%%, expected 100%% (an entry without a share takes the rest)",
        opt.bssplit, given)
    end
    for _, e in ipairs(nopct) do
      e.pct = rest / #nopct
      if e.pct <= 0 then
        fail("--bssplit=%s: the shares already sum to 100%%, nothing is left for %s", opt.bssplit, M.fmt_size(e.bs))
      end
    end
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

-- Does a test mode write?  (Then it needs a writable target, a new
-- generation, and the generation map.)
function M.writes(mode) return mode ~= "seqrd" and mode ~= "rndrd" end

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
