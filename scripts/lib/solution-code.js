'use strict';
// The reference fix's code stays out of a walkthrough as a learner reads it
// (labs/NN/README.md in an editor, a terminal or on GitHub): the README holds
// a SOLUTION-CODE DIRECTIVE instead, an HTML comment that names the lines to
// show, and the site expands it at build time into a folded block of those
// lines, read from solutions/ (site/plugins/workbook/remark/solution-code.js).
//
//   <!-- solution-code: The reference fix's code: `hashPassword` and `/auth`
//   solutions/01-sync-pbkdf2/app.js 19-23 #3f2a9c1e
//   solutions/01-sync-pbkdf2/app.js 30-41 #0b7d44e2 The route, on the main thread:
//   -->
//
// The first line is the fold's summary (Markdown `code` allowed). Each next
// line is one excerpt: a file under solutions/, a range of its lines, a pin
// (#: the first 8 hex digits of the SHA-256 of those lines, trailing blanks
// and shared indentation left out), and an optional caption shown above the
// code. The pin gives the guarantee a quoted excerpt has: when the file's
// lines change, the directive no longer matches and `npx workbook dev check`
// (and the site's build) say so, so the prose around it is read again.
// `npx workbook dev pin` writes pins, follows lines that merely moved, and
// with --accept pins lines that changed.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const DIRECTIVE = /<!--\s*solution-code:([^\n]*)\n([\s\S]*?)-->/g;
const EXCERPT = /^(solutions\/[^\s]+)\s+(\d+)(?:-(\d+))?(?:\s+#([0-9a-f]{8}))?(?:\s+(.*))?$/;

/** Lines without trailing blanks or shared indentation: what a pin is taken of. */
function canonical(lines) {
  const trimmed = lines.map((l) => l.replace(/\s+$/, ''));
  const indents = trimmed.filter((l) => l !== '').map((l) => /^[ \t]*/.exec(l)[0].length);
  const common = indents.length ? Math.min(...indents) : 0;
  return trimmed.map((l) => l.slice(common));
}

function pinOf(lines) {
  return crypto.createHash('sha256').update(canonical(lines).join('\n')).digest('hex').slice(0, 8);
}

/**
 * The directives of a walkthrough's Markdown source.
 * @returns {Array<{line:number, index:number, length:number, summary:string,
 *   excerpts:Array<{line:number, path:string, from:number, to:number, pin:string|null, caption:string}>,
 *   problems:string[]}>} `line` 1-based; `problems` for lines that are not excerpts
 */
function parseDirectives(source) {
  const found = [];
  for (const m of source.matchAll(DIRECTIVE)) {
    const line = source.slice(0, m.index).split('\n').length;
    const directive = { line, index: m.index, length: m[0].length, summary: m[1].trim(), excerpts: [], problems: [] };
    m[2].split('\n').forEach((text, i) => {
      const trimmed = text.trim();
      if (!trimmed) return;
      const e = EXCERPT.exec(trimmed);
      if (!e) {
        directive.problems.push(`line ${line + 1 + i}: "${trimmed}" is not an excerpt (solutions/<path> FROM-TO #pin [caption])`);
        return;
      }
      const from = Number(e[2]);
      directive.excerpts.push({ line: line + 1 + i, path: e[1], from, to: e[3] ? Number(e[3]) : from, pin: e[4] || null, caption: (e[5] || '').trim() });
    });
    if (!directive.summary) directive.problems.push(`line ${line}: the directive has no summary (the words after "solution-code:")`);
    if (!directive.excerpts.length) directive.problems.push(`line ${line}: the directive names no excerpt`);
    found.push(directive);
  }
  return found;
}

/**
 * Where an excerpt stands against its file.
 * @param {string} root the workbook's root
 * @returns {{ok:true, lines:string[], from:number, to:number}
 *   | {ok:false, problem:string, moved?:{from:number, to:number}}}
 */
function resolveExcerpt(root, excerpt) {
  const file = path.join(root, ...excerpt.path.split('/'));
  if (!fs.existsSync(file)) return { ok: false, problem: `${excerpt.path} does not exist` };
  const fileLines = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n').split('\n');
  const { from, to } = excerpt;
  if (from < 1 || to < from || to > fileLines.length) return { ok: false, problem: `${excerpt.path} has no lines ${from}-${to} (it has ${fileLines.length})` };
  const lines = fileLines.slice(from - 1, to);
  if (!excerpt.pin) return { ok: false, problem: `${excerpt.path} ${from}-${to} has no pin (run npx workbook dev pin)` };
  if (pinOf(lines) === excerpt.pin) return { ok: true, lines: canonical(lines), from, to };
  // The same lines elsewhere in the file: moved, not changed.
  const length = to - from + 1;
  const at = [];
  for (let start = 0; start + length <= fileLines.length; start++) {
    if (pinOf(fileLines.slice(start, start + length)) === excerpt.pin) at.push(start + 1);
  }
  if (at.length === 1) {
    return { ok: false, moved: { from: at[0], to: at[0] + length - 1 }, problem: `${excerpt.path} ${from}-${to}: those lines moved to ${at[0]}-${at[0] + length - 1} (run npx workbook dev pin)` };
  }
  return {
    ok: false,
    problem: `${excerpt.path} ${from}-${to} changed since the walkthrough pinned it: read the prose around it again, fix the range if it should show other lines, then run npx workbook dev pin --accept`,
  };
}

/** The excerpt line of a directive, as written back by `pin`. */
function excerptLine(e) {
  return `${e.path} ${e.from === e.to ? e.from : `${e.from}-${e.to}`} #${e.pin}${e.caption ? ` ${e.caption}` : ''}`;
}

/**
 * Pins a walkthrough's directives: writes missing pins, follows lines that
 * moved, and (with `accept`) re-pins lines that changed.
 * @returns {{text:string, changes:string[], problems:string[]}}
 */
function pinDirectives(root, source, { accept = false } = {}) {
  const changes = [];
  const problems = [];
  let text = source;
  for (const directive of parseDirectives(source).reverse()) {
    problems.push(...directive.problems);
    const rewritten = directive.excerpts.map((e) => {
      const file = path.join(root, ...e.path.split('/'));
      if (!fs.existsSync(file)) {
        problems.push(`line ${e.line}: ${e.path} does not exist`);
        return e;
      }
      const fileLines = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n').split('\n');
      const stated = fileLines.slice(e.from - 1, e.to);
      if (!e.pin) {
        changes.push(`line ${e.line}: pinned ${e.path} ${e.from}-${e.to}`);
        return { ...e, pin: pinOf(stated) };
      }
      const where = resolveExcerpt(root, e);
      if (where.ok) return e;
      if (where.moved) {
        changes.push(`line ${e.line}: ${e.path} ${e.from}-${e.to} moved to ${where.moved.from}-${where.moved.to}`);
        return { ...e, ...where.moved };
      }
      if (accept && e.to <= fileLines.length) {
        changes.push(`line ${e.line}: re-pinned ${e.path} ${e.from}-${e.to} (its lines changed)`);
        return { ...e, pin: pinOf(stated) };
      }
      problems.push(`line ${e.line}: ${where.problem}`);
      return e;
    });
    // Inside a list item the directive is indented: keep its lines so.
    const indent = /[ \t]*$/.exec(text.slice(0, directive.index))[0];
    const block = [`<!-- solution-code: ${directive.summary}`, ...rewritten.map(excerptLine), '-->'].join(`\n${indent}`);
    text = text.slice(0, directive.index) + block + text.slice(directive.index + directive.length);
  }
  return { text, changes: changes.reverse(), problems };
}

// ---------------------------------------------------------------------------
// Solution code in plain sight: lines of a lab's solution folder that its
// shipped starter does not have, written into the walkthrough itself.

// Shorter lines (`});`, `res.json(body);`) are shared by too much code to tell a fix apart.
const MIN_LENGTH = 20;
// A single line a code block shares with the solutions, long enough to be the fix's own.
const DISTINCT_LENGTH = 32;

// Imports say which modules a file uses, not what it does with them.
const IMPORT = /^(const|let|var)\s+[^=]+=\s*require\(\s*['"][^'"]+['"]\s*\)[\w.]*;?$|^import\s/;

function codeLinesOf(text) {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= MIN_LENGTH && !/^(\/\/|\/\*|\*)/.test(l) && !IMPORT.test(l));
}

function jsFilesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : jsFilesUnder(full);
    return /\.(c|m)?js$/.test(d.name) && !/\.test\.js$/.test(d.name) ? [full] : [];
  });
}

/**
 * The lines that only the lab's solutions have: every line (of at least
 * MIN_LENGTH characters, not a comment) of a .js file under solutions/<slug>/
 * (the reference and its fixtures) that no shipped starter file of the lab
 * contains.
 * @param {string} solutionDir solutions/<slug>
 * @param {string[]} starterTexts the lab's shipped files
 * @returns {{only:Set<string>, starter:string[]}} the solutions' own lines,
 *   and the starter's lines (inline code found in them is the starter's)
 */
function solutionOnlyLines(solutionDir, starterTexts) {
  const starterLines = starterTexts.flatMap((t) => t.replace(/\r\n/g, '\n').split('\n').map((l) => l.trim()));
  const starter = new Set(starterLines);
  const only = new Set();
  for (const file of jsFilesUnder(solutionDir)) {
    for (const line of codeLinesOf(fs.readFileSync(file, 'utf8'))) if (!starter.has(line)) only.add(line);
  }
  return { only, starter: starterLines };
}

/**
 * Where a walkthrough shows solution code as plain text: code blocks titled
 * with a solutions/ path (an excerpt: use a directive), code blocks holding a
 * line only the solutions have, and inline code that is a piece of such a
 * line (and of no line of the starter). Output blocks (```text) show what a
 * tool printed and are not searched; file paths in inline code are names.
 * @param {object} walkthrough as readWalkthrough returns it
 * @param {{only:Set<string>, starter:string[]}} lines from solutionOnlyLines
 * @returns {Array<{line:number, text:string}>}
 */
