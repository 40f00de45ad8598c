-- sysbench's C histogram through the FFI: the same values printed by both
-- tools must give the same chart.
ffi.cdef[[
typedef struct histogram sb_histogram_t;
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);
]]

sysbench.cmdline.commands = {
  hist = {function()
    local h = ffi.gc(ffi.C.sb_histogram_new(20, 0.5, 500), ffi.C.sb_histogram_delete)
    for i = 1, 300 do ffi.C.sb_histogram_update(h, (i * 7) % 400 + 0.25) end
    ffi.C.sb_histogram_update(h, 0.001)   -- below the range: the first bucket
    ffi.C.sb_histogram_update(h, 10000)   -- above: the last
    ffi.C.sb_histogram_print(h)
  end},
  -- The Lua object of sysbench.histogram.new: the same chart.
  lua = {function()
    local h = sysbench.histogram.new(20, 0.5, 500)
    for i = 1, 300 do h:update((i * 7) % 400 + 0.25) end
    h:update(0.001)
    h:update(10000)
    h:print()
  end},
}

function event() end
