-- SPDX-License-Identifier: MIT
-- exactattn.lua: a pandoc (and Quarto) filter that checks and fills a manuscript with the exact
-- engine inside the build (docs/manuscript.md):
--
--   pandoc --lua-filter=exactattn.lua chapter14.md -o chapter14.html
--
-- 1. `exactattn manuscript check --marks-only FILE` for every input file: a wrong claim or bad
--    input stops the build with the checker's lines (file:line:col: pointer: written W, exact E);
--    the audit a file asks for is step 4's, once for the whole build, not `check`'s too.
-- 2. `exactattn manuscript fill FILE` for every input file: the filled texts, joined as pandoc
--    joins its input files, are read again, so every {{/pointer}} placeholder becomes its value
--    (escaped by exactattn as literal text); one it cannot fill stops the build, and so does a
--    placeholder in the front matter, which is not filled.
-- 3. Marks are unwrapped: a [written]{.exact ref="…"} span (and [..]{.noclaim}) becomes its
--    written text, so no pointer reaches HTML, LaTeX or PDF.
-- 4. When asked for (`exactattn-audit: true` or `strict` in the metadata, or $EXACTATTN_AUDIT),
--    `exactattn manuscript audit` on every input file: a number of the unmarked prose that audit
--    finds wrong stops the build with its file:line:col line (exit 1); numbers it cannot verify
--    do not. Off by default.
--
-- A manuscript on standard input is refused (the filter cannot check text it cannot name).
-- The binary is $EXACTATTN, else `exactattn` on PATH: never a program the document names (a
-- manuscript is data; the old metadata field `exactattn-bin` is ignored, with a warning).
-- The scenario is the one each manuscript names; a file that names none (a book split over
-- files, its metadata in one) takes the one the build's metadata names, as pandoc merges the
-- files' metadata (a later file's value replacing an earlier one's), confined to the folder of
-- the file that names it: `exactattn manuscript check --scenario-from THAT_FILE`. In a book of
-- LaTeX inputs, whose `% exactattn-scenario:` comment is not pandoc metadata, a file naming none
-- takes the scenario of the one LaTeX input that names it.

local function stop(message, code)
  io.stderr:write('exactattn.lua: ' .. message .. '\n')
  os.exit(code or 2)
end

local function binary(meta)
  if meta and meta['exactattn-bin'] then
    io.stderr:write('exactattn.lua: the metadata field exactattn-bin is ignored: a document does not choose '
      .. 'the program that builds it (set $EXACTATTN, or put exactattn on PATH)\n')
  end
  local env = os.getenv('EXACTATTN')
  if env and env ~= '' then return env end
  return 'exactattn'
end

-- Runs exactattn; on failure prints what it said (and `hint`, when given) and stops the build
-- with its exit code.
local function run(exe, args, hint)
  local ok, result = pcall(pandoc.pipe, exe, args, '')
  if ok then return result end
  local output = type(result) == 'table' and result.output or tostring(result)
  io.stderr:write(output)
  if type(result) ~= 'table' or result.output == '' then
    io.stderr:write('exactattn.lua: ' .. exe .. ' ' .. table.concat(args, ' ') .. ' failed\n')
  end
  if hint then io.stderr:write('exactattn.lua: ' .. hint .. '\n') end
  local code = type(result) == 'table' and result.error_code or 2
  os.exit((code and code ~= 0) and code or 2)
end

local function unwrap(span)
  if span.classes:includes('exact') or span.classes:includes('noclaim') or span.attributes['ref'] then
    return span.content
  end
end

