-- The shape of sysbench.rand.default(1, 10000) in three numbers: the share
-- of draws in 4975..5051 (sysbench's hot window for the default special
-- distribution), the mean and the standard deviation over 200 000 draws.
-- Run by both tools to compare their laws (test/cli/sbcompat.sh).
function event()
  local n, hot, s, s2 = 200000, 0, 0, 0
  for _ = 1, n do
    local v = sysbench.rand.default(1, 10000)
    if v >= 4975 and v <= 5051 then hot = hot + 1 end
    s = s + v
    s2 = s2 + v * v
  end
  local m = s / n
  print(string.format("%.4f %.1f %.1f", hot / n, m, math.sqrt(s2 / n - m * m)))
end
