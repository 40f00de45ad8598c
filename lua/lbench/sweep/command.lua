-- `lbench sweep [sweep options] <scenario> [run] [scenario options]`: run a
-- scenario once per point of a grid and put the points side by side.
--
--   --threads=1,2,4,8          thread counts (a single value is a plain option)
--   --option name=v1,v2,...    any core or scenario option (repeatable; separate
--                              values by '|' when they hold commas)
--   --server-var name=v1,...   a server variable, SET GLOBAL before each point
--                              (repeatable; the original value is restored)
--   --point-warmup=S           warm-up of every point, excluded from its results
--   --result-file=F            one JSON document with every point
--   --server-var-timeout=S     longest wait for an online buffer-pool resize
--   --prepare-each             cleanup and prepare before every point (fresh
--                              data for each; see sweep/data.lua)
--   --precondition-each        precondition before every point
--   --prepare-threads=N        threads of those cleanups and prepares
--
-- Every point loads the scenario afresh and runs with fresh workers and
-- connections; `prepare` is run only with --prepare-each (otherwise
-- prepare the data once beforehand).
-- Points are the cartesian product of the dimensions, the first given
-- varying slowest (server variables first: changing them is the costly
-- part).  The scale factor of a point is its throughput over that of the
-- baseline: the first point with the same values of the other dimensions
-- when threads are swept, otherwise the first point.  Parallel efficiency
-- is the scale factor over the ratio of thread counts.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local options = require("lbench.options")
local scenario = require("lbench.api.scenario")
local runner = require("lbench.run.runner")
local session = require("lbench.run.session")
local catalogue = require("lbench.result.catalogue")
local fmt = require("lbench.fmt")
local result = require("lbench.result.document")
local observed = require("lbench.result.observed")
local publish = require("lbench.result.publish")
local sweep_data = require("lbench.sweep.data")
local datasize = require("lbench.db.datasize")
local server_vars = require("lbench.db.server_vars")
local cluster = require("lbench.cluster.transport")
local job = require("lbench.run.job")

local M = {}

local USAGE = "usage: lbench sweep [--threads=1,2,4] [--option name=v1,v2] [--server-var name=v1,v2] " ..
  "[--point-warmup=S] [--result-file=F] [--prepare-each [--precondition-each]] <scenario> [run] [scenario options]"

