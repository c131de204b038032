// SPDX-License-Identifier: MIT
// exactattn's MyST plugin (mystmd, Jupyter Book 2; docs/manuscript.md, "MyST"): list it in the
// book's myst.yml,
//
//   project:
//     plugins:
//       - path/to/share/exactattn/myst/exactattn.mjs
//
// and every page is checked and filled as `myst build` reads it:
// 1. `exactattn manuscript check PAGE`: a wrong claim stops the build with its file:line:col
//    line (exit 1), bad input with exit 2. A page naming no scenario takes the one myst.yml's
//    `project:` frontmatter names for the book (`exactattn-scenario: FILE`, --scenario-from myst.yml).
// 2. Marks are unwrapped: [written]{.exact ref="…"} (and .noclaim), which MyST reads as text,
//    become their written text, so no pointer reaches the page.
// 3. `exactattn manuscript fill PAGE --format json`: every placeholder of the page's text
//    ({{/pointer}}, or the Quarto shortcode {{< exactattn /pointer >}}) becomes its value, as a
//    text node (a value is never markup: MyST escapes text for HTML and LaTeX) or, with the
//    `math` option, a math node of exactattn's LaTeX (in which text a scenario's author wrote is
//    set in an escaped \mbox).
// 4. When asked for ($EXACTATTN_AUDIT, or `exactattn-audit: true|strict` in myst.yml's project
//    frontmatter or in the page's own front matter, the strictest taken), `exactattn manuscript
//    audit PAGE`: an unmarked number audit finds wrong stops the build with its file:line:col line
//    (exit 1); one it cannot verify does not. Off by default.
// A placeholder or a mark left in the text (split by markup MyST read inside it) stops the build.
// The binary is $EXACTATTN, else `exactattn` on PATH: a document never names a program.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function binary() {
  return process.env.EXACTATTN || 'exactattn';
}

function stop(message, code = 2) {
  process.stderr.write(`exactattn (myst): ${message}\n`);
  process.exit(code);
}

