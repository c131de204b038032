-- SPDX-License-Identifier: MIT
-- exactattn's Quarto filter (docs/manuscript.md, "Quarto"):
-- 1. `exactattn manuscript check` on the file being rendered (quarto.doc.input_file): a wrong
--    claim stops the render with its file:line:col line (exit 1), bad input with exit 2. A chapter
--    naming no scenario takes the one _quarto.yml names for the book (--scenario-from _quarto.yml).
-- 2. When asked for (`exactattn-audit: true` or `strict` in the chapter's or the project's
--    metadata, or $EXACTATTN_AUDIT), `exactattn manuscript audit` on the file: an unmarked number
--    audit finds wrong stops the render with its file:line:col line (exit 1); one it cannot verify
--    does not. Off by default.
-- 3. Marks are unwrapped: [written]{.exact ref="…"} (and .noclaim) becomes its written text, so
--    no pointer reaches HTML, LaTeX or PDF.
-- 4. A pandoc-style placeholder {{/pointer}} left in the text stops the render: under Quarto a
--    value is filled by the shortcode {{< exactattn /pointer >}} (exactattn-shortcode.lua), so
--    that Quarto's own reading of the document (code cells, includes, cross-references) is kept.
-- exactattn-common.lua, beside this script, loaded when first needed (Quarto resolves a path
-- beside the running script while it runs a filter or a shortcode).
local loaded
local function common()
  loaded = loaded or dofile(quarto.utils.resolve_path('exactattn-common.lua'))
  return loaded
end

local source

local function check(doc)
  source = common().source()
  local from = common().project_scenario(doc.meta)
  local level, least = common().audit_setting(doc.meta)
  -- --marks-only: the audit the chapter asks for is run below, once, not by `check` too
  local args = {'manuscript', 'check', '--marks-only'}
  for _, a in ipairs(from) do table.insert(args, a) end
  table.insert(args, '--')
  table.insert(args, source)
  common().run(args)
  if level > 0 then
    -- the chapter's unmarked prose: a number audit calls wrong stops the render (exit 1), and
    -- under strict a coverage below the minimum; what audit cannot verify does not
    args = {'manuscript', 'audit'}
    for _, a in ipairs(from) do table.insert(args, a) end
    if level > 1 then
      table.insert(args, '--strict')
      if least then table.insert(args, '--min-coverage'); table.insert(args, least) end
    end
    table.insert(args, '--')
    table.insert(args, source)
    common().run(args, nil, common().audit_lines)
  end
  return doc
end

local function unwrap(span)
  if span.classes:includes('exact') or span.classes:includes('noclaim') or span.attributes['ref'] then
    return span.content
  end
end

local function unfilled(str)
  if str.text:find('{{/', 1, true) or str.text:find('{{table', 1, true) then
    local shown = str.text:match('{{[^}]*}}') or str.text
    common().stop(source .. ': the placeholder ' .. shown .. ' is not filled under Quarto: write '
      .. '{{< exactattn /pointer >}} (the shortcode of this extension), or run `exactattn manuscript fill` first')
  end
end

return {{Pandoc = check}, {Span = unwrap}, {Str = unfilled}}
