-- The one way out for a finished result document, whichever tool made it
-- (a run, a sweep, slap, fileio's precondition and verify, a script's own
-- command): the embedding result (lb_runtime_result_json), stdout in the
-- chosen --output, the --result-file and the history.  On stdout a
-- document is one line of JSON (stdout is JSON Lines: a run's interval
-- lines come before it); for the embedder, in the file and in the history
-- it is indented.
local C = require("lbench.ffi").C
local json = require("lbench.json")
local result = require("lbench.result.document")
local history = require("lbench.result.history")

local M = {}

-- Where a finished document goes: the result file (when `path` is given),
-- then the history (--history, else LBENCH_HISTORY; result/history.lua), also
-- when the file could not be written, so that one copy survives.  `text`
-- is the document as written; `source` names what wrote it.  Returns
-- true, or false and the reasons, one line each.
local function store_text(opt, path, text, source)
  local errs = {}
  if path then
    local ok, e = result.write_atomic(path, text)
    if not ok then errs[#errs + 1] = string.format("--result-file: cannot write '%s': %s", path, tostring(e)) end
  end
  local hpath = history.path_of(opt)
  if hpath then
    local ok, e = history.record(hpath, text, source)
    if not ok then errs[#errs + 1] = e end
  end
  if #errs > 0 then return false, table.concat(errs, "\n") end
  return true
end

-- Before a command measures anything: the result file and the history
-- can be written there (see check_writable and history.check_path).
function M.check_outputs(opt, path)
  if path then result.check_writable(path, "--result-file") end
  local hpath = history.path_of(opt)
  if hpath then history.check_path(hpath) end
end

-- The document's text, one line (indent nil) or indented, each encoded
-- once however many ways out take it (kept in how.texts).
local function encoder(doc, how)
  local enc = how.encode or function(indent) return json.encode(doc, indent) end
  how.texts = how.texts or {}
  return function(indent)
    local k = indent or ""
    how.texts[k] = how.texts[k] or enc(indent)
    return how.texts[k]
  end
end

-- The embedding result and the report on stdout.  how.text() and
-- how.csv() give the report for --output=text and csv (nil: that tool
-- wrote its report as it ran); JSON is the document itself.  how.output
-- overrides opt.output (a tool's own option); how.quiet: nothing on
-- stdout (a script's hook wrote the report).
function M.show(rt, opt, doc, how)
  local encode = encoder(doc, how)
  local text = encode("  ")
  C.lb_runtime_set_result(rt, text, #text)
  if how.quiet then return end
  local s, output = nil, how.output or opt.output
  if output == "json" then
    s = encode() .. "\n"
  elseif output == "csv" then
    s = how.csv and how.csv()
  else
    s = how.text and how.text()
  end
  if s and s ~= "" then C.lb_runtime_write(rt, s, #s) end
end

-- The result file (how.file; nil: none) and the history (--history,
-- LBENCH_HISTORY) under the label how.source.  Returns true, or false and
-- the message: either failing fails the command, after its report.
function M.store(opt, doc, how)
  return store_text(opt, how.file, encoder(doc, how)("  ") .. "\n", how.source)
end

-- The result file alone: a sweep rewrites it after every point (the
-- history gets the whole sweep once, at the end); a rank of lbench-mpi
-- writes its own (how.option names the option in the message).
function M.file(path, doc, how)
  how = how or {}
  local ok, e = result.write_atomic(path, encoder(doc, how)("  ") .. "\n")
  if not ok then
    return false, string.format("%s: cannot write '%s': %s", how.option or "--result-file", path, tostring(e))
  end
  return true
end

-- Both, in that order.
function M.document(rt, opt, doc, how)
  M.show(rt, opt, doc, how)
  return M.store(opt, doc, how)
end

return M