// Runs exactattn; on failure writes what it said and stops the build with its exit code.
function run(args) {
  try {
    return execFileSync(binary(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  } catch (e) {
    if (e.code === 'ENOENT') stop(`${binary()} not found: set $EXACTATTN or put exactattn on PATH`);
    process.stderr.write(e.stdout || '');
    process.stderr.write(e.stderr || '');
    stop(`${binary()} ${args.join(' ')} failed`, e.status || 2);
  }
}

// exactattn's Markdown for a value: every ASCII punctuation character of text is escaped with a
// backslash, and the `math` option writes $…$.
function unescape(text) {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

// The text nodes that hold filled values: data, which may say anything (a scenario's title may be
// `{{/title}}`), and which the check for leftovers passes by.
const FILLED = new WeakSet();

// The nodes of one filled value: text, inline math, or a table (`{{table /reads/NAME}}`).
function nodes(filled) {
  const rows = filled.trimEnd().split('\n');
  if (rows.length > 2 && rows.every((r) => r.startsWith('| '))) {
    const cells = (r) => r.slice(2, -2).split(' | ').map((c) => inline(c));
    return [{
      type: 'table',
      children: rows.filter((_, i) => i !== 1).map((r, i) => ({
        type: 'tableRow',
        children: cells(r).map((c) => ({ type: 'tableCell', ...(i === 0 ? { header: true } : {}), children: c })),
      })),
    }];
  }
  return inline(filled);
}

function inline(text) {
  const out = [];
  const math = /(?<!\\)\$([^$]+)(?<!\\)\$/g;
  let from = 0;
  for (let m; (m = math.exec(text));) {
    if (m.index > from) out.push(filledText(text.slice(from, m.index)));
    out.push({ type: 'inlineMath', value: m[1] });
    from = m.index + m[0].length;
  }
  if (from < text.length) out.push(filledText(text.slice(from)));
  return out;
}

function filledText(markdown) {
  const node = { type: 'text', value: unescape(markdown) };
  FILLED.add(node);
  return node;
}

const PLACEHOLDER = /\{\{[^{}\n]*\}\}/g;

// Replaces the placeholders of the text nodes below `node` by their values.
function fill(node, values) {
  if (!node.children) return;
  const kids = [];
  for (const child of node.children) {
    if (child.type !== 'text' || !child.value.includes('{{')) {
      fill(child, values);
      kids.push(child);
      continue;
    }
    let from = 0;
    for (const m of child.value.matchAll(PLACEHOLDER)) {
      const filled = values.get(m[0]);
      if (filled === undefined) continue;  // not one of exactattn's: kept, and refused below
      if (m.index > from) kids.push({ type: 'text', value: child.value.slice(from, m.index) });
      kids.push(...nodes(filled));
      from = m.index + m[0].length;
    }
    if (from < child.value.length) kids.push({ ...child, value: child.value.slice(from) });
  }
  node.children = kids;
}

const MARK_ATTRIBUTES = /\]\{([^{}]*)\}/g;

function isMark(attributes) {
  return /(^|\s)\.(exact|noclaim)(\s|$)/.test(attributes) || /(^|\s)ref=/.test(attributes);
}

// The `[` that opens the span closed at text node kids[i], offset `at`: brackets are counted
// back through the text nodes before it (math and code hold their own).
function opening(kids, i, at) {
  let depth = 0;
  for (let j = i; j >= 0; j--) {
    if (kids[j].type !== 'text') continue;
    const v = kids[j].value;
    for (let k = j === i ? at - 1 : v.length - 1; k >= 0; k--) {
      if (v[k] === ']') depth++;
      if (v[k] === '[') {
        if (depth === 0) return { j, k };
        depth--;
      }
    }
  }
  return null;
}

// [written]{.exact ref="…"} becomes `written`.
function unwrap(node) {
  if (!node.children) return;
  node.children.forEach(unwrap);
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) {
    if (kids[i].type !== 'text') continue;
    for (let again = true; again;) {
      again = false;
      for (const m of kids[i].value.matchAll(MARK_ATTRIBUTES)) {
        if (!isMark(m[1])) continue;
        const open = opening(kids, i, m.index);
        if (!open) continue;
        const v = kids[i].value;
        kids[i].value = v.slice(0, m.index) + v.slice(m.index + m[0].length);
        const o = kids[open.j].value;
        kids[open.j].value = o.slice(0, open.k) + o.slice(open.k + 1);
        again = true;
        break;
      }
    }
  }
  node.children = kids.filter((k) => k.type !== 'text' || k.value !== '');
}

// A placeholder or a mark that is still text: the page would be published with a hole.
function leftover(node, page) {
  if (node.type === 'text' && !FILLED.has(node)) {
    const m = node.value.match(/\{\{\s*(table\s+)?\/[^}]*\}\}|\{\{<\s*exactattn[^}]*\}\}|\]\{[^{}]*(\.exact|\.noclaim|ref=)[^{}]*\}/);
    if (m) {
      const line = node.position ? `:${node.position.start.line}` : '';
      stop(`${page}${line}: ${m[0]} was not checked and filled (MyST read markup inside it): keep a mark's `
        + 'written value and a placeholder on one line, without emphasis or links inside');
    }
  }
  (node.children || []).forEach((c) => leftover(c, page));
}

// The book's myst.yml (in the directory `myst build` runs in) when it names a scenario for every
// page (`exactattn-scenario: FILE` in its `project:` frontmatter): the arguments by which a page
// naming none takes it, found and confined by exactattn where it is named (myst.yml's folder).
// exactattn reads the file (its YAML, `project:` map); a mention that is no such entry is refused
// there, at myst.yml.
function projectScenario() {
  const file = join(process.cwd(), 'myst.yml');
  if (!existsSync(file) || !readFileSync(file, 'utf8').includes('exactattn-scenario:')) return [];
  return ['--scenario-from', file];
}

// The audit of the unmarked prose (docs/manuscript.md, "Auditing the unmarked prose"), off unless
// asked for by $EXACTATTN_AUDIT or by `exactattn-audit: true|strict` (and
// `exactattn-audit-min-coverage: P`) in myst.yml's project frontmatter or in the page's own front
// matter: the strictest taken, so no place turns off what another asked for (a page's `false` does
// not turn off myst.yml's `true`). Values are checked words and a percentage.
const LEVELS = { false: 0, no: 0, off: 0, true: 1, yes: 1, on: 1, strict: 2 };

// The lines of a page's own front matter (the YAML block that opens the file, between `---`
// lines), each with its line number; none when the page opens with no such block.
function frontMatter(page) {
  const lines = readFileSync(page, 'utf8').split('\n');
  if (!/^---[ \t]*\r?$/.test(lines[0] || '')) return [];
  const out = [];
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)[ \t]*\r?$/.test(lines[i])) return out;
    out.push([lines[i], i + 1]);
  }
  return [];  // never closed: no front matter (MyST reads it as text)
}

