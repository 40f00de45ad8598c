-- fileio verify: read every chunk of the set and check its stamp (checksum,
-- offset, generation) against the generation map, so that a lost, torn or
-- misplaced write shows up with its file and offset.  The reading and the
-- checks are C (core/io/verify.c); this module names the bad blocks, prints
-- the summary and writes the result document.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local lib = require("fileio.lib")
local manifest = require("fileio.manifest")
local fail = lib.fail

local M = {}

-- lb_io_bad_block.kind -> its name in the text and the document.
local KIND = { [1] = "lost", [2] = "torn", [3] = "misplaced", [4] = "newer than recorded" }

-- The counters of lb_io_verify_result the document carries.
local COUNTS = { "chunks", "ok", "lost", "torn", "misplaced", "newer", "unverifiable", "unwritten" }

local function mismatched(res) return tonumber(res.lost + res.torn + res.misplaced + res.newer) end

-- The set's generation map, or nil (with a warning) when it cannot be
-- read: headers and checksums can still be checked without it.
local function open_genmap(t, nchunks)
  local err = ffi.new("char[?]", 512)
  local gm = C.lb_io_genmap_open(t.genmap, nchunks, 0, err, 512)
  if gm == nil then
    print("warning: " .. ffi.string(err) .. "; checking headers and checksums only (lost writes go undetected)")
    return nil
  end
  return ffi.gc(gm, C.lb_io_genmap_close)
end

-- Check every file of the set.  Returns the counters, the first bad blocks
-- (at most --verify-max-report, and at least room for one) and the seconds
-- it took.
local function check_files(opt, t, m)
  local nchunks = m.total_size / m.vbs
  local gm = open_genmap(t, nchunks)
  local err = ffi.new("char[?]", 512)
  local res = ffi.new("lb_io_verify_result")
  local maxbad = math.max(opt.verify_max_report, 1)
  local bad = ffi.new("lb_io_bad_block[?]", maxbad)
  if opt.invalidate then manifest.invalidate(t, m) end
  local t0 = C.lb_clock_now()
  for i, path in ipairs(manifest.paths(t, m)) do
    local rc = C.lb_io_verify_file(path, i - 1, m.file_size, m.vbs, gm, opt.verify_direct and 1 or 0, res, bad,
      maxbad, C.lb_runtime_stop_flag(lbench.runtime_ptr()), err, 512)
    if rc == -4 then -- EINTR: a signal; verify reads only, so nothing is left behind
      fail("verify interrupted after %d of %d chunks (%d mismatched so far): run verify again", tonumber(res.chunks),
        nchunks, mismatched(res))
    end
    if rc < 0 then fail("verify: %s", ffi.string(err)) end
  end
  return res, bad, C.lb_clock_now() - t0
end

-- Why bad block `b` (named `o`) failed, in words.
local function why(o, b)
  if o.kind == "lost" then
    return b.found_gen == 0 and "no lbench header (never written or overwritten)"
      or string.format("holds generation %d, the last acknowledged write was generation %d", b.found_gen, b.expected_gen)
  elseif o.kind == "torn" then
    return "checksum mismatch or only part of a multi-chunk write present"
  elseif o.kind == "misplaced" then
    return string.format("holds the block of %s offset %d", tostring(o.found_file), tonumber(b.found_offset))
  end
  return string.format("holds generation %d, the map records %d", b.found_gen, b.expected_gen)
end

-- The bad blocks as JSON objects, each printed as it is named.
local function bad_blocks(t, m, res, bad)
  local list = json.array()
  for i = 0, res.nbad - 1 do
    local b = bad[i]
    local name = t.kind == "dir" and m.files[b.file + 1] or t.device
    local o = json.object()
    o.kind = KIND[b.kind]
    o.file = name
    o.offset = tonumber(b.offset)
    o.expected_generation = b.expected_gen
    o.found_generation = b.found_gen
    if b.found_file >= 0 then
      o.found_file = t.kind == "dir" and m.files[b.found_file + 1] or b.found_file
      o.found_offset = tonumber(b.found_offset)
    end
    list[#list + 1] = o
    print(string.format("%s offset %d: %s (%s)", name, o.offset, o.kind, why(o, b)))
  end
  return list
end

-- The verify command.
function M.run(opt)
  lbench.check_result_path(opt.result_file)
  local started = os.time()
  local t = manifest.target(opt)
  local m = manifest.require(t)
  local res, bad, secs = check_files(opt, t, m)
  local list = bad_blocks(t, m, res, bad)
  local nbad = mismatched(res)
  local nfiles = #manifest.paths(t, m)
  local function text()
    return (nbad > res.nbad and string.format("... and %d more\n", nbad - res.nbad) or "") ..
      string.format("Verified %d chunks of %s in %d file%s (%s) in %.2f s: %d ok, %d lost, %d torn, %d misplaced, "
        .. "%d newer than recorded; %d unverifiable (written with --stamp=off), %d never written\n",
        tonumber(res.chunks), lib.fmt_size(m.vbs), nfiles, nfiles == 1 and "" or "s", lib.fmt_size(m.total_size), secs,
        tonumber(res.ok), tonumber(res.lost), tonumber(res.torn), tonumber(res.misplaced), tonumber(res.newer),
        tonumber(res.unverifiable), tonumber(res.unwritten))
  end
  local doc = lbench.result_header("verify", started, nbad == 0 and "ok" or "mismatch")
  local v = json.object()
  for _, k in ipairs(COUNTS) do v[k] = tonumber(res[k]) end
  v.chunk_size = m.vbs
  v.bad_blocks = list
  doc.verify = v
  -- The summary line as text and CSV alike (verify has no table).
  lbench.publish(doc, { text = text, csv = text, file = opt.result_file })
  if nbad > 0 then fail("verify: %d mismatched block%s", nbad, nbad == 1 and "" or "s") end
end

return M
