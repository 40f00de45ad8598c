-- A scenario loaded by the main state and a command's context: the
-- options given (command line, embedding API, --config-file) merged and
-- resolved against the core's and the scenario's declarations, the
-- passwords, the scenario loaded with the main state's API, the command's
-- function.  The runtime (runtime.lua) runs commands through it, and
-- `lbench sweep` sets up each point with it.
local util = require("lbench.util")
local json = require("lbench.json")
local options = require("lbench.options")
local scenario = require("lbench.api.scenario")
local loadfile = require("lbench.loadfile") -- parsed once per process (core/luart.c)
local cluster = require("lbench.cluster.transport")
local main_api = require("lbench.run.main_api")

local M = {}

-- State of this main Lua state (one per lb_runtime).
local S = { raw = {}, path = nil, name = nil }
M.state = S

-- An option of the embedding API.  A general option's value is checked
-- at once by the parser the command line uses (options.convert), so that a
-- bad one is refused by the call that gave it, with the command line's
-- message, rather than by a later command.  Other names are a scenario's
-- own options: its script declares them when a command runs it, and they
-- are checked then.
function M.set_option(rtptr, name, value)
  local n = options.norm((name:gsub("^%-%-", "")))
  if value == nil then util.fail("--%s needs a value", n) end
  for _, spec in ipairs(options.core_specs()) do
    if spec.name == n then
      local v, why = options.convert(spec, value)
      if v == nil then util.fail("--%s=%s: %s", n, value, why) end
      break
    end
  end
  S.raw[n] = value
end

function M.load(rtptr, name)
  local how
  S.path, how = scenario.find(name)
  -- A stock scenario is named; a user's script is a path, or a module
  -- found on LUA_PATH as sysbench finds one.
  S.stock = how ~= "module" and not (name:find("/") or name:match("%.lua$"))
  S.name = util.basename(S.path)
  -- Report a syntax error now rather than at the first command.
  local chunk, err = loadfile(S.path)
  if not chunk then util.fail("%s", err) end
end

local hash = util.text_hash

-- Stock scenarios whose transactions never collide on a key by design.
local PGSQL_RETRY_ONLY_CONFLICTS = { tpcc = true, pgbench = true }

