print("script body")
function event() print("event function") end
