-- Several lbench processes (ranks, started by mpirun as lbench-mpi) as one
-- job, the transport seen from the main state: the job's numbering, the
-- check that every rank runs the same thing, broadcasts and gathers, stop
-- notices, clock offsets, and the outcome of a parallel step.  Underneath
-- is core/cluster/cluster.h (MPI in lbench-mpi, a single process
-- otherwise); workers never call it.  Who leads and who follows a command
-- is run/job.lua's; the merge of a run is cluster/ranks.lua's.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local host = require("lbench.host")

local M = {}

-- How long rank 0 waits for the other ranks' outcome of a parallel
-- command (a load may take hours, and ranks finish at their own pace): a
-- day.  The end of a run waits --rank-timeout past the run's deadline.
M.COMMAND_WAIT_S = 86400

-- core/run.c's error for a rank whose start another rank's failure stopped.
M.OTHER_FAILED = "another rank of the job failed to start"

function M.size() return C.lb_cluster_size() end
function M.rank() return C.lb_cluster_rank() end
function M.active() return C.lb_cluster_size() > 1 end
function M.library() return ffi.string(C.lb_cluster_library()) end

function M.hostname()
  return host.collect().hostname or "?"
end

local function check(rc, what)
  if rc ~= 0 then error(string.format("cluster: %s failed (%d)", what, rc), 0) end
end

function M.min(v)
  local x = ffi.new("int64_t[1]", v)
  check(C.lb_cluster_min(x), "min")
  return tonumber(x[0])
end

function M.max(v)
  local x = ffi.new("int64_t[1]", v)
  check(C.lb_cluster_max(x), "max")
  return tonumber(x[0])
end

