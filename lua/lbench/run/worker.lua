-- A worker thread's Lua side: loads the scenario into this thread's own
-- state, meets the start barrier, and runs the event loop or a parallel
-- command.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local api = require("lbench.api.base")
local scenario = require("lbench.api.scenario")
local async = require("lbench.api.async")
local vu = require("lbench.api.vu")
local util = require("lbench.util")
local sbhooks = require("lbench.result.sbhooks")

local M = {}

local INT64_MAX = 9223372036854775807LL

-- The event loop, of a worker thread and of a virtual user alike.
-- `next_event(W)` records the event in progress (if any) and starts the
-- next one: 0 when the run is over.  One pcall around the whole loop (not
-- one per event): an error that restarts the event (ignored SQL errors)
-- leaves the loop, is counted, and the loop is entered again with
-- `resumed` set so the same event is retried with its original start time.
local function event_loop(W, event, tid, resumed, next_event)
  if resumed and event(tid) then
    C.lb_worker_ev_end(W)
    return
  end
  while next_event(W) ~= 0 do
    if event(tid) then
      C.lb_worker_ev_end(W)
      return
    end
  end
end

-- A thread's next_event: one FFI call per event, which both records the
-- previous event and starts the next (pacing under --rate sleeps in C).
local thread_next_event = function(W) return C.lb_worker_ev_next(W) end

-- A virtual user's next_event.  Two FFI calls (end, begin) rather than
-- one: the time a VU spends in the run queue before its next event is not
-- part of any event.  Under --rate it waits for its intended start in the
-- event loop.  A VU whose event never waited (the null driver, a CPU-only
-- event) first lets the other VUs run.
local function vu_next_event_fn()
  local yields_at_start = -1
  return function(W)
    C.lb_worker_ev_end(W)
    if async.yields == yields_at_start then async.pass() end
    local r = C.lb_worker_ev_begin(W)
    if r == 2 then
      async.wait(-1, async.TIMEOUT, C.lb_worker_ev_intended(W))
      r = C.lb_worker_ev_go(W)
    end
    yields_at_start = async.yields
    return r
  end
end

-- Message and traceback from inside an error handler (level 3: above the
-- handler and this function).  The first frame of an error() call is
-- error itself, not the user's: dropped; so are lbench's own frames
-- (util.user_traceback): the script's author reads their own.
local function script_trace(e)
  local tb = debug.traceback(tostring(e), 3)
  return util.user_traceback((tb:gsub("\n\t%[C%]: in function 'error'", "", 1)))
end

-- The handler of the event loop's xpcall: restarts, stops and one-line
-- errors pass unchanged; a script error gets its traceback now.
local function keep_trace(e)
  if e == async.STOPPED or api.is_restart(e) or (type(e) == "table" and (e.lbench_message or e.lbench_trace)) then
    return e
  end
  return { lbench_trace = script_trace(e) }
end

-- An error that fails the run even when raised while it stops: a server
-- that did not come back before the end (api/sql.lua).
local function fatal_at_stop(e)
  return type(e) == "table" and e.lbench_fatal == true
end

-- Run the event loop (of a thread or a virtual user: `next_event`) under
-- one pcall, re-entering it after each restart error: the restart is
-- counted, the scenario's before_restart_event hook runs, and the
-- interrupted event is retried with its original start time.
--
-- A script error's traceback is taken where it was raised (keep_trace, the
-- handler, runs before the stack unwinds), so that it starts with the
-- script's own frames; re-raising it from here would show only ours.
local function with_restarts(next_event, W, event, tid, hooks)
  local resumed = false
  while true do
    local ok, err = xpcall(event_loop, keep_trace, W, event, tid, resumed, next_event)
    if ok or err == async.STOPPED then return end
    if api.is_restart(err) then
      -- The SQL layer counts its own restarts where it raises them.
      if not err.lbench_counted then C.lb_worker_ev_restart(W) end
      local hook = hooks.before_restart_event
      if hook then hook(err) end
      resumed = true
    elseif C.lb_worker_should_stop(W) ~= 0 and not fatal_at_stop(err) then
      -- The run was stopping (deadline or signal) and the in-flight
      -- event was abandoned, e.g. a hung query cut off at the deadline.
      return
    else
      error(err, 0)
    end
  end
end

local function run_events(W, lb, tid)
  local event = scenario.fn("event")
  if not event then error("the scenario does not define event()", 0) end
  with_restarts(thread_next_event, W, event, tid, lb.hooks)
end

-- sysbench's contract: a script's own thread_run(thread_id) replaces the
-- event loop.  It loops over ffi.C.sb_more_events / sb_event_start /
-- sb_event_stop (core/sbcompat.h), which count and time the events in
-- this worker as the loop above does, and catches restart errors itself.
-- An error it lets out while the run stops (a query cut at the deadline)
-- ends the worker quietly, as in the default loop.
local function run_own_loop(W, thread_run, tid)
  local ok, err = xpcall(thread_run, keep_trace, tid)
  if ok or (C.lb_worker_should_stop(W) ~= 0 and not fatal_at_stop(err)) then return end
  error(err, 0)
