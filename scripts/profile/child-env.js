'use strict';
// For profilers that start the app themselves (0x, Clinic.js): they pass our
// environment on to the app, so the app's settings go in there for the
// duration of the run, and come out again afterwards.

const { PROBE, freePort } = require('../harness/app-process');
const { withPreload } = require('../harness/node-options');
const { launchFor } = require('../harness/lab-launch');
const { CALLS_ENV } = require('../harness/call-counter');

/**
 * Runs `fn` with the environment a lab app needs when a profiler starts it:
 * a free port on 127.0.0.1 (a number, as in every mode), and the probe preloaded
 * (it closes the app cleanly when `stopFile` appears or on SIGINT, and exits
 * if the workbook goes away). With `lab`, the app also gets what `workbook
 * run` gives it: the lab's node flags (through NODE_OPTIONS, since the
 * profiler writes the command line) and its services, ended afterwards.
 */
async function withAppEnvironment(appFile, fn, { stopFile, lab, progress } = {}) {
  const launch = lab ? await launchFor(lab, { progress }) : { env: {}, nodeArgs: [], close: async () => {} };
  const saved = { ...process.env };
  const nodeOptions = [process.env.NODE_OPTIONS, ...launch.nodeArgs].filter(Boolean).join(' ');
  Object.assign(process.env, {
    ...launch.env,
    ...(stopFile ? { WORKBOOK_STOP_FILE: stopFile } : {}),
    ...(launch.countCalls ? { [CALLS_ENV]: launch.countCalls } : {}),
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    WORKBOOK_APP: appFile,
    WORKBOOK_PARENT_PID: String(process.pid),
    NODE_OPTIONS: withPreload(nodeOptions, PROBE),
  });
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    await launch.close();
  }
}

module.exports = { withAppEnvironment };
