local M = {}
function M.answer() return 42 end
return M
