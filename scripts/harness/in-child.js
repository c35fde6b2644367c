'use strict';
// Runs one exported function of a module in a fresh, plain Node process and
// returns its result. For calibrating JavaScript costs: inside a test
// runner's sandbox (Jest's vm contexts) JavaScript runs measurably slower
// than in the app's own process, and a calibration must match the app.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { track } = require('./children');

const RUNNER = `
process.once('message', async ({ file, name, args }) => {
  try {
    const value = await require(file)[name](...args);
    process.send({ ok: true, value }, () => process.exit(0));
  } catch (err) {
    process.send({ ok: false, error: err.message }, () => process.exit(1));
  }
});`;

/**
 * @param {string} file absolute path of the module
 * @param {string} name the exported function to call
 * @param {any[]} args JSON-serialisable arguments
 */
function runInChild(file, name, args = [], { timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, ['-e', RUNNER], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], cwd: path.dirname(file) }));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} in a child process took over ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once('message', (reply) => {
      clearTimeout(timer);
      if (reply.ok) resolve(reply.value);
      else reject(new Error(`${name} failed in a child process: ${reply.error}`));
    });
    child.once('close', (code) => { // after 'exit', once stderr is complete
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${name} in a child process exited with ${code}: ${stderr.trim().split('\n').pop()}`));
    });
    child.send({ file, name, args });
  });
}

module.exports = { runInChild };
