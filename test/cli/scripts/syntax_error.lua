function event()
  local x = = 1
end
