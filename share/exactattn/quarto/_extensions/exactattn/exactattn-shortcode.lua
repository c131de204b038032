-- SPDX-License-Identifier: MIT
-- The exactattn shortcode (docs/manuscript.md, "Quarto"): the value of a quantity of the report,
-- printed and escaped by `exactattn manuscript fill` exactly as a {{/pointer}} placeholder is:
--
--   {{< exactattn /reads/example-14.1/weights >}}               [1/2, 1/4, 1/4]
--   {{< exactattn /reads/example-14.1/context/0 digits=4 >}}    0.3466
--   {{< exactattn /reads/example-14.1/context approx >}}        [a/2, a/4] ≈ [0.346574, 0.173287]
--   {{< exactattn /reads/example-14.1/weights math >}}          $\left[\tfrac{1}{2}, …\right]$
--   {{< exactattn table /reads/example-14.1 >}}                 a table of the read
--
-- The scenario is the one `exactattn manuscript check` finds for the chapter: the chapter's own,
-- else the one the book's _quarto.yml names, each resolved and confined by exactattn where it is
-- named: the shortcode hands exactattn a one-line manuscript on standard input that stands for the
-- rendered file (--stdin-filename) and names none, with --scenario-from the chapter, then
-- _quarto.yml. The value is read back by pandoc from
-- exactattn's Markdown, so text a scenario's author wrote (a token, a title) stays text in every
-- format.
-- exactattn-common.lua, beside this script, loaded when first needed (Quarto resolves a path
-- beside the running script while it runs a filter or a shortcode).
local loaded
local function common()
  loaded = loaded or dofile(quarto.utils.resolve_path('exactattn-common.lua'))
  return loaded
end

-- One word of the shortcode: it goes into a one-line manuscript, so it may not hold braces.
local function word(inlines, what)
  local text = pandoc.utils.stringify(inlines)
  if text == '' or text:find('[{}\r\n]') then
    common().stop(common().source() .. ': {{< exactattn >}}: ' .. what .. ' "' .. text .. '" is not a pointer or an option')
  end
  return text
end

local function needs_scenario(meta)
  local named = meta['exactattn-scenario']
  local text = named and pandoc.utils.stringify(named) or ''
  if text == '' then
    common().stop(common().source() .. ': {{< exactattn >}} needs the document to name its scenario: '
      .. '`exactattn-scenario: FILE` in the front matter (or in _quarto.yml)')
  end
  return text
end

local function exactattn(args, kwargs, meta, raw_args, context)
  local words = {}
  for i, a in ipairs(args) do table.insert(words, word(a, i == 1 and 'the pointer' or 'the option')) end
  for key, value in pairs(kwargs) do
    table.insert(words, word({pandoc.Str(key .. '=' .. pandoc.utils.stringify(value))}, 'the option'))
  end
  if #words == 0 or (words[1] == 'table' and #words < 2) then
    common().stop(common().source() .. ': {{< exactattn >}} names a pointer: {{< exactattn /reads/NAME/weights >}}')
  end
  local shown = '{{< exactattn ' .. table.concat(words, ' ') .. ' >}}'
  local source = common().source()
  needs_scenario(meta)
  -- The one-line manuscript names no scenario: it takes the chapter's own, else the one _quarto.yml
  -- names for the book, each found and confined where it is named, as `check` finds the chapter's.
  local args = {'manuscript', 'fill', '--stdin-filename', source, '--scenario-from', source}
  for _, a in ipairs(common().project_scenario(meta)) do table.insert(args, a) end
  table.insert(args, '-')
  local filled = pandoc.system.with_temporary_directory('exactattn', function(dir)
    -- exactattn's messages name a line of the one-line manuscript; the author knows the shortcode.
    local function rename(output)
      local place = (source .. ': ' .. shown):gsub('%%', '%%%%')
      return (output:gsub(source:gsub('%p', '%%%0') .. ':%d+:%d+', place))
    end
    return common().run(args, pandoc.path.join({dir, 'stderr.txt'}), rename,
      '{{' .. table.concat(words, ' ') .. '}}\n')
  end)
  local doc = pandoc.read(filled, 'markdown')
  if context == 'text' then return pandoc.utils.stringify(doc) end
  if #doc.blocks == 1 and doc.blocks[1].t == 'Para' then return doc.blocks[1].content end
  return doc.blocks
end

return {['exactattn'] = exactattn}
