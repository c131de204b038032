-- SPDX-License-Identifier: MIT
-- What the exactattn Quarto filter and shortcode share: the program that runs (chosen by whoever
-- builds, never by the document) and running it, a failure stopping the render.
local common = {}

function common.stop(message, code)
  io.stderr:write('exactattn (quarto): ' .. message .. '\n')
  os.exit(code or 2)
end

-- $EXACTATTN, else `exactattn` on PATH: a manuscript is data and never names a program.
function common.binary()
  local env = os.getenv('EXACTATTN')
  if env and env ~= '' then return env end
  return 'exactattn'
end

-- The rendered file as its author wrote it. Quarto gives pandoc a temporary copy of the body
-- (front matter removed), so the filter checks the file Quarto names, never that copy.
function common.source()
  local file = quarto and quarto.doc and quarto.doc.input_file
  if not file or file == '' then
    common.stop('quarto.doc.input_file is not set: this extension runs inside `quarto render`; '
      .. 'with plain pandoc use share/exactattn/pandoc/exactattn.lua')
  end
  return file
end

-- The top-level metadata of a YAML file (read by pandoc's YAML reader, as Quarto's metadata is),
-- or nil when it cannot be read.
local function yaml_meta(file)
  local handle = io.open(file, 'rb')
  if not handle then return nil end
  local text = handle:read('a')
  handle:close()
  local ok, doc = pcall(pandoc.read, '---\n' .. text .. '\n---\n', 'markdown')
  return ok and doc.meta or {}
end

local function first_existing(dir, names)
  for _, name in ipairs(names) do
    local file = pandoc.path.join({dir, name})
    local handle = io.open(file, 'rb')
    if handle then
      handle:close()
      return file
    end
  end
  return nil
end

-- The metadata files Quarto merges into the rendered chapter's metadata, in its order (a later one
-- taking precedence, the chapter's front matter over all): the project's `_quarto.yml` (or
-- `.yaml`), then a `_metadata.yml` (or `.yaml`) of each folder from the project down to the
-- chapter's — the first being the project's own folder only for a chapter in it, as Quarto's
-- directoryMetadataForInputFile walks (quarto-cli, src/project/project-shared.ts). Each is
-- {file, dir, meta}.
function common.project_files()
  local project = quarto.project and quarto.project.directory
  if not project or project == '' then return {} end
  local files = {}
  local config = first_existing(project, {'_quarto.yml', '_quarto.yaml'})
  if config then table.insert(files, {file = config, dir = project, meta = yaml_meta(config) or {}}) end
  local input_dir = pandoc.path.directory(pandoc.path.normalize(common.source()))
  local relative = pandoc.path.make_relative(input_dir, project)
  local dirs = {}
  if relative == '.' or relative == '' then
    dirs = {project}
  elseif pandoc.path.is_relative(relative) and relative:sub(1, 2) ~= '..' then
    local at = project
    for part in relative:gmatch('[^/]+') do
      at = pandoc.path.join({at, part})
      table.insert(dirs, at)
    end
  end
  for _, dir in ipairs(dirs) do
    local file = first_existing(dir, {'_metadata.yml', '_metadata.yaml'})
    if file then table.insert(files, {file = file, dir = dir, meta = yaml_meta(file) or {}}) end
  end
  return files
end

-- A path value of a project file as Quarto gives it to the chapter: made relative to the chapter's
-- folder when it names a file that exists relative to the project file's (toInputRelativePaths).
local function as_quarto_gives(value, dir)
  local handle = io.open(pandoc.path.join({dir, value}), 'rb')
  if not handle then return value end
  handle:close()
  local input_dir = pandoc.path.directory(pandoc.path.normalize(common.source()))
  local offset = pandoc.path.make_relative(dir, input_dir, true)
  if offset == '.' or offset == '' then return value end
  return pandoc.path.normalize(pandoc.path.join({offset, value}))
end

-- The project file (`_quarto.yml`, or a directory's `_metadata.yml`) whose exactattn-scenario is
-- the one the chapter's metadata holds — the last of Quarto's merge order that names one — as the
-- `--scenario-from` arguments that let a chapter naming none take it, found and confined where it
-- is named (resolved against that file's folder, confined to the project's folder or the working
-- directory). A value the chapter's metadata got elsewhere (--metadata, a value the project files
-- do not hold) is not passed on: a chapter naming none is then refused by exactattn.
function common.project_scenario(meta)
  local named = meta['exactattn-scenario']
  if not named then return {} end
  local wanted = pandoc.utils.stringify(named)
  local from = nil
  for _, f in ipairs(common.project_files()) do
    if f.meta['exactattn-scenario'] then from = f end
  end
  if not from then return {} end
  local own = pandoc.utils.stringify(from.meta['exactattn-scenario'])
  if own == wanted or as_quarto_gives(own, from.dir) == wanted then return {'--scenario-from', from.file} end
  return {}
