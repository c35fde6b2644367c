'use strict';
// For profilers that start the app themselves (0x, Clinic.js): they pass our
// environment on to the app, so the app's settings go in there for the
// duration of the run, and come out again afterwards.

const { PROBE } = require('../harness/app-process');
const { withPreload } = require('../harness/node-options');

/**
 * Runs `fn` with the environment a lab app needs when a profiler starts it:
 * any free port on 127.0.0.1, and the probe preloaded (it closes the app
 * cleanly when `stopFile` appears or on SIGINT, and exits if the workbook
 * goes away).
 */
async function withAppEnvironment(appFile, fn, { stopFile } = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...(stopFile ? { WORKBOOK_STOP_FILE: stopFile } : {}),
    HOST: '127.0.0.1',
    PORT: '0',
    WORKBOOK_APP: appFile,
    WORKBOOK_PARENT_PID: String(process.pid),
    NODE_OPTIONS: withPreload(process.env.NODE_OPTIONS, PROBE),
  });
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

module.exports = { withAppEnvironment };
