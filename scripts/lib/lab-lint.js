'use strict';
// `npx workbook dev check`: lints every lab without measuring anything. Each
// problem is one line that names the lab, what is wrong and where. Structure
// only (files, sections, hints, excerpts, the check's contract, the shipped
// starter's record, captures, generated tables): the measured verdicts are
// `npm test`'s job.
//
// Works on any workbook root, so a test can lint a scaffolded copy.

const fs = require('node:fs');
const path = require('node:path');
const { readLabs } = require('./labs');
const { SECTIONS, readWalkthrough } = require('./walkthrough');
const { VERDICTS_TEST, TRAINER_SECTIONS } = require('./lab-template');
const { captureKinds } = require('../checks/define-check');
const { parseDirectives, resolveExcerpt, solutionOnlyLines, solutionCodeInSight } = require('./solution-code');
const { labTable, README_MARKERS, CLASSROOM_WORKFLOW, classroomWorkflow, staleToolMatrixTables } = require('./lab-tables');

/** Repository paths named in a walkthrough, e.g. `labs/NN-slug/app.js`. */
const REPO_PATH = /^(labs|solutions|scripts|test|site)\/[\w./-]+$/;
const SLUG = /^\d\d-[a-z0-9]+(-[a-z0-9]+)*$/;

function read(file) {
  return fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
}

function exists(file) {
  return fs.existsSync(file);
}

/** Problems with labs/labs.json itself, and folders it does not list. */
function lintMetadata(root) {
  const problems = [];
  const file = path.join(root, 'labs', 'labs.json');
  let entries;
  try {
    entries = JSON.parse(read(file));
  } catch (err) {
    return { problems: [`labs/labs.json: not valid JSON (${err.message})`], labs: [] };
  }
  if (!Array.isArray(entries)) return { problems: ['labs/labs.json: must be a list of labs'], labs: [] };
  let previous = 0;
  for (const [i, e] of entries.entries()) {
    const where = `labs/labs.json entry ${i + 1}${e && e.slug ? ` (${e.slug})` : ''}`;
    if (!e || !SLUG.test(e.slug || '')) problems.push(`${where}: slug must look like 05-some-name`);
    else {
      const n = Number(e.slug.slice(0, 2));
      if (n <= previous) problems.push(`${where}: labs must be listed in increasing number order`);
      previous = n;
    }
    if (!e || typeof e.title !== 'string' || !e.title.trim()) problems.push(`${where}: no title`);
    if (!e || !Number.isInteger(e.minutes) || e.minutes <= 0) problems.push(`${where}: minutes must be a whole number`);
    if (!e || typeof e.teaches !== 'string' || !e.teaches.trim()) problems.push(`${where}: no "teaches" (what the lab teaches, one line)`);
  }
  const listed = new Set(entries.map((e) => e && e.slug));
  for (const d of fs.readdirSync(path.join(root, 'labs'), { withFileTypes: true })) {
    if (d.isDirectory() && !listed.has(d.name)) problems.push(`labs/${d.name}: a lab folder missing from labs/labs.json (add its entry there)`);
  }
  for (const d of exists(path.join(root, 'solutions')) ? fs.readdirSync(path.join(root, 'solutions'), { withFileTypes: true }) : []) {
    if (d.isDirectory() && !listed.has(d.name)) problems.push(`solutions/${d.name}: no lab of that name in labs/labs.json`);
  }
  return { problems, labs: problems.length ? [] : readLabs(root) };
}

