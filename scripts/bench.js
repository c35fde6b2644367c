#!/usr/bin/env node
'use strict';
// `npm run bench [-- --runs N] [--hog [N]] [--lab ID]`: a benchmark of the
// checks themselves. Runs each lab's check N times on its shipped starter and
// its solution, alternately, and reports per gate the median figure on each
// side, its margin to the threshold, how many verdicts were right, and how
// long one check takes. The same goes to bench-results/<time>.json.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { labs, findLab, ROOT } = require('./lib/labs');
const { runCheck } = require('./checks/run-check');
const { materializeShipped } = require('./lib/shipped');
const { median } = require('./harness/stats');
const { track, killAll, exitOnSignals } = require('./harness/children');
const { bold, dim, green, red } = require('./lib/style');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    hog: { type: 'string' },
    lab: { type: 'string', multiple: true },
  },
  args: process.argv.slice(2).map((a) => (a === '--hog' ? '--hog=1' : a)),
});

const runs = Number(values.runs);
const hogs = values.hog === undefined ? 0 : Number(values.hog);
const chosen = values.lab ? values.lab.map((id) => findLab(id)) : labs;
if (!(runs >= 1) || !(hogs >= 0) || chosen.some((l) => !l)) {
  console.error('Usage: npm run bench -- [--runs N] [--hog [N]] [--lab ID ...]');
  process.exit(2);
}

exitOnSignals(() => process.stderr.write('\nBench interrupted; every process it started has been ended.\n'));

function startHogs(n) {
  return Array.from({ length: n }, () =>
    track(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' })),
  );
}

async function benchLab(lab) {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(`cannot bench lab ${lab.id}: ${shipped.error}`);
  const sides = { starter: { app: shipped.app, expect: 'fail', results: [] }, solution: { app: lab.solutionApp, expect: 'pass', results: [] } };
  for (let i = 1; i <= runs; i++) {
    for (const [name, side] of Object.entries(sides)) {
      process.stderr.write(dim(`lab ${lab.id} · ${name} · run ${i}/${runs} … `, process.stderr));
      const result = await runCheck(lab, { app: side.app });
      side.results.push(result);
      const right = result.verdict === side.expect;
      process.stderr.write(`${right ? green(result.verdict, process.stderr) : red(result.verdict, process.stderr)} in ${(result.durationMs / 1000).toFixed(1)} s\n`);
    }
  }
  return summarise(lab, sides);
}

function summarise(lab, sides) {
  const gateIds = sides.solution.results[0].gates.map((g) => g.id);
  const gates = gateIds.map((id) => {
    const row = { id, label: null, unit: null, op: null };
    for (const [name, side] of Object.entries(sides)) {
      const found = side.results.map((r) => r.gates.find((g) => g.id === id)).filter(Boolean);
      if (!found.length) continue;
      row.label = found[0].label;
      row.unit = found[0].unit;
      row.op = found[0].op;
      row[name] = {
        median: median(found.map((g) => g.value)),
        // value ÷ threshold, as the issue asks: <1 passes a '<' gate.
        ratio: median(found.map((g) => g.value / g.threshold)),
        worstMargin: Math.min(...found.map((g) => (g.pass ? g.margin : -g.margin))),
        medianMargin: median(found.map((g) => (g.pass ? g.margin : -g.margin))),
      };
    }
    return row;
  });
  const verdicts = Object.fromEntries(
    Object.entries(sides).map(([name, side]) => [
      name,
      { expected: side.expect, right: side.results.filter((r) => r.verdict === side.expect).length, total: side.results.length, all: side.results.map((r) => r.verdict) },
    ]),
  );
  const wall = Object.values(sides).flatMap((s) => s.results.map((r) => r.durationMs));
  return { lab: lab.slug, gates, verdicts, checkSeconds: { median: median(wall) / 1000, max: Math.max(...wall) / 1000 } };
}

function printTable(summaries) {
  console.log('');
  console.log(bold(`Bench: ${runs} run(s) per side, ${hogs} CPU hog(s), Node ${process.version}`));
  for (const s of summaries) {
    console.log('');
    console.log(bold(s.lab));
    for (const g of s.gates) {
      const side = (name) => {
        const x = g[name];
        if (!x) return `${name} —`;
        const m = x.worstMargin;
        const text = `${name} ${x.median.toFixed(2)} ${g.unit} (value/threshold ${x.ratio.toFixed(3)}, worst margin ${Math.abs(m).toFixed(1)}× ${m >= 0 ? 'inside' : 'past'})`;
        return text;
      };
      console.log(`  ${g.id.padEnd(18)} ${g.op} threshold   ${side('starter')}   |   ${side('solution')}`);
    }
    const v = s.verdicts;
    console.log(`  verdicts right: starter ${v.starter.right}/${v.starter.total}, solution ${v.solution.right}/${v.solution.total}`);
    console.log(`  one check: median ${s.checkSeconds.median.toFixed(1)} s, max ${s.checkSeconds.max.toFixed(1)} s`);
  }
}

(async () => {
  const hogProcs = startHogs(hogs);
  const summaries = [];
  try {
    for (const lab of chosen) summaries.push(await benchLab(lab));
  } finally {
    hogProcs.forEach((h) => h.kill('SIGKILL'));
  }
  printTable(summaries);
  const dir = path.join(ROOT, 'bench-results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: process.version, runs, hogs, at: new Date().toISOString(), summaries }, null, 2));
  console.log(dim(`\nWritten to ${path.relative(process.cwd(), file)}`));
  const allRight = summaries.every((s) => Object.values(s.verdicts).every((v) => v.right === v.total));
  killAll();
  process.exit(allRight ? 0 : 1);
})().catch((err) => {
  killAll();
  console.error(red(`The bench stopped: ${err.message}`));
  process.exit(3);
});
