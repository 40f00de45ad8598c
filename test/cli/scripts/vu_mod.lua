-- A module with module-level state: one instance per virtual user.
local M = {}
local owner
function M.set(v) owner = v end
function M.get() return owner end
return M
