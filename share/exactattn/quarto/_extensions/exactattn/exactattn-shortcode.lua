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
-- The scenario is the document's `exactattn-scenario`, resolved and confined by exactattn as
-- the document's own (relative to the rendered file, within its folder or the working
-- directory): the shortcode hands exactattn a one-line manuscript on standard input that names it
-- and stands for the rendered file (--stdin-filename). The value is read back by pandoc from
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

local function scenario(meta)
  local named = meta['exactattn-scenario']
  local text = named and pandoc.utils.stringify(named) or ''
  if text == '' then
    common().stop(common().source() .. ': {{< exactattn >}} needs the document to name its scenario: '
      .. '`exactattn-scenario: FILE` in the front matter (or in _quarto.yml)')
  end
  if text:find('[\r\n]') then
    common().stop(common().source() .. ': exactattn-scenario is not one line')
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
  local front = '---\nexactattn-scenario: ' .. scenario(meta) .. '\n---\n'
  local filled = pandoc.system.with_temporary_directory('exactattn', function(dir)
    -- exactattn's messages name a line of the one-line manuscript; the author knows the shortcode.
    local function rename(output)
      local place = (source .. ': ' .. shown):gsub('%%', '%%%%')
      return (output:gsub(source:gsub('%p', '%%%0') .. ':%d+:%d+', place))
    end
    return common().run({'manuscript', 'fill', '--stdin-filename', source, '-'},
      pandoc.path.join({dir, 'stderr.txt'}), rename, front .. '{{' .. table.concat(words, ' ') .. '}}\n')
  end)
  -- fill gives the front matter back as it was: only the filled line is the value
  if filled:sub(1, #front) == front then filled = filled:sub(#front + 1) end
  local doc = pandoc.read(filled, 'markdown')
  if context == 'text' then return pandoc.utils.stringify(doc) end
  if #doc.blocks == 1 and doc.blocks[1].t == 'Para' then return doc.blocks[1].content end
  return doc.blocks
end

return {['exactattn'] = exactattn}