end

-- ---- async mode: many virtual users per worker -------------------------

-- Virtual users of worker `tid`: connections / threads each, the first
-- (connections % threads) workers one more; and the global index of the
-- first one.
function M.vus_of(connections, threads, tid)
  local base, rem = math.floor(connections / threads), connections % threads
  return base + (tid < rem and 1 or 0), tid * base + math.min(tid, rem)
end

local function vu_events(W, inst, tid)
  local event = inst.fn("event")
  if not event then error("the scenario does not define event()", 0) end
  with_restarts(vu_next_event_fn(), W, event, tid, inst.lb.hooks)
end

-- `phase[i]` is true while VU i runs events: only then does the end of
-- the run cut its sleeps short.
local function vu_main(W, inst, tid, phase, i)
  local thread_init = inst.fn("thread_init")
  if thread_init then thread_init(tid) end
  if async.park() then
    phase[i] = true
    vu_events(W, inst, tid)
    phase[i] = nil
  end
  phase.left = phase.left - 1
  if phase.left <= 0 then C.lb_worker_events_over(W) else async.hold() end
  local thread_done = inst.fn("thread_done")
  if thread_done then thread_done(tid) end
end

-- The text of an error that ended a worker or a VU when it already has
-- one (a one-line message, or a traceback taken where it was raised).
local function error_text(e)
  if type(e) == "table" then return e.lbench_message or e.lbench_trace end
end

-- The worker's scheduler: VU coroutines on one event loop.  It resumes
-- the VUs the loop reports ready, one FFI call per batch, and arms the
-- loop with what each VU yields for (socket, timer, or "again").
-- The worker's event loop (freed at the end of run_async, after the
-- reporter can no longer wake it; the gc handler covers an error on the
-- way), its VU coroutines, numbered 0..nvu-1, and each VU's hooks.
local function async_setup(W, lb, tid, cfg, nvu, first, phase)
  if C.lb_worker_set_lanes(W, nvu) ~= 0 then error("out of memory for " .. nvu .. " virtual users", 0) end
  local loop = C.lb_loop_new(nvu)
  if loop == nil then error("cannot create the event loop of worker " .. tid, 0) end
  loop = ffi.gc(loop, function(l) C.lb_worker_set_loop(W, nil); C.lb_loop_free(l) end)
  C.lb_worker_set_loop(W, loop)
  async.loop = loop
  local new_vu = vu.factory(cfg.script, lb)
  local cos, hooks = {}, {}
  for i = 0, nvu - 1 do
    local inst = new_vu(tid, first + i)
    hooks[i] = inst.lb.hooks
    cos[i] = coroutine.create(function() return vu_main(W, inst, tid, phase, i) end)
  end
  return loop, cos, hooks
end

-- thread_init (the connect) of at most `opening` VUs at a time, in order:
-- a server's listen backlog holds only so many connections in the making.
-- next() starts one more; drop() gives up on those not started (returns
-- how many).
local function init_gate(loop, nvu, opening)
  local started = 0
  local g = {}
  function g.next()
    if started < nvu then
      C.lb_loop_ready(loop, started, 0)
      started = started + 1
    end
  end
  function g.drop()
    local n = nvu - started
    started = nvu
    return n
  end
  function g.open() for _ = 1, math.min(opening, nvu) do g.next() end end
  return g
end

