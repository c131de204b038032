-- SPDX-License-Identifier: MIT
-- Runs a Quarto extension's filters and shortcodes inside plain pandoc as `quarto render` runs
-- them (Quarto is not a Debian package, so the suite cannot run Quarto itself; see
-- render_like_quarto.py, which gives pandoc the document as Quarto does):
-- * the global `quarto` with `quarto.doc.input_file` (the file being rendered, not the temporary
--   copy of its body pandoc reads), `quarto.doc.is_format` and `quarto.utils.resolve_path`
--   (a path beside the extension's Lua scripts);
-- * the extension's filters, in the order _extension.yml lists them, before shortcodes are
--   resolved (Quarto runs a user filter before its own filters by default);
-- * each shortcode `{{< name arg … key=value >}}` (a span of the class quarto-shortcode__, which
--   render_like_quarto.py makes of it, as Quarto's reader does) replaced by what its handler
--   returns, called as handler(args, kwargs, meta, raw_args, context): args and kwargs values are
--   lists of inlines, context is `block` for a shortcode alone in its paragraph, else `inline`.
-- EXACTATTN_QUARTO_EXTENSION is the extension's directory, EXACTATTN_QUARTO_FILTERS and
-- EXACTATTN_QUARTO_SHORTCODES its scripts (`:`-separated), EXACTATTN_QUARTO_INPUT the file,
-- EXACTATTN_QUARTO_PROJECT the project's directory (quarto.project.directory), when there is one.
local dir = os.getenv('EXACTATTN_QUARTO_EXTENSION')

local function list(var)
  local out = {}
  for item in (os.getenv(var) or ''):gmatch('[^:]+') do table.insert(out, item) end
  return out
end

quarto = {
  doc = {
    input_file = os.getenv('EXACTATTN_QUARTO_INPUT'),
    is_format = function(name) return FORMAT == name or (name == 'pdf' and FORMAT == 'latex') end,
  },
  utils = {resolve_path = function(path) return pandoc.path.join({dir, path}) end},
  -- the directory of the project's _quarto.yml (nil outside a project), as Quarto's quarto.project
  project = {directory = os.getenv('EXACTATTN_QUARTO_PROJECT')},
}

local handlers = {}
for _, script in ipairs(list('EXACTATTN_QUARTO_SHORTCODES')) do
  for name, handler in pairs(dofile(pandoc.path.join({dir, script}))) do handlers[name] = handler end
end

-- The words of a shortcode: a span of the class quarto-shortcode__ (render_like_quarto.py reads
-- each {{< … >}} from the text into one, as Quarto's Markdown reader does), or nil.
local function shortcode_words(inline)
  if inline.t ~= 'Span' or not inline.classes:includes('quarto-shortcode__') then return nil end
  local raw = inline.attributes['data-raw']:gsub('%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end)
  local words = {}
  for w in raw:gmatch('%S+') do table.insert(words, w) end
  return words
end

local function call(words, meta, context)
  local name = table.remove(words, 1)
  local handler = handlers[name]
  if not handler then error('unknown shortcode ' .. tostring(name)) end
  local args, kwargs, raw = {}, {}, {}
  for _, w in ipairs(words) do
    table.insert(raw, w)
    local key, value = w:match('^([%w_-]+)=(.*)$')
    if key then
      kwargs[key] = pandoc.Inlines({pandoc.Str(value)})
    else
      table.insert(args, pandoc.Inlines({pandoc.Str(w)}))
    end
  end
  return handler(args, kwargs, meta, raw, context)
end

local function as_inlines(result)
  if type(result) == 'string' then return {pandoc.Str(result)} end
  if result.t then return {result} end
  return result
end

local function resolve(doc)
  local meta = doc.meta
  local blocks = pandoc.List()
  for _, b in ipairs(doc.blocks) do
    local words = b.t == 'Para' and #b.content == 1 and shortcode_words(b.content[1])
    if words then
      local r = call(words, meta, 'block')
      if type(r) == 'table' and not r.t and r[1] and pandoc.utils.type(r[1]) == 'Block' then
        blocks:extend(r)
      else
        blocks:insert(pandoc.Para(as_inlines(r)))
      end
    else
      blocks:insert(pandoc.walk_block(b, {Span = function(span)
        local inline_words = shortcode_words(span)
        if inline_words then return as_inlines(call(inline_words, meta, 'inline')) end
      end}))
    end
  end
  doc.blocks = blocks
  return doc
end

local function run_filters(doc)
  for _, script in ipairs(list('EXACTATTN_QUARTO_FILTERS')) do
    for _, filter in ipairs(dofile(pandoc.path.join({dir, script}))) do
      if filter.Pandoc then doc = filter.Pandoc(doc) or doc end
      local rest = {}
      for k, v in pairs(filter) do if k ~= 'Pandoc' then rest[k] = v end end
      doc = doc:walk(rest)
    end
  end
  return doc
end

return {{Pandoc = function(doc) return resolve(run_filters(doc)) end}}
