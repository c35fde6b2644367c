'use strict';
// Everything that lists the labs, generated from labs/labs.json so none can
// miss a lab: the README's lab table (between its markers) and the GitHub
// Classroom autograding workflow. `npx workbook dev tables` rewrites them;
// `dev check` says when one is stale.

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

module.exports = { README_MARKERS, CLASSROOM_WORKFLOW, labTable, writeReadmeTable, classroomWorkflow, writeClassroomWorkflow };
