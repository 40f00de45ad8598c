-- One pgbench client running parsed scripts (pgbench/script.lua) on one
-- connection: each script is compiled once per client into an array of
-- steps (closures over the client's variables, random state and
-- connection), and a transaction runs the steps of one script.
--
-- SQL: in prepared mode each statement is prepared on first use, its
-- :variables sent as parameters in their text form (as pgbench sends
-- them: a variable that is not set is sent as NULL); in extended mode
-- the same, the statement being the unnamed one the connection parses at
-- every execution (--db-ps-mode=extended); in simple mode
-- (--db-ps-mode=disable) the variables' text replaces them in the SQL
-- (one that is not set stays as it is).  A compound statement ('\;')
-- runs in simple mode only, the one protocol that takes several
-- statements at once: elsewhere it aborts the client, as the server's
-- refusal aborts pgbench's.  \gset keeps the one row of the last result in
-- variables named after its columns (a NULL as an empty string), \aset
-- the last row of every result that has rows.
--
-- \startpipeline ... \endpipeline run their statements in the
-- connection's pipeline mode (PostgreSQL; extended and prepared mode
-- only, as in pgbench): each statement is sent without waiting,
-- \syncpipeline sends a sync point, \endpipeline waits for every result
-- and leaves the mode.  In prepared mode the pipeline's statements are
-- prepared at \startpipeline, before it starts (as pgbench does, so that
-- no prepare runs inside a transaction the pipeline opens).  \gset and
-- \aset are refused inside one, and a script that ends with its pipeline
-- open aborts the client, with pgbench's words.
--
-- A run-time error (an expression that fails, a \gset that gets no row
-- or several, a \sleep or \shell that fails, a server error that is not
-- retried) aborts the client: raised as a table marked pgbench_abort,
-- with one line saying which client, command and script, where in the
-- file, and what failed.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local eval = require("pgbench.eval")
local script = require("pgbench.script")

local M = {}

local text_of, truth, unbox, IntBox = eval.text, eval.truth, eval.unbox, eval.IntBox

-- "client C aborted in command N (WHAT) of script S (FILE:LINE); why",
-- N counted from 0 as pgbench counts it there.
local function abort(st, cmd, why, what)
  what = what or (cmd.kind == "sql" and "SQL" or cmd.kind)
  error({ pgbench_abort = true, lbench_message = string.format("client %d aborted in command %d (%s) of script %d "
    .. "(%s:%d); %s", st.client_id, st.command - 1, what, st.script, st.source, cmd.line, why) }, 0)
end

-- ---- results into variables -------------------------------------------------

-- A result read: its row count, column names and last row (the
-- connection keeps one result at a time, so it is read before the next).
local function read_result(rs)
  if type(rs) ~= "table" then return { nrows = 0 } end
  local names, r = {}, rs.r
  for i = 1, rs.nfields do
    local name = C.lb_db_result_field_name(r, i - 1)
    names[i] = name ~= nil and ffi.string(name) or ("?column" .. i .. "?")
  end
  local row, n = nil, 0
  while true do
    local got = rs:fetch_row()
    if not got then break end
    row, n = got, n + 1
  end
  return { nrows = n, names = names, row = row }
end