-- Collective: rank `root`'s string `s` on every rank.
function M.bcast(s, root)
  local me = M.rank() == root
  local len = ffi.new("int64_t[1]", me and #s or 0)
  check(C.lb_cluster_bcast(len, 8, root), "broadcast")
  local n = tonumber(len[0])
  local buf = ffi.new("char[?]", n + 1)
  if me then ffi.copy(buf, s, n) end
  check(C.lb_cluster_bcast(buf, n, root), "broadcast")
  return ffi.string(buf, n)
end

-- Collective: every rank's string `s` to rank 0, which gets the list
-- (index rank + 1); a rank silent for timeout_s fails rank 0 with the
-- list of missing ranks as second value.  Other ranks get nil.
function M.gather(s, timeout_s)
  local n = M.size()
  local lens, missing = ffi.new("int64_t[?]", n), ffi.new("char[?]", n)
  local ms = math.floor(math.min(timeout_s or M.COMMAND_WAIT_S, 2e6) * 1000)
  local function gone()
    local list = {}
    for r = 0, n - 1 do if missing[r] ~= 0 then list[#list + 1] = r end end
    return list
  end
  local rc = C.lb_cluster_gather_lens(#s, lens, missing, ms)
  if rc == -110 then return nil, gone() end -- -ETIMEDOUT
  check(rc, "gather")
  if M.rank() ~= 0 then
    check(C.lb_cluster_gather_data(s, #s, nil, nil, nil, ms), "gather")
    return nil
  end
  local total = 0
  for r = 0, n - 1 do total = total + tonumber(lens[r]) end
  local out = ffi.new("char[?]", total + 1)
  rc = C.lb_cluster_gather_data(s, #s, out, lens, missing, ms)
  if rc == -110 then return nil, gone() end
  check(rc, "gather")
  local list, at = {}, 0
  for r = 0, n - 1 do
    local len = tonumber(lens[r])
    list[r + 1] = ffi.string(out + at, len)
    at = at + len
  end
  return list
end

-- The end of a run: this rank's figures to rank 0 (every rank but 0).
function M.send_part(s)
  check(C.lb_cluster_part_send(s, #s), "sending the run's figures")
end

-- Rank 0: every other rank's figures, each handed to fn as it arrives (in
-- any order) as a view { p, len, anchor } into one receive buffer, valid
-- only during the call: rank 0 holds one rank's part at a time, not the
-- hundreds of megabytes of a thousand ranks (cluster/ranks.lua merges each
-- at once).  The ranks still silent after timeout_s, as a list; nil when
-- all came.
function M.each_part(timeout_s, fn)
  local n = M.size()
  local got, left, from = {}, n - 1, ffi.new("int[1]")
  local give_up = C.lb_clock_ns() + math.min(timeout_s, 1e7) * 1e9
  local buf, cap = nil, 0
  while left > 0 do
    local len = tonumber(C.lb_cluster_part_probe(from))
    if len >= 0 then
      local r = from[0]
      if len > cap then cap = math.max(len, 2 * cap); buf = ffi.new("char[?]", cap) end
      check(C.lb_cluster_part_recv(r, buf, len), "receiving a rank's figures")
      if got[r] then error(string.format("rank %d sent its figures twice", r), 0) end
      got[r], left = true, left - 1
      fn({ p = buf, len = len, anchor = buf })
    elseif C.lb_clock_ns() >= give_up then
      local missing = {}
      for r = 1, n - 1 do if not got[r] then missing[#missing + 1] = r end end
      return missing
    else
      C.lb_clock_sleep_ns(1e6)
    end
  end
  return nil
end

-- Tell every other rank to stop (this one failed or was interrupted).
function M.notify_stop() return C.lb_cluster_notify_stop() end

-- "ranks 1, 3" for a list of rank numbers.
function M.names(list)
  local parts = {}
  for _, r in ipairs(list) do parts[#parts + 1] = tostring(r) end
  return (#list == 1 and "rank " or "ranks ") .. table.concat(parts, ", ")
end

-- The job cannot end cleanly: ranks that never answered are named in
-- `msg`; the binary aborts the job (finalising would wait for them).
function M.give_up(msg)
  C.lb_cluster_request_abort()
  return msg
end

-- This process's build, for M.check_same: a hash of its executable
-- (lbench-mpi carries the library and the embedded Lua modules and stock
-- scenarios), so ranks started from different builds of one version are
-- told apart.  Read only under several ranks (2.5 MB, hashed in about
-- 10 ms); "" where the executable cannot be read (then only the version
-- is compared).
function M.build_id()
  if not M.active() then return "" end
  local f = io.open("/proc/self/exe", "rb")
  if not f then return "" end
  local s = f:read("*a")
  f:close()
  return util.text_hash(s or "")
end

-- Before anything runs: every rank has the same lbench version, the same
-- scenario (by hash) and the same options as rank 0.  `parts` is a list
-- of { what, fingerprint }.  Fails on every rank naming the first rank
-- that differs and what differs (printed by rank 0 alone).
function M.check_same(parts)
  if not M.active() then return end
  local mine = {}
  for i, p in ipairs(parts) do mine[i] = p[2] end
  local root = util.serialize(mine)
  root = M.bcast(root, 0)
  local theirs = assert(loadstring("return " .. root))()
  local differs
  for i, p in ipairs(parts) do
    if theirs[i] ~= p[2] then differs = differs or p[1] end
  end
  local first = M.min(differs and M.rank() or M.size())
  if first == M.size() then return end
  local what, host = M.bcast((differs or "") .. "\n" .. M.hostname(), first):match("^(.-)\n(.*)$")
  -- Rank 0 says it for the job; the others stop without a word (an empty
  -- error is not printed), so the user reads one line, not one per rank.
  if M.rank() ~= 0 then util.fail("") end
  util.fail("rank %d (%s) runs with other %s than rank 0: every rank must run the same lbench, scenario and options",
    first, host, what)
end

-- The job's numbering for this process: opt.threads becomes the job's
-- (every rank's threads), and ctx.cluster keeps this rank's share.
function M.number(ctx, opt)
  if not M.active() then return end
  local k, t = M.size(), opt.threads
  ctx.cluster = { rank = M.rank(), size = k, threads = t, tid_base = M.rank() * t }
  ctx.rank, ctx.nranks = M.rank(), k
  opt.threads = k * t
end

-- Ping-pongs per rank of the clock offset estimate: the best of 16 round
-- trips (4-5 us each between two ranks on one host, measured; more over a
-- network) costs well under a millisecond per rank, once per run, before
-- its start.
M.CLOCK_ROUNDS = 16

-- Collective, before a run's start barrier: every rank's wall-clock
-- offset to rank 0 and the round trip it was measured over (its error
-- bound is half that), in ms, as lists indexed rank + 1; nil on ranks
-- other than 0 (rank 0 alone uses them, in the merge).
function M.clock_offsets()
  local n = M.size()
  local off, rtt = ffi.new("int64_t[?]", n), ffi.new("int64_t[?]", n)
  check(C.lb_cluster_clock_offsets(M.CLOCK_ROUNDS, off, rtt), "clock offset estimate")
  if M.rank() ~= 0 then return nil end
  local o = { offset_ms = {}, rtt_ms = {} }
  for r = 0, n - 1 do
    o.offset_ms[r + 1], o.rtt_ms[r + 1] = tonumber(off[r]) / 1e6, tonumber(rtt[r]) / 1e6
  end
  return o
end

-- This rank's share of a job-wide count `n` split exactly over the ranks.
function M.share(n, rank, size)
  return math.floor(n / size) + (rank < n % size and 1 or 0)
end

-- ---- commands across ranks ----------------------------------------------

-- The outcome of one parallel step on every rank, on rank 0: true, or
-- false and the first failing rank's error with the rank and host named
-- ("interrupted" when a signal stopped a rank and none failed).  Other
-- ranks get their own outcome back.
function M.combine(ok, err, timeout_s)
  if not M.active() then return ok, err end
  local mine = ok and "ok" or ((err == "interrupted" and "int " or "err ") .. M.hostname() .. "\n" .. tostring(err))
  local all, missing = M.gather(mine, timeout_s)
  if M.rank() ~= 0 then return ok, err end
  if not all then
    return false, M.give_up(string.format("%s did not answer within %d s: the job is aborted", M.names(missing),
      timeout_s or M.COMMAND_WAIT_S))
  end
  local interrupted, first, cause = false, nil, nil
  for r, s in ipairs(all) do
    local kind, host, e = s:match("^(%a+) ([^\n]*)\n(.*)$")
    if kind == "err" then
      local msg = string.format("rank %d (%s): %s", r - 1, host, e)
      first = first or msg
      -- A rank that gave up because another failed is not the cause.
      if not cause and e ~= M.OTHER_FAILED then cause = msg end
    end
    if kind == "int" then interrupted = true end
  end
  if first then return false, cause or first end
  if interrupted then return false, "interrupted" end
  return true
end

return M
