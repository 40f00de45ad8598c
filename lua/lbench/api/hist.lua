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

-- Rows of the printed distribution.  The HDR histogram keeps thousands of
-- buckets (0.1 % wide); printed one per line they are unreadable and their
-- labels repeat.  They are merged into log-spaced bins, as many per decade
-- as keep the non-empty span to about HIST_ROWS rows (sysbench prints
-- about 100), at most 1000 per decade (finer than the buckets themselves).
local HIST_ROWS = 100

-- v with `sig` significant digits, in fixed notation (no exponents, so the
-- column stays aligned and readable).
local function fmt_sig(v, sig)
  if v <= 0 then return "0" end
  local dec = math.max(0, sig - 1 - math.floor(math.log10(v)))
  return string.format("%." .. dec .. "f", v)
end

-- { {label, count}, ... } from { {lo, hi, count}, ... } buckets (any unit,
-- ascending).  A row's label is its bin's lower edge, with enough
-- significant digits that neighbouring bins differ; should two labels
-- still coincide (bins finer than a bucket), their rows are merged, so
-- every label is distinct and the counts add up to the total.
function M.histogram_rows(buckets, scale)
  scale = scale or 1
  local lo, hi
  for _, b in ipairs(buckets) do
    if b[3] > 0 and b[1] * scale > 0 then
      lo = lo or b[1] * scale
      hi = math.max(hi or 0, b[2] * scale)
    end
  end
  local decades = lo and math.max(math.log10(hi / lo), 1e-3) or 1
  local per = math.max(1, math.min(1000, math.floor(HIST_ROWS / decades)))
  -- Neighbouring edges differ by a factor 10^(1/per): that relative step
  -- needs about -log10(step) + 1 significant digits to show.
  local sig = math.max(3, math.ceil(-math.log10(10 ^ (1 / per) - 1)) + 1)
  local rows, last_bin = {}, nil
  for _, b in ipairs(buckets) do
    if b[3] > 0 then
      local v = b[1] * scale
      local bin = v > 0 and math.floor(math.log10(v) * per + 1e-9) or -math.huge
      if bin ~= last_bin then
        local label = bin == -math.huge and "0" or fmt_sig(10 ^ (bin / per), sig)
        if #rows > 0 and rows[#rows][1] == label then
          rows[#rows][2] = rows[#rows][2] + b[3]
        else
          rows[#rows + 1] = { label, b[3] }
        end
        last_bin = bin
      else
        rows[#rows][2] = rows[#rows][2] + b[3]
      end
    end
  end
  return rows
end

-- The distribution as text bars in sysbench's layout (value, bar, count);
-- buckets are in ms once multiplied by `scale`.
function M.histogram_text(buckets, scale)
  local rows = M.histogram_rows(buckets, scale)
  local out = { "Latency histogram (values are in milliseconds)",
                "       value  ------------- distribution ------------- count" }
  local maxc = 0
  for _, r in ipairs(rows) do if r[2] > maxc then maxc = r[2] end end
  for _, r in ipairs(rows) do
    local bar = maxc > 0 and math.floor(r[2] / maxc * 40 + 0.5) or 0
    if bar == 0 and r[2] > 0 then bar = 1 end
    out[#out + 1] = string.format("%12s |%-40s %d", r[1], string.rep("*", bar), r[2])
  end
  return table.concat(out, "\n")
end

-- Print the distribution (sysbench's --histogram layout; a histogram of
-- sysbench's form prints sysbench's chart, as its h:print() does).
function H:print(out)
  if self.sb and not out then return C.sb_histogram_print(self.sb) end
  out = out or print
  out(M.histogram_text(self:buckets(), 1))
end

M.wrap = function(ptr, scale)
  return setmetatable({ h = ptr, scale = scale or 1 }, H)
end

return M
