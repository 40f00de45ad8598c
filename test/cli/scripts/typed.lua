-- Events of two named types; every 4th "b" event is marked rolled back.
local A = lbench.stat.type("alpha")
local B = lbench.stat.type("beta")
local n = 0
function event()
  n = n + 1
  if n % 2 == 0 then
    lbench.stat.event(A)
  else
    lbench.stat.event(B)
    if n % 4 == 1 then lbench.stat.rollback() end
  end
end
