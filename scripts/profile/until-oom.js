'use strict';
// For the tools that read what an app leaves behind when it runs out of
// memory (report, oom-snapshot): the app started under the lab's heap limit
// with the tool's flags, in the tool's output folder (so whatever it writes
// where it stands, a core file included, stays there), and the lab's
// standard load kept on it until the app dies, the tool has what it waited
// for, or the time is up. The load is a few plain HTTP clients, each asking
// for the standard load's path again as soon as its last answer is in
// (autocannon cannot be stopped half-way, and a load on a dead app only
// piles up errors).

const fs = require('node:fs');
const http = require('node:http');
const { once } = require('node:events');
const { startApp } = require('../harness/app-process');
const { checkOf, relative } = require('../lib/labs');

/** The lab's production heap limit (its check's settings.heapLimitMb), or this. */
const DEFAULT_HEAP_LIMIT_MB = 64;

function heapLimitOf(lab) {
  const mb = checkOf(lab).settings.heapLimitMb;
  return Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_HEAP_LIMIT_MB;
}

/**
 * @param {object} options
 * @param {object} options.lab
 * @param {string} options.file the app
 * @param {string} options.dir the tool's output folder (the app's working folder too)
 * @param {string[]} options.nodeArgs the tool's flags (the heap limit is added)
 * @param {string} options.logFile everything the app prints goes here
 * @param {number} options.duration seconds of load at most
 * @param {(text:string) => void} options.progress
 * @param {() => boolean} [options.enough] checked every 100 ms: true ends the run early
 * @param {() => boolean} [options.busy] checked likewise: true keeps the run going past its
 *   duration (the app is writing a file that must not be cut short), for two minutes at most
 * @returns {Promise<{died: boolean, exit: object|null, seconds: number, answered: number, heapLimitMb: number}>}
 */
async function loadUntilOutOfMemory({ lab, file, dir, nodeArgs, logFile, duration, progress, enough = () => false, busy = () => false }) {
  const heapLimitMb = heapLimitOf(lab);
  const args = [`--max-old-space-size=${heapLimitMb}`, ...nodeArgs];
  const log = fs.createWriteStream(logFile);
  progress(`Starting ${relative(file)} with ${args.join(' ')}`);
  const app = await startApp(file, { lab, nodeArgs: args, cwd: dir, output: log, progress });
  const standard = checkOf(lab).standardLoad;
  const started = Date.now();
  let stopped = false;
  let answered = 0;
  const agent = new http.Agent({ keepAlive: true });
  const client = async () => {
    while (!stopped && !app.exit) {
      await new Promise((resolve) => {
        const req = http.get(app.url + standard.path, { agent }, (res) => {
          res.resume();
          res.on('end', () => {
            answered++;
            resolve();
          });
          res.on('error', resolve);
          res.on('close', resolve);
        });
        req.on('error', resolve);
      });
      if (app.exit) break;
    }
  };
  try {
    if (standard.setup) await standard.setup(app.url);
    progress(`Load: ${standard.describe}, until the app runs out of memory (${duration} s at most)`);
    const clients = Array.from({ length: standard.connections }, client);
    let lastTick = started;
    for (;;) {
      const writing = busy();
      const elapsed = Date.now() - started;
      if (app.exit || enough()) break;
      if (elapsed >= duration * 1000 && !(writing && elapsed < duration * 1000 + 120_000)) break;
      await Promise.race([app.exited, new Promise((r) => setTimeout(r, 100))]);
      if (Date.now() - lastTick >= 1000) {
        lastTick = Date.now();
        progress(`  … ${Math.round((Date.now() - started) / 1000)}/${duration} s, ${answered} answered`);
      }
    }
    stopped = true;
    const seconds = (Date.now() - started) / 1000;
    const died = Boolean(app.exit) && !app.stopping;
    progress(died ? `The app died after ${seconds.toFixed(1)} s (${app.exit.signal || `exit code ${app.exit.code}`})` : 'Stopping the app');
    agent.destroy();
    await app.stop();
    await Promise.allSettled(clients);
    return { died, exit: app.exit, seconds, answered, heapLimitMb };
  } finally {
    stopped = true;
    agent.destroy();
    await app.stop();
    log.end();
    await once(log, 'close').catch(() => {});
  }
}

module.exports = { loadUntilOutOfMemory, heapLimitOf, DEFAULT_HEAP_LIMIT_MB };
