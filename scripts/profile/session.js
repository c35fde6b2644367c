'use strict';
// A profiling session: a fresh output folder under profiles/<lab>/, the app
// started with the tool's flags, the lab's standard load, and a clean stop so
// the tool writes its files. Tools plug their own steps around this.

const fs = require('node:fs');
const path = require('node:path');
const { startApp } = require('../harness/app-process');
const { runLoad } = require('../harness/run-load');
const { ROOT, relative, checkOf } = require('../lib/labs');

function outputDir(lab, tool) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
  const dir = path.join(ROOT, 'profiles', lab.slug, `${tool}-${stamp}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The lab's standard load (its setup requests first) on an app at `url`.
 * `stopEarly` (runLoad's) ends it before `duration`, e.g. once a tool has
 * seen what it came for.
 */
async function applyStandardLoad({ lab, url, duration, progress, label = '', stopEarly }) {
  const standard = checkOf(lab).standardLoad;
  if (standard.setup) await standard.setup(url);
  progress(`Load${label}: ${standard.describe}, ${duration} s`);
  // When the load began, on the monotonic clock (µs) a CPU profile's
  // timestamps use: a reader can leave out the app's start-up.
  const startedUs = Number(process.hrtime.bigint() / 1000n);
  const load = await runLoad({
    url,
    // A load of POSTs gives each request whole (standardLoad.request).
    path: standard.request || standard.path,
    connections: standard.connections,
    duration,
    sampleMs: 1000, // autocannon's own table then reads as usual (req/s per second)
    onTick: ({ elapsedMs, requests }) => progress(`  … ${Math.round(elapsedMs / 1000)}/${duration} s, ${requests} responses`),
    stopEarly,
  });
  progress(`${load.responses} responses, ${load.requestsPerSec.toFixed(1)} req/s`);
  return { ...load, startedUs };
}

/**
 * Starts `file` with `nodeArgs` (and startApp's other options), runs
 * `fn(app)`, and stops the app afterwards whatever happened, waiting up to
 * `graceMs` for it to end by itself (profilers write their files then).
 */
async function withApp({ lab, file, nodeArgs = [], env, cwd, output, graceMs, progress }, fn) {
  progress(`Starting ${relative(file)}${nodeArgs.length ? ` with ${nodeArgs.join(' ')}` : ''}`);
  // As `workbook run` starts it: the lab's flags and services too.
  const app = await startApp(file, { lab, nodeArgs, env, cwd, output, progress });
  try {
    return await fn(app);
  } finally {
    await app.stop({ graceMs });
  }
}

/**
 * Starts `file` with `nodeArgs` in `cwd`, applies the lab's standard load for
 * `duration` seconds, and stops it cleanly so the profiler writes its files.
 */
async function profileRun({ lab, file, nodeArgs, env, cwd, duration, progress }) {
  return withApp({ lab, file, nodeArgs, env, cwd, graceMs: 10_000, progress }, async (app) => {
    const load = await applyStandardLoad({ lab, url: app.url, duration, progress });
    app.assertAlive('under load');
    progress('Stopping the app so the profiler writes its files');
    return load;
  });
}

/**
 * For profilers that start the app themselves (0x, Clinic.js) and report the
 * port it listens on: `onPort(port, stop)` applies the load there, then says
 * `stopMessage` and calls `stop`, whether the load succeeded or not.
 * `finished()` waits for that and throws the load's error, if any.
 */
function loadOnPort({ lab, duration, progress, stopMessage }) {
  let loading = Promise.resolve();
  let loadError = null;
  return {
    onPort(port, stop) {
      loading = applyStandardLoad({ lab, url: `http://127.0.0.1:${port}`, duration, progress })
        .catch((err) => {
          loadError = err;
        })
        .then(() => {
          progress(stopMessage);
          stop();
        });
    },
    async finished() {
      await loading;
      if (loadError) throw loadError;
    },
  };
}

module.exports = { outputDir, withApp, profileRun, applyStandardLoad, loadOnPort };