function solutionCodeInSight(walkthrough, { only, starter }) {
  const found = [];
  for (const block of walkthrough.codeBlocks) {
    if (block.title && /^solutions\//.test(block.title)) {
      found.push({ line: block.line, text: `a code block quotes ${block.title} (a learner reads the README raw: show it with a solution-code directive, which the site folds in and the raw file does not show)` });
      continue;
    }
    if (block.lang === 'text') continue;
    // One line in common is evidence when it is long enough to be the fix's
    // own (a short one, `worker.on('error', (err) => {`, is an idiom any
    // program may share); two lines in common are, whatever their length.
    const shared = [...new Set(codeLinesOf(block.content).filter((l) => only.has(l)))];
    const hit = shared.find((l) => l.length >= DISTINCT_LENGTH) || (shared.length >= 2 ? shared[0] : null);
    if (hit) found.push({ line: block.line, text: `a code block holds ${shared.length > 1 ? `${shared.length} lines` : 'a line'} of the solution, such as "${hit}"` });
  }
  const onlyList = [...only];
  for (const code of walkthrough.inlineCode) {
    const text = code.text.trim();
    if (text.length < MIN_LENGTH || !/[(){}=;]/.test(text) || /^[\w.-]+(\/[\w.-]+)+$/.test(text)) continue;
    if (onlyList.some((l) => l.includes(text)) && !starter.some((l) => l.includes(text))) {
      found.push({ line: code.line, text: `inline code is a piece of the solution: \`${text}\`` });
    }
  }
  return found;
}

module.exports = { parseDirectives, resolveExcerpt, pinDirectives, pinOf, canonical, solutionOnlyLines, solutionCodeInSight, MIN_LENGTH };
