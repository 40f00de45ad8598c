-- What the server and the host did during a run, recorded beside lbench's
-- own figures (what people otherwise collect by hand with iostat, vmstat
-- and SHOW GLOBAL STATUS in other terminals): the server's identity and
-- settings, its counters (db/server_stats.lua), this host's CPU and the
-- block device under a local server's data and fileio's set (devices.lua),
-- and other hosts' CPU and devices through their node exporters
-- (nodeexp.lua).  The reporter samples at each report tick and at the ends
-- of the measured period, on connections of its own; workers are never
-- involved.
local C = require("lbench.ffi").C
local cpu = require("lbench.cpu")
local devices = require("lbench.devices")
local nodeexp = require("lbench.nodeexp")
local server_stats = require("lbench.db.server_stats")

local M = {}

local Obs = {}
Obs.__index = Obs

local LOCAL_HOSTS = { ["localhost"] = true, ["127.0.0.1"] = true, ["::1"] = true, [""] = true }

-- Is the server of driver `driver` on this host (so its data directory's
-- device is ours to read)?
local function server_is_local(opt, driver)
  local function first(v) return type(v) == "table" and v[1] or v end
  if driver == "mysql" then
    return (opt.mysql_socket and opt.mysql_socket ~= "") or LOCAL_HOSTS[tostring(first(opt.mysql_host) or "")] or false
  end
  local host = tostring(first(opt.pgsql_host) or "")
  return LOCAL_HOSTS[host] or host:sub(1, 1) == "/"
end

-- The devices under the paths a scenario works on (fileio's target:
-- lbench.hooks.observed_paths() in the main state): { path = storage }.
local function scenario_targets(lb)
  local hook = lb.hooks and lb.hooks.observed_paths
  local out = {}
  for _, path in ipairs(hook and hook() or {}) do
    local st = devices.of_target(path)
    if st and st.device then out[path] = st end
  end
  return out
end

