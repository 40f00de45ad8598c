-- Checks that a PNG screenshot is not blank, for the report suite (no
-- ImageMagick or python needed): decodes the file (zlib through the FFI,
-- the five PNG row filters here), then counts distinct colours, the share
-- of pixels that are not the background, and the pixels of one exact
-- colour (a chart's line colour proves the charts were painted).
--   lbench test/e2e/scripts/png_check.lua check --file=shot.png --min-colours=50
--     --min-ink=0.01 [--colour=1f77b4 --min-colour-pixels=100]
-- Prints "WxH colours=N ink=F colour_pixels=N"; fails (exit 1) below a minimum.
lbench.cmdline.options = {
  file = { "PNG file" }, min_colours = { "minimum distinct colours", 2 }, min_ink = { "minimum share of non-white pixels", 0.001 },
  colour = { "an RGB colour (hex) to count", "" }, min_colour_pixels = { "minimum pixels of --colour", 0 },
}

local ffi = require("ffi")
local bit = require("bit")
pcall(ffi.cdef, "int uncompress(uint8_t *dest, unsigned long *destLen, const uint8_t *source, unsigned long sourceLen);")

local function be32(s, i)
  local a, b, c, d = s:byte(i, i + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- The PNG's header fields and its concatenated IDAT data.
local function chunks(src)
  assert(src:sub(1, 8) == "\137PNG\r\n\26\n", "not a PNG file")
  local pos, idat, hdr = 9, {}, nil
  while pos + 8 <= #src do
    local len, typ = be32(src, pos), src:sub(pos + 4, pos + 7)
    local data = src:sub(pos + 8, pos + 7 + len)
    if typ == "IHDR" then
      hdr = { w = be32(data, 1), h = be32(data, 5), depth = data:byte(9), ctype = data:byte(10), interlace = data:byte(13) }
    elseif typ == "IDAT" then
      idat[#idat + 1] = data
    elseif typ == "IEND" then
      break
    end
    pos = pos + 12 + len
  end
  assert(hdr, "no IHDR chunk")
  assert(hdr.depth == 8 and (hdr.ctype == 2 or hdr.ctype == 6) and hdr.interlace == 0,
    "only 8-bit RGB/RGBA non-interlaced PNGs are supported")
  return hdr, table.concat(idat)
end

local function paeth(a, b, c)
  local p = a + b - c
  local pa, pb, pc = math.abs(p - a), math.abs(p - b), math.abs(p - c)
  if pa <= pb and pa <= pc then return a elseif pb <= pc then return b end
  return c
end

-- Pixels after undoing each row's filter: a byte buffer of h rows of w*bpp.
local function pixels(hdr, z)
  local bpp = hdr.ctype == 6 and 4 or 3
  local stride = hdr.w * bpp
  local raw_len = hdr.h * (stride + 1)
  local raw = ffi.new("uint8_t[?]", raw_len)
  local n = ffi.new("unsigned long[1]", raw_len)
  local zlib = ffi.load("z")
  assert(zlib.uncompress(raw, n, z, #z) == 0, "corrupt image data")
  local out = ffi.new("uint8_t[?]", hdr.h * stride)
  for y = 0, hdr.h - 1 do
    local f, src, row, prev = raw[y * (stride + 1)], y * (stride + 1) + 1, y * stride, (y - 1) * stride
    for x = 0, stride - 1 do
      local a = x >= bpp and out[row + x - bpp] or 0
      local b = y > 0 and out[prev + x] or 0
      local c = (x >= bpp and y > 0) and out[prev + x - bpp] or 0
      local v = raw[src + x]
      if f == 1 then v = v + a elseif f == 2 then v = v + b elseif f == 3 then v = v + math.floor((a + b) / 2)
      elseif f == 4 then v = v + paeth(a, b, c) end
      out[row + x] = bit.band(v, 255)
    end
  end
  return out, bpp
end

function check()
  local util = require("lbench.util")
  local src = assert(util.read_file(lbench.opt.file), "cannot read " .. tostring(lbench.opt.file))
  local hdr, z = chunks(src)
  local px, bpp = pixels(hdr, z)
  local want = tonumber(lbench.opt.colour ~= "" and lbench.opt.colour or "-1", 16) or -1
  local seen, colours, ink, hits = {}, 0, 0, 0
  for i = 0, hdr.w * hdr.h - 1 do
    local o = i * bpp
    local rgb = (px[o] * 256 + px[o + 1]) * 256 + px[o + 2]
    if not seen[rgb] then seen[rgb] = true; colours = colours + 1 end
    if rgb ~= 0xffffff then ink = ink + 1 end
    if rgb == want then hits = hits + 1 end
  end
  local share = ink / (hdr.w * hdr.h)
  print(string.format("%dx%d colours=%d ink=%.4f colour_pixels=%d", hdr.w, hdr.h, colours, share, hits))
  if colours < tonumber(lbench.opt.min_colours) then error("only " .. colours .. " distinct colours", 0) end
  if share < tonumber(lbench.opt.min_ink) then error(string.format("blank: %.4f of the pixels are not white", share), 0) end
  if hits < tonumber(lbench.opt.min_colour_pixels) then error("only " .. hits .. " pixels of #" .. lbench.opt.colour, 0) end
end
lbench.cmdline.commands = { check = { check } }
