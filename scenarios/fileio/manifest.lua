-- fileio's file set on disk: where it is (a directory of files or a raw
-- device), its manifest (what lbench created there, so that nothing else
-- is ever touched), the paths of its files, and dropping it from the page
-- cache.  Every command starts here: prepare writes the manifest, the
-- others refuse to run without a complete one.
local ffi = require("ffi")
local C = require("lbench.ffi").C
local json = require("lbench.json")
local util = require("lbench.util")
local result = require("lbench.result.document")
local lib = require("fileio.lib")
local fail = lib.fail

local M = {}

M.MANIFEST = "lbench-fileio.manifest"
M.GENMAP = "lbench-fileio.genmap"

-- The manifest's fields in the order they are written (a stable file that
-- diffs well between two prepares).
local FIELDS = { "tool", "version", "kind", "target", "created_dir", "state", "file_num", "file_size",
                 "total_size", "files", "vbs", "generation", "fill_pct", "prepared_at", "preconditioned" }

function M.join(dir, name) return (dir:gsub("/+$", "")) .. "/" .. name end

pcall(ffi.cdef, "char *strerror(int errnum);")
-- The text of a core call's negative errno.
function M.errstr(rc) return ffi.string(C.strerror(-rc)) end

-- The file set the options describe: directory of files, or a raw device.
-- Returns { kind = "dir"|"device", dir, device, manifest, genmap, key };
-- `key` names the set's shared data-point series between the states.
function M.target(opt)
  local t = {}
  if opt.target and opt.target ~= "" then
    local kind = C.lb_io_path_kind(opt.target)
    if kind ~= C.LB_IO_PATH_BLOCKDEV then
      fail("--target=%s is not a block device (use --target-dir=DIR for a set of files)", opt.target)
    end
    t.kind, t.device = "device", opt.target
    local base = opt.target:match("([^/]+)$")
    t.manifest = opt.manifest ~= "" and opt.manifest or ("lbench-fileio-" .. base .. ".manifest")
    t.genmap = t.manifest:gsub("%.manifest$", "") .. ".genmap"
    t.key = "dev:" .. opt.target
  else
    t.kind, t.dir = "dir", opt.target_dir
    t.manifest = opt.manifest ~= "" and opt.manifest or M.join(t.dir, M.MANIFEST)
    t.genmap = M.join(t.dir, M.GENMAP)
    t.key = "dir:" .. t.dir
  end
  return t
end

-- A raw device is written only with --allow-destructive: `what` (prepare,
-- precondition, "this test") would destroy whatever the device holds.
function M.check_device_write(t, opt, what)
  if t.kind == "device" and not opt.allow_destructive then
    fail("--target=%s is a raw block device and %s writes to it, destroying its contents; add --allow-destructive",
      t.device, what)
  end
end

-- The manifest of `t`, or nil when there is none.  A file that is not ours
-- stops everything: writing beside it could destroy someone's data.
function M.load(t)
  local src = util.read_file(t.manifest)
  if not src then return nil end
  local ok, m = pcall(json.decode, src)
  if not ok or type(m) ~= "table" or m.tool ~= "lbench fileio" then
    fail("%s is not an lbench fileio manifest; refusing to touch the set", t.manifest)
  end
  return m
end

-- The manifest of a prepared, complete set, or an error that says what to run.
function M.require(t)
  local m = M.load(t)
  if not m then
    fail("no prepared file set at %s (run: lbench fileio %s prepare)", t.kind == "dir" and t.dir or t.device,
      t.kind == "dir" and ("--target-dir=" .. t.dir) or ("--target=" .. t.device .. " --allow-destructive"))
  end
  if m.state ~= "ready" then
    fail("the file set at %s is incomplete (state '%s'): run prepare again", t.dir or t.device, tostring(m.state))
  end
  return m
end

-- Written atomically: a crash mid-write must not leave a manifest that
-- forgets which files are ours.
function M.save(t, m)
  local o = json.object()
  for _, k in ipairs(FIELDS) do
    local v = m[k]
    if k == "files" and v then v = json.array(v) end
    if v ~= nil then o[k] = v end
  end
  local ok, e = result.write_atomic(t.manifest, json.encode(o, "  ") .. "\n")
  if not ok then fail("cannot write %s: %s", t.manifest, tostring(e)) end
end

-- Paths of the set's files.
function M.paths(t, m)
  if t.kind == "device" then return { t.device } end
  local p = {}
  for i, name in ipairs(m.files) do p[i] = M.join(t.dir, name) end
  return p
end

-- Drop the set from the page cache (--invalidate), so that a test reading
-- through the cache starts from the device, as fio's jobs do.
function M.invalidate(t, m)
  for _, path in ipairs(M.paths(t, m)) do
    local rc = C.lb_io_invalidate(path)
    if rc < 0 then
      fail("--invalidate: cannot drop %s from the page cache: %s (--invalidate=off skips this)", path, M.errstr(rc))
    end
  end
end

return M
