-- Histograms for scripts: lbench.histogram.new{...} and sysbench's
-- sysbench.histogram.new(size, min, max) form.
--
-- Backed by the core's HDR-style histogram (exact counts, stated relative
-- error, explicit under/overflow).  Values are recorded as integers in a
-- unit chosen at creation: ns for lbench.histogram.new(), or min/1000 for
-- the sysbench form (which records doubles between min and max).
local ffi = require("ffi")
local C = require("lbench.ffi").C

local M = {}

-- The one decoder of the C histogram's out-of-range answers: a value (ns,
-- or the histogram's unit) as a number; math.huge when it lies among the
-- overflowed samples, -math.huge among the underflowed ones.
local I64_MAX, I64_MIN = 9223372036854775807LL, -9223372036854775807LL - 1
function M.decode(v)
  if v == I64_MAX then return math.huge end
  if v == I64_MIN then return -math.huge end
  return tonumber(v)
end
local H = {}
H.__index = H

local function make(lowest, highest, digits, scale)
  local cfg = ffi.new("lb_hist_config")
  if C.lb_hist_config_init(cfg, lowest, highest, digits) ~= 0 then
    error(string.format("histogram: invalid range [%s, %s] or digits %s", tostring(lowest),
      tostring(highest), tostring(digits)), 3)
  end
  local h = C.lb_hist_new(cfg)
  if h == nil then error("histogram: out of memory", 3) end
  return setmetatable({ h = ffi.gc(h, C.lb_hist_free), scale = scale or 1,
                        lowest = lowest, highest = highest, digits = digits }, H)
end

-- lbench.histogram.new{lowest=1, highest=2^42-1, digits=3}  (integers, e.g. ns)
-- sysbench.histogram.new(size, min, max)                    (doubles in [min, max])
function M.new(a, b, c)
  if type(a) == "number" and b then
    -- sysbench form: the bucket count `a` is subsumed by 3 significant digits.
    local min, max = b, c
    if not (min > 0 and max > min) then error("histogram.new(size, min, max): need 0 < min < max", 2) end
    local unit = min / 1000
    local h = make(1, math.ceil(max / unit), 3, unit)
    -- Its print() is sysbench's chart of `a` logarithmic buckets
    -- (core/sbcompat.h), kept beside the exact histogram.
    local sb = C.sb_histogram_new(a, min, max)
    if sb ~= nil then h.sb = ffi.gc(sb, C.sb_histogram_delete) end
    return h
  end
  local o = type(a) == "table" and a or {}
  return make(o.lowest or 1, o.highest or (2 ^ 42 - 1), o.digits or 3, o.unit or 1)
end

function H:record(v)
  if self.sb then C.sb_histogram_update(self.sb, v) end
  return C.lb_hist_record(self.h, self.scale == 1 and v or math.floor(v / self.scale + 0.5))
end
H.update = H.record

function H:merge(other)
  if C.lb_hist_merge(self.h, other.h) ~= 0 then
    error("histogram:merge: histograms have different configurations", 2)
  end
end

function H:reset() C.lb_hist_reset(self.h) end
function H:count() return tonumber(C.lb_hist_count_all(self.h)) end

local function val(self, v)
  v = tonumber(v)
  return v * self.scale
end

-- Value at percentile p; math.huge when it falls among overflowed samples.
function H:percentile(p)
  local v = M.decode(C.lb_hist_percentile(self.h, p))
  if v == math.huge or v == -math.huge then return v end
  return v * self.scale
end
function H:min() return C.lb_hist_total(self.h) > 0 and val(self, C.lb_hist_min(self.h)) or 0 end
function H:max() return C.lb_hist_total(self.h) > 0 and val(self, C.lb_hist_max(self.h)) or 0 end
function H:mean() return C.lb_hist_mean(self.h) * self.scale end
function H:underflow() return tonumber(C.lb_hist_underflow(self.h)) end
function H:overflow() return tonumber(C.lb_hist_overflow(self.h)) end

-- Non-empty buckets as { {lo, hi, count}, ... } in the histogram's unit.
function H:buckets()
  local idx, lo, hi, cnt = ffi.new("int32_t[1]", -1), ffi.new("int64_t[1]"), ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
  local out = {}
  while C.lb_hist_next_bucket(self.h, idx, lo, hi, cnt) do
    out[#out + 1] = { val(self, lo[0]), val(self, hi[0]), tonumber(cnt[0]) }
  end
  return out
end

-- Print the distribution (sysbench's --histogram layout; a histogram of
-- sysbench's form prints sysbench's chart, as its h:print() does).
function H:print(out)
  if self.sb and not out then return C.sb_histogram_print(self.sb) end
  out = out or print
  out(require("lbench.report").histogram_text(self:buckets(), 1))
end

M.wrap = function(ptr, scale)
  return setmetatable({ h = ptr, scale = scale or 1 }, H)
end

return M