local function out(rt, s) C.lb_runtime_write(rt, s, #s) end

-- ---- arguments ---------------------------------------------------------------

local function parse_dim(kind, spec, flag)
  if spec == nil or spec == true or spec == "" then
    util.fail("%s needs name=v1,v2,... (%s)", flag, USAGE)
  end
  local name, list = spec:match("^%s*([^=%s]+)%s*=(.*)$")
  if not name then util.fail("%s %s: expected name=v1,v2,...", flag, spec) end
  -- Values are separated by commas, or by '|' when a value holds commas
  -- itself: --option 'cpu-affinity=0,1|2,3'.
  local values = {}
  for _, v in ipairs(util.split(list, list:find("|", 1, true) and "|" or ",")) do
    v = util.trim(v)
    if v == "" then util.fail("%s %s: empty value in the list", flag, spec) end
    values[#values + 1] = v
  end
  if #values == 0 then util.fail("%s %s: no values", flag, spec) end
  if kind == "option" then name = options.norm(name:gsub("^%-%-", "")) end
  if kind == "server_var" and not name:match("^[%a_][%w_]*$") then
    util.fail("--server-var %s: '%s' is not a server variable name", spec, name)
  end
  return { name = name, kind = kind, values = values }
end

-- Split argv into sweep dimensions, sweep settings and what goes to the
-- scenario.
local function parse(argv)
  local dims, rest, pos = {}, {}, {}
  local set = {}
  local i = 2
  while i <= #argv do
    local a = argv[i]
    local flag, value = a:match("^(%-%-[^=]+)=(.*)$")
    flag = flag or a
    local norm = flag:sub(1, 2) == "--" and ("--" .. options.norm(flag:sub(3))) or flag
    if norm == "--option" or norm == "--server-var" then
      if value == nil then i = i + 1; value = argv[i] end
      dims[#dims + 1] = parse_dim(norm == "--option" and "option" or "server_var", value, norm)
    elseif norm == "--threads" and value and value:find(",") then
      dims[#dims + 1] = parse_dim("option", "threads=" .. value, "--threads")
    elseif norm == "--point-warmup" or norm == "--result-file" or norm == "--server-var-timeout" then
      if value == nil or value == "" then util.fail("%s needs a value", norm) end
      set[norm:sub(3)] = value
    elseif sweep_data.flags[norm:sub(3)] ~= nil then
      set[norm:sub(3)] = sweep_data.flag_value(norm:sub(3), value)
    elseif a:sub(1, 2) == "--" and #a > 2 then
      rest[#rest + 1] = a
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  local seen = {}
  for _, d in ipairs(dims) do
    local key = d.kind .. ":" .. d.name
    if seen[key] then util.fail("'%s' is swept twice", d.name) end
    seen[key] = true
    if d.kind == "option" and (d.name == "result-file" or d.name == "config-file" or d.name == "output") then
      util.fail("--option %s: cannot be swept", d.name)
    end
  end
  return dims, set, rest, pos
end

local function number_setting(set, name, min)
  local v = set[name]
  if v == nil then return nil end
  local n = tonumber(v)
  if not n or n < (min or 0) then util.fail("--%s=%s: expected a number >= %g", name, v, min or 0) end
  return n
end

-- Cartesian product; the first dimension varies slowest.
local function grid(dims)
  local points = { {} }
  for _, d in ipairs(dims) do
    local next_points = {}
    for _, p in ipairs(points) do
      for _, v in ipairs(d.values) do
        local q = {}
        for k, x in pairs(p) do q[k] = x end
        q[#q + 1] = { dim = d, value = v }
        next_points[#next_points + 1] = q
      end
    end
    points = next_points
  end
  return points
end

local function label(point, skip)
  local parts = {}
  for _, c in ipairs(point) do
    if c.dim ~= skip then parts[#parts + 1] = c.dim.name .. "=" .. c.value end
  end
  return table.concat(parts, " ")
end

-- ---- the sweep ----------------------------------------------------------------

local function copy(t)
  local o = {}
  for k, v in pairs(t) do o[k] = v end
  return o
end

-- Figures of one point, for the table.
local function figures(r)
  local f = {}
  f.throughput, f.metric = result.throughput(r)
  f.events_per_sec = r.totals.events_per_sec
  f.qps = result.is_sql(r) and r.totals.queries_per_sec or nil
  f.iops = result.iops(r)
  if type(r.io) == "table" then f.read_mib, f.write_mib = r.io.read_mib_per_sec, r.io.written_mib_per_sec end
  f.p95 = result.pct(r.latency_ms, "95")
  f.p99 = result.pct(r.latency_ms, "99")
  f.errors = r.totals.errors or 0
  f.threads = r.threads
  -- CPU per transaction (or event): the client's own, and the server's when
  -- it runs on this machine (--server-pid or a local --mysql-socket).
  if type(r.cpu) == "table" then
    f.client_us = r.cpu.client_us_per_event
    f.server_us = r.cpu.server_us_per_event
  end
  -- What the server and its device did (--server-stats): a buffer-pool
  -- sweep's "memory or SSD?" in the same table.
  local o = observed.of_document(r)
  f.hit_pct, f.disk_reads, f.dev_util = o.server_hit_pct, o.server_disk_reads_per_sec, o.device_util_pct
  return f
end

-- The server's and the device's columns of the table: header, field, format.
local OBS_COLS = { { "hit %", "hit_pct", "%.2f" }, { "disk reads/s", "disk_reads" }, { "dev util %", "dev_util", "%.1f" } }

local function summary_table(doc, dims, sums, csv)
  local threads_dim
  for _, d in ipairs(dims) do if d.kind == "option" and d.name == "threads" then threads_dim = d end end
  local any_sql, any_io, any_server = false, false, false
  for _, s in ipairs(sums) do
    if s.qps then any_sql = true end
    if s.iops then any_io = true end
    if s.server_us then any_server = true end
  end
  local any_loaded = false
  for _, s in ipairs(sums) do if s.loaded then any_loaded = true end end
  local header = {}
  for _, d in ipairs(dims) do header[#header + 1] = d.name end
  if any_loaded then header[#header + 1] = "loaded" end
  local metric = sums[1] and sums[1].metric or "events/s"
  header[#header + 1] = any_io and "events/s" or metric
  if any_sql then header[#header + 1] = "QPS" end
  if any_io then
    header[#header + 1] = "IOPS"
    header[#header + 1] = "read MiB/s"
    header[#header + 1] = "write MiB/s"
  end
  for _, h in ipairs({ "p95 ms", "p99 ms", "errors", "scale" }) do header[#header + 1] = h end
  if threads_dim then header[#header + 1] = "efficiency" end
  header[#header + 1] = "client us/ev"
  if any_server then header[#header + 1] = "server us/ev" end
  local obs_cols = {}
  for _, c in ipairs(OBS_COLS) do
    for _, x in ipairs(sums) do if x[c[2]] then obs_cols[#obs_cols + 1] = c; header[#header + 1] = c[1]; break end end
  end
  local rows = {}
  for i, s in ipairs(sums) do
    local row = {}
    for j in ipairs(dims) do row[#row + 1] = tostring(doc.points_coords[i][j].value) end
    if any_loaded then row[#row + 1] = datasize.text(s.loaded) end
    row[#row + 1] = fmt.num(s.events_per_sec)
    if any_sql then row[#row + 1] = fmt.num(s.qps) end
    if any_io then
      row[#row + 1] = fmt.num(s.iops)
      row[#row + 1] = fmt.num(s.read_mib)
      row[#row + 1] = fmt.num(s.write_mib)
    end
    row[#row + 1] = fmt.num(s.p95)
    row[#row + 1] = fmt.num(s.p99)
    row[#row + 1] = fmt.num(s.errors) .. (s.status ~= "ok" and (" (" .. s.status .. ")") or "")
    row[#row + 1] = s.scale_factor and string.format("%.2f", s.scale_factor) or "-"
    if threads_dim then row[#row + 1] = s.efficiency and string.format("%.2f", s.efficiency) or "-" end
    row[#row + 1] = fmt.num(s.client_us)
    if any_server then row[#row + 1] = fmt.num(s.server_us) end
    for _, c in ipairs(obs_cols) do
      local v = s[c[2]]
      row[#row + 1] = v and (c[3] and string.format(c[3], v) or fmt.num(v)) or "-"
    end
    rows[#rows + 1] = row
  end
  if csv then return fmt.csv(header, rows) end
  return fmt.table(header, rows, "  ")
end

-- The result file after every point (publish.file): a sweep stopped
-- part-way keeps the points that ran.
local function write_doc(path, doc)
  local ok, e = publish.file(path, doc)
  if not ok then util.fail("%s", e) end
end

M.usage = USAGE

-- One sweep's state, shared by the steps of M.main below, one method each:
-- what was asked (dimensions, points, settings), the first point's loaded
-- scenario, the document being built, the per-point summary rows with
-- their baselines, and the guard of the server variables.
local Sweep = {}
Sweep.__index = Sweep

-- Refuse what cannot be swept before anything is loaded.
local function check_args(dims, pos)
  if #pos == 0 then util.fail("lbench sweep: missing scenario (%s)", USAGE) end
  if pos[2] and pos[2] ~= "run" then
    util.fail("lbench sweep runs the 'run' command only, not '%s' (prepare the data once with " ..
      "'lbench %s prepare' before sweeping, or give --prepare-each)", pos[2], pos[1])
  end
  if pos[3] then util.fail("unexpected argument '%s' (%s)", pos[3], USAGE) end
  if #dims == 0 then
    util.fail("nothing to sweep: give --threads=1,2,4, --option name=v1,v2 or --server-var name=v1,v2 (%s)", USAGE)
  end
end

-- The arguments, the sweep's settings, the options common to every point
-- and the grid of points.
local function new_sweep(rt, argv)
  local dims, set, rest, pos = parse(argv)
  check_args(dims, pos)
  local self = setmetatable({ rt = rt, dims = dims, rest = rest, scenario_arg = pos[1] }, Sweep)
  self.point_warmup = number_setting(set, "point-warmup", 0)
  self.sv_timeout = number_setting(set, "server-var-timeout", 1)
  self.result_file = set["result-file"]
  self.data = sweep_data.new(self, set)

  self.path = scenario.find(pos[1])
  local given = options.parse_argv(rest)
  if self.result_file == nil and given["result-file"] then self.result_file = given["result-file"] end
  given["result-file"] = nil
  self.base = session.merged_raw(given)
  self.base["result-file"] = nil
  self.user_verbosity = self.base.verbosity ~= nil

  self.sv_names = {}
  for _, d in ipairs(dims) do
    if d.kind == "option" then
      if d.name == "threads" then self.threads_dim = d end
    else
      self.sv_names[#self.sv_names + 1] = d.name
    end
  end
  self.points = grid(dims)
  self.sums = {}
  self.base_of = {}   -- group label -> index of its baseline point
  -- Progress lines go to the text output only; the server variables'
  -- guard calls this too, hence a function rather than a method.
  self.say = function(s) if self.text then out(rt, s) end end
  return self
end

-- The options of one point: the common ones with the point's values.
function Sweep:raw_for(point)
  local raw = copy(self.base)
  for _, c in ipairs(point) do
    if c.dim.kind == "option" then raw[c.dim.name] = c.value end
  end
  if self.point_warmup then raw["warmup-time"] = tostring(self.point_warmup) end
  if not self.user_verbosity then raw.verbosity = "2" end -- no per-point banner
  return raw
end

-- Load the scenario with the first point's options (unknown names fail
-- here), then check every point's values before running anything.
function Sweep:load()
  local scen_argv = { self.scenario_arg }
  for _, a in ipairs(self.rest) do scen_argv[#scen_argv + 1] = a end
  self.scen_argv = scen_argv
  local ctx1, lb1, specs = session.setup(self.rt, self.path, self:raw_for(self.points[1]), "run", scen_argv)
  if not scenario.fn("event") then util.fail("%s defines no event() function: nothing to run", ctx1.scenario_name) end
  publish.check_outputs(ctx1.opt, self.result_file)
  local core_specs = options.core_specs()
  for i = 2, #self.points do
    local raw = self:raw_for(self.points[i])
    local o = options.resolve(core_specs, raw, {})
    options.resolve(specs, raw, o)
  end
  if self.data then self.data:check(lb1, ctx1.scenario_name) end
  self.ctx1, self.lb1, self.opt1 = ctx1, lb1, ctx1.opt
  self.output = ctx1.opt.output
  self.text = self.output == "text"
end

-- The sweep document: the header of a run's (options are the first
-- point's; each point records its own).
function Sweep:new_doc()
  local doc = result.header(self.ctx1, self.lb1, os.time(), "ok")
  doc.tool = "sweep"
  local sw = json.object()
  local jd = json.array()
  for _, d in ipairs(self.dims) do
    local o = json.object()
    o.name = d.name
    o.kind = d.kind == "option" and (d.name == "threads" and "threads" or "option") or "server_var"
    o.values = json.array(copy(d.values))
    jd[#jd + 1] = o
    d.json = o
  end
  sw.dimensions = jd
  sw.point_warmup_s = self.point_warmup or 0
  if self.data then self.data:document(sw) end
  sw.baseline = "first point with the same values of the other dimensions when threads are swept, else the first point"
  doc.sweep = sw
  doc.summary = json.array()
  doc.points = json.array()
  self.doc = doc
  self.doc_meta = { points_coords = {} }
end

-- The opening line: scenario, points, dimensions and each point's limit.
function Sweep:banner()
  local o, t = self.opt1, {}
  for _, d in ipairs(self.dims) do t[#t + 1] = d.name .. "=" .. table.concat(d.values, ",") end
  self.say(string.format("lbench sweep: %s, %d point(s) over %s; %s%s%s\n", self.ctx1.scenario_name, #self.points,
    table.concat(t, " "), o.time > 0 and (fmt.num(o.time) .. " s per point") or
      o.events > 0 and (o.events .. " events per point") or "no limit per point",
    self.point_warmup and string.format(" (+%g s warm-up)", self.point_warmup) or "",
    self.data and ("; " .. self.data:describe()) or ""))
end

-- Connect for the server variables and read their original values (the
-- document records them; one that cannot be read is not restored).
function Sweep:start_server_vars()
  if #self.sv_names == 0 then return end
  local sv = server_vars.new(self.lb1, self.opt1, self.sv_names, self.sv_timeout, self.rt)
  self.sv = sv
  sv:start()
  for _, d in ipairs(self.dims) do
    if d.kind == "server_var" then
      local orig = sv.original[d.name]
      d.json.original = orig == nil and json.null or orig
      if orig == nil then
        self.say(string.format("  note: cannot read @@GLOBAL.%s (driver %s): it will not be restored\n", d.name,
          sv.driver))
      end
    end
  end
end

-- The sweep ends in error at point i; the message is the run's error too.
function Sweep:stop_on_error(i, lbl, err)
  self.doc.status = "error"
  self.doc.error = string.format("point %d (%s): %s", i, lbl, tostring(err))
  self.failed_msg = self.doc.error
end

-- Point i's data could not be made (`why`: "interrupted" or "error"):
-- the sweep stops there, the points before it kept.  Returns true.
function Sweep:stop_before(i, lbl, why, msg)
  if why == "interrupted" then
    self.doc.status = "interrupted"
    self.doc.stop_reason = "signal"
    self.doc.error = string.format("point %d (%s): %s", i, lbl, msg)
    self.interrupted_in = self.doc.error
  else
    self:stop_on_error(i, lbl, msg)
  end
  self.say(string.format("point %d (%s): %s; sweep stopped after %d of %d point(s)\n", i, lbl, msg, i - 1,
    #self.points))
  return true
end

-- Point i's row of the summary: its figures, its baseline and the scale
-- factor and parallel efficiency against that baseline.  Returns the row
-- and the figures.
function Sweep:summarise(i, point, r, sp, lbl)
  local f = figures(r)
  local group = self.threads_dim and label(point, self.threads_dim) or ""
  local base_of = self.base_of
  -- Only a complete point is a baseline: an interrupted or failed one
  -- measured a different thing.
  if not base_of[group] and (r.status or "ok") == "ok" then base_of[group] = i end
  local b = base_of[group] and (self.sums[base_of[group]] or f)
  local s = json.object()
  s.point = sp
  s.label = lbl
  s.status = r.status or "ok"
  s.threads = f.threads
  s.metric = f.metric
  s.throughput = f.throughput
  s.events_per_sec = f.events_per_sec
  s.qps = f.qps
  s.iops = f.iops
  s.read_mib = f.read_mib
  s.write_mib = f.write_mib
  s.p95 = f.p95
  s.p99 = f.p99
  s.errors = f.errors
  s.client_us = f.client_us
  s.server_us = f.server_us
  s.hit_pct, s.disk_reads, s.dev_util = f.hit_pct, f.disk_reads, f.dev_util
  if r.sweep_data then
    s.loaded = r.sweep_data.loaded
    s.prepare_s = r.sweep_data.prepare_s
  end
  s.baseline = base_of[group]
  s.scale_factor = (b and b.throughput and b.throughput > 0 and s.status == "ok") and f.throughput / b.throughput or nil
  if self.threads_dim and s.scale_factor and b.threads and b.threads > 0 then
    s.efficiency = s.scale_factor / (f.threads / b.threads)
  end
  self.sums[i] = s
  self.doc.summary[i] = s
  return s, f
end

-- Run point i: set its server variables, load the scenario afresh (the
-- first point's is loaded already), run, record.  Returns true when the
-- sweep stops here (nothing measured, a failed point, a signal).
function Sweep:run_point(i, point)
  local say, doc, n = self.say, self.doc, #self.points
  local lbl = label(point)
  say(string.format("\n[%d/%d] %s\n", i, n, lbl))
  if self.sv then
    for _, c in ipairs(point) do
      if c.dim.kind == "server_var" then self.sv:set(c.dim.name, c.value, say) end
    end
  end
  local made
  if self.data then
    local why, msg
    made, why, msg = self.data:before_point(point, lbl)
    if not made then return self:stop_before(i, lbl, why, msg) end
  end
  local ctx, lb = self.ctx1, self.lb1
  -- The data steps loaded the scenario for themselves: load it again.
  if i > 1 or self.data then ctx, lb = session.setup(self.rt, self.path, self:raw_for(point), "run", self.scen_argv) end
  -- lbench-mpi: the point is a run of the whole job (cluster/transport.lua).
  local res, failed, err = job.lead_run(ctx, lb)
  if not res then
    -- Nothing measured (the workers did not start): the sweep stops.
    self:stop_on_error(i, lbl, err)
    return true
  end
  local r = runner.unwrap(res)
  local sp = json.object()
  for _, c in ipairs(point) do sp[c.dim.name] = catalogue.numeric(c.value) and tonumber(c.value) or c.value end
  r.sweep_point = sp
  r.sweep_data = made
  if self.sv then r.server_vars = self.sv:effective() end
  doc.points[#doc.points + 1] = r
  self.doc_meta.points_coords[i] = point

  local s, f = self:summarise(i, point, r, sp, lbl)
  say(string.format("[%d/%d] %s: %s %s, p95 %s ms, p99 %s ms, errors %s, scale %s\n", i, n, lbl,
    fmt.num(f.throughput), f.metric, fmt.num(f.p95), fmt.num(f.p99), fmt.num(f.errors),
    s.scale_factor and string.format("%.2f", s.scale_factor) or "-"))
  -- The file is rewritten after every point: a sweep cut short keeps
  -- the points it ran.
  if self.result_file then write_doc(self.result_file, doc) end
  if failed then
    self:stop_on_error(i, lbl, err)
    if i < n then say(string.format("point %d failed: sweep stopped after %d of %d point(s)\n", i, i, n)) end
    return true
  end
  if C.lb_runtime_stop_requested(self.rt) ~= 0 then
    doc.status = "interrupted"
    doc.stop_reason = "signal"
    if i < n then say(string.format("interrupted: %d of %d point(s) done\n", i, n)) end
    return true
  end
  return false
end

function Sweep:run_points()
  for i, point in ipairs(self.points) do
    if self:run_point(i, point) then return end
  end
end

-- After the points, whatever happened: the server variables are put back,
-- then an error out of the points is recorded in the result file (when
-- some points ran) and raised again.
function Sweep:finish(ok, e)
  local doc = self.doc
  if self.sv then
    local problems = self.sv:restore(self.say)
    if #problems > 0 then doc.restore_problems = json.array(problems) end
    for _, p in ipairs(problems) do out(self.rt, "warning: --server-var " .. p .. "\n") end
  end
  if not ok then
    if #doc.points > 0 then
      doc.status = "error"
      doc.error = util.is_usage_error(e) and e.lbench_message or tostring(e)
      -- The points that ran are kept (file and history); the error that
      -- stopped the sweep is the one reported.
      publish.store(self.ctx1.opt, doc, { file = self.result_file, source = "sweep" })
    end
    error(e, 0)
  end
  if self.result_file then write_doc(self.result_file, doc) end
end

-- The summary table (text, CSV) or the whole document (JSON), the
-- document as the run's result; returns the exit status.
function Sweep:report()
  local doc, result_file = self.doc, self.result_file
  local function tables()
    local s = (self.text and ("\nSweep results (" .. self.ctx1.scenario_name .. "), scale factor = throughput / baseline:\n")
      or "") .. summary_table(self.doc_meta, self.dims, self.sums, self.output == "csv") .. "\n"
    if self.text and result_file then s = s .. "\nResult file: " .. result_file .. "\n" end
    local closing = self.text and self.data and self.data:closing()
    return closing and s .. closing or s
  end
  -- The whole sweep goes into the history once, as one document, after
  -- the report (the result file was rewritten after every point).
  local ok, e = publish.document(self.rt, self.ctx1.opt, doc,
    { output = self.output, text = tables, csv = tables, file = nil, source = "sweep" })
  if not ok then
    C.lb_runtime_set_error(self.rt, e)
    return 1
  end
  if self.failed_msg then
    C.lb_runtime_set_error(self.rt, self.failed_msg)
    return 1
  end
  if doc.status == "interrupted" then
    C.lb_runtime_set_error(self.rt, string.format("sweep interrupted by a signal after %d of %d point(s)%s%s", #doc.points,
      #self.points, self.interrupted_in and (" (in " .. self.interrupted_in .. ")") or "",
      result_file and ("; " .. result_file .. " holds them") or ""))
    return 1
  end
  return 0
end

-- The points, the server variables around them, the document.
function Sweep:sweep()
  self:new_doc()
  self:banner()
  self:start_server_vars()
  local ok, e = pcall(self.run_points, self)
  self:finish(ok, e)
end

-- lbench-mpi: the sweep is driven by rank 0 (its output, its server
-- variables, its document), as a main-state command is; each point, and
-- each data step's parallel commands and rounds, runs on every rank,
-- which the other ranks follow (cluster/transport.lua).
function M.main(rt, argv)
  local sw = new_sweep(rt, argv)
  sw:load()
  if not cluster.active() then
    sw:sweep()
    return sw:report()
  end
  cluster.check_same({ { "lbench version", sw.lb1.version }, { "scenario", sw.ctx1.script_hash },
    { "sweep arguments", util.serialize(argv) } })
  if cluster.rank() ~= 0 then
    job.follow(sw.ctx1, sw.lb1)
    return 0
  end
  job.lead(function() sw:sweep() end)
  return sw:report()
end

return M
