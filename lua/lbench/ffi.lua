-- The FFI view of the C core.  The declarations come from the C headers
-- themselves (their "FFI BEGIN/END" sections, embedded at build time), so
-- there is one source of truth for every shared type.
local ffi = require("ffi")

local M = {}
if not rawget(_G, "__lbench_cdef_loaded") then
  ffi.cdef(require("lbench.cdef"))
  rawset(_G, "__lbench_cdef_loaded", true)
end

M.C = ffi.C

-- The core's symbols must be visible to the FFI: true in the lbench
-- binary (linked with --export-dynamic) and for programs linking
-- liblbench.so; a program linking liblbench.a needs -rdynamic.
if not pcall(function() return ffi.C.lb_clock_ns end) then
  error({ lbench_message = "lbench core symbols are not visible to the FFI: link the program with -rdynamic or against liblbench.so" })
end

return M