function auditSetting(page) {
  let level = 0;
  let least = null;
  const take = (key, text, where) => {
    if (key === 'exactattn-audit') {
      if (!(text.toLowerCase() in LEVELS)) stop(`${where}: exactattn-audit: ${text} is none of true, false and strict`);
      level = Math.max(level, LEVELS[text.toLowerCase()]);
    } else {
      if (!/^(\d+|\d*\.\d+)$/.test(text) || Number(text) > 100) {
        stop(`${where}: exactattn-audit-min-coverage: ${text} is not a percentage from 0 to 100`);
      }
      if (least === null || Number(text) > Number(least)) least = text;
    }
  };
  if (process.env.EXACTATTN_AUDIT) take('exactattn-audit', process.env.EXACTATTN_AUDIT, '$EXACTATTN_AUDIT');
  const file = join(process.cwd(), 'myst.yml');
  if (existsSync(file)) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const m = line.match(/^[ \t]+(exactattn-audit|exactattn-audit-min-coverage):[ \t]*(.*?)[ \t]*\r?$/);
      if (m) take(m[1], m[2].replace(/^(["'])(.*)\1$/, '$2'), `${file}:${i + 1}`);
    });
  }
  // The page's own front matter: a top-level key (MyST warns that it ignores it).
  for (const [line, n] of frontMatter(page)) {
    const m = line.match(/^(exactattn-audit|exactattn-audit-min-coverage):[ \t]*(.*?)[ \t]*\r?$/);
    if (m) take(m[1], m[2].replace(/^(["'])(.*)\1$/, '$2'), `${page}:${n}`);
  }
  return { level, least };
}

// What a failed audit shows: the lines of the numbers it calls wrong and its total, or, none being
// wrong (strict), each file's coverage and the total.
function auditLines(output) {
  const wrong = /:\d+:\d+: written /.test(output);
  return output.split('\n').filter((line) => {
    const after = line.match(/^.*?:\d+:\d+: (.*)$/);
    if (line.startsWith('manuscript audit: ')) return true;
    return wrong ? after !== null && after[1].startsWith('written ') : after === null && / unmarked \(\d+ verified, /.test(line);
  }).map((line) => `${line}\n`).join('');
}

function audited(page, from, setting) {
  const args = ['manuscript', 'audit', ...from];
  if (setting.level > 1) args.push('--strict', ...(setting.least !== null ? ['--min-coverage', setting.least] : []));
  args.push('--', page);
  try {
    execFileSync(binary(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  } catch (e) {
    if (e.status !== 1) {  // bad input, placed by exactattn
      process.stderr.write(e.stdout || '');
      process.stderr.write(e.stderr || '');
      stop(`${binary()} ${args.join(' ')} failed`, e.status || 2);
    }
    const shown = auditLines(e.stdout || '');
    process.stderr.write(shown);
    stop(/: written /.test(shown)
      ? 'an unmarked number is wrong (exactattn-audit): correct it, or mark the quantity it states '
        + '([W]{.exact ref="/pointer"}), or [W]{.noclaim} when it is no claim of the book'
      : 'fewer of the numeric claims are marked than exactattn-audit: strict asks for', 1);
  }
}

// A page that is a manuscript: checked, then its placeholders filled and its marks unwrapped.
function checked(tree, page, from) {
  // --marks-only: the audit the page asks for is run by audited() below, once, not by `check` too
  run(['manuscript', 'check', '--marks-only', ...from, '--', page]);
  const setting = auditSetting(page);
  if (setting.level > 0) audited(page, from, setting);
  const listed = JSON.parse(run(['manuscript', 'fill', '--format', 'json', ...from, '--', page]));
  // Marks first, so that a filled value (which may hold brackets) is never taken for a mark's.
  unwrap(tree);
  fill(tree, new Map(listed.map((p) => [p.source, p.filled])));
}

const checkAndFill = {
  name: 'exactattn: check and fill',
  doc: 'Checks every marked claim of a page with exactattn, fills its placeholders and unwraps its marks.',
  stage: 'document',
  plugin: () => (tree, vfile) => {
    const page = vfile.path;
    if (!page) stop('a page without a file name cannot be checked');
    // A page that names no scenario, in a book whose myst.yml names none (or that is no Markdown
    // file: a notebook), is not a manuscript, as in `exactattn manuscript check DIR`; a mark or
    // placeholder in it is refused below.
    const from = projectScenario();
    if (/\.(md|markdown|qmd)$/.test(page) && (from.length > 0 || readFileSync(page, 'utf8').includes('exactattn-scenario:'))) {
      checked(tree, page, from);
    }
    leftover(tree, page);
  },
};

const plugin = {
  name: 'exactattn',
  transforms: [checkAndFill],
};

export default plugin;
