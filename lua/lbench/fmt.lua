-- Numbers, ratios, sizes, tables and CSV as every text output of lbench
-- writes them (the report, compare, sweep, plot, history, fileio): one
-- formatter each, so a figure reads the same wherever it appears.
local M = {}

-- A number with enough digits to compare, never exponent noise for
-- ordinary magnitudes; "-" for nil and NaN.
local function digits(v)
  local a = math.abs(v)
  if a >= 1000 then return string.format("%.0f", v) end
  if a >= 100 then return string.format("%.1f", v) end
  if a >= 1 then return string.format("%.2f", v) end
  if a >= 1e-4 then
    -- three significant digits, no exponent: 0.500, 0.0283
    return string.format("%." .. (2 - math.floor(math.log10(a))) .. "f", v)
  end
  return string.format("%.3g", v)
end

function M.num(v)
  if v == nil then return "-" end
  if type(v) ~= "number" then return tostring(v) end
  if v ~= v then return "-" end
  local a = math.abs(v)
  if a == 0 then return "0" end
  if a == math.floor(a) and a < 1e15 then return string.format("%d", v) end
  local s = digits(v)
  -- Rounding may carry into the next magnitude (999.96 -> "1000.0",
  -- 0.99996 -> "1.000"): the rounded value then takes that magnitude's
  -- digits ("1000", "1.00"), as its neighbours there have.
  local r = tonumber(s)
  if r and r ~= v and r ~= 0 then return digits(r) end
  return s
end

-- A duration given in milliseconds in the unit that reads (ns, µs, ms or
-- s) with three significant digits: 40.5 µs, 1.23 ms, 12.0 s; never an
-- exponent.  Latencies of one column span ns (the null driver) to seconds
-- (a stalled server), so the unit is chosen per value.
local UNITS = { { 1e-6, "ns" }, { 1e-3, "µs" }, { 1, "ms" }, { 1000, "s" } }

function M.ms(v)
  if type(v) ~= "number" or v ~= v then return "-" end
  if v == 0 then return "0" end
  local a, u = math.abs(v), 1
  while u < #UNITS and a >= UNITS[u + 1][1] do u = u + 1 end
  local function sig3(x)
    return string.format("%." .. math.max(0, 2 - math.floor(math.log10(x) + 1e-12)) .. "f", x)
  end
  local s = sig3(a / UNITS[u][1])
  -- 9.9996 rounds to "10.00": three digits of the rounded value, "10.0".
  s = sig3(tonumber(s))
  -- 999.96 µs rounds to "1000": that is 1.00 ms.
  if tonumber(s) >= 1000 and u < #UNITS then
    u = u + 1
    s = string.format("%.2f", a / UNITS[u][1])
  end
  return (v < 0 and "-" or "") .. s .. " " .. UNITS[u][2]
end

-- A difference in percent, signed: "+4.2%".
function M.pct(d)
  if d == nil then return "-" end
  return string.format("%+.1f%%", d)
end

function M.ratio_text(x)
  if x == nil then return "-" end
  return string.format("%.3f", x)
end

-- Ratio and difference in percent of v against base (nil when undefined).
function M.ratio(v, base)
  if v == nil or base == nil or base == 0 then return nil, nil end
  return v / base, (v - base) / base * 100
end

-- A byte count in binary units, three significant digits: "512 bytes",
-- "1.52 MiB", "180 MiB", "2 GiB".
local SIZE_UNITS = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" }
function M.size(b)
  local i = 1
  while b >= 1024 and i < #SIZE_UNITS do b = b / 1024; i = i + 1 end
  if i == 1 then return string.format("%d bytes", b) end
  return string.format(b >= 100 and "%.0f %s" or "%.3g %s", b, SIZE_UNITS[i])
end

-- Rows (arrays of strings) as an aligned table: the first column
-- left-aligned unless it holds only numbers, the others right-aligned.
function M.table(header, rows, indent)
  indent = indent or ""
  local w = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    for i, c in ipairs(r) do if not w[i] or #c > w[i] then w[i] = #c end end
  end
  local left = false
  for _, r in ipairs(rows) do
    if r[1] and not tonumber(r[1]) then left = true end
  end
  local out = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    local cells = {}
    for i = 1, #w do
      local c = r[i] or ""
      if i == 1 and left then cells[i] = c .. string.rep(" ", w[i] - #c)
      else cells[i] = string.rep(" ", w[i] - #c) .. c end
    end
    out[#out + 1] = (indent .. table.concat(cells, "  ")):gsub("%s+$", "")
  end
  return table.concat(out, "\n")
end

-- The same rows as CSV (RFC 4180 quoting).
function M.csv(header, rows)
  local out = {}
  for _, r in ipairs({ header, unpack(rows) }) do
    local cells = {}
    for i, c in ipairs(r) do
      cells[i] = c:find('[,"\n]') and ('"' .. c:gsub('"', '""') .. '"') or c
    end
    out[#out + 1] = table.concat(cells, ",")
  end
  return table.concat(out, "\n")
end

return M