end

-- The audit of the unmarked prose (docs/manuscript.md, "Auditing the unmarked prose"): the level
-- (0 off, 1 a wrong number stops the render, 2 strict) and the minimum coverage, the strictest of
-- $EXACTATTN_AUDIT, the chapter's merged metadata and each project file's own, so that no place
-- turns off what another asked for. Values are checked words and a percentage.
local LEVELS = {['false'] = 0, no = 0, off = 0, ['true'] = 1, yes = 1, on = 1, strict = 2}

function common.audit_setting(meta)
  local level, least, least_text = 0, -1, nil
  local function text_of(v) return type(v) == 'boolean' and tostring(v) or pandoc.utils.stringify(v) end
  local function take(m, where)
    if m['exactattn-audit'] ~= nil then
      local text = text_of(m['exactattn-audit'])
      if not LEVELS[text:lower()] then
        common.stop(where .. ': exactattn-audit: ' .. text .. ' is none of true, false and strict')
      end
      level = math.max(level, LEVELS[text:lower()])
    end
    if m['exactattn-audit-min-coverage'] ~= nil then
      local text = text_of(m['exactattn-audit-min-coverage'])
      local n = (text:match('^%d+$') or text:match('^%d*%.%d+$')) and tonumber(text)
      if not n or n > 100 then
        common.stop(where .. ': exactattn-audit-min-coverage: ' .. text .. ' is not a percentage from 0 to 100')
      end
      if n > least then least, least_text = n, text end
    end
  end
  local env = os.getenv('EXACTATTN_AUDIT')
  if env and env ~= '' then take({['exactattn-audit'] = env}, '$EXACTATTN_AUDIT') end
  for _, f in ipairs(common.project_files()) do take(f.meta, f.file) end
  take(meta, common.source())
  return level, least_text
end

-- What a failed audit shows: the lines of the numbers it calls wrong (`file:line:col: written W;
-- …`) and its total, or, none being wrong (strict), each file's coverage and the total.
function common.audit_lines(output)
  local wrong = output:find(':%d+:%d+: written ') ~= nil
  local kept = {}
  for line in output:gmatch('[^\n]+') do
    local after = line:match('^.-:%d+:%d+: (.*)$')
    if line:sub(1, 18) == 'manuscript audit: ' or (wrong and after and after:sub(1, 8) == 'written ')
        or (not wrong and not after and line:find(' unmarked %(%d+ verified, ')) then
      table.insert(kept, line .. '\n')
    end
  end
  return table.concat(kept)
end

-- Runs exactattn; on failure writes what it printed and stops the render with its exit code.
-- With `errors` (a file name), its stderr goes to that file instead and, passed through
-- `rename` (so that a temporary file is named as the author knows it), to the render's stderr.
-- `input` (default empty) is its standard input.
function common.run(args, errors, rename, input)
  local exe, argv = common.binary(), args
  if errors then  -- sh only redirects: exactattn and its arguments are argv, never parsed by it
    exe, argv = 'sh', {'-c', 'err=$1; shift; exec "$@" 2>"$err"', 'sh', errors, common.binary()}
    for _, a in ipairs(args) do table.insert(argv, a) end
  end
  local ok, result = pcall(pandoc.pipe, exe, argv, input or '')
  if errors then
    local f = io.open(errors, 'r')
    local said = f and f:read('a') or ''
    if f then f:close() end
    io.stderr:write(rename and rename(said) or said)
  end
  if ok then return result end
  -- exactattn's lines (a wrong claim's file:line:col) went to its stdout, which pipe captured.
  local output = type(result) == 'table' and result.output or tostring(result)
  io.stderr:write(rename and rename(output) or output)
  local code = type(result) == 'table' and result.error_code or 2
  io.stderr:write('exactattn (quarto): ' .. common.binary() .. ' ' .. args[1] .. ' ' .. args[2] .. ' failed\n')
  os.exit((code and code ~= 0) and code or 2)
end

return common
