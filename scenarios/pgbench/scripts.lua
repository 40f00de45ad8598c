-- pgbench's three built-in scripts (pgbench 15, `pgbench -b list`), the
-- --builtin list that picks and weighs them, and one connection's
-- prepared statements and transactions.
--
-- The statements are pgbench's own, with `?` for its `:variables`, and the
-- random values are drawn as its \set lines draw them (uniform, bounds
-- included, in the same order: aid, bid, tid, delta).  pgbench -M prepared
-- prepares every command, BEGIN and END too; so does this.
local M = {}

-- name, pgbench's description, statements ("begin"/"end" are the
-- transaction's bounds; the rest name entries of SQL below).
M.BUILTIN = {
  { name = "tpcb-like", desc = "<builtin: TPC-B (sort of)>",
    steps = { "begin", "upd_account", "sel_account", "upd_teller", "upd_branch", "ins_history", "end" } },
  { name = "simple-update", desc = "<builtin: simple update>",
    steps = { "begin", "upd_account", "sel_account", "ins_history", "end" } },
  { name = "select-only", desc = "<builtin: select only>", steps = { "sel_account" } },
}

-- Statement text and its parameters (drawn values, by name).
local SQL = {
  upd_account = { "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?", "delta", "aid" },
  sel_account = { "SELECT abalance FROM pgbench_accounts WHERE aid = ?", "aid" },
  upd_teller = { "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?", "delta", "tid" },
  upd_branch = { "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?", "delta", "bid" },
  ins_history = { "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
    "tid", "bid", "aid", "delta" },
}

-- The \set lines pgbench's built-in scripts start with, by variable.
local SETS = {
  aid = "\\set aid random(1, 100000 * :scale)",
  bid = "\\set bid random(1, 1 * :scale)",
  tid = "\\set tid random(1, 10 * :scale)",
  delta = "\\set delta random(-5000, 5000)",
}

