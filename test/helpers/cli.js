'use strict';
// Runs the workbook CLI as a learner would, and collects what it printed.

const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('../../scripts/lib/labs');
const { track } = require('../../scripts/harness/children');

const CLI = path.join(ROOT, 'scripts', 'workbook.js');

/**
 * @returns {{child, done: Promise<{code:number, signal:string|null, stdout:string, stderr:string, ms:number}>, output: () => string}}
 */
function startCli(args, { env = {}, timeoutMs = 120_000, script = CLI } = {}) {
  const started = Date.now();
  const child = track(
    spawn(process.execPath, [script, ...args], {
      cwd: path.resolve(path.dirname(script), '..'),
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { child, done, output: () => stdout + stderr };
}

function runCli(args, options) {
  return startCli(args, options).done;
}

/** Resolves when `predicate(output)` holds, or rejects after `ms`. */
function waitForOutput(handle, predicate, ms = 15_000) {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`timed out; output so far:\n${handle.output()}`)), ms);
    const poll = setInterval(() => {
      const match = predicate(handle.output());
      if (match) {
        clearInterval(poll);
        clearTimeout(deadline);
        resolve(match);
      }
    }, 50);
  });
}

module.exports = { CLI, startCli, runCli, waitForOutput };
