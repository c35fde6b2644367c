#!/usr/bin/env node
'use strict';
// `npm run capture [-- --lab ID ...] [--only KIND ...]`: runs each lab's
// walkthrough steps on this machine and stores what they print for the site:
// autocannon tables before and after the fix, the profilers' readings, a
// flame graph, a Clinic Doctor report, and the check's results for the
// starter and the solution (the site draws its charts from those).
// Everything records the Node version, CPU and date it came from. `--only`
// re-records some kinds (e.g. `--only results`, `--only bubbleprof`) and
// keeps the lab's other captures. Output: site/static/captures/.
//
// Run it on a quiet machine: it measures.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs, stripVTControlCharacters: stripAnsi } = require('node:util');
const autocannon = require('autocannon');
const { labs, findLab, ROOT, relative, checkOf } = require('./lib/labs');
const { runCheck, environment } = require('./checks/run-check');
const { materializeShipped } = require('./lib/shipped');
const { startApp } = require('./harness/app-process');
const { applyStandardLoad, outputDir } = require('./profile/session');
const { exitOnSignals, killAll } = require('./harness/children');
const { printProgress } = require('./cli/progress-printer');
const tools = require('./profile/tools');
const { captureKinds } = require('./checks/define-check');

const { CAPTURES_INDEX: INDEX, readCapturesIndex } = require('./lib/captures');

const OUT = path.dirname(INDEX);

// What each walkthrough shows comes from its check's `captures`: `load` =
// autocannon's table for the starter and the solution; `tool` = a profiler's
// printed reading (and its picture).

const TITLES = {
  'autocannon-before': 'autocannon, the starter',
  'autocannon-after': 'autocannon, the reference solution',
  prof: 'node --prof, then --prof-process: the summary, the heavy profile and the hot spot',
  cpu: '--cpu-prof, read by `npx workbook profile --tool cpu`',
  startup: 'The start-up, from the first line to the first answers (--cpu-prof and the timeline), read by `npx workbook profile --tool startup`',
  'startup-solution': 'The reference solution\'s start-up, read by `npx workbook profile --tool startup --solution`',
  gc: '--trace-gc, read by `npx workbook profile --tool gc`',
  alloc: 'A sampling heap profile of the load, collected objects included, read by `npx workbook profile --tool alloc`',
  'alloc-solution': 'The same sampling heap profile of the reference solution, `npx workbook profile --tool alloc --solution`',
  heap: 'Two heap snapshots compared by `npx workbook profile --tool heap`',
  'clinic-doctor': 'Clinic.js Doctor\'s verdict',
  flamegraph: 'Flame graph from the CPU profile (your file in blue)',
  'cpu-solution': '--cpu-prof of the reference solution, read by `npx workbook profile --tool cpu --solution`',
  'flamegraph-solution': 'Flame graph of the reference solution\'s CPU profile',
  bubbleprof: 'Clinic.js Bubbleprof\'s bubbles as a tree, printed by `npx workbook profile --tool bubbleprof`',
  'bubbleprof-solution': 'Clinic.js Bubbleprof\'s bubbles of the reference solution, as a tree',
  'doctor-report': 'Clinic.js Doctor\'s report',
  report: 'The diagnostic report of an out-of-memory crash (--report-on-fatalerror), read by `npx workbook profile --tool report`',
  'report-solution': 'The reference solution under the same load and heap limit, `npx workbook profile --tool report --solution`',
  'oom-snapshot': 'The heap snapshot written near the heap limit (--heapsnapshot-near-heap-limit), read by `npx workbook profile --tool oom-snapshot`',
};

/** The machine the captures come from, as the checks describe it, and when. */
function machine() {
  return { ...environment(), date: new Date().toISOString() };
}

async function captureLoad(lab, file, progress) {
  const app = await startApp(file, { lab, progress });
  try {
    const load = await applyStandardLoad({ lab, url: app.url, duration: checkOf(lab).standardLoad.duration, progress });
    return stripAnsi(autocannon.printResult(load.raw, { renderProgressBar: false }));
  } finally {
    await app.stop();
  }
}

async function captureTool(lab, name, file, progress) {
  const tool = tools[name];
  const dir = outputDir(lab, `capture-${name}`);
  const printed = [];
  const result = await tool.run({ lab, file, dir, duration: 10, progress, print: (text) => text && printed.push(stripAnsi(text)) });
  const text = printed.join('\n\n').split(ROOT + path.sep).join('');
  return { text, result, dir };
}

/** The kinds of file one capture step writes: its own, plus a flame graph or an HTML report. */
function stepFileKinds(step) {
  const suffix = step.solution ? '-solution' : '';
  if (step.tool === 'cpu') return [...captureKinds(step), `flamegraph${suffix}`];
  if (step.tool === 'clinic-doctor') return [...captureKinds(step), `doctor-report${suffix}`];
  return captureKinds(step);
}

/**
 * Captures one lab. With `only` (capture kinds, or "results" for the
 * checks' results), it captures just those and keeps the rest of the lab's
 * recorded captures (`previous`), so that re-recording one tool's output does
 * not change every figure a walkthrough quotes; each file then records the
 * machine and date it came from.
 */
