counter = 0
function event()
  countr = countr + 1
end
