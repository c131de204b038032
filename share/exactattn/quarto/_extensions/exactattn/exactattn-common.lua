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

-- The book's project file, `_quarto.yml` (or `_quarto.yaml`) in quarto.project.directory, when it
-- names the exactattn-scenario that the chapter's metadata holds (Quarto merges the project's
-- metadata into each chapter's, the chapter's own front matter taking precedence): the
-- `--scenario-from` arguments that let a chapter naming none take it, found and confined where it
-- is named (the project's folder). A value the chapter's metadata got elsewhere (a directory's
-- _metadata.yml, --metadata) is not passed on: a chapter naming none is then refused by exactattn.
function common.project_scenario(meta)
  local dir = quarto.project and quarto.project.directory
  local named = meta['exactattn-scenario']
  if not dir or dir == '' or not named then return {} end
  for _, name in ipairs({'_quarto.yml', '_quarto.yaml'}) do
    local file = pandoc.path.join({dir, name})
    local handle = io.open(file, 'rb')
    if handle then
      local text = handle:read('a')
      handle:close()
      -- the project file's own top-level value, read by pandoc's YAML reader as Quarto's metadata is
      local ok, doc = pcall(pandoc.read, '---\n' .. text .. '\n---\n', 'markdown')
      local own = ok and doc.meta['exactattn-scenario']
      if own and pandoc.utils.stringify(own) == pandoc.utils.stringify(named) then
        return {'--scenario-from', file}
      end
      return {}
    end
  end
  return {}
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