-- Raw options (`given`, by default those set so far) merged over those of
-- --config-file: the command line wins.
function M.merged_raw(given)
  given = given or S.raw
  local raw = {}
  if given["config-file"] then
    for k, v in pairs(options.read_config_file(given["config-file"])) do raw[k] = v end
  end
  for k, v in pairs(given) do raw[k] = v end
  -- sysbench's name for the ignore list.
  if raw["mysql-ignore-errors"] and not raw["db-ignore-errors"] then
    raw["db-ignore-errors"] = raw["mysql-ignore-errors"]
  end
  -- PostgreSQL's retryable errors by default, as sysbench's pgsql driver:
  -- deadlock, serialization failure, and the unique violation that the
  -- DELETE+INSERT pair of the OLTP scripts meets under READ COMMITTED (a
  -- second thread's DELETE of the same id finds the row gone, so its
  -- INSERT collides with the first thread's).  TPC-C and pgbench retry only
  -- the first two, as pgbench does: a unique violation there is a bug.
  if raw["db-driver"] == "pgsql" and not raw["db-ignore-errors"] then
    raw["db-ignore-errors"] = PGSQL_RETRY_ONLY_CONFLICTS[(S.name or ""):gsub("%.lua$", "")] and "40P01,40001" or "40P01,40001,23505"
  end
  return raw
end

-- The password of driver `db` (mysql, pgsql): --<db>-password, else
-- --<db>-password-file, else LBENCH_<DB>_PASSWORD.  Giving both options is
-- refused rather than one silently winning: a password file that does not
-- exist would otherwise go unnoticed until the server refused the other
-- password.
local function driver_password(opt, raw, db)
  local key, file = db .. "_password", opt[db .. "_password_file"]
  if raw[db .. "-password"] ~= nil and file then
    util.fail("--%s-password and --%s-password-file are both given: keep one", db, db)
  end
  if raw[db .. "-password"] == nil then
    local env = os.getenv("LBENCH_" .. db:upper() .. "_PASSWORD")
    if env then opt[key] = env end
    if file then
      local s, e = util.read_file(file)
      if not s then util.fail("--%s-password-file: cannot read '%s': %s", db, file, e) end
      opt[key] = s:match("^([^\r\n]*)")
    end
  end
end

local function password(opt, raw)
  driver_password(opt, raw, "mysql")
  driver_password(opt, raw, "pgsql")
end

local function redacted(opt, specs)
  local secret = {}
  for _, s in ipairs(specs) do if s.secret then secret[options.key(s.name)] = true end end
  local o = json.object()
  for _, k in ipairs(util.sorted_keys(opt)) do
    local v = opt[k]
    if secret[k] and v ~= nil and v ~= "" then v = "***" end
    if type(v) == "table" then v = json.array(v) end
    o[k] = v
  end
  return o
end

local function script_specs(lb)
  local specs = {}
  if type(lb.cmdline.options) ~= "table" then
    util.fail("wrong table structure in sysbench.cmdline.options (a table of name = {description, default})")
  end
  for name, decl in pairs(lb.cmdline.options) do
    if type(name) ~= "string" or type(decl) ~= "table" then
      util.fail("wrong table structure in sysbench.cmdline.options (entry %s: want name = {description, default})",
        tostring(name))
    end
  end
  for _, name in ipairs(util.sorted_keys(lb.cmdline.options or {})) do
    specs[#specs + 1] = options.spec_from_script(name, lb.cmdline.options[name])
  end
  return specs
end

-- The commands of the scenario loaded as `lb`, for messages and help
-- (not those named _NAME: a stock scenario's own steps, which its workers
-- run, such as a parallel load's).
function M.command_names(lb)
  local names = {}
  if scenario.fn("event") then names[#names + 1] = "run" end
  for _, g in ipairs({ "prepare", "cleanup", "prewarm" }) do
    if scenario.fn(g) and not (lb.cmdline.commands or {})[g] then names[#names + 1] = g end
  end
  for _, k in ipairs(util.sorted_keys(lb.cmdline.commands or {})) do
    if k:sub(1, 1) ~= "_" then names[#names + 1] = k end
  end
  names[#names + 1] = "help"
  return names
end

-- Load the scenario file `path` into this state (its top level runs) and
-- resolve the raw options `raw` against the core's and the scenario's
-- declarations.  Returns ctx (what runner.run needs), the scenario's API
-- table and its option specs.  `lbench sweep` calls this once per point so
-- every point starts from a freshly loaded scenario with its own options.
function M.setup(rt, path, raw, cmd, argv)
  local core_specs = options.core_specs()
  local opt = options.resolve(core_specs, raw)
  if opt.strict_globals == "auto" then opt.strict_globals = S.stock and "on" or "off" end
  opt.mysql_ignore_errors = opt.db_ignore_errors -- sysbench's name, which its scripts read
  password(opt, raw)
  local src = util.read_file(path) or ""
  local ctx = { rt = rt, opt = opt, command = cmd, script = path, scenario_name = util.basename(path),
                script_hash = hash(src), argv = argv, extend_api = main_api.add }
  -- lbench-mpi: the scenario sees the job's threads (cluster/transport.lua).
  cluster.number(ctx, opt)
  -- As in sysbench, a script that declares no options takes any
  -- --name[=value] and reads it in sysbench.opt (as given: a string, or
  -- true for a bare --name), from its top level on; a script that declares
  -- options has the names it does not declare refused below.
  local known = {}
  for _, s in ipairs(core_specs) do known[s.name] = true end
  ctx.free_opts = {}
  for name, v in pairs(raw) do
    if not known[name] and opt[options.key(name)] == nil then
      opt[options.key(name)] = v
      ctx.free_opts[#ctx.free_opts + 1] = options.key(name)
    end
  end
  table.sort(ctx.free_opts)
  local lb = scenario.load(path, ctx)
  local specs = script_specs(lb)
  options.resolve(specs, raw, opt)
  if next(lb.cmdline.options or {}) == nil and #specs == 0 and not S.stock then
    -- One letter away from a general option (--thread=8) is a typo that
    -- sysbench would run with silently, wrong numbers and all: refused.
    for name in pairs(raw) do
      for k in pairs(known) do
        if not known[name] and util.levenshtein(name, k) == 1 then
          util.fail("unknown option '--%s' (did you mean '--%s'?)", name, k)
        end
      end
    end
  else
    if opt.sysbench_compat then
      -- sysbench's words, with the argument as it was typed
      local declared = {}
      for _, sp in ipairs(specs) do declared[sp.name] = true end
      for _, name in ipairs(util.sorted_keys(raw)) do
        if not known[name] and not declared[name] then
          util.fail("invalid option: --%s%s", name, raw[name] == true and "" or "=" .. tostring(raw[name]))
        end
      end
    end
    options.check_unknown(raw, { core_specs, specs })
  end
  local all_specs = {}
  for _, s in ipairs(core_specs) do all_specs[#all_specs + 1] = s end
  for _, s in ipairs(specs) do all_specs[#all_specs + 1] = s end
  ctx.redacted_options = redacted(opt, all_specs)
  return ctx, lb, specs
end

-- The function of command `cmd` of the scenario loaded as `lb` and whether
-- it runs in every worker (a parallel command); nil when the scenario has
-- no such command.  Declared commands win over the global prepare, cleanup
-- and prewarm functions of sysbench's scripts.
function M.command_of(lb, cmd)
  local entry = (lb.cmdline.commands or {})[cmd]
  if entry then
    if type(entry) == "table" then return entry[1], entry[2] and true or false end
    return entry, false
  end
  if cmd == "prepare" or cmd == "cleanup" or cmd == "prewarm" then return scenario.fn(cmd), false end
  return nil
end

return M
