-- Holds a result document against the end times that timed.lua logged:
-- every interval's events (and the warm-up's, and each phase's) must be the true number of
-- completions in it, give or take one per thread (`slack`, default: the
-- run's threads) for an event that ended within microseconds of a
-- boundary.  The start is the earliest logged first start (the barrier,
-- to a few microseconds).  Prints the two series and fails on a mismatch.
lbench.cmdline.options = {
  file = { "result document (JSON)" }, log = { "directory of timed.lua's logs" },
  slack = { "allowed difference per interval (default: the threads)", 0 },
}

local function read_logs(dir)
  local ends, t0 = {}, math.huge
  local p = assert(io.popen("ls " .. dir))
  for name in p:lines() do
    for line in io.lines(dir .. "/" .. name) do
      local s = line:match("^S (%d+)")
      if s then t0 = math.min(t0, tonumber(s))
      else ends[#ends + 1] = tonumber(line) end
    end
  end
  p:close()
  return ends, t0
end

local function count(ends, a, b)
  local n = 0
  for _, t in ipairs(ends) do if t >= a and t < b then n = n + 1 end end
  return n
end

function check()
  local r = require("lbench.json").decode(assert(require("lbench.util").read_file(lbench.opt.file)))
  local ends, t0 = read_logs(lbench.opt.log)
  local slack = lbench.opt.slack > 0 and lbench.opt.slack or r.threads or r.options.threads
  local got, want, bad = {}, {}, {}
  local prev = 0
  for i, iv in ipairs(r.intervals) do
    -- The last interval runs to the end of the measured period: every
    -- event that completed after its start.
    local b = i == #r.intervals and math.huge or t0 + iv.time_s * 1e9
    local n = count(ends, t0 + prev * 1e9, b)
    got[i], want[i] = iv.events, n
    if math.abs(iv.events - n) > slack then bad[#bad + 1] = i end
    prev = iv.time_s
  end
  print("lbench: " .. table.concat(got, " "))
  print("true:   " .. table.concat(want, " "))
  if r.warmup_s and r.warmup_s > 0 then
    local n = count(ends, 0, t0 + r.warmup_s * 1e9)
    print(string.format("warm-up: lbench %d, true %d", r.warmup_events or -1, n))
    if math.abs((r.warmup_events or -1) - n) > slack then bad[#bad + 1] = "warm-up" end
    if math.abs(r.totals.events - (#ends - n)) > slack then bad[#bad + 1] = "measured total" end
  end
  local origin = t0 + (r.warmup_s or 0) * 1e9
  for i, ph in ipairs(r.phases or {}) do
    local a = origin + ph.start_s * 1e9
    local n = count(ends, a, i == #r.phases and math.huge or a + ph.duration_s * 1e9)
    print(string.format("phase %s: lbench %d, true %d", ph.name, ph.events, n))
    if math.abs(ph.events - n) > slack then bad[#bad + 1] = "phase " .. ph.name end
  end
  if #bad > 0 then error("intervals off by more than " .. slack .. ": " .. table.concat(bad, ", "), 0) end
end
lbench.cmdline.commands = { check = { check } }
