-- The scenario API: the `lbench` table a scenario sees (also as `sysbench`,
-- so sysbench 1.0 scripts run unmodified).
--
-- One instance per Lua state.  Hot-path functions (random numbers, clock)
-- are thin closures over FFI calls on this state's own C objects, so the
-- JIT compiles them into the event loop.  Every state loads this file, so
-- it stays below the run and the result document: what needs those is
-- added by whoever made the state (ctx.extend_api, see M.new).
local ffi = require("ffi")
local C = require("lbench.ffi").C
local util = require("lbench.util")
local hist = require("lbench.api.hist")
local async = require("lbench.api.async")
local sbffi = require("lbench.api.sbffi")
local sql = require("lbench.api.sql")

local M = {}

-- The version a script started as sysbench sees (sysbench.version): the
-- release whose behaviour lbench takes over.
M.SYSBENCH_VERSION = "1.0.20"
M.SYSBENCH_VERSION_STRING = "sysbench " .. M.SYSBENCH_VERSION

local RESTART_EVENT = 1

-- ctx: { rt = lb_runtime*, W = lb_worker* or nil, tid = n, opt = {...},
--        command = "run", script = path, stock_dir = dir }
-- lbench.rand: the worker's stream (or the main state's) and sysbench's distributions.
local function add_rand(lb, ctx)
  local opt, W = ctx.opt, ctx.W
  -- ---- random numbers ------------------------------------------------
  local R
  if ctx.W ~= nil then
    R = C.lb_worker_rand(ctx.W)
  else
    -- The main state (prepare, init, commands) has its own stream.
    R = ffi.new("lb_rand")
    local seed = ctx.opt.rand_seed ~= 0 and ctx.opt.rand_seed or tonumber(C.lb_clock_ns() % 2^52)
    C.lb_rand_seed(R, seed, 0xFFFF)
  end
  -- sysbench's sb_rand_* C functions (ffi.C.sb_rand_str, ...) draw from
  -- the same stream; sb_counter_inc and sb_event_* reach this worker.
  sbffi.bind(ctx, R)
  local iter, spct, sres = opt.rand_spec_iter or 12, opt.rand_spec_pct or 1, opt.rand_spec_res or 75
  local ph, zexp = opt.rand_pareto_h or 0.2, opt.rand_zipfian_exp or 0.8
  local rand = {}
  function rand.uniform(a, b) return C.lb_rand_uniform(R, a, b) end
  function rand.gaussian(a, b) return C.lb_rand_gaussian(R, a, b, iter) end
  -- The special law's options are checked once, not per draw.
  local special_law = ffi.new("lb_rand_special_law")
  C.lb_rand_special_law_init(special_law, spct, sres, iter)
  function rand.special(a, b) return C.lb_rand_special_by(R, a, b, special_law) end
  function rand.pareto(a, b) return C.lb_rand_pareto(R, a, b, ph) end
  function rand.zipfian(a, b) return C.lb_rand_zipfian(R, a, b, zexp) end
  function rand.uniform_double() return C.lb_rand_double(R) end
  function rand.uniform_uint64() return C.lb_rand_next(R) end  -- a uint64_t cdata, as in sysbench
  -- With bounds, sysbench 0.5's sb_rand_uniq(a, b): unique within [a, b]
  -- (a missing bound is the end of the 32-bit range, as there).
  function rand.unique(a, b)
    if a == nil and b == nil then return C.lb_rand_unique(R) end
    local v = C.lb_rand_unique_range(R, a or 0, b or 4294967295)
    if v < 0 then
      error(string.format("rand.unique(%s, %s): no value of the range lies in [0, 4294967295]", tostring(a),
        tostring(b)), 2)
    end
    return v
  end
  -- TPC-C NURand(A, x, y); C is the run-time constant for A (clause 2.1.6).
  local nurand_c = {}
  function rand.nurand(A, x, y, c)
    if not c then
      c = nurand_c[A]
      if not c then
        c = C.lb_rand_uniform(R, 0, A)
        nurand_c[A] = c
      end
    end
    return C.lb_rand_nurand(R, A, x, y, c)
  end
  function rand.set_nurand_c(A, c) nurand_c[A] = c end
  rand.default = rand[opt.rand_type or "special"] or rand.special
  -- The same distribution for C code drawing on this state's behalf.
  local DIST = { uniform = C.LB_RAND_DIST_UNIFORM, gaussian = C.LB_RAND_DIST_GAUSSIAN,
                 special = C.LB_RAND_DIST_SPECIAL, pareto = C.LB_RAND_DIST_PARETO, zipfian = C.LB_RAND_DIST_ZIPFIAN }
  local default_dist = ffi.new("lb_rand_dist", { kind = DIST[opt.rand_type or "special"] or C.LB_RAND_DIST_SPECIAL,
    iter = iter, pct = spct, res = sres, h = ph, theta = zexp })
  -- sbtest rows id first..last generated in C for con:load_rows (k as
  -- rand.default(1, k_max), c and pad as rand.string of the templates); the
  -- progress count grows as they go, and a stop ends them early.
  -- rows.generated() tells how many were made.
  function rand.sbtest_rows(first, last, k_max, c_tmpl, pad_tmpl)
    local g = ffi.new("lb_rowgen_sbtest")
    local progress = ffi.new("lb_progress", { C.lb_runtime_stop_flag(ctx.rt), C.lb_runtime_progress_cb, ctx.rt })
    if C.lb_rowgen_sbtest_init(g, R, default_dist, progress, first, last, k_max, c_tmpl, #c_tmpl, pad_tmpl,
                               #pad_tmpl) ~= 0 then
      error("rand.sbtest_rows: the templates are too long for one row buffer", 2)
    end
    -- The generator points into the template strings: keep them with it.
    return { src = g.src, gen = g, templates = { c_tmpl, pad_tmpl },
             generated = function() return tonumber(g.rows) end }
  end
  local sbuf, sbuf_len = nil, 0
  local function buf(n)
    if n > sbuf_len then
      sbuf_len = math.max(n, 256)
      sbuf = ffi.new("char[?]", sbuf_len)
    end
    return sbuf
  end
  -- '#' -> random digit, '@' -> random lowercase letter.
  function rand.string(tmpl)
    local n = #tmpl
    local b = buf(n)
    C.lb_rand_string(R, tmpl, n, b)
    return ffi.string(b, n)
  end
  function rand.varstring(min, max)
    local b = buf(max)
    local n = C.lb_rand_varstring(R, min, max, b)
    return ffi.string(b, n)
  end
  function rand.bytes(n)
    local b = buf(n)
    C.lb_rand_bytes(R, b, n)
    return ffi.string(b, n)
  end
  lb.rand = rand
end

-- lbench.clock, timers, histograms, sleep.
local function add_clock(lb, ctx)
  local opt, W = ctx.opt, ctx.W
  -- ---- clock, timers, histograms -------------------------------------
  lb.clock = {
    now = function() return C.lb_clock_now() end,        -- seconds (monotonic)
    ns = function() return tonumber(C.lb_clock_ns()) end, -- nanoseconds
  }
  lb.histogram = hist
  -- A timer records the span between start() and stop() into a histogram
  -- (in ns): lbench.timer(h) or lbench.timer("name") for a named one.
  local named = {}
  function lb.timer(h)
    if type(h) == "string" then
      named[h] = named[h] or hist.new()
      h = named[h]
    end
    local t0 = 0
    return {
      start = function() t0 = C.lb_clock_ns() end,
      stop = function()
        local d = C.lb_clock_ns() - t0
        h:record(d)
        return tonumber(d)
      end,
      histogram = h,
    }
  end
  lb.histograms = named
  -- Sleep `ms` milliseconds: a virtual user (async mode) yields to its
  -- worker's event loop, so the thread serves the other users meanwhile
  -- (and the sleep ends early once the run stops); otherwise the thread
  -- sleeps.
  function lb.sleep(ms)
    if async.active() then
      async.sleep_ns(ms * 1e6)
    else
      C.lb_clock_sleep_ns(ms * 1e6)
    end
  end
end

-- Event types, per-type accounting, and the worker-facing helpers.
local function add_stat(lb, ctx)
  local opt, W = ctx.opt, ctx.W
  -- ---- event types ---------------------------------------------------
  local stat = {}
  -- Register (or look up) a named event type; returns its id.
  function stat.type(name)
    local id = C.lb_runtime_type_id(ctx.rt, tostring(name))
    if id < 0 then util.fail("too many event types (at most %d)", C.LB_MAX_TYPES) end
    return id
  end
  if W ~= nil then
    -- Attribute the current event to a type (id from stat.type).
    function stat.event(id) C.lb_worker_ev_set_type(W, id) end
    -- Mark the current event as rolled back (counted per type).
    function stat.rollback() C.lb_worker_ev_rollback(W) end
  else
    function stat.event() end
    function stat.rollback() end
  end
  lb.stat = stat
  lb.event_type = stat.event

  -- Every effective option with passwords redacted, as a result document's
  -- `options` (for commands that write their own documents).
  function lb.result_options() return ctx.redacted_options end

  -- This thread's lb_worker* (nil in the main state), for C extensions
  -- that record operations themselves (lb_worker_record).
  function lb.worker_ptr() return W end
  -- The lb_runtime* of this state, for C loops that stop on a signal
  -- (lb_runtime_stop_flag, for lb_io_verify_file).
  function lb.runtime_ptr() return ctx.rt end

  -- Has the run been asked to stop (time limit, signal, error)?  For
  -- scripts with long loops of their own inside one event or command.
  function lb.should_stop()
    if W ~= nil then return C.lb_worker_should_stop(W) ~= 0 end
    return C.lb_runtime_stop_requested(ctx.rt) ~= 0
  end
end

-- Progress of long commands (shown as a bar with rate and ETA on a
-- terminal): the main state sets the total, workers add what they did.
local function add_progress(lb, ctx)
  lb.progress = {
    total = function(n, unit)
      C.lb_runtime_progress_reset(ctx.rt, n)
      ctx.progress_unit = unit or "rows"
    end,
    add = function(n) C.lb_runtime_progress_add(ctx.rt, n) end,
    done = function() return tonumber(C.lb_runtime_progress_done(ctx.rt)) end,
  }
end

-- A scenario's own counts over the whole run, in slots 0 .. 4095: workers
-- and virtual users add, the main state sets and reads (what a worker
-- cannot hand back any other way, e.g. how many clients gave up).
local function add_counters(lb, ctx)
  lb.counter = {
    set = function(i, v) C.lb_runtime_counter_set(ctx.rt, i, v) end,
    add = function(i, n) C.lb_runtime_counter_add(ctx.rt, i, n or 1) end,
    get = function(i) return tonumber(C.lb_runtime_counter_get(ctx.rt, i)) end,
  }
end

-- sysbench.cmdline's helpers that scripts call: is a command declared, may
-- it run in parallel, run it; print the script's options.
local function add_cmdline_helpers(lb)
  local cl = lb.cmdline
  local function entry(name)
    local e = type(cl.commands) == "table" and cl.commands[name]
    if type(e) == "function" then return { e } end
    return type(e) == "table" and e[1] ~= nil and e or nil
  end
  function cl.command_defined(name) return entry(name) ~= nil end
  function cl.command_parallel(name)
    local e = entry(name)
    return e ~= nil and e[2] == cl.PARALLEL_COMMAND
  end
  function cl.call_command(name)
    local e = entry(name)
    if not e then return false end
    local rc = e[1]()
    if rc == nil then return true end
    return rc and true or false
  end
  function cl.print_test_options() C.sb_print_test_options() end
end

function M.new(ctx)
  local lb = {}
  lb.version = ffi.string(C.lb_version())
  lb.version_string = "lbench " .. lb.version
  local sb = ctx.opt and ctx.opt.sysbench_compat
  -- Started as sysbench: a script that checks for sysbench 1.0 finds it.
  if sb then lb.version, lb.version_string = M.SYSBENCH_VERSION, M.SYSBENCH_VERSION_STRING end
  lb.tid = ctx.tid or 0
  -- lbench-mpi: this process's rank in the job (tid and opt.threads are the job's).
  lb.rank, lb.nranks = ctx.rank or 0, ctx.nranks or 1
  -- Partitioned workloads (TPC-C's warehouses, OLTP's --rank-tables=split)
  -- give each rank one contiguous block of 1..n, as a multi-client lab
  -- gives each client machine a range: rank r (default: this one) gets
  -- lo..hi, the first n % K ranks one more; lo > hi when n < K.
  function lb.rank_block(n, r)
    r = r or lb.rank
    local k = lb.nranks
    local base, extra = math.floor(n / k), n % k
    local lo = r * base + math.min(r, extra) + 1
    return lo, lo + base - 1 + (r < extra and 1 or 0)
  end
  -- Rank r's terminals (virtual users with --connections, else threads):
  -- the job-wide number of its first one and how many it has.  Threads
  -- split evenly over the ranks; virtual users follow their threads
  -- (run/worker.lua's vus_of), so both are contiguous per rank.
  function lb.rank_terminals(r)
    r = r or lb.rank
    local o = lb.opt
    local per = o.threads / lb.nranks
    local conns = o.connections or 0
    if conns <= 0 then return r * per, per end
    local function first(tid)
      return tid * math.floor(conns / o.threads) + math.min(tid, conns % o.threads)
    end
    return first(r * per), first((r + 1) * per) - first(r * per)
  end
  lb.opt = ctx.opt
  lb.hooks = {}
  lb.error = { RESTART_EVENT = RESTART_EVENT }
  -- argv as sysbench gives it: [0] the program, then the arguments.
  local argv = { [0] = sb and "sysbench" or "lbench" }
  for i, a in ipairs(ctx.argv or {}) do argv[i] = a end
  lb.cmdline = {
    options = {},
    commands = {},
    command = ctx.command,
    script_path = ctx.script,
    argv = argv,
    PARALLEL_COMMAND = true,
    -- Explicit option types (3rd element of a declaration).
    ARG_BOOL = "bool", ARG_INT = "int", ARG_SIZE = "size", ARG_DOUBLE = "double",
    ARG_STRING = "string", ARG_LIST = "list",
  }
  add_cmdline_helpers(lb)

  add_rand(lb, ctx)
  add_clock(lb, ctx)
  add_stat(lb, ctx)
  add_progress(lb, ctx)
  add_counters(lb, ctx)
  -- What needs the layers above this one (sysbench's report functions; in
  -- the main state lbench.run, run_parallel and the result documents) is
  -- added by whoever made the state: run/worker.lua and run/main_api.lua.
  if ctx.extend_api then ctx.extend_api(lb, ctx) end

  -- The SQL API is made on first use.
  setmetatable(lb, { __index = function(t, k)
    if k == "sql" then
      local api = sql.new(ctx, lb)
      rawset(t, "sql", api)
      -- Reports use the SQL layout (tps/qps, SQL statistics) even for an
      -- interval in which no query completed.
      ctx.sql_used = true
      if ctx.rt ~= nil then C.lb_runtime_mark_sql(ctx.rt) end
      return api
    end
  end })
  return lb
end

-- Install the API into this state, with strict globals when `strict`
-- (--strict-globals; on for lbench's stock scenarios, off for scripts given
-- as a path, which get sysbench's rules).  Reading a global
-- that was never assigned raises "undefined global" with file:line (a
-- misspelt name), while scripts may still create globals by assignment,
-- including assigning nil.  While the script's body runs (loading), an
-- unknown name reads as nil and becomes known: sysbench's own scripts probe
-- optional globals at load time (`oltp_prepare = prepare`).
local set_loading = function() end

-- Reading unknown globals is allowed again while `on` (virtual users run
-- the script body once each, after the state's own load).
function M.set_loading(on) set_loading(on) end

function M.install(lb, strict)
  rawset(_G, "lbench", lb)
  rawset(_G, "sysbench", lb)
  rawset(_G, "ffi", sbffi.ffi)
  package.loaded.ffi = sbffi.ffi
  if not strict then
    -- sysbench's rules: an unassigned global reads as nil.
    setmetatable(_G, nil)
    set_loading = function() end
    return function() end
  end
  local declared = {}
  local loading = true
  setmetatable(_G, {
    __newindex = function(t, k, v)
      declared[k] = true
      rawset(t, k, v)
    end,
    __index = function(_, k)
      if declared[k] then return nil end
      if loading then
        declared[k] = true
        return nil
      end
      error("undefined global '" .. tostring(k) .. "'", 2)
    end,
  })
  set_loading = function(on) loading = on and true or false end
  return function() loading = false end
end

-- An error raised by a scenario to restart the current event.
function M.is_restart(e)
  return type(e) == "table" and e.errcode == RESTART_EVENT
end

return M
