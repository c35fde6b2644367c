'use strict';
// A profiling session: a fresh output folder under profiles/<lab>/, the app
// started with the tool's flags, the lab's standard load, and a clean stop so
// the tool writes its files. Tools plug their own steps around this.

const fs = require('node:fs');
const path = require('node:path');
const { startApp } = require('../harness/app-process');
const { runLoad } = require('../harness/load');
const { ROOT, relative } = require('../lib/labs');

function outputDir(lab, tool) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
  const dir = path.join(ROOT, 'profiles', lab.slug, `${tool}-${stamp}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The lab's standard load (its setup requests first) on an app at `url`. */
async function applyStandardLoad({ lab, url, duration, progress, label = '' }) {
  const standard = require(lab.checkModule).standardLoad;
  if (standard.setup) await standard.setup(url);
  progress(`Load${label}: ${standard.describe}${standard.overallRate ? `, ${standard.overallRate} req/s` : ''}, ${duration} s`);
  const load = await runLoad({
    url,
    path: standard.path,
    connections: standard.connections,
    overallRate: standard.overallRate,
    duration,
    sampleMs: 1000, // autocannon's own table then reads as usual (req/s per second)
    onTick: ({ elapsedMs, requests }) => progress(`  … ${Math.round(elapsedMs / 1000)}/${duration} s, ${requests} responses`),
  });
  progress(`${load.responses} responses, ${load.requestsPerSec.toFixed(1)} req/s`);
  return load;
}

/**
 * Starts `file` with `nodeArgs` in `cwd`, applies the lab's standard load for
 * `duration` seconds, and stops it cleanly so the profiler writes its files.
 */
async function profileRun({ lab, file, nodeArgs = [], env = {}, cwd, duration, progress }) {
  progress(`Starting ${relative(file)} with ${nodeArgs.join(' ') || 'no extra flags'}`);
  const app = await startApp(file, { nodeArgs, env, cwd, timeoutMs: 20_000 });
  try {
    const load = await applyStandardLoad({ lab, url: app.url, duration, progress });
    app.assertAlive('under load');
    progress('Stopping the app so the profiler writes its files');
    return load;
  } finally {
    await app.stop({ graceMs: 10_000 });
  }
}

module.exports = { outputDir, profileRun, applyStandardLoad };