-- Built-in script `b` as pgbench script text (pgbench -b NAME --show-script),
-- for runs that mix it with --file scripts: the same statements, drawn by
-- pgbench's random functions.  `commit` ends a transaction (END or COMMIT).
function M.text(b, commit)
  local lines, used = {}, {}
  for _, key in ipairs(b.steps) do
    for k = 2, SQL[key] and #SQL[key] or 0 do used[SQL[key][k]] = true end
  end
  for _, v in ipairs({ "aid", "bid", "tid", "delta" }) do
    if used[v] then lines[#lines + 1] = SETS[v] end
  end
  for _, key in ipairs(b.steps) do
    if key == "begin" then lines[#lines + 1] = "BEGIN;"
    elseif key == "end" then lines[#lines + 1] = commit .. ";"
    else
      local k = 1
      lines[#lines + 1] = SQL[key][1]:gsub("%?", function() k = k + 1; return ":" .. SQL[key][k] end) .. ";"
    end
  end
  return table.concat(lines, "\n") .. "\n"
end

local function names()
  local t = {}
  for _, b in ipairs(M.BUILTIN) do t[#t + 1] = b.name end
  return table.concat(t, ", ")
end

-- The built-in script whose name starts with `prefix` (pgbench accepts a
-- unique prefix), or nil and pgbench's reason.
function M.find(prefix)
  local found = {}
  for _, b in ipairs(M.BUILTIN) do
    if b.name == prefix then return b end
    if b.name:sub(1, #prefix) == prefix then found[#found + 1] = b end
  end
  if #found == 1 then return found[1] end
  if #found == 0 then
    return nil, string.format("no builtin script found for name \"%s\" (available: %s)", prefix, names())
  end
  local which = {}
  for i, b in ipairs(found) do which[i] = b.name end
  return nil, string.format("ambiguous builtin name: %d builtin scripts found for prefix \"%s\" (%s)", #found, prefix,
    table.concat(which, ", "))
end

-- Parse "name[@weight],..." into { {builtin, weight}, ... } in the order
-- given, and the total weight; nil and a reason when it is not valid.
-- A script named twice gets the sum of its weights: each script is one
-- event type, so two entries of it could not be told apart in the report.
function M.parse(s)
  local list, by_name, total = {}, {}, 0
  for item in (s .. ","):gmatch("([^,]*),") do
    item = item:gsub("^%s+", ""):gsub("%s+$", "")
    local name, w = item:match("^([^@]*)@(.*)$")
    name = name or item
    if name == "" then return nil, "empty script name (expected name[@weight],... with names " .. names() .. ")" end
    local b, why = M.find(name)
    if not b then return nil, why end
    local weight = 1
    if w then
      -- pgbench's two messages: not a number, or a number out of range.
      weight = tonumber(w)
      if not w:match("^-?%d+$") or not weight then return nil, "invalid weight specification: @" .. w end
      if weight < 0 or weight > 2147483647 then
        return nil, "weight specification out of range (0 .. 2147483647): " .. w
      end
    end
    if by_name[b.name] then
      by_name[b.name].weight = by_name[b.name].weight + weight
    else
      by_name[b.name] = { builtin = b, weight = weight }
      list[#list + 1] = by_name[b.name]
    end
    total = total + weight
  end
  if total == 0 then return nil, "total script weight must not be zero" end
  return list, total
end

-- ---- one connection's transactions ------------------------------------

local rand = lbench.rand

-- A runner for `list` (from parse) on connection `con` at scale `scale`:
-- prepares every statement the scripts use and returns
--   pick()        the index of the next script, drawn by weight
--   exec(i, v)    script i with the drawn values v (v = draw())
--   draw(v)       pgbench's \set lines into table v
--   close()
-- `dialect.commit` is the statement that ends a transaction.
function M.runner(con, list, scale, dialect)
  local T = lbench.sql.type
  local aid_type = dialect.big and T.BIGINT or T.INT
  local prepared = {}
  local function prep(key)
    if prepared[key] then return prepared[key] end
    local text, args = key == "begin" and "BEGIN" or key == "end" and dialect.commit or SQL[key][1], {}
    local st = con:prepare(text)
    local ps = {}
    if SQL[key] then
      for i = 2, #SQL[key] do
        local name = SQL[key][i]
        ps[#ps + 1] = st:bind_create(name == "aid" and aid_type or T.INT)
        args[#args + 1] = name
      end
      st:bind_param(unpack(ps))
    end
    prepared[key] = { st = st, ps = ps, args = args }
    return prepared[key]
  end
  -- Script i as a flat list of prepared statements.
  local plans, cum, total = {}, {}, 0
  for i, e in ipairs(list) do
    local plan = {}
    for _, key in ipairs(e.builtin.steps) do plan[#plan + 1] = prep(key) end
    plans[i] = plan
    total = total + e.weight
    cum[i] = total
  end
  local naccounts, ntellers, nbranches = 100000 * scale, 10 * scale, scale
  local R = {}
  function R.draw(v)
    v.aid = rand.uniform(1, naccounts)
    v.bid = rand.uniform(1, nbranches)
    v.tid = rand.uniform(1, ntellers)
    v.delta = rand.uniform(-5000, 5000)
    return v
  end
  function R.pick()
    -- pgbench's chooseScript: a uniform draw over the total weight.
    local w = rand.uniform(1, total)
    for i = 1, #cum do if w <= cum[i] then return i end end
    return #cum
  end
  function R.exec(i, v)
    local plan = plans[i]
    for k = 1, #plan do
      local s = plan[k]
      local ps, args = s.ps, s.args
      for j = 1, #ps do ps[j]:set(v[args[j]]) end
      s.st:execute()
    end
  end
  function R.close()
    for _, s in pairs(prepared) do s.st:close() end
    prepared = {}
  end
  return R
end

return M
