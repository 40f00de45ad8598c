-- memory: sysbench's memory test.  Each event is one pass over a block of
-- --memory-block-size bytes, word by word, in order or at random words
-- (--memory-access-mode), reading, writing or touching nothing
-- (--memory-oper); the block is one for all threads or one per thread
-- (--memory-scope), optionally from the HugeTLB pool (--memory-hugetlb).
-- The run stops once --memory-total-size has been transferred (each thread
-- its share), or at --time; --events does not apply, as in sysbench.  The
-- loop is C (core/kern.c).
--
--   lbench memory --memory-block-size=4K --memory-total-size=10G --threads=2 run
local ffi = require("ffi")
local bit = require("bit")
local C = require("lbench.ffi").C

-- sysbench's names, its order in the help (order) and its size syntax
-- (read here: sysbench takes the digits, then K, M, G or T).
-- A CPU test: the supervising thread wakes 4 times a second, not 100 (docs/scenarios.md).
lbench.supervisor_tick_ms = 250

lbench.cmdline.options = {
  ["memory-block-size"] = { "size of memory block for test", "1K", metavar = "SIZE", order = 1 },
  ["memory-total-size"] = { "total size of data to transfer", "100G", metavar = "SIZE", order = 2 },
  ["memory-scope"] = { "memory access scope {global,local}", "global", order = 3 },
  ["memory-hugetlb"] = { "allocate memory from HugeTLB pool", false, order = 4 },
  ["memory-oper"] = { "type of memory operations {read, write, none}", "write", order = 5 },
  ["memory-access-mode"] = { "memory access mode {seq,rnd}", "seq", order = 6 },
}

local KEY = "lbench.memory"
local OPS = { none = C.LB_KERN_MEM_NONE, read = C.LB_KERN_MEM_READ, write = C.LB_KERN_MEM_WRITE }
local SCOPES = { global = true, ["local"] = true }
local MODES = { seq = 0, rnd = 1 }

local function invalid(name, v)
  error({ lbench_message = string.format("Invalid value for %s: %s", name, tostring(v)) }, 0)
end

local function size(s)
  local digits, unit = tostring(s):match("^(%d+)(.?)")
  if not digits then return 0 end
  local n = tonumber(digits)
  local pow = ({ K = 1, M = 2, G = 3, T = 4 })[unit:upper()]
  return pow and n * 1024 ^ pow or n
end

-- The options as the run uses them; a bad one fails as sysbench words it.
local function settings()
  local o = lbench.opt
  local bs = size(o.memory_block_size)
  if bs < 8 or bs % 1 ~= 0 or bit.band(bs, bs - 1) ~= 0 then invalid("memory-block-size", o.memory_block_size) end
  if not SCOPES[o.memory_scope] then invalid("memory-scope", o.memory_scope) end
  if OPS[o.memory_oper] == nil then invalid("memory-oper", o.memory_oper) end
  if MODES[o.memory_access_mode] == nil then invalid("memory-access-mode", o.memory_access_mode) end
  return { bs = bs, total = size(o.memory_total_size), scope = o.memory_scope, op = OPS[o.memory_oper],
           oper = o.memory_oper, rnd = MODES[o.memory_access_mode], huge = o.memory_hugetlb }
end

local S = {}   -- main state: the shared blocks of the current run

function init()
  local s = settings()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end   -- left by a failed run
  local err = ffi.new("char[256]")
  local nbufs = s.scope == "global" and 1 or lbench.opt.threads
  S.k = C.lb_kern_open(KEY, 0, 0, nbufs, s.bs, s.huge and 1 or 0, err, 256)
  if S.k == nil then error({ lbench_message = ffi.string(err) }, 0) end
  -- the test counts its own events: each thread its share of the total
  lbench.opt.events = 0
end

function done()
  if S.k ~= nil then C.lb_kern_close(S.k); S.k = nil end
end

local W, k, R, buf, op, rnd, left

function thread_init(tid)
  local s = settings()
  W = lbench.worker_ptr()
  R = C.lb_worker_rand(W)
  k = C.lb_kern_lookup(KEY)
  buf = s.scope == "global" and 0 or tid
  op, rnd = s.op, s.rnd
  left = s.total > 0 and math.floor(math.floor(s.total / s.bs) / lbench.opt.threads) or -1
end

function event()
  if left == 0 then
    C.lb_worker_ev_skip(W)   -- this thread's share is done: not an event
    return true
  end
  left = left - 1
  C.lb_kern_memory(k, buf, op, rnd, R)
end

lbench.hooks.run_header = function()
  local s = settings()
  return string.format("Running memory speed test with the following options:\n  block size: %dKiB\n"
    .. "  total size: %dMiB\n  operation: %s\n  scope: %s\n\n", math.floor(s.bs / 1024),
    math.floor(s.total / 1024 / 1024), s.oper, s.scope)
end

local function transferred(r)
  local s = settings()
  local secs = r.interval_s or r.duration_s   -- a checkpoint's period, or the run
  secs = secs > 0 and secs or 1
  local mib = r.totals.events * s.bs / (1024 * 1024)
  return s, secs, mib
end

-- sysbench's memory test prints its operations and MiB before the report.
lbench.hooks.report_head = function(r)
  local s, secs, mib = transferred(r)
  local out = string.format("Total operations: %d (%8.2f per second)\n\n", r.totals.events, r.totals.events / secs)
  if s.op ~= C.LB_KERN_MEM_NONE then
    out = out .. string.format("%4.2f MiB transferred (%4.2f MiB/sec)\n\n", mib, mib / secs)
  end
  return out
end

-- Under lbench's name: the bandwidth after lbench's report.
lbench.hooks.report_extra = function(r, fmt)
  if fmt ~= "text" then return nil end
  local s, secs, mib = transferred(r)
  if s.op == C.LB_KERN_MEM_NONE then return nil end
  return string.format("Memory: %.2f MiB transferred (%.2f MiB/sec), %s %s blocks of %d bytes, %s scope\n",
    mib, mib / secs, s.rnd == 1 and "random" or "sequential", s.oper, s.bs, s.scope)
end