function lintFiles(lab, rel) {
  const problems = [];
  const need = [
    [lab.app, 'the starter'],
    [lab.readme, 'the walkthrough'],
    [lab.checkModule, 'the check'],
    [lab.testFile, 'the verdict test'],
    [path.join(lab.checkDir, 'trainers.md'), "the trainers' notes"],
    [lab.solutionApp, 'the reference solution'],
  ];
  for (const [file, what] of need) if (!exists(file)) problems.push(`${rel(file)}: missing (${what})`);
  if (exists(lab.testFile) && read(lab.testFile) !== VERDICTS_TEST) {
    problems.push(`${rel(lab.testFile)}: differs from the standard one-line verdict test (npx workbook dev new writes it)`);
  }
  const trainers = path.join(lab.checkDir, 'trainers.md');
  if (exists(trainers)) {
    const headings = read(trainers).split('\n').filter((l) => /^## /.test(l)).map((l) => l.slice(3).trim());
    if (JSON.stringify(headings) !== JSON.stringify(TRAINER_SECTIONS)) {
      problems.push(`${rel(trainers)}: sections are ${headings.join(', ') || 'none'}; expected ${TRAINER_SECTIONS.join(', ')}`);
    }
  }
  if (exists(lab.marginsFile)) {
    try {
      JSON.parse(read(lab.marginsFile));
    } catch (err) {
      problems.push(`${rel(lab.marginsFile)}: not valid JSON (${err.message})`);
    }
  }
  return problems;
}

function lintWalkthrough(lab, root, rel, shippedText) {
  if (!exists(lab.readme)) return [];
  const problems = [];
  const where = rel(lab.readme);
  const text = read(lab.readme);
  const w = readWalkthrough(lab.readme);
  if (!w.title.startsWith(`Lab ${lab.id} · `)) problems.push(`${where}: the title must start with "Lab ${lab.id} · "`);
  const missing = SECTIONS.filter((s) => !w.sections.includes(s));
  if (missing.length) problems.push(`${where}: missing the section${missing.length > 1 ? 's' : ''} ${missing.map((s) => `"${s}"`).join(', ')}`);
  const standard = w.sections.filter((s) => SECTIONS.includes(s));
  if (!missing.length && JSON.stringify(standard) !== JSON.stringify(SECTIONS)) {
    problems.push(`${where}: sections out of order (${standard.join(' → ')}); expected ${SECTIONS.join(' → ')}`);
  }
  if (w.hints.length < 3 || w.hints.length > 4) problems.push(`${where}: a hint ladder of ${w.hints.length}; it needs 3 or 4 hints`);
  const todo = text.split('\n').findIndex((l) => /\bTODO\b/.test(l));
  if (todo >= 0) problems.push(`${where}:${todo + 1}: still has a TODO from the scaffold`);
  if (/\bTODO\b/.test(lab.teaches || '')) problems.push(`labs/labs.json (${lab.slug}): "teaches" still has the scaffold's TODO`);
  // The lab table (labs.json's minutes) and the walkthrough give one time.
  const time = /^- \*\*Time:\*\* about (\d+) minutes/m.exec(text);
  if (!time) problems.push(`${where}: no "- **Time:** about N minutes" line`);
  else if (Number(time[1]) !== lab.minutes) problems.push(`${where}: says about ${time[1]} minutes, labs/labs.json says ${lab.minutes}`);
  for (const { text: code, line } of w.inlineCode) {
    if (REPO_PATH.test(code) && !exists(path.join(root, code))) problems.push(`${where}:${line}: names ${code}, which does not exist`);
  }
  for (const { href, line } of w.links) {
    if (/^[a-z]+:|^#/.test(href)) continue;
    if (!exists(path.resolve(lab.dir, decodeURIComponent(href.split('#')[0])))) problems.push(`${where}:${line}: links to ${href}, which does not exist`);
  }
  for (const block of w.codeBlocks.filter((b) => b.title && REPO_PATH.test(b.title))) {
    const found = shippedText(block.title);
    if (found === null) problems.push(`${where}:${block.line}: quotes ${block.title}, which does not exist`);
    else if (!found.includes(block.content.replace(/\n$/, ''))) problems.push(`${where}:${block.line}: the excerpt of ${block.title} is not in that file as written`);
  }
  problems.push(...lintSolutionCode(lab, root, where, text, w, shippedText));
  problems.push(...lintFolded(where, text));
  problems.push(...lintControlCharacters(where, text));
  for (const c of w.counts.filter((c) => c.inline)) {
    problems.push(`${where}:${c.line}: a count marker mid-sentence ("${c.written}<!-- count: ${c.key} -->"): name it at the end of its paragraph instead, <!-- counts: ${c.written} = ${c.key} -->`);
  }
  return problems;
}

/**
 * A control character pasted from a terminal (the backspace `node inspect`
 * prints before "break in", an escape of a colour) shows as a stray glyph
 * on the site and in an editor, and the site's HTML minifier complains of
 * it: one problem per line that has one. Tabs and line ends are text.
 */
function lintControlCharacters(where, text) {
  const problems = [];
  for (const [i, line] of text.split('\n').entries()) {
    const found = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.exec(line);
    if (found) problems.push(`${where}:${i + 1}: a control character (U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}) in the text, likely pasted from a terminal: remove it`);
  }
  return problems;
}

/**
 * The hints and the fix stay folded in the raw file: a learner reading the
 * README on GitHub or in an editor sees neither unless they open it. Each of
 * the two sections holds one <details> around all its content (the site
 * drops the one around the hints and folds each hint on its own).
 */
function lintFolded(where, text) {
  const problems = [];
  const lines = text.split('\n');
  for (const title of ['Hints', 'Fix']) {
    const start = lines.findIndex((l) => l.trim() === `## ${title}`);
    if (start < 0) continue;
    let end = start + 1;
    while (end < lines.length && !/^## /.test(lines[end])) end++;
    const body = lines.slice(start + 1, end).map((l) => l.trim()).filter(Boolean);
    const folded = body[0] === '<details>' && /^<summary>.+<\/summary>$/.test(body[1] || '') && body.at(-1) === '</details>' && body.filter((l) => l === '<details>').length === 1;
    if (!folded) problems.push(`${where}:${start + 1}: the "${title}" section must be folded in one <details><summary>…</summary> … </details> (learners read the README raw)`);
  }
  return problems;
}

/**
 * The reference fix stays out of the walkthrough as a learner reads it: no
 * solution code in plain sight, and every solution-code directive (the site
 * folds those lines in at build time) names lines that are still there.
 * See scripts/lib/solution-code.js.
 */
function lintSolutionCode(lab, root, where, text, w, shippedText) {
  const problems = [];
  for (const directive of parseDirectives(text)) {
    for (const p of directive.problems) problems.push(`${where}: solution-code ${p}`);
    for (const e of directive.excerpts) {
      if (!e.path.startsWith(`solutions/${lab.slug}/`)) problems.push(`${where}:${e.line}: a solution-code directive may show only this lab's solutions (solutions/${lab.slug}/…), not ${e.path}`);
      const resolved = resolveExcerpt(root, e);
      if (!resolved.ok) problems.push(`${where}:${e.line}: solution-code: ${resolved.problem}`);
    }
  }
  const starterFiles = fs
    .readdirSync(lab.dir, { withFileTypes: true })
    .filter((d) => d.isFile() && /\.(c|m)?js$/.test(d.name) && !d.name.startsWith('.'))
    .map((d) => shippedText(`labs/${lab.slug}/${d.name}`))
    .filter((t) => t !== null);
  const lines = solutionOnlyLines(path.join(root, 'solutions', lab.slug), starterFiles);
  for (const found of solutionCodeInSight(w, lines)) {
    problems.push(`${where}:${found.line}: the reference fix in plain sight: ${found.text}`);
  }
  return problems;
}

function lintCheck(lab, rel) {
  if (!exists(lab.checkModule)) return { problems: [], check: null };
  try {
    return { problems: [], check: require(lab.checkModule) };
  } catch (err) {
    return { problems: [`${rel(lab.checkModule)}: ${err.message.split('\n')[0]}`], check: null };
  }
}

function lintShipped(lab, root, rel) {
  const manifestFile = path.join(root, 'scripts', 'lib', 'shipped-starters.json');
  const manifest = exists(manifestFile) ? JSON.parse(read(manifestFile)) : {};
  const recorded = manifest[lab.slug];
  if (!recorded || !recorded['app.js']) return [`${rel(lab.dir)}: its shipped starter is not recorded (run node scripts/dev/record-shipped.js)`];
  const problems = [];
  for (const file of Object.keys(recorded)) {
    if (!exists(path.join(lab.dir, file))) problems.push(`${rel(path.join(lab.dir, file))}: recorded as a starter file, but missing`);
  }
  return problems;
}

function lintCaptures(lab, check, root, rel) {
  if (!check || !check.captures.length) return [];
  const indexFile = path.join(root, 'site', 'static', 'captures', 'index.json');
  const index = exists(indexFile) ? JSON.parse(read(indexFile)) : { labs: {} };
  const entry = index.labs && index.labs[lab.slug];
  if (!entry) return [`${rel(lab.checkModule)}: lists captures, but none are recorded (run npm run capture -- --lab ${lab.id})`];
  const problems = [];
  const kinds = new Set((entry.files || []).map((f) => f.kind));
  for (const c of check.captures) {
    for (const kind of captureKinds(c)) if (!kinds.has(kind)) problems.push(`${rel(lab.checkModule)}: the capture "${kind}" is missing (run npm run capture -- --lab ${lab.id})`);
  }
  for (const f of entry.files || []) {
    if (!exists(path.join(root, 'site', 'static', ...f.path.split('/')))) problems.push(`site/static/${f.path}: listed in captures/index.json, but missing`);
  }
  return problems;
}

function lintReadmeTable(root, labs) {
  const file = path.join(root, 'README.md');
  if (!exists(file)) return [];
  const text = read(file);
  const start = text.indexOf(README_MARKERS.start);
  const end = text.indexOf(README_MARKERS.end);
  if (start < 0 || end < start) return [`README.md: no generated lab table (${README_MARKERS.start} … ${README_MARKERS.end})`];
  const current = text.slice(start + README_MARKERS.start.length, end).trim();
  return current === labTable(labs).trim() ? [] : ['README.md: the lab table is out of date with labs/labs.json (run npx workbook dev tables)'];
}

function lintClassroom(root, labs) {
  const file = path.join(root, CLASSROOM_WORKFLOW);
  const rel = CLASSROOM_WORKFLOW.split(path.sep).join('/');
  if (!exists(file)) return [`${rel}: missing (run npx workbook dev tables)`];
  return read(file) === classroomWorkflow(labs) ? [] : [`${rel}: out of date with labs/labs.json (run npx workbook dev tables)`];
}

function lintToolMatrix(root, labs, rel) {
  return staleToolMatrixTables(root, labs).map(({ file, problem }) => `${rel(file)}: ${problem}`);
}

/**
 * Lints the workbook at `root`.
 * @returns {string[]} one line per problem; empty when all is well
 */
function lintWorkbook(root) {
  const rel = (file) => path.relative(root, file).split(path.sep).join('/');
  const { problems, labs } = lintMetadata(root);
  const { shippedContent } = require('./shipped');
  const shippedText = (relativePath) => {
    const [top, slug, ...rest] = relativePath.split('/');
    const lab = labs.find((l) => l.slug === slug);
    if (top === 'labs' && lab && root === require('./labs').ROOT) {
      const got = shippedContent(lab, rest.join('/'));
      if (!got.error) return got.content;
    }
    const full = path.join(root, relativePath);
    return exists(full) ? read(full) : null;
  };
  for (const lab of labs) {
    problems.push(...lintFiles(lab, rel));
    problems.push(...lintWalkthrough(lab, root, rel, shippedText));
    const { problems: contract, check } = lintCheck(lab, rel);
    problems.push(...contract);
    problems.push(...lintShipped(lab, root, rel));
    problems.push(...lintCaptures(lab, check, root, rel));
  }
  if (labs.length) problems.push(...lintReadmeTable(root, labs), ...lintClassroom(root, labs), ...lintToolMatrix(root, labs, rel));
  return problems;
}

module.exports = { lintWorkbook, lintControlCharacters };
