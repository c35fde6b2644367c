#!/usr/bin/env node
'use strict';
// `npm run bench [-- --runs N] [--hog [N]] [--lab ID ...] [--write]`: a benchmark of the
// checks themselves. Runs each lab's check N times on its shipped starter and
// its solution, alternately, optionally with CPU hogs running (a bare --hog:
// one busy loop per core but one; --hog N: N of them), and reports per
// gate the median figure on each side, its margin to the threshold, how many
// verdicts were right, and how long one check takes. The same goes to
// bench-results/<time>.json.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { labs, findLab, ROOT } = require('./lib/labs');
const { measureLab, marginText, writeMargins } = require('./lib/measure-lab');
const { track, killAll, exitOnSignals } = require('./harness/children');
const { bold, dim, green, red } = require('./lib/style');

/**
 * The bench's options from `argv`. A bare --hog loads every core but one
 * (os.availableParallelism() - 1, at least 1), so the checks compete for CPU
 * as on a busy machine of any size; --hog N runs N hogs.
 */
function benchOptions(argv, cores = os.availableParallelism()) {
  const args = argv.map((a, i) => (a === '--hog' && !/^\d+$/.test(argv[i + 1] || '') ? `--hog=${Math.max(1, cores - 1)}` : a));
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '3' }, hog: { type: 'string' }, lab: { type: 'string', multiple: true }, write: { type: 'boolean' } },
    args,
  });
  return { runs: Number(values.runs), hogs: values.hog === undefined ? 0 : Number(values.hog), labIds: values.lab, write: Boolean(values.write) };
}

function printTable(summaries, { runs, hogs }) {
  console.log('');
  console.log(bold(`Bench: ${runs} run(s) per side, ${hogs} CPU hog(s), Node ${process.version}`));
  for (const s of summaries) {
    console.log(`\n${bold(s.lab)}`);
    for (const g of s.gates) {
      const side = (name) => {
        const x = g[name];
        return x ? `${name} ${x.median.toFixed(2)} ${g.unit} (÷ threshold ${x.ratio.toFixed(3)}, worst ${marginText(x.worstMargin)})` : `${name} —`;
      };
      console.log(`  ${g.id.padEnd(18)} ${g.op} ${g.threshold.toFixed(2)}   ${side('starter')}   |   ${side('solution')}`);
    }
    const v = s.verdicts;
    console.log(`  verdicts right: starter ${v.starter.right}/${v.starter.total}, solution ${v.solution.right}/${v.solution.total}`);
    console.log(`  one check: median ${s.checkSeconds.median.toFixed(1)} s, max ${s.checkSeconds.max.toFixed(1)} s`);
  }
}

async function main() {
  let options;
  try {
    options = benchOptions(process.argv.slice(2));
  } catch {
    options = { runs: NaN };
  }
  const { runs, hogs } = options;
  const chosen = options.labIds ? options.labIds.map((id) => findLab(id)) : labs;
  if (!(runs >= 1) || !(hogs >= 0) || chosen.some((l) => !l)) {
    console.error('Usage: npm run bench -- [--runs N] [--hog [N]] [--lab ID ...] [--write]');
    process.exit(2);
  }
  exitOnSignals(() => process.stderr.write('\nBench interrupted; every process it started has been ended.\n'));
  if (hogs) console.error(dim(`${hogs} CPU hog${hogs === 1 ? '' : 's'} (busy loops) running on ${os.availableParallelism()} cores while the checks run`, process.stderr));
  const hogProcs = Array.from({ length: hogs }, () => track(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' })));
  const summaries = [];
  try {
    for (const lab of chosen) {
      summaries.push(
        await measureLab(lab, {
          runs,
          onStart: ({ side, run }) => process.stderr.write(dim(`lab ${lab.id} · ${side} · run ${run}/${runs} … `, process.stderr)),
          onResult: ({ result, right }) =>
            process.stderr.write(`${(right ? green : red)(result.verdict, process.stderr)} in ${(result.durationMs / 1000).toFixed(1)} s\n`),
        }),
      );
    }
  } finally {
    hogProcs.forEach((h) => h.kill('SIGKILL'));
  }
  printTable(summaries, { runs, hogs });
  const dir = path.join(ROOT, 'bench-results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ node: process.version, runs, hogs, at: new Date().toISOString(), summaries }, null, 2));
  console.log(dim(`\nWritten to ${path.relative(process.cwd(), file)}`));
  if (options.write) {
    // Margins are a claim the site and the docs repeat: only a 10-run bench makes one.
    if (runs < 10) console.log(dim('Not written to the labs\' margins files: --write needs --runs 10 or more.'));
    else {
      const { environment } = require('./checks/run-check');
      const env = environment();
      const machine = `${env.cpus} CPUs, ${env.cpuModel}, ${env.platform}`;
      for (const [i, lab] of chosen.entries()) {
        writeMargins(lab, summaries[i], { node: process.version, hogs, runs, machine });
        console.log(`Margins written to ${path.relative(process.cwd(), lab.marginsFile)}`);
      }
    }
  }
  const allRight = summaries.every((s) => Object.values(s.verdicts).every((v) => v.right === v.total));
  killAll();
  process.exit(allRight ? 0 : 1);
}

if (require.main === module) {
  main().catch((err) => {
    killAll();
    console.error(red(`The bench stopped: ${err.message}`));
    process.exit(3);
  });
}

module.exports = { benchOptions };
