-- sysbench's C random numbers draw from the state's own stream (the one
-- behind sysbench.rand), with the run's --rand-* settings.
ffi.cdef[[
uint32_t sb_rand_default(uint32_t, uint32_t);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
void sb_rand_str(const char *, char *);
]]
sysbench.cmdline.options = { via = {"ffi or lua", "ffi"} }

sysbench.cmdline.commands = {
  draw = {function()
    local out = {}
    for i = 1, 6 do
      if sysbench.opt.via == "ffi" then
        out[#out + 1] = ffi.C.sb_rand_default(1, 1000000) .. "/" .. ffi.C.sb_rand_uniform(1, 1000000)
      else
        out[#out + 1] = sysbench.rand.default(1, 1000000) .. "/" .. sysbench.rand.uniform(1, 1000000)
      end
    end
    print(table.concat(out, " "))
  end},
  str = {function()
    local buf = ffi.new("char[12]")
    ffi.C.sb_rand_str("##-@@@ x#@!", buf)
    print(ffi.string(buf, 11))
  end},
}
function event() end