-- The observer of a run whose options are `opt` and main-state API `lb`
-- (`sql_used`: the scenario talks to a server; `server_pid`: the server's
-- process when known), or nil with --server-stats=off and no
-- --node-exporter.  The node exporters are asked whatever the driver: a
-- remote host may be the storage server.
function M.new(opt, lb, sql_used, server_pid)
  local remote = opt.node_exporter or {}
  if opt.server_stats == "off" and #remote == 0 then return nil end
  local self = setmetatable({ ticks = {}, disks = {}, remotes = {}, local_host = opt.server_stats ~= "off",
                              server_pid = server_pid, self_pid = cpu.self_pid() }, Obs)
  for _, url in ipairs(remote) do self.remotes[#self.remotes + 1] = nodeexp.open(url) end
  if self.local_host and sql_used and (opt.db_driver == "mysql" or opt.db_driver == "pgsql") then
    local probe, why = server_stats.open(lb, opt.db_driver, opt.server_stats == "all")
    if probe then
      self.probe = probe
      local id = probe:identity()
      self.server = { product = id.product, version = id.version, settings = id.settings,
                      data_directory = id.data_directory, variables = id.variables }
      if id.data_directory and server_is_local(opt, opt.db_driver) then
        self.server.storage = devices.of_path(id.data_directory)
        self.server_pid = self.server_pid or cpu.pid_from_file(id.pid_file)
      end
    else
      self.server = { notice = "server statistics not recorded: " .. tostring(why) }
    end
  end
  local st = self.server and self.server.storage
  if st and st.device then self.disks[st.device] = true end
  if self.local_host then
    self.targets = scenario_targets(lb)
    for _, t in pairs(self.targets) do self.disks[t.device] = true end
  end
  return self
end

-- Will M.new open a probe of the server on a connection of its own (so
-- that the main state may keep one of its closed connections for it)?
function M.wants_probe(opt)
  return opt.server_stats ~= "off" and (opt.db_driver == "mysql" or opt.db_driver == "pgsql")
end

-- Everything now, with the time of the sample; what sampling costs (the
-- reporter's wall time in it, server round trips included) is kept.
function Obs:sample(t_ns)
  local c0 = C.lb_clock_ns()
  local s = self:take(t_ns)
  self.cost_ns, self.samples = (self.cost_ns or 0) + tonumber(C.lb_clock_ns() - c0), (self.samples or 0) + 1
  return s
end

function Obs:take(t_ns)
  local s = { t = t_ns, server = self.probe and self.probe:sample() }
  if self.local_host then
    s.cpu, s.disks = devices.cpu_counters(), next(self.disks) and devices.disk_counters(self.disks) or nil
    s.server_cpu = self.server_pid and cpu.seconds(self.server_pid)
    s.client_cpu = cpu.seconds(self.self_pid)
  end
  if #self.remotes > 0 then
    s.remote = {}
    for _, p in ipairs(self.remotes) do s.remote[p.key] = p:sample() end
  end
  return s
end

-- The remote hosts' figures between samples `a` and `b` (those that
-- answered both times), by HOST:PORT.
local function remote_figures(a, b, secs)
  local out
  for key, c in pairs(b.remote or {}) do
    local c0 = a.remote and a.remote[key]
    if c0 then
      out = out or {}
      out[key] = nodeexp.figures(c0, c, secs)
    end
  end
  return out
end

-- The figures between samples `a` and `b`: { server = {...}, host = { cpu, devices } }.
function Obs:figures(a, b)
  local secs = tonumber(b.t - a.t) / 1e9
  if secs <= 0 then return nil end
  local o = { host = {} }
  if self.probe then
    o.server = self.probe:figures(a.server, b.server, secs)
    if o.server then o.server.window_s = secs end
  end
  if a.cpu and b.cpu then o.host.cpu = devices.cpu_figures(a.cpu, b.cpu) end
  -- The server's process and lbench's own, in % of one CPU (top's %CPU).
  if a.server_cpu and b.server_cpu then
    o.host.server_cpu_pct = (b.server_cpu - a.server_cpu) / secs * 100
    o.host.server_pid = self.server_pid
  end
  if a.client_cpu and b.client_cpu then o.host.client_cpu_pct = (b.client_cpu - a.client_cpu) / secs * 100 end
  if a.disks and b.disks then
    o.host.devices = {}
    for name, c in pairs(b.disks) do
      if a.disks[name] then o.host.devices[name] = devices.disk_figures(a.disks[name], c, secs) end
    end
  end
  o.host.remote = remote_figures(a, b, secs)
  if next(o.host) then o.host.window_s = secs else o.host = nil end
  return o
end

-- Just before the run's first instant (its workers ready, the clock not
-- started): the base of the first interval; started_at gives its time.
function Obs:begin() self.last = self:sample(nil) end
function Obs:started_at(t_ns) self.last.t = t_ns end

-- The measured period starts (after the warm-up, whose last interval
-- ended at the same instant): the base of the totals.
function Obs:start(t_ns)
  self.base = self.last and self.last.t == t_ns and self.last or self:sample(t_ns)
end

-- A report tick at `t_ns`: the interval's figures since the last tick.
function Obs:tick(t_ns)
  local s = self:sample(t_ns)
  local f = self.last and self:figures(self.last, s)
  self.last = s
  return f
end

-- The end of the measured period: the figures over all of it (none when
-- `t_ns` is nil: nothing ran), and the connection closed.
function Obs:stop(t_ns)
  local f = t_ns and self.base and self:figures(self.base, self:sample(t_ns))
  if self.probe then self.probe:close() end
  return f
end

-- The document's sections: `server` (identity, settings, storage, the
-- period's figures) and `host_stats` (CPU shares and device I/O, and
-- `remote`: each node exporter's by HOST:PORT, with its URL and a notice
-- when it failed).
function Obs:document(totals)
  local server = self.server
  if server and totals and totals.server then server.stats = totals.server end
  if server and self.probe and self.probe.dead then
    server.notice = "server statistics stopped during the run: " .. self.probe.dead
  end
  local host = totals and totals.host
  if host and self.samples then
    host.samples, host.sample_ms_avg = self.samples, self.cost_ns / self.samples / 1e6
  end
  for _, p in ipairs(self.remotes) do
    host = host or {}
    host.remote = host.remote or {}
    local r = host.remote[p.key] or {}
    r.url, r.notice = p.url, p:notice()
    host.remote[p.key] = r
  end
  return server, host
end

return M
