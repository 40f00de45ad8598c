local function deep() error("boom in the event") end
function event() deep() end
