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
-- liblbench.so.  A program linking liblbench.a needs two flags: -rdynamic
-- (export the symbols) and -Wl,--whole-archive (keep the objects the
-- program itself never calls, such as the I/O engines, which only the Lua
-- half uses); `pkg-config --static --libs lbench` gives both.  One symbol
-- of each core module is probed, so a missing object is caught here.
local PROBES = { "lb_clock_ns", "lb_hist_config_init", "lb_rand_seed", "lb_db_reconnect", "lb_stats_snapshot_init",
                 "lb_run_new", "lb_runtime_write", "lb_loop_new", "lb_metrics_start", "lb_io_engine_count",
                 "lb_http_get" }
for _, name in ipairs(PROBES) do
  if not pcall(function() return ffi.C[name] end) then
    error({ lbench_message = "lbench core symbols are not visible to the FFI (" .. name .. " is missing): "
      .. "link the program against liblbench.so, or against liblbench.a with both -rdynamic and "
      .. "-Wl,--whole-archive -llbench -Wl,--no-whole-archive (pkg-config --static --libs lbench)" })
  end
end

return M
