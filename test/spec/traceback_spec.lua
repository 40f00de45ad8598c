-- Specs of util.user_traceback: a script error shows the script's frames,
-- not lbench's own.
local util = require("lbench.util")

describe("util.user_traceback", function()
  it("keeps the message and the script's frames, drops lbench's and the C frames past them", function()
    local tb = "s.lua:1: boom\nstack traceback:\n\ts.lua:1: in function 'deep'\n\t[C]: in function 'rep'\n" ..
      "\ts.lua:2: in function 'event'\n\tlua/lbench/run/worker.lua:27: in function <lua/lbench/run/worker.lua:21>\n" ..
      "\t[C]: in function 'xpcall'\n\tboot:1: in main chunk"
    assert.are.equal("s.lua:1: boom\nstack traceback:\n\ts.lua:1: in function 'deep'\n\t[C]: in function 'rep'\n" ..
      "\ts.lua:2: in function 'event'", util.user_traceback(tb))
  end)

  it("keeps lbench's own error whole, and text without a traceback as it is", function()
    local own = "lua/lbench/api/base.lua:3: bug\nstack traceback:\n\tlua/lbench/api/base.lua:3: in function 'f'\n\t[C]: in function 'xpcall'"
    assert.are.equal(own, util.user_traceback(own))
    assert.are.equal("one line", util.user_traceback("one line"))
  end)
end)