async function captureLab(lab, progress, { only = null, previous = null } = {}) {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(`cannot capture lab ${lab.id}: ${shipped.error}`);
  const starter = shipped.app;
  const labDir = path.join(OUT, lab.slug);
  const wanted = (kinds) => !only || kinds.some((kind) => only.includes(kind));
  if (!only) fs.rmSync(labDir, { recursive: true, force: true });
  fs.mkdirSync(labDir, { recursive: true });
  const steps = checkOf(lab).captures.filter((step) => wanted(captureKinds(step)));
  const replaced = new Set(steps.flatMap(stepFileKinds));
  const files = only ? (previous?.files || []).filter((f) => !replaced.has(f.kind)) : [];
  const save = (kind, name, content, format = 'text') => {
    fs.writeFileSync(path.join(labDir, name), content);
    files.push({ kind, title: TITLES[kind] || kind, path: `captures/${lab.slug}/${name}`, format, ...(only ? { machine: machine() } : {}) });
  };

  let results = previous?.results;
  if (wanted(['results'])) {
    progress(`Lab ${lab.id}: checking the starter and the solution`);
    results = {
      starter: await runCheck(lab, { app: starter, onProgress: (e) => progress(`  starter: ${e.text}`) }),
      solution: await runCheck(lab, { app: lab.solutionApp, onProgress: (e) => progress(`  solution: ${e.text}`) }),
    };
    // The starter ran from a scratch copy; name it as the learner knows it.
    results.starter.app = relative(lab.app);
  }

  for (const step of steps) {
    if (step.load) {
      progress(`Lab ${lab.id}: autocannon on the starter`);
      save('autocannon-before', 'autocannon-before.txt', await captureLoad(lab, starter, progress));
      progress(`Lab ${lab.id}: autocannon on the solution`);
      save('autocannon-after', 'autocannon-after.txt', await captureLoad(lab, lab.solutionApp, progress));
    } else {
      // A tool runs on the starter, or with `solution: true` on the reference
      // fix (for a walkthrough that shows both profiles side by side).
      const onSolution = Boolean(step.solution);
      const file = onSolution ? lab.solutionApp : starter;
      const [kind] = captureKinds(step);
      const suffix = onSolution ? '-solution' : '';
      progress(`Lab ${lab.id}: ${step.tool}${onSolution ? ' on the solution' : ''}`);
      const { text, result, dir } = await captureTool(lab, step.tool, file, progress);
      // The starter ran from a scratch copy of the lab's files: show them under the paths the learner knows.
      const asLab = (content) => content.split(path.relative(ROOT, path.dirname(starter)).split(path.sep).join('/')).join(relative(lab.dir));
      save(kind, `${kind}.txt`, asLab(text));
      if (step.tool === 'cpu' && result.flamegraph) save(`flamegraph${suffix}`, `flamegraph${suffix}.svg`, asLab(fs.readFileSync(result.flamegraph, 'utf8')), 'svg');
      if (step.tool === 'clinic-doctor') save(`doctor-report${suffix}`, `doctor${suffix}.html`, fs.readFileSync(result.open), 'html');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return { machine: only && previous?.machine ? previous.machine : machine(), results, files };
}

async function main() {
  const { values } = parseArgs({ options: { lab: { type: 'string', multiple: true }, only: { type: 'string', multiple: true } } });
  const chosen = values.lab ? values.lab.map((id) => findLab(id) || usage(id)) : labs;
  const only = values.only ? values.only.flatMap((v) => v.split(',')) : null;
  if (only) {
    for (const lab of chosen) {
      const known = ['results', ...checkOf(lab).captures.flatMap(captureKinds)];
      const unknown = only.filter((kind) => !known.includes(kind));
      if (unknown.length) {
        console.error(`Lab ${lab.id} has no capture "${unknown.join('", "')}"; it has: ${known.join(', ')}.`);
        process.exit(2);
      }
    }
  }
  const progress = printProgress(process.stderr);
  for (const lab of chosen) {
    const before = readCapturesIndex().labs[lab.slug] ?? null;
    const captured = await captureLab(lab, progress, { only, previous: before });
    // Read the index again just before writing: another capture (of another
    // lab) may have written it meanwhile.
    const index = readCapturesIndex();
    index.labs[lab.slug] = captured;
    index.generatedAt = new Date().toISOString();
    fs.writeFileSync(INDEX, JSON.stringify(index, null, 2) + '\n');
    progress(`Lab ${lab.id} captured in ${path.relative(ROOT, path.join(OUT, lab.slug))}/${only ? ` (${only.join(', ')}; the rest kept)` : ''}`);
  }
}

function usage(id) {
  console.error(`There is no lab "${id}". Usage: npm run capture [-- --lab ID ...] [--only KIND ...]`);
  process.exit(2);
}

exitOnSignals(() => process.stderr.write('\nCapture interrupted; every process it started has been ended.\n'));
main()
  .then(() => process.exit(0))
  .catch((err) => {
    killAll();
    console.error(`Capture stopped: ${err.message}`);
    process.exit(1);
  });
