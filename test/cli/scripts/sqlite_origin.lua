-- Prints where the SQLite library of the history came from ("linked":
-- in the process, found through ffi.C; "loaded": by its soname), for the
-- tests of the binary and of programs that embed liblbench.
local sq = require("lbench.result.sqlite")
print("sqlite " .. tostring(sq.origin()) .. " " .. tostring(sq.version()))
function event() return true end
