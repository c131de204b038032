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
