#!/usr/bin/env node
'use strict';
// `npm run capture [-- --lab ID ...]`: runs each lab's walkthrough steps on
// this machine and stores what they print for the site: autocannon tables
// before and after the fix, the profilers' readings, a flame graph, a Clinic
// Doctor report, and the check's results for the starter and the solution
// (the site draws its charts from those). Everything records the Node
// version, CPU and date it came from. Output: site/static/captures/.
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

const OUT = path.join(ROOT, 'site', 'static', 'captures');
const INDEX = path.join(OUT, 'index.json');

// What each walkthrough shows comes from its check's `captures`: `load` =
// autocannon's table for the starter and the solution; `tool` = a profiler's
// printed reading (and its picture).

const TITLES = {
  'autocannon-before': 'autocannon, the starter',
  'autocannon-after': 'autocannon, the reference solution',
  prof: 'node --prof, then --prof-process: the summary, the heavy profile and the hot spot',
  cpu: '--cpu-prof, read by `npx workbook profile --tool cpu`',
  gc: '--trace-gc, read by `npx workbook profile --tool gc`',
  heap: 'Two heap snapshots compared by `npx workbook profile --tool heap`',
  'clinic-doctor': 'Clinic.js Doctor\'s verdict',
  flamegraph: 'Flame graph from the CPU profile (your file in blue)',
  'cpu-solution': '--cpu-prof of the reference solution, read by `npx workbook profile --tool cpu --solution`',
  'flamegraph-solution': 'Flame graph of the reference solution\'s CPU profile',
  bubbleprof: 'Clinic.js Bubbleprof\'s bubbles as a tree, printed by `npx workbook profile --tool bubbleprof`',
  'bubbleprof-solution': 'Clinic.js Bubbleprof\'s bubbles of the reference solution, as a tree',
  'doctor-report': 'Clinic.js Doctor\'s report',
};

/** The machine the captures come from, as the checks describe it, and when. */
function machine() {
  return { ...environment(), date: new Date().toISOString() };
}

async function captureLoad(lab, file, progress) {
  const app = await startApp(file);
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

async function captureLab(lab, progress) {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(`cannot capture lab ${lab.id}: ${shipped.error}`);
  const starter = shipped.app;
  const labDir = path.join(OUT, lab.slug);
  fs.rmSync(labDir, { recursive: true, force: true });
  fs.mkdirSync(labDir, { recursive: true });
  const files = [];
  const save = (kind, name, content, format = 'text') => {
    fs.writeFileSync(path.join(labDir, name), content);
    files.push({ kind, title: TITLES[kind] || kind, path: `captures/${lab.slug}/${name}`, format });
  };

  progress(`Lab ${lab.id}: checking the starter and the solution`);
  const results = {
    starter: await runCheck(lab, { app: starter, onProgress: (e) => progress(`  starter: ${e.text}`) }),
    solution: await runCheck(lab, { app: lab.solutionApp, onProgress: (e) => progress(`  solution: ${e.text}`) }),
  };
  // The starter ran from a scratch copy; name it as the learner knows it.
  results.starter.app = relative(lab.app);

  for (const step of checkOf(lab).captures) {
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
      // The starter ran from a scratch copy: show it under the path the learner knows.
      const asLab = (content) => content.split(path.relative(ROOT, starter).split(path.sep).join('/')).join(relative(lab.app));
      save(kind, `${kind}.txt`, asLab(text));
      if (step.tool === 'cpu' && result.flamegraph) save(`flamegraph${suffix}`, `flamegraph${suffix}.svg`, asLab(fs.readFileSync(result.flamegraph, 'utf8')), 'svg');
      if (step.tool === 'clinic-doctor') save(`doctor-report${suffix}`, `doctor${suffix}.html`, fs.readFileSync(result.open), 'html');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return { machine: machine(), results, files };
}

async function main() {
  const { values } = parseArgs({ options: { lab: { type: 'string', multiple: true } } });
  const chosen = values.lab ? values.lab.map((id) => findLab(id) || usage(id)) : labs;
  const progress = printProgress(process.stderr);
  for (const lab of chosen) {
    const captured = await captureLab(lab, progress);
    // Read the index again just before writing: another capture (of another
    // lab) may have written it meanwhile.
    const index = fs.existsSync(INDEX) ? JSON.parse(fs.readFileSync(INDEX, 'utf8')) : { labs: {} };
    index.labs[lab.slug] = captured;
    index.generatedAt = new Date().toISOString();
    fs.writeFileSync(INDEX, JSON.stringify(index, null, 2) + '\n');
    progress(`Lab ${lab.id} captured in ${path.relative(ROOT, path.join(OUT, lab.slug))}/`);
  }
}

function usage(id) {
  console.error(`There is no lab "${id}". Usage: npm run capture [-- --lab ID ...]`);
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