-- The first metadata field holding a placeholder ({{…), which exactattn does not fill (it fills
-- the text; the front matter is set-up), or nil.
local function unfilled(meta)
  for key, value in pairs(meta) do
    local text = pandoc.utils.stringify(value)
    if text:find('{{', 1, true) then return key .. ': ' .. text end
  end
  return nil
end

local function is_latex(f) return f:match('%.tex$') or f:match('%.ltx$') end

-- Whether a line begins a YAML map: a key (plain, or in quotes) and a colon before a blank or the
-- line's end, at the line's start.
local function yaml_key(line)
  local key_end
  if line:match('^["\']') then
    key_end = line:match('^"[^"]*"():') or line:match("^'[^']*'():")
  elseif not (line:match('^[%s%[%]{}&*!|>%%@`,?:#]') or line:match('^%-%s') or line == '-') then
    key_end = line:match('^.-():[ \t\r]') or line:match('^.-():$')
  end
  return key_end ~= nil and (line:sub(key_end + 1):match('^[ \t\r]') ~= nil or key_end == #line)
end

-- The YAML metadata blocks of a Markdown text, as pandoc's reader finds them: a line `---` at the
-- start or after a blank line, whose next line is not blank, to a line `---` or `...`, holding a
-- YAML map (or only comments); not inside a fenced code block or an HTML comment (exactattn finds
-- the same blocks: docs/manuscript.md). They are returned as one small text, for pandoc to read
-- their YAML as it reads the book's: only the metadata is parsed, not the whole file a second time.
local function metadata_blocks(text)
  local lines = {}
  for line in (text .. '\n'):gmatch('([^\n]*)\n') do table.insert(lines, (line:gsub('\r$', ''))) end
  local blocks = {}
  local fence, comment, blank_before = nil, false, true
  local i = 1
  while i <= #lines do
    local line = lines[i]
    if fence then
      local t = line:match('^%s*(.-)%s*$')
      if #t >= #fence and t:match('^' .. fence:sub(1, 1) .. '+$') then fence = nil end
    elseif comment then
      if line:find('-->', 1, true) then comment = false end
    elseif blank_before and line:match('^%-%-%-[ \t]*$') and lines[i + 1] and lines[i + 1]:match('%S') then
      local close = nil
      for j = i + 1, #lines do
        if lines[j]:match('^%-%-%-[ \t]*$') or lines[j]:match('^%.%.%.[ \t]*$') then close = j; break end
      end
      -- pandoc takes a block for metadata when it holds a YAML map (or only comments); a sentence
      -- or a list between two `---` lines is text, read on
      local first = nil
      for j = i + 1, (close or 0) - 1 do
        if lines[j]:match('%S') and not lines[j]:match('^%s*#') then first = lines[j]; break end
      end
      if close and (not first or yaml_key(first)) then
        table.insert(blocks, table.concat(lines, '\n', i, close))
        i = close
      end
    else
      local run = line:match('^ ? ? ?(```+)') or line:match('^ ? ? ?(~~~+)')
      if run then
        fence = run
      else
        local open = line:find('<!--', 1, true)
        if open and not line:find('-->', open + 4, true) then comment = true end
      end
    end
    blank_before = not line:match('%S')
    i = i + 1
  end
  return table.concat(blocks, '\n\n')
end

-- The metadata a Markdown file's own metadata blocks set (merged as pandoc merges them), or an
-- empty table.
local own_meta_read = {}
local function own_meta(f)
  if own_meta_read[f] then return own_meta_read[f] end
  local meta = {}
  local handle = io.open(f, 'rb')
  if handle then
    local blocks = metadata_blocks(handle:read('a'))
    handle:close()
    if blocks ~= '' then
      local ok, doc = pcall(pandoc.read, blocks, 'markdown')
      if ok then meta = doc.meta end
    end
  end
  own_meta_read[f] = meta
  return meta
end

-- The exactattn-scenario a Markdown file's own metadata blocks set (the last, as pandoc merges
-- them), or nil.
local function own_scenario(f)
  local own = own_meta(f)['exactattn-scenario']
  return own and pandoc.utils.stringify(own) or nil
end

-- The input file whose own metadata sets the exactattn-scenario that the build's metadata holds
-- (the last such file: pandoc gives a later file's value precedence), or nil and a hint when the
-- build's metadata names none, or names one no input file sets (pandoc -M, --metadata-file): such
-- a name has no file to be confined to, so the files naming none are refused.
local function scenario_source(meta, files)
  local named = meta['exactattn-scenario']
  if not named then return nil, nil end
  local name = pandoc.utils.stringify(named)
  local from = nil
  for _, f in ipairs(files) do
    if not is_latex(f) and own_scenario(f) == name then from = f end
  end
  if from then return from:sub(1, 1) == '-' and './' .. from or from, nil end
  return nil, 'the build\'s metadata names exactattn-scenario ' .. name .. ', and no input file\'s front matter '
    .. 'does (pandoc -M or a metadata file): name it in an input file, whose folder confines it'
end

-- A book of LaTeX inputs names its scenario in a comment, `% exactattn-scenario: FILE`, which is not
-- pandoc metadata: when the build's metadata names none and exactly one LaTeX input names one, that
-- input is the one the files naming none take it from (exactattn reads its comment and confines the
-- scenario to its folder); when several do, a file naming none is refused, with a hint, rather than
-- given one of them.
local function latex_scenario_source(files)
  local naming = {}
  for _, f in ipairs(files) do
    local handle = is_latex(f) and io.open(f, 'rb')
    if handle then
      if handle:read('a'):find('exactattn-scenario:', 1, true) then table.insert(naming, f) end
      handle:close()
    end
  end
  if #naming == 1 then return naming[1]:sub(1, 1) == '-' and './' .. naming[1] or naming[1], nil end
  if #naming > 1 then
    return nil, 'the LaTeX inputs ' .. table.concat(naming, ', ') .. ' each name an exactattn-scenario in a comment, '
      .. 'which is not pandoc metadata: a file naming none takes the scenario of the one LaTeX input that names it'
  end
  return nil, nil
end

-- The audit of the unmarked prose ("Auditing the unmarked prose" in docs/manuscript.md), asked for
-- by `exactattn-audit: true` (a wrong number stops the build) or `strict` (a coverage below
-- `exactattn-audit-min-coverage`, else audit's 95%, stops it too) in the build's metadata (-M, an
-- input file's front matter, a metadata file) or in $EXACTATTN_AUDIT. Off by default. Each setting
-- can only make the build stricter: the strictest of every place that sets one is taken, so a
-- file's `false` does not turn off what another file, -M or the environment asked for. The values
-- are words and a number, checked here, never passed on as written.
local AUDIT_LEVELS = {['false'] = 0, no = 0, off = 0, ['true'] = 1, yes = 1, on = 1, strict = 2}

local function setting_text(value)
  if type(value) == 'boolean' then return tostring(value) end
  return pandoc.utils.stringify(value)
end

local function audit_settings(meta, files)
  local level, least, least_text = 0, -1, nil
  local function take(source, where)
    local asked = source['exactattn-audit']
    if asked ~= nil then
      local text = setting_text(asked)
      local l = AUDIT_LEVELS[text:lower()]
      if not l then
        stop(where .. ': exactattn-audit: ' .. text .. ' is none of true, false and strict (the audit of the '
          .. 'unmarked prose: docs/manuscript.md)')
      end
      level = math.max(level, l)
    end
    local min = source['exactattn-audit-min-coverage']
    if min ~= nil then
      local text = setting_text(min)
      local n = text:match('^%d+$') and tonumber(text) or (text:match('^%d*%.%d+$') and tonumber(text))
      if not n or n > 100 then
        stop(where .. ': exactattn-audit-min-coverage: ' .. text .. ' is not a percentage from 0 to 100')
      end
      if n > least then least, least_text = n, text end
    end
  end
  take({['exactattn-audit'] = os.getenv('EXACTATTN_AUDIT') ~= '' and os.getenv('EXACTATTN_AUDIT') or nil},
    '$EXACTATTN_AUDIT')
  for _, f in ipairs(files) do
    if not is_latex(f) then
      take(own_meta(f), f)
    else
      -- A LaTeX input asks in a comment line, as `manuscript check` of a LaTeX book reads it.
      local handle = io.open(f, 'rb')
      if handle then
        local n = 0
        for line in handle:read('a'):gmatch('([^\n]*)\n?') do
          n = n + 1
          local key, value = line:match('^[ \t]*%%[ \t]*(exactattn%-audit%-min%-coverage):[ \t]*(.-)[ \t\r]*$')
          if not key then key, value = line:match('^[ \t]*%%[ \t]*(exactattn%-audit):[ \t]*(.-)[ \t\r]*$') end
          if key then take({[key] = value}, f .. ':' .. n) end
        end
        handle:close()
      end
    end
  end
  take(meta, 'the build\'s metadata (-M or --metadata-file)')
  return level, least_text
end

-- `exactattn manuscript audit` over every input file at once (a book's coverage is the book's): a
-- number it calls wrong stops the build with that number's file:line:col line (exit 1); under
-- `strict` a coverage below the minimum does too. Unbound and ambiguous numbers (which audit cannot
-- verify) and correct ones do not; `pandoc --verbose` shows audit's whole report.
local function audit(exe, files, from, level, least, hint)
  local args = {'manuscript', 'audit'}
  if from then table.insert(args, '--scenario-from'); table.insert(args, from) end
  if level >= 2 then
    table.insert(args, '--strict')
    if least then table.insert(args, '--min-coverage'); table.insert(args, least) end
  end
  table.insert(args, '--')
  for _, f in ipairs(files) do table.insert(args, f) end
  local verbose = PANDOC_STATE.verbosity == 'INFO'
  local ok, result = pcall(pandoc.pipe, exe, args, '')
  if ok then
    if verbose then io.stderr:write(result) end
    return
  end
  local code = type(result) == 'table' and result.error_code or 2
  local output = type(result) == 'table' and result.output or tostring(result)
  if code ~= 1 then  -- bad input: exactattn's placed line went to stderr
    io.stderr:write(output)
    if hint then io.stderr:write('exactattn.lua: ' .. hint .. '\n') end
    os.exit((code and code ~= 0) and code or 2)
  end
  -- The wrong numbers' lines (`file:line:col: written W; …`) and the total, or, when none is wrong
  -- (strict: the coverage), each file's coverage and the total; every line with --verbose.
  local wrong = output:find(':%d+:%d+: written ') ~= nil
  for line in output:gmatch('[^\n]+') do
    local after = line:match('^.-:%d+:%d+: (.*)$')
    local shown = line:sub(1, 18) == 'manuscript audit: '
    if wrong then
      shown = shown or (after ~= nil and after:sub(1, 8) == 'written ')
    else
      shown = shown or (after == nil and line:find(' unmarked %(%d+ verified, ') ~= nil)
    end
    if verbose or shown then io.stderr:write(line, '\n') end
  end
  if not wrong then
    io.stderr:write('exactattn.lua: fewer of the numeric claims are marked than exactattn-audit: strict asks for ('
      .. (least or '95') .. '%): mark them (`exactattn manuscript propose FILE --diff`)\n')
  else
    io.stderr:write('exactattn.lua: an unmarked number is wrong (exactattn-audit): correct it, or mark the quantity '
      .. 'it states ([W]{.exact ref="/pointer"}), or [W]{.noclaim} when it is no claim of the book\n')
  end
  os.exit(1)
end

local function check_and_fill(doc)
  local exe = binary(doc.meta)
  local files = PANDOC_STATE.input_files
  if #files == 0 then stop('no input file: the filter checks and fills named manuscript files') end
  for _, f in ipairs(files) do
    if f == '-' then
      stop('the manuscript came on standard input, which the filter cannot check or fill: name the file '
        .. '(pandoc FILE.md --lua-filter=exactattn.lua), or run `exactattn manuscript fill FILE` first')
    end
  end
  -- pandoc reads every input with one reader, the first file's (a LaTeX file after a Markdown one
  -- is read as Markdown): exactattn would check a text other than the one published.
  for _, f in ipairs(files) do
    if not is_latex(f) ~= not is_latex(files[1]) then
      stop(f .. ': pandoc reads it with the reader of ' .. files[1] .. ' (the first input file), not as written: '
        .. 'build LaTeX and Markdown inputs separately, or convert one of them first')
    end
  end
  -- A file naming no scenario takes the build's, found and confined where it is named.
  local from, hint = scenario_source(doc.meta, files)
  if not from and not doc.meta['exactattn-scenario'] then from, hint = latex_scenario_source(files) end
  -- `check --marks-only`: the filter runs the audit a file asks for itself, once over the whole
  -- build (below), so `check` does not audit each file again.
  local function command(name, f)
    local args = {'manuscript', name}
    if name == 'check' then table.insert(args, '--marks-only') end
    if from then table.insert(args, '--scenario-from'); table.insert(args, from) end
    table.insert(args, '--')
    table.insert(args, f)
    return args
  end
  local level, least = audit_settings(doc.meta, files)
  local texts = {}
  local format = is_latex(files[1]) and 'latex' or 'markdown'
  -- In LaTeX a mark is \exact{pointer}{written} (exactattn.sty): pandoc drops a command it does not
  -- know, and the written value with it, so the marks are defined as the package defines them.
  if format == 'latex' then table.insert(texts, '\\providecommand{\\exact}[2]{#2}\\providecommand{\\noclaim}[1]{#1}') end
  for _, f in ipairs(files) do
    run(exe, command('check', f), hint)
    local filled = run(exe, command('fill', f), hint)
    -- {{/pointer}} is a Markdown placeholder: in LaTeX exactattn leaves it, and pandoc would publish
    -- the pointer as text (a hole)
    if format == 'latex' and (filled:find('{{/', 1, true) or filled:find('{{table', 1, true)) then
      stop(f .. ': ' .. (filled:match('{{[^}\n]*}}') or '{{') .. ' is a Markdown placeholder, which a LaTeX input does '
        .. 'not fill: write \\exactvalue{/pointer} (or \\exacttable{…})')
    end
    table.insert(texts, filled)
  end
  if level > 0 then audit(exe, files, from, level, least, hint) end
  -- As pandoc joins several input files: one text, the files separated by a blank line.
  local left = unfilled(doc.meta)
  if left then stop('a placeholder in the front matter is not filled (placeholders go in the text): ' .. left) end
  -- exactattn fill has filled every placeholder of the text, or refused (exit 2) above.
  local filled = pandoc.read(table.concat(texts, '\n\n'), format)
  filled.meta = doc.meta
  return filled
end

-- Two passes: the document checked and re-read filled, then its marks unwrapped.
return {{Pandoc = check_and_fill}, {Span = unwrap}}
