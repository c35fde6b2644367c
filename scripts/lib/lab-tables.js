'use strict';
// Everything generated from one source so that no copy can drift: from
// labs/labs.json, the README's lab table (between its markers) and the
// GitHub Classroom autograding workflow; from scripts/dev/tool-matrix.json
// (one run of scripts/dev/tool-matrix.js), every table of the profiler
// matrix, in the README and in the walkthroughs. `npx workbook dev tables`
// rewrites them; `dev check` says when one is stale.

const fs = require('node:fs');
const path = require('node:path');

const README_MARKERS = {
  start: '<!-- labs:start (generated from labs/labs.json by `npx workbook dev tables`) -->',
  end: '<!-- labs:end -->',
};

/** The README's lab table, as Markdown. */
function labTable(labs) {
  return [
    '| Lab | What it teaches | Time |',
    '|---|---|---|',
    ...labs.map((lab) => `| [${lab.id} · ${lab.title}](labs/${lab.slug}/README.md) | ${lab.teaches} | ${lab.minutes} min |`),
  ].join('\n');
}

/** Rewrites the README's generated table; returns true when it changed. */
function writeReadmeTable(root, labs) {
  const file = path.join(root, 'README.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(README_MARKERS.start);
  const end = text.indexOf(README_MARKERS.end);
  if (start < 0 || end < start) throw new Error(`README.md has no ${README_MARKERS.start} … ${README_MARKERS.end} markers to write the lab table between.`);
  const next = `${text.slice(0, start + README_MARKERS.start.length)}\n${labTable(labs)}\n${text.slice(end)}`;
  if (next === text) return false;
  fs.writeFileSync(file, next);
  return true;
}

const CLASSROOM_WORKFLOW = path.join('.github', 'workflows', 'classroom.yml');

/**
 * A GitHub Classroom autograding workflow: one graded step per lab, each the
 * same check a learner runs (`npx workbook check NN`), worth one point. The
 * checks are machine-relative, so a 2- or 4-vCPU runner judges as a laptop does.
 */
function classroomWorkflow(labs) {
  const id = (lab) => `lab-${lab.id}`;
  return [
    '# Generated from labs/labs.json by `npx workbook dev tables`: do not edit by hand.',
    '# GitHub Classroom autograding: each lab\'s check on the learner\'s repository,',
    '# one point per lab that passes. A check that says "too noisy" fails its step;',
    '# re-run the job.',
    'name: Autograding',
    "'on':",
    '  - push',
    '  - workflow_dispatch',
    '  - repository_dispatch',
    'permissions:',
    '  checks: write',
    '  actions: read',
    '  contents: read',
    'jobs:',
    '  run-autograding-tests:',
    '    runs-on: ubuntu-latest',
    "    if: github.actor != 'github-classroom[bot]'",
    '    steps:',
    '      - uses: actions/checkout@v4',
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: 22',
    '      - name: Install the workbook',
    '        run: npm ci --no-audit --no-fund',
    ...labs.flatMap((lab) => [
      `      - name: '${`Lab ${lab.id} · ${lab.title}`.replace(/'/g, "''")}'`,
      `        id: ${id(lab)}`,
      '        uses: classroom-resources/autograding-command-grader@v1',
      '        with:',
      `          test-name: 'Lab ${lab.id}'`,
      "          setup-command: ''",
      `          command: npx workbook check ${lab.id}`,
      '          timeout: 5',
      '          max-score: 1',
    ]),
    '      - name: Autograding Reporter',
    '        uses: classroom-resources/autograding-grading-reporter@v1',
    '        env:',
    ...labs.map((lab) => `          ${id(lab).toUpperCase()}_RESULTS: "\${{steps.${id(lab)}.outputs.result}}"`),
    '        with:',
    `          runners: ${labs.map(id).join(',')}`,
    '',
  ].join('\n');
}

/** Rewrites the classroom workflow; returns true when it changed. */
function writeClassroomWorkflow(root, labs) {
  const file = path.join(root, CLASSROOM_WORKFLOW);
  const next = classroomWorkflow(labs);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === next) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, next);
  return true;
}

// The profiler matrix. A table of it sits between two markers; the start
// marker says which rows it shows ("all", or tool@lab pairs):
//   <!-- tool-matrix:start rows="prof@01 cpu@01" (generated from scripts/dev/tool-matrix.json by `npx workbook dev tables`) -->
//   …table…
//   <!-- tool-matrix:end -->
const TOOL_MATRIX_FILE = path.join(__dirname, '..', 'dev', 'tool-matrix.json');
const TOOL_MATRIX_START = /<!-- tool-matrix:start rows="([^"]*)"[^>]*-->/g;
const TOOL_MATRIX_END = '<!-- tool-matrix:end -->';

