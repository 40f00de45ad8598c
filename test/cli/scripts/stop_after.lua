-- event() returning true stops the thread after 1000 events.
local n = 0
function event()
  n = n + 1
  return n >= 1000
end
