-- HTML building blocks of the pages lbench writes (`lbench report`, the
-- history's trend page): escaping, tables, and one self-contained page
-- with its CSS inline.  A page references nothing outside itself (no
-- script, font, style sheet or image by URL), so it opens the same from
-- file://, a mail attachment or a CI artefact store with no network; its
-- Content-Security-Policy forbids loading anything and running scripts.
--
-- Cell classes the page's CSS knows (html.table cells `{text=, class=}`):
--   diff    a value that differs between runs (options side by side)
--   good    better than the baseline      bad    worse than the baseline
--   warn    needs a look (errors, a failed constraint)
--   muted   secondary text (units, missing values)
--   num     right-aligned figure (set automatically on numeric cells)
local M = {}

local ESCAPES = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

-- Text as HTML text or attribute value (nil as the empty string).
function M.escape(s)
  if s == nil then return "" end
  return (tostring(s):gsub("[&<>\"']", ESCAPES))
end

-- A fragment identifier from any text: letters, digits, '-' and '_'.
function M.id(s)
  local id = tostring(s):lower():gsub("[^%w_%-]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")
  return id ~= "" and id or "x"
end

-- A cell looks like a figure when it is a number, a signed percentage,
-- a ratio or "-" (missing): those are right-aligned so digits line up.
local function numeric_text(s)
  return s == "-" or (s:match("^[%+%-]?[%d%.]+") ~= nil and tonumber((s:gsub("%%$", ""))) ~= nil)
end

local function cell(tag, c)
  local text, class, title, raw
  if type(c) == "table" then
    text, class, title, raw = c.text, c.class, c.title, c.html
  else
    text = c
  end
  local body = raw or M.escape(text)
  local classes = {}
  if class and class ~= "" then classes[#classes + 1] = class end
  if tag == "td" and not raw and text ~= nil and numeric_text(tostring(text)) then classes[#classes + 1] = "num" end
  local attrs = ""
  if #classes > 0 then attrs = attrs .. ' class="' .. M.escape(table.concat(classes, " ")) .. '"' end
  if title then attrs = attrs .. ' title="' .. M.escape(title) .. '"' end
  return "<" .. tag .. attrs .. ">" .. body .. "</" .. tag .. ">"
end

-- A table: header_list is a list of column titles (strings or cells), rows
-- a list of rows, each a list of cells; a cell is a string or number, or
-- `{text=, class=, title=}` (title: hover text), or `{html=}` for markup
-- already built (a link).  opts: `class` (of the table), `caption`, `id`.
function M.table(header_list, rows, opts)
  opts = opts or {}
  local L = {}
  local attrs = ' class="' .. M.escape(opts.class and ("lb-table " .. opts.class) or "lb-table") .. '"'
  if opts.id then attrs = attrs .. ' id="' .. M.escape(opts.id) .. '"' end
  L[#L + 1] = "<table" .. attrs .. ">"
  if opts.caption then L[#L + 1] = "<caption>" .. M.escape(opts.caption) .. "</caption>" end
  if header_list and #header_list > 0 then
    local h = {}
    for _, c in ipairs(header_list) do h[#h + 1] = cell("th", c) end
    L[#L + 1] = "<thead><tr>" .. table.concat(h, "") .. "</tr></thead>"
  end
  L[#L + 1] = "<tbody>"
  for _, r in ipairs(rows) do
    local cells = {}
    for i = 1, #r do cells[#cells + 1] = cell("td", r[i] == nil and "" or r[i]) end
    L[#L + 1] = "<tr>" .. table.concat(cells, "") .. "</tr>"
  end
  L[#L + 1] = "</tbody></table>"
  return table.concat(L, "\n")
end

-- The page's whole style: readable in a browser and on paper; charts
-- scale to the column width.
local CSS = [[
:root { --fg: #1d1d1f; --muted: #6b6b70; --line: #d9d9de; --head: #f3f3f6; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg);
  background: #fff; }
header.lb-head { padding: 18px 28px 10px; border-bottom: 1px solid var(--line); }
header.lb-head h1 { margin: 0 0 4px; font-size: 22px; }
header.lb-head p { margin: 0; color: var(--muted); }
nav.lb-toc { padding: 8px 28px; border-bottom: 1px solid var(--line); background: #fafafc; }
nav.lb-toc a { margin-right: 16px; color: var(--accent); text-decoration: none; white-space: nowrap; }
nav.lb-toc a:hover { text-decoration: underline; }
main { padding: 6px 28px 28px; max-width: 1280px; }
section.lb-section { margin-top: 22px; }
section.lb-section > h2 { font-size: 18px; margin: 0 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.note, .muted { color: var(--muted); }
p.note { margin: 4px 0 10px; }
table.lb-table { border-collapse: collapse; margin: 6px 0 14px; font-variant-numeric: tabular-nums; }
table.lb-table caption { text-align: left; font-weight: 600; padding: 4px 0; }
table.lb-table th, table.lb-table td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; }
table.lb-table th { background: var(--head); text-align: left; font-weight: 600; }
table.lb-table tbody tr:nth-child(even) td { background: #fbfbfd; }
table.lb-table td.num { text-align: right; white-space: nowrap; }
table.lb-table td.diff { background: #fff3c4 !important; }
table.lb-table td.good { background: #e3f5e1 !important; color: #1b5e20; }
table.lb-table td.bad { background: #fde4e1 !important; color: #9b1c1c; }
table.lb-table td.warn { background: #fde4e1 !important; color: #9b1c1c; font-weight: 600; }
table.lb-table td.muted { color: var(--muted); }
.lb-scroll { overflow-x: auto; }
details > summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
figure.lb-figure { margin: 10px 0 18px; }
svg.lb-chart { display: block; width: 100%; max-width: 1000px; height: auto; background: #fff; }
svg.lb-chart text { font-family: system-ui, "DejaVu Sans", sans-serif; fill: var(--fg); }
svg.lb-chart .lb-pt:hover, svg.lb-chart .lb-bar:hover { stroke: #000; stroke-width: 2px; }
svg.lb-chart a .lb-pt { cursor: pointer; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { background: #f6f6f8; padding: 8px; overflow-x: auto; border: 1px solid var(--line); }
footer { padding: 10px 28px 24px; color: var(--muted); border-top: 1px solid var(--line); }
:target { scroll-margin-top: 8px; }
tr:target td, section:target > h2 { background: #fff3c4; }
@media print { nav.lb-toc { display: none; } section.lb-section { break-inside: avoid-page; } }
]]

-- The whole document: `title`, `generated_by` (one line: the command and
-- version that wrote it), `sections` = list of { id=, title=, body= (HTML) },
-- listed in a table of contents at the top.  `subtitle` (optional) is a
-- line of text under the title.
function M.page(p)
  local L = {}
  local function add(s) L[#L + 1] = s end
  add("<!DOCTYPE html>")
  add('<html lang="en">')
  add("<head>")
  add('<meta charset="utf-8">')
  -- The browser itself holds the page to being self-contained: nothing is
  -- loaded from anywhere and no script runs (a violation is a console error).
  add('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">')
  add('<meta name="viewport" content="width=device-width, initial-scale=1">')
  if p.generated_by then add('<meta name="generator" content="' .. M.escape(p.generated_by) .. '">') end
  add("<title>" .. M.escape(p.title or "lbench") .. "</title>")
  add("<style>" .. CSS .. "</style>")
  add("</head>")
  add("<body>")
  add('<header class="lb-head"><h1>' .. M.escape(p.title or "lbench") .. "</h1>")
  if p.subtitle then add("<p>" .. M.escape(p.subtitle) .. "</p>") end
  add("</header>")
  local sections = p.sections or {}
  if #sections > 1 then
    local links = {}
    for _, s in ipairs(sections) do
      links[#links + 1] = '<a href="#' .. M.escape(s.id) .. '">' .. M.escape(s.title) .. "</a>"
    end
    add('<nav class="lb-toc">' .. table.concat(links, " ") .. "</nav>")
  end
  add("<main>")
  for _, s in ipairs(sections) do
    add('<section class="lb-section" id="' .. M.escape(s.id) .. '">')
    add("<h2>" .. M.escape(s.title) .. "</h2>")
    add(s.body or "")
    add("</section>")
  end
  add("</main>")
  if p.generated_by then add("<footer>" .. M.escape(p.generated_by) .. "</footer>") end
  add("</body>")
  add("</html>")
  return table.concat(L, "\n") .. "\n"
end

return M
