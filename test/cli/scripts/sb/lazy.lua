-- sysbench's rules for globals: one read before it was ever assigned is nil.
function event()
  if not seen then seen = 0 end
  seen = seen + 1
  counter_total = (counter_total or 0) + 1
end