-- The last row of a result into variables (a NULL as an empty string).
-- A column whose name is no variable name (SELECT 1's "?column?") aborts
-- the client, as in pgbench: a script could never read it back.
local function store(st, cmd, res, prefix)
  for i, name in ipairs(res.names) do
    local var = prefix .. name
    if not var:match("^[%a_\128-\255][%w_\128-\255]*$") then
      abort(st, cmd, "error storing into variable " .. var)
    end
    st.vars[var] = res.row[i] or ""
  end
end

-- Read the results of a statement into variables: `first` is the first
-- result (an RS, or nil for none), more() the next one (an RS, true for
-- a statement without rows, nil when there are no more).
local function collect(st, cmd, first, more)
  local gset, aset = cmd.gset, cmd.aset
  local res, q = read_result(first), 0
  while true do
    if aset and res.nrows > 0 then store(st, cmd, res, aset) end
    local nxt = more and more() or nil
    if nxt == nil then break end
    res, q = read_result(nxt), q + 1
  end
  if gset then
    if res.nrows ~= 1 then
      abort(st, cmd, string.format("\\gset: query %d: expected one row, got %d", q, res.nrows))
    end
    store(st, cmd, res, gset)
  end
end

-- ---- SQL ----------------------------------------------------------------------

local VARCHAR = 12

-- In a pipeline, no statement may want its rows.
local function check_pipeline(st, cmd)
  if st.pipeline then
    local what = cmd.gset and "gset" or cmd.aset and "aset"
    if what then abort(st, cmd, string.format("\\%s is not allowed in pipeline mode", what), what) end
  end
end

-- Variable value `v` as parameter `p` (at most `cap` bytes), or the
-- length it needs when it is longer.
local function put_param(p, v, cap)
  if v == nil then
    p:set(nil)
  elseif type(v) == "cdata" then
    -- An integer straight into the parameter's buffer (cap >= 64): no Lua
    -- string, and no tostring() of a cdata, which the JIT cannot compile.
    local b = p.b
    b.is_null = 0
    b.len = C.lb_pg_format_int(unbox(v), b.buf, b.cap)
  else
    local s = text_of(v)
    if #s > cap then return #s end
    p:set(s)
  end
  return nil
end

-- fill(params, cap): the variables `names` into a statement's parameters,
-- one put_param() per parameter written out (generated once: a loop over
-- two or three parameters kept a transaction out of the JIT's trace); the
-- length a value needs when it is longer than `cap`, else nil.
local function param_filler(vars, names)
  local src = { "local vars, put_param = ...\nreturn function(params, cap)\nlocal long\n" }
  for k, name in ipairs(names) do
    src[#src + 1] = string.format("long = put_param(params[%d], vars[%q], cap) if long then return long end\n", k, name)
  end
  src[#src + 1] = "return nil\nend\n"
  return assert(load(table.concat(src), "=pgbench parameters"))(vars, put_param)
end

-- A step sending `cmd` with its variables as parameters of a statement
-- prepared on this connection at its first run, and the function that
-- prepares it (\startpipeline calls it ahead).
local function prepared_sql(st, cmd)
  -- the text as written, ';' included: what pgbench sends (and what the
  -- server's error LINE and its statement statistics show)
  local names, text = script.variables(cmd.sql, function() return "?" end)
  local n, stmt, params, cap = #names, nil, nil, 64
  local vars = st.vars
  local function bind(need)
    while cap < need do cap = cap * 4 end
    params = {}
    for k = 1, n do params[k] = stmt:bind_create(VARCHAR, cap) end
    if n > 0 then stmt:bind_param(unpack(params)) end
  end
  local fill = param_filler(vars, names)
  local wants_rows = cmd.gset or cmd.aset
  -- (prepared again on a new connection: --connect-per-transaction)
  local function prepare()
    if not stmt or stmt.con ~= st.con then
      stmt = st.con:prepare(text)
      bind(cap)
    end
  end
  return function()
    if wants_rows then check_pipeline(st, cmd) end
    prepare()
    local long = fill(params, cap)
    if long then
      bind(long)
      return nil, "again"
    end
    local rs = stmt:execute()
    if wants_rows then collect(st, cmd, rs, nil) end
  end, prepare
end

-- One variable's text at buf[n] (cap bytes in all): the new length, or nil
-- when it does not fit.  An integer is written from C (no Lua string, no
-- tostring() of a cdata); an undefined variable stays as written
-- (`missing`, ":name"), as pgbench leaves it.
local function put_text(buf, n, cap, s)
  local len = #s
  if n + len > cap then return nil end
  ffi.copy(buf + n, s, len)
  return n + len
end
local function put_value(buf, n, cap, v, missing)
  if v == nil then return put_text(buf, n, cap, missing) end
  if type(v) == "cdata" then
    if cap - n < 21 then return nil end
    return n + C.lb_pg_format_int(unbox(v), buf + n, cap - n)
  end
  return put_text(buf, n, cap, text_of(v))
end

-- build(buf, cap): the statement's text with its variables' values into
-- buf, its length (nil when cap is too small).  Generated once per
-- statement: the gsub() with a callback it replaces ran in the
-- interpreter at every execution (3.7 times pgbench's instructions per
-- tpcb-like transaction).  When every variable holds an integer (what
-- \set gives), their values go into an int64 array and one C call writes
-- the text; otherwise one put per piece.  One call rather than a put per
-- piece keeps a transaction's trace small: each value live across a C
-- call takes one of the trace's spill slots, and a tpcb-like transaction
-- ran out of them (LuaJIT's "too many spill slots": the transaction then
-- ran in the interpreter).
local function text_builder(vars, sql)
  local names, template = script.variables(sql, function() return "\0" end)
  local lits, i = {}, 1
  for k = 1, #names + 1 do
    local j = template:find("\0", i, true) or #template + 1
    lits[k] = template:sub(i, j - 1)
    i = j + 1
  end
  local src = { "local vars, lits, put_text, put_value = ...\nreturn function(buf, cap)\nlocal n = 0\n" }
  for k = 1, #lits do
    if lits[k] ~= "" then
      src[#src + 1] = string.format("n = put_text(buf, n, cap, lits[%d]) if not n then return nil end\n", k)
    end
    local name = names[k]
    if name then
      src[#src + 1] = string.format("n = put_value(buf, n, cap, vars[%q], %q) if not n then return nil end\n", name,
        ":" .. name)
    end
  end
  src[#src + 1] = "return n\nend\n"
  local by_piece = assert(load(table.concat(src), "=pgbench text"))(vars, lits, put_text, put_value)
  local joined = table.concat(lits)
  local chars = ffi.new("char[?]", #joined + 1, joined)
  local ends = ffi.new("int32_t[?]", #lits)
  local at = 0
  for k = 1, #lits do
    at = at + #lits[k]
    ends[k - 1] = at
  end
  local ints = ffi.new("int64_t[?]", #names + 1)
  src = { "local vars, by_piece, C, chars, ends, ints, unbox = ...\nreturn function(buf, cap)\nlocal v\n" }
  for k, name in ipairs(names) do
    src[#src + 1] = string.format("v = vars[%q] if type(v) ~= 'cdata' then return by_piece(buf, cap) end ints[%d] = unbox(v)\n",
      name, k - 1)
  end
  src[#src + 1] = string.format("local n = C.lb_pg_text_ints(chars, ends, %d, ints, buf, cap)\n", #names)
  src[#src + 1] = "if n < 0 then return nil end\nreturn n\nend\n"
  return assert(load(table.concat(src), "=pgbench text"))(vars, by_piece, C, chars, ends, ints, unbox), #names > 0
end

-- A step sending `cmd` as text, its variables replaced by their values.
local function text_sql(st, cmd)
  local build, has_vars = text_builder(st.vars, cmd.sql)
  local cap = 256
  local buf = ffi.new("char[?]", cap)
  local wants_rows = cmd.gset or cmd.aset
  -- made here, not in the step: a closure over the step's locals makes
  -- the step close upvalues (UCLO) at its end, which the JIT cannot compile
  local function next_result() return st.con:next_result() end
  return function()
    local con, rs = st.con, nil
    if has_vars then
      local n = build(buf, cap)
      while not n do
        cap = cap * 4
        buf = ffi.new("char[?]", cap)
        n = build(buf, cap)
      end
      if st.debug then
        io.stderr:write(string.format("%sclient %d sending %s\n", st.debug, st.client_id, ffi.string(buf, n)))
      end
      rs = con:query_buf(buf, n)
    else
      if st.debug then io.stderr:write(string.format("%sclient %d sending %s\n", st.debug, st.client_id, cmd.sql)) end
      rs = con:query(cmd.sql)
    end
    if wants_rows then
      collect(st, cmd, rs, next_result)
    elseif cmd.compound then
      while con:next_result() do end
    end
  end
end

-- ---- meta-commands ------------------------------------------------------------

-- atoi: the leading integer of s, 0 without one.
local function atoi(s) return tonumber(s:match("^%s*([+-]?%d+)")) or 0 end

local USEC = { us = 1, ms = 1000, s = 1000000 }

local function sleep_step(st, cmd)
  local arg, mult, var = cmd.arg, USEC[cmd.unit], cmd.arg:sub(1, 1) == ":" and cmd.arg:sub(2)
  local fixed = not var and atoi(arg) * mult
  return function()
    local usec = fixed
    if not usec then
      local v = st.vars[var]
      if v == nil then abort(st, cmd, string.format("sleep: undefined variable \"%s\"", var)) end
      local s = text_of(v)
      usec = atoi(s)
      if usec == 0 and not s:match("^%d") then
        abort(st, cmd, string.format("sleep: invalid sleep time \"%s\" for variable \"%s\"", s, var))
      end
      usec = usec * mult
    end
    if usec > 0 then lbench.sleep(usec / 1000) end
  end
end

-- The shell command line of `argv`: ':name' is the variable's text,
-- '::x' is ':x'.
local function shell_line(st, cmd, argv)
  local out = {}
  for i, a in ipairs(argv) do
    if a:sub(1, 2) == "::" then out[i] = a:sub(2)
    elseif a:sub(1, 1) == ":" then
      local v = st.vars[a:sub(2)]
      if v == nil then abort(st, cmd, string.format("%s: undefined variable \"%s\"", cmd.kind, a)) end
      out[i] = text_of(v)
    else out[i] = a end
  end
  return table.concat(out, " ")
end

-- A failed \shell or \setshell: pgbench's words ("execution of
-- meta-command failed"), then what failed.
local function shell_abort(st, cmd, why) abort(st, cmd, "execution of meta-command failed: " .. why) end

local function shell_step(st, cmd)
  return function()
    local line = shell_line(st, cmd, cmd.argv)
    local rc = os.execute(line)
    if rc ~= 0 and rc ~= true then shell_abort(st, cmd, "shell: could not launch shell command") end
  end
end

local function setshell_step(st, cmd)
  return function()
    local line = shell_line(st, cmd, cmd.argv)
    local f = io.popen(line, "r")
    local res = f and f:read("*l")
    if f then f:close() end
    if not res then shell_abort(st, cmd, "setshell: could not read result of shell command") end
    local num, rest = res:match("^%s*([+-]?%d*)(.*)$")
    if res == "" or not rest:match("^%s*$") then
      shell_abort(st, cmd, string.format("setshell: shell command must return an integer (not \"%s\")", res))
    end
    st.vars[cmd.name] = ffi.new("int64_t", tonumber(num) or 0)
  end
end

-- ---- pipelines --------------------------------------------------------------------

-- \startpipeline at command i: `preps` are the statements' prepare
-- functions (prepared mode), run up to the \endpipeline first.
local function startpipeline_step(st, cmd, mode, cmds, i, preps)
  return function()
    if mode == "simple" then abort(st, cmd, "cannot use pipeline mode with the simple query protocol") end
    if st.pipeline then abort(st, cmd, "already in pipeline mode") end
    if mode == "prepared" then
      for j = i + 1, #cmds do
        if cmds[j].kind == "endpipeline" then break end
        if preps[j] then preps[j]() end
      end
    end
    st.con:pipeline("start")
    st.pipeline = true
  end
end

local function pipeline_step(st, cmd, what)
  return function()
    if not st.pipeline then abort(st, cmd, "not in pipeline mode") end
    -- (the end leaves pipeline mode even when it fails)
    if what == "end" then st.pipeline = false end
    st.con:pipeline(what)
  end
end

-- ---- compiling a script ----------------------------------------------------------

-- The index of the branch after command i (an \elif, \else or \endif of
-- the same \if), and of its \endif.
local function branches(cmds)
  local nxt, endif, stack = {}, {}, {}
  for i, c in ipairs(cmds) do
    if c.kind == "if" then
      stack[#stack + 1] = { i }
    elseif c.kind == "elif" or c.kind == "else" then
      local heads = stack[#stack]
      nxt[heads[#heads]] = i
      heads[#heads + 1] = i
    elseif c.kind == "endif" then
      local heads = stack[#stack]
      stack[#stack] = nil
      nxt[heads[#heads]] = i
      for _, h in ipairs(heads) do endif[h] = i end
    end
  end
  return nxt, endif
end

-- The steps of `cmds` for client state `st`: steps[i]() returns the index
-- of the next step, or nil for i + 1.
-- A compound statement outside simple mode: the client aborts there.
local function compound_step(st, cmd, mode)
  return function()
    abort(st, cmd, string.format("cannot insert multiple commands into a prepared statement (\\; runs in simple "
      .. "mode only, not %s)", mode))
  end
end

-- pgbench -d's trace around the compiled steps of `cmds`: what a client
-- sends (simple mode: the text, its variables replaced, printed by the
-- step itself; extended: the text with $n; prepared: the statement's
-- name, P_n in the order pgbench numbers them, and "preparing" the first
-- time), "receiving" when it has the result, and its meta-commands.
local function trace_steps(st, cmds, steps, mode)
  local function say(fmt, ...)
    io.stderr:write(string.format("%sclient %d " .. fmt .. "\n", st.debug, st.client_id, ...))
  end
  for i, cmd in ipairs(cmds) do
    local step, shown = steps[i], nil
    if cmd.kind ~= "sql" then
      local words = "\\" .. table.concat(cmd.words, " ")
      steps[i] = function() say("executing %s", words) return step() end
    else
      if mode == "prepared" then
        shown = "P_" .. st.prepnum
        st.prepnum = st.prepnum + 1
      elseif mode ~= "simple" then
        shown = select(2, script.variables(cmd.sql, function(k) return "$" .. k end))
      end
      local prepared = mode ~= "prepared"
      steps[i] = function()
        if not prepared then say("preparing %s", shown) prepared = true end
        if shown then say("sending %s", shown) end
        local to, again = step()
        say("receiving")
        return to, again
      end
    end
  end
end

-- The end of a script: its pipeline ended and its transaction block
-- closed, or the client aborts (as pgbench's does; a transaction left
-- open is counted first, err.counted).
local function check_script_end(st)
  if st.pipeline then
    error({ pgbench_abort = true, lbench_message = string.format(
      "client %d aborted: end of script reached with pipeline open", st.client_id) }, 0)
  end
  if st.con:in_transaction() then
    error({ pgbench_abort = true, counted = true, lbench_message = string.format(
      "client %d aborted: end of script reached without completing the last transaction", st.client_id) }, 0)
  end
end

-- The steps from step i on, each to the one it names (a branch, or the
-- same step again after a rebind); `hs`: the script's per-command
-- histograms (ns) under --report-per-command, each command that ran to
-- its end recorded.
local function run_loop(st, steps, hs, i)
  local n = #steps
  while i <= n do
    st.command = i
    local t0 = hs and C.lb_clock_ns()
    local to, again = steps[i]()
    if again then to = i
    elseif hs then hs[i]:record(C.lb_clock_ns() - t0) end
    i = to or i + 1
  end
  check_script_end(st)
end

-- The same steps as one straight line of calls, generated once per
-- compiled script: the JIT compiles a transaction into the caller's
-- trace, where the loop above (a short inner loop in every transaction)
-- kept it in the interpreter (callgrind, select-only from a file: 13,756
-- -> 6,392 instructions per transaction in the worker; pgbench 6,452).
-- The first step that names where to go next (a branch, a rebind) hands
-- over to the loop.
local function straight_runner(st, steps)
  local src = { "local st, steps, run_loop, check_script_end = ...\nreturn function()\n" }
  for k = 1, #steps do
    src[#src + 1] = string.format("do st.command = %d local to, again = steps[%d]() "
      .. "if to or again then return run_loop(st, steps, nil, again and %d or to) end end\n", k, k, k)
  end
  src[#src + 1] = "check_script_end(st)\nend\n"
  return assert(load(table.concat(src), "=pgbench steps"))(st, steps, run_loop, check_script_end)
end

-- The VM settings of a state that runs clients, set by the first one.
-- A transaction runs as one trace of the worker's event loop (see
-- straight_runner).  A long script's trace passes LuaJIT's default limit
-- on a trace's constants (maxirconst: 500; "trace too long"), then, with
-- its loop optimisation, the assembler's spill slots (each value the
-- optimisation hoists out of the loop and keeps across a C call takes
-- one; "too many spill slots"), and the transaction runs in the
-- interpreter.  So: a higher limit on constants, and once the event
-- loop's trace has aborted twice, no loop optimisation in this state (it
-- saves 1.2k instructions per transaction of a one-statement script,
-- where it fits).  And a collection when the heap has grown to 4 times
-- what the last one left, not 2: a transaction allocates little (144
-- bytes for tpcb-like, its \set integers), but each collection walks the
-- whole state (1 MB), about 1k instructions per transaction at the
-- default.  tpcb-like in prepared mode, instructions per transaction:
-- 36k before, 32k after; pgbench 31k.
-- A script of LONG_SCRIPT or more SQL commands turns loop optimisation off
-- from the start: its trace would abort anyway, and the recordings that
-- abort, with the side traces built under the optimisation before them,
-- cost each client's state about 25M instructions (8 ms) in its first
-- hundred transactions (tpcb-like, callgrind: 135-144M for a worker's
-- first 300 transactions, 98-120M without them; the same 28-31k per
-- transaction after).  With 8 clients in a 5-second run that was about
-- 7 µs of lbench's 130-180 µs of CPU per tpcb-like transaction.
--
-- The event loop's trace first.  LuaJIT starts a trace where code gets
-- hot: a loop after 56 iterations, a function after 112 calls, counted in
-- 64 counters shared by address.  The event loop turns once per
-- transaction while the functions a transaction calls run several times
-- in it, so one of those usually got hot first: its trace ran on through
-- the rest of the transaction, aborted at the pcalls on the way out (and
-- after 15 tail calls), side traces recorded into the next transaction,
-- and the loop's trace came last.  Which of them won depended on where the
-- bytecode lay: per worker, 7-145M instructions of compiling in the first
-- 300 tpcb-like transactions (callgrind, 25-35M typical), where a steady
-- transaction costs 30k.  So after WARM_TRANSACTIONS, which take the
-- first-time paths (the prepares) in the interpreter, every counter is set
-- to fire at once (hotloop=1): the event loop's next turn is the first
-- trace, with the whole transaction inlined, and as it starts the
-- counters go back to LuaJIT's default (HOTLOOP).  Compiling then costs
-- 3.5-3.9M per worker, every time: a worker's first 300 tpcb-like
-- transactions 93-94M instructions, where they were 127-258M (80M of
-- them the start-up and the login, before the first transaction).
local LONG_SCRIPT = 3
local WARM_TRANSACTIONS, HOTLOOP = 2, 56
local warm_left   -- transactions before the loop's trace is asked for (nil: asked, or no JIT)
local asked = false   -- the counters fire at once until the next trace starts
local vm_tuned = false
local function tune_vm()
  if vm_tuned then return end
  vm_tuned = true
  collectgarbage("setpause", 400)
  if not jit then return end
  jit.opt.start("maxirconst=4000")
  warm_left = WARM_TRANSACTIONS
  local util = require("jit.util")
  local started_in_loop, aborts = {}, 0
  jit.attach(function(what, tr, func, _, parent)
    if what == "start" then
      if asked then
        asked = false
        jit.opt.start("hotloop=" .. HOTLOOP)
      end
      local info = util.funcinfo(func)
      started_in_loop[tr] = parent == nil and (info.source or ""):find("run/worker%.lua$") ~= nil
    elseif what == "abort" and started_in_loop[tr] then
      aborts = aborts + 1
      if aborts == 2 then jit.opt.start("-loop") end
    end
  end, "trace")
end

-- Called at the end of each transaction of the worker's clients that
-- completed (not one that failed or aborted the client): after the first
-- WARM_TRANSACTIONS, the event loop's trace is asked for (see tune_vm).
-- Once asked, one test of an upvalue in the loop's trace.
function M.transaction_done()
  if warm_left == nil then return end
  warm_left = warm_left - 1
  if warm_left > 0 then return end
  warm_left, asked = nil, true
  jit.opt.start("hotloop=1")
end

-- The box of client `st`'s integer variable `name` (see eval.IntBox).
local function int_box(st, name)
  local box = st.int_boxes[name] or IntBox()
  st.int_boxes[name] = box
  return box
end

function M.compile(cmds, st, mode)
  tune_vm()
  local nsql = 0
  for _, cmd in ipairs(cmds) do
    if cmd.kind == "sql" then nsql = nsql + 1 end
  end
  if nsql >= LONG_SCRIPT and jit then jit.opt.start("-loop") end
  local simple = mode == "simple"
  local steps, tests, preps = {}, {}, {}
  local nxt, endif = branches(cmds)
  for i, cmd in ipairs(cmds) do
    local k = cmd.kind
    if k == "sql" then
      if cmd.compound and not simple then steps[i] = compound_step(st, cmd, mode)
      elseif simple then steps[i] = text_sql(st, cmd)
      else
        steps[i], preps[i] = prepared_sql(st, cmd)
        if mode ~= "prepared" then preps[i] = nil end
      end
    elseif k == "startpipeline" then
      steps[i] = startpipeline_step(st, cmd, mode, cmds, i, preps)
    elseif k == "syncpipeline" then
      steps[i] = pipeline_step(st, cmd, "sync")
    elseif k == "endpipeline" then
      steps[i] = pipeline_step(st, cmd, "end")
    elseif k == "set" then
      local f, name = eval.compile(cmd.expr), cmd.name
      local vars, box = st.vars, int_box(st, name)
      steps[i] = function()
        local v = f(st)
        if type(v) == "cdata" then
          box[0] = v
          v = box
        end
        vars[name] = v
      end
    elseif k == "if" or k == "elif" then
      local f, after, done = eval.compile(cmd.expr), nxt[i], endif[i]
      -- Taken when reached by a false condition before it: test it.
      tests[i] = function()
        st.command = i
        if truth(f(st)) then return i + 1 end
        local a = cmds[after]
        if a.kind == "elif" then return tests[after]() end
        return after + 1
      end
      -- An \elif reached by running the branch before it ends the \if.
      steps[i] = k == "if" and tests[i] or function() return done + 1 end
    elseif k == "else" then
      local done = endif[i]
      steps[i] = function() return done + 1 end
    elseif k == "endif" then
      steps[i] = function() end
    elseif k == "sleep" then
      steps[i] = sleep_step(st, cmd)
    elseif k == "shell" then
      steps[i] = shell_step(st, cmd)
    elseif k == "setshell" then
      steps[i] = setshell_step(st, cmd)
    end
  end
  if st.debug then trace_steps(st, cmds, steps, mode) end
  steps.straight = straight_runner(st, steps)
  return steps
end

-- Run one transaction of the compiled script `steps` (script number
-- `index`, 0-based, of the commands `cmds` from `source`).  An
-- expression's error aborts the client, naming the command that failed.
function M.run(st, steps, index, cmds, source)
  st.script, st.source, st.pipeline = index, source, false
  local hs = st.cmd_hists and st.cmd_hists[index + 1]
  local ok, err
  if hs then ok, err = pcall(run_loop, st, steps, hs, 1) else ok, err = pcall(steps.straight) end
  if ok then return end
  if type(err) == "table" and err.pgbench_error then
    abort(st, cmds[st.command], "evaluation of meta-command failed: " .. err.pgbench_error)
  end
  -- A server's error that is not retried aborts the client, as in
  -- pgbench: say which command of which script sent it (in place of the
  -- Lua line that did).
  if type(err) == "table" and err.lbench_message and err.sql_errmsg and not err.lbench_fatal
      and err.errcode ~= lbench.error.RESTART_EVENT then
    err.pgbench_abort = true
    local cmd = cmds[st.command]
    if st.compat then
      -- pgbench's words, with the server's whole report as libpq gives it
      -- (a COPY FROM STDIN, which lbench ends at once: pgbench's refusal)
      err.lbench_message = tostring(err.sql_errmsg):find("COPY FROM STDIN is not supported", 1, true)
        and "COPY is not supported in pgbench, aborting"
        or string.format("client %d script %d aborted in command %d query 0: %s", st.client_id, st.script,
          st.command - 1, err.sql_report or ("ERROR:  " .. err.sql_errmsg))
      error(err, 0)
    end
    -- (a pipeline's statements fail at its \endpipeline)
    err.lbench_message = string.format("client %d aborted in command %d (%s) of script %d (%s:%d); %s",
      st.client_id, st.command - 1, cmd.kind == "sql" and "SQL" or cmd.kind, st.script, st.source, cmd.line,
      (err.lbench_message:gsub("^[^\n]-client%.lua:%d+: ", "")))
  end
  error(err, 0)
end

return M
