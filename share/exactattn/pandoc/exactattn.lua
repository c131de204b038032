-- SPDX-License-Identifier: MIT
-- exactattn.lua: a pandoc (and Quarto) filter that checks and fills a manuscript with the exact
-- engine inside the build (docs/manuscript.md):
--
--   pandoc --lua-filter=exactattn.lua chapter14.md -o chapter14.html
--
-- 1. `exactattn manuscript check FILE` for every input file: a wrong claim or bad input stops the
--    build with the checker's lines (file:line:col: pointer: written W, exact E).
-- 2. `exactattn manuscript fill FILE`: the filled text is read again, so every {{/pointer}}
--    placeholder becomes its value.
-- 3. Marks are unwrapped: a [written]{.exact ref="…"} span (and [..]{.noclaim}) becomes its
--    written text, so no pointer reaches HTML, LaTeX or PDF.
--
-- The binary is $EXACTATTN, else the metadata field `exactattn-bin`, else `exactattn` on PATH.
-- The scenario is the one the manuscript names; the metadata field `exactattn-scenario` is read
-- by exactattn itself from the front matter.

local function binary(meta)
  local env = os.getenv('EXACTATTN')
  if env and env ~= '' then return env end
  if meta and meta['exactattn-bin'] then return pandoc.utils.stringify(meta['exactattn-bin']) end
  return 'exactattn'
end

-- Runs exactattn; on failure prints what it said and stops the build.
local function run(exe, args)
  local ok, result = pcall(pandoc.pipe, exe, args, '')
  if ok then return result end
  local output = type(result) == 'table' and result.output or tostring(result)
  io.stderr:write(output)
  if type(result) == 'table' and result.output == '' then
    io.stderr:write('exactattn.lua: ' .. exe .. ' ' .. table.concat(args, ' ') .. ' failed\n')
  end
  os.exit(type(result) == 'table' and result.error_code or 1)
end

local function unwrap(span)
  if span.classes:includes('exact') or span.classes:includes('noclaim') or span.attributes['ref'] then
    return span.content
  end
end

local function check_and_fill(doc)
  local exe = binary(doc.meta)
  local files = PANDOC_STATE.input_files
  local real = {}
  for _, f in ipairs(files) do
    if f ~= '-' then table.insert(real, f) end
  end
  if #real == 1 then
    run(exe, {'manuscript', 'check', real[1]})
    local filled = run(exe, {'manuscript', 'fill', real[1]})
    doc = pandoc.read(filled, 'markdown')
  else
    for _, f in ipairs(real) do run(exe, {'manuscript', 'check', f}) end
  end
  return doc
end

-- Two passes: the document checked and re-read filled, then its marks unwrapped.
return {{Pandoc = check_and_fill}, {Span = unwrap}}