/** The recorded matrix at `root` (the workbook's own by default), or null when there is none. */
function readToolMatrix(root) {
  const file = root ? path.join(root, path.relative(path.join(__dirname, '..', '..'), TOOL_MATRIX_FILE)) : TOOL_MATRIX_FILE;
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

/**
 * The matrix as a Markdown table: every row, or the `tool@lab` pairs of
 * `rows` in that order, with a line saying where and when it was measured.
 * @throws {Error} when a pair asked for is not in the matrix
 */
function toolMatrixTable(matrix, rows = 'all') {
  const key = (r) => `${r.tool}@${r.lab}`;
  const wanted = rows === 'all' ? matrix.rows : rows.split(/\s+/).filter(Boolean).map((k) => {
    const row = matrix.rows.find((r) => key(r) === k);
    if (!row) throw new Error(`the tool matrix has no row ${k} (it has ${matrix.rows.map(key).join(', ')})`);
    return row;
  });
  const label = (r) => `\`${r.tool}\` on lab ${r.lab}${r.duration && r.duration !== matrix.duration ? ` (${r.duration} s)` : ''}`;
  return [
    `| tool | ${matrix.versions.map((v) => `Node ${v.replace(/^v/, '')}`).join(' | ')} |`,
    `|---|${matrix.versions.map(() => '---').join('|')}|`,
    ...wanted.map((r) => `| ${label(r)} | ${r.cells.join(' | ')} |`),
    '',
    `Measured on ${matrix.date} with \`node scripts/dev/tool-matrix.js\` (${matrix.machine}; ${matrix.duration} s of the lab's standard load per run${
      wanted.some((r) => r.duration) ? ', `gc` 10 s' : ''
    }); recorded in \`scripts/dev/tool-matrix.json\`.`,
  ].join('\n');
}

/** `text` with every tool-matrix table regenerated from `matrix`. */
function withToolMatrixTables(text, matrix) {
  return text.replace(new RegExp(`(${TOOL_MATRIX_START.source})[\\s\\S]*?${escapeRegExp(TOOL_MATRIX_END)}`, 'g'), (whole, start, rows) => `${start}\n\n${toolMatrixTable(matrix, rows)}\n\n${TOOL_MATRIX_END}`);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The files that hold tool-matrix tables: the README and the walkthroughs. */
function toolMatrixFiles(root, labs) {
  return [path.join(root, 'README.md'), ...labs.map((lab) => lab.readme)].filter((f) => fs.existsSync(f));
}

/**
 * The files whose tool-matrix tables differ from the recorded matrix, with
 * the reason when a table cannot be generated (a row it names is missing).
 * @returns {Array<{file:string, problem:string}>}
 */
function staleToolMatrixTables(root, labs) {
  const matrix = readToolMatrix(root);
  const stale = [];
  for (const file of toolMatrixFiles(root, labs)) {
    const text = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
    if (!new RegExp(TOOL_MATRIX_START.source).test(text)) continue;
    if (!matrix) {
      stale.push({ file, problem: 'has a tool-matrix table, but scripts/dev/tool-matrix.json is missing' });
      continue;
    }
    try {
      if (withToolMatrixTables(text, matrix) !== text) stale.push({ file, problem: 'its tool-matrix table is out of date with scripts/dev/tool-matrix.json (run npx workbook dev tables)' });
    } catch (err) {
      stale.push({ file, problem: `its tool-matrix table cannot be generated: ${err.message}` });
    }
  }
  return stale;
}

/** Rewrites every tool-matrix table; returns the files that changed. */
function writeToolMatrixTables(root, labs) {
  const matrix = readToolMatrix(root);
  if (!matrix) return [];
  const changed = [];
  for (const file of toolMatrixFiles(root, labs)) {
    const text = fs.readFileSync(file, 'utf8');
    const next = withToolMatrixTables(text, matrix);
    if (next !== text) {
      fs.writeFileSync(file, next);
      changed.push(file);
    }
  }
  return changed;
}

module.exports = {
  README_MARKERS,
  CLASSROOM_WORKFLOW,
  TOOL_MATRIX_FILE,
  labTable,
  writeReadmeTable,
  classroomWorkflow,
  writeClassroomWorkflow,
  readToolMatrix,
  toolMatrixTable,
  staleToolMatrixTables,
  writeToolMatrixTables,
};