local function run_async(W, lb, tid, cfg)
  local nvu, first = M.vus_of(cfg.opt.connections, cfg.opt.threads, tid)
  if nvu < 1 then
    -- More threads than connections cannot happen (the runner refuses it).
    C.lb_worker_ready(W)
    return
  end
  local phase = { left = nvu }  -- VUs that have not left their events yet
  local loop, cos, hooks = async_setup(W, lb, tid, cfg, nvu, first, phase)
  local slots, masks = ffi.new("int32_t[?]", nvu), ffi.new("int32_t[?]", nvu)
  local alive, parked = nvu, {}
  local nparked = 0
  local gate = init_gate(loop, nvu, math.max(1, math.ceil(cfg.opt.connect_concurrency / cfg.opt.threads)))
  local sleeping = {}   -- VUs in a pure timer wait (sleep, intended start)
  local held = {}       -- VUs done with events, waiting for the others (async.hold)
  local function release_held()
    for _, j in ipairs(held) do C.lb_loop_ready(loop, j, 0) end
    held = {}
  end
  local stopping = false
  local resume, status = coroutine.resume, coroutine.status

  local function step(i, mask)
    local co = cos[i]
    sleeping[i] = nil
    C.lb_worker_lane(W, i)
    async.current, async.slot, async.hooks = co, i, hooks[i]
    local ok, kind, fd, wmask, until_ns = resume(co, mask)
    async.current = nil
    if not ok then
      alive = alive - 1
      C.lb_loop_forget(loop, i)
      C.lb_worker_fail(W, error_text(kind) or util.user_traceback(debug.traceback(co, tostring(kind), 0)))
      -- A failed thread_init fails the run: the VUs not started yet never are.
      local dropped = 0
      if not phase[i] then dropped = gate.drop() end
      alive = alive - dropped
      -- Neither it nor those will leave events: the held ones must not wait for them.
      phase.left = phase.left - 1 - dropped
      if phase.left <= 0 then release_held() end
      return
    end
    if status(co) == "dead" then
      alive = alive - 1
      C.lb_loop_forget(loop, i)
      if not phase[i] then gate.next() end
    elseif kind == async.WAIT then
      if fd < 0 and stopping and phase[i] then
        C.lb_loop_ready(loop, i, async.TIMEOUT + async.STOP)
      else
        if C.lb_loop_wait(loop, i, fd, wmask, until_ns or -1) ~= 0 then
          error("virtual user " .. (first + i) .. ": cannot wait on fd " .. tostring(fd), 0)
        end
        if fd < 0 then sleeping[i] = true end
      end
    elseif kind == async.PASS then
      C.lb_loop_ready(loop, i, 0)
    elseif kind == async.PARK then
      parked[i] = true
      nparked = nparked + 1
      gate.next()
    elseif kind == async.HOLD then
      held[#held + 1] = i
    end
    if phase.left <= 0 then release_held() end
  end

  -- The loop blocks without a timeout when nothing is timed: the run
  -- wakes it when it stops (lb_worker_set_loop),
  -- and the deadline is passed as the wait limit so that sleeping users
  -- are woken when the time is up.
  local function drive(done)
    while not done() do
      local dl = C.lb_worker_deadline(W)
      local n = C.lb_loop_run(loop, slots, masks, nvu, (stopping or dl == INT64_MAX) and -1 or dl)
      if n < 0 then error("event loop of worker " .. tid .. " failed", 0) end
      if not stopping and C.lb_worker_should_stop(W) ~= 0 then
        -- Cut sleeps short: the run is over (or failed).
        stopping = true
        for i in pairs(sleeping) do
          if phase[i] and C.lb_loop_waiting(loop, i) ~= 0 then C.lb_loop_ready(loop, i, async.TIMEOUT + async.STOP) end
        end
      end
      for k = 0, n - 1 do step(slots[k], masks[k]) end
    end
  end

  -- thread_init of every VU (a gated number of connects overlap), then the barrier.
  gate.open()
  drive(function() return nparked >= alive end)
  async.go = C.lb_worker_ready(W) ~= 0
  for i in pairs(parked) do C.lb_loop_ready(loop, i, 0) end
  -- Events, then thread_done of every VU.
  drive(function() return alive == 0 end)
  async.loop = nil
  C.lb_worker_set_loop(W, nil)
  C.lb_loop_free(ffi.gc(loop, nil))
end

local function traceback(e)
  return error_text(e) or script_trace(e)
end

function M.main(wptr, boot, rtptr)
  local W = ffi.cast("lb_worker *", wptr)
  local cfg = assert(loadstring(boot, "=boot"))()
  local tid = C.lb_worker_tid(W)
  local ctx = { rt = ffi.cast("lb_runtime *", rtptr), W = W, tid = tid, opt = cfg.opt,
                command = cfg.command, script = cfg.script, argv = cfg.argv, rank = cfg.rank, nranks = cfg.nranks,
                free_opts = cfg.free_opts,
                extend_api = sbhooks.add_hooks }
  vu.snapshot_preloaded()
  local ok, err = xpcall(function()
    local lb = scenario.load(cfg.script, ctx)
    -- A step of a sweep whose stdout is its document (sweep/data.lua).
    if cfg.opt._print_to_stderr then rawset(_G, "print", util.stderr_print) end
    if cfg.mode == "run" and (cfg.opt.connections or 0) > 0 then
      return run_async(W, lb, tid, cfg)
    end
    if cfg.mode == "command" then
      local fn = lb.cmdline.commands[cfg.command]
      fn = type(fn) == "table" and fn[1] or fn
      if C.lb_worker_ready(W) ~= 0 then fn(tid) end
      return
    end
    local thread_init = scenario.fn("thread_init")
    if thread_init then thread_init(tid) end
    if C.lb_worker_ready(W) ~= 0 then
      local thread_run = scenario.fn("thread_run")
      if thread_run then run_own_loop(W, thread_run, tid) else run_events(W, lb, tid) end
    end
    C.lb_worker_events_over(W)
    local thread_done = scenario.fn("thread_done")
    if thread_done then thread_done(tid) end
  end, traceback)
  -- The thread's sb_* binding goes with its state (nothing of it is freed
  -- with the thread otherwise).
  C.lb_sb_bind(C.lb_runtime_run_host(ctx.rt), nil, nil, nil)
  if not ok then
    C.lb_worker_fail(W, tostring(err))
    -- Meet the barrier anyway so the main thread is not left waiting.
    C.lb_worker_ready(W)
  end
end

return M
