'use strict';
// Runs exported functions of a module in a plain Node process and returns
// their results. For calibrating JavaScript costs: inside a test runner's
// sandbox (Jest's vm contexts) JavaScript runs measurably slower than in the
// app's own process, and a calibration must match the app.

const { spawn } = require('node:child_process');
const path = require('node:path');
const { track } = require('./children');

// Answers calls until told to stop (or until its parent goes away).
const RUNNER = `
process.on('message', async ({ id, file, name, args, stop }) => {
  if (stop) return process.disconnect();
  try {
    const value = await require(file)[name](...args);
    process.send({ id, ok: true, value });
  } catch (err) {
    process.send({ id, ok: false, error: err.message });
  }
});`;

/**
 * A plain Node process that keeps `file` loaded: a second call runs on code
 * that is already warm, in a process already started (a calibration timed
 * again at the end of a check costs only its own runs). End it with stop().
 * @param {string} file absolute path of the module
 * @returns {{call: (name:string, args?:any[], options?:{timeoutMs?:number}) => Promise<any>, stop: () => Promise<void>}}
 */
function startInChild(file) {
  const child = track(spawn(process.execPath, ['-e', RUNNER], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], cwd: path.dirname(file) }));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const pending = new Map();
  let nextId = 1;
  let exited = null;
  const closed = new Promise((resolve) => {
    child.once('close', (code, signal) => { // after 'exit', once stderr is complete
      exited = { code, signal };
      for (const { name, reject, timer } of pending.values()) {
        clearTimeout(timer);
        reject(new Error(`${name} in a child process exited with ${code ?? signal}: ${stderr.trim().split('\n').pop()}`));
      }
      pending.clear();
      resolve();
    });
  });
  child.on('message', ({ id, ok, value, error }) => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    clearTimeout(call.timer);
    if (ok) call.resolve(value);
    else call.reject(new Error(`${call.name} failed in a child process: ${error}`));
  });
  return {
    call(name, args = [], { timeoutMs = 30_000 } = {}) {
      if (exited) return Promise.reject(new Error(`${name}: the child process has already ended`));
      return new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          child.kill('SIGKILL');
          reject(new Error(`${name} in a child process took over ${timeoutMs / 1000} s`));
        }, timeoutMs);
        pending.set(id, { name, resolve, reject, timer });
        child.send({ id, file, name, args });
      });
    },
    async stop() {
      if (exited) return;
      if (child.connected) child.send({ stop: true });
      const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await closed;
      clearTimeout(killer);
    },
  };
}

/**
 * One call in a fresh process, ended afterwards.
 * @param {string} file absolute path of the module
 * @param {string} name the exported function to call
 * @param {any[]} args JSON-serialisable arguments
 */
async function runInChild(file, name, args = [], options = {}) {
  const child = startInChild(file);
  try {
    return await child.call(name, args, options);
  } finally {
    await child.stop();
  }
}

module.exports = { runInChild, startInChild };
