'use strict';
// A lab's services (a catalogue, a database, downstream services) started
// for `workbook run`, `load`, `profile` and `capture` the way the lab's own
// module starts them for an app run with plain `node app.js`: its file,
// run as a program in a child process of its own, which sends its address
// over IPC once it is ready. The harness then hands the app that address
// through the environment variables the lab's check uses, so the app sees
// the same variables in every mode (see `services` in define-check.js).

const { fork } = require('node:child_process');
const children = require('./children');

/**
 * @param {string} file the lab's service module, which serves when run as a program
 * @param {object} options
 * @param {Record<string,string|undefined>} [options.env] its settings (e.g. a delay), on top of ours
 * @param {(message:object) => Record<string,string>} options.toEnv the app's variables, from its
 *   ready message
 * @param {(line:string) => void} [options.progress] gets each line the service prints
 * @param {number} [options.timeoutMs] how long it may take to be ready (a first start may
 *   prepare data: lab 11's database takes ~11 s on a 2-vCPU machine)
 * @returns {Promise<{env:Record<string,string>, close:() => Promise<void>}>}
 */
async function forkService(file, { env = {}, toEnv, progress = () => {}, timeoutMs = 120_000 }) {
  // A plain node for the service: none of the app's flags, profilers or probe.
  const childEnv = { ...process.env, ...env };
  for (const name of Object.keys(childEnv)) if (childEnv[name] === undefined || /^WORKBOOK_/i.test(name)) delete childEnv[name];
  delete childEnv.NODE_OPTIONS;
  const child = children.track(fork(file, [], { execArgv: [], env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], windowsHide: true }));
  let last = '';
  const forward = (chunk) => {
    const lines = (last + chunk).split('\n');
    last = lines.pop();
    for (const line of lines) if (line.trim()) progress(line);
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let timer;
  try {
    const message = await Promise.race([
      new Promise((resolve) => child.once('message', resolve)),
      exited.then(({ code, signal }) => {
        throw new Error(`${file} stopped before it was ready (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${last}` : ''}`);
      }),
      new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${file} was not ready within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    return {
      env: toEnv(message),
      async close() {
        if (child.exitCode !== null || child.signalCode !== null) return;
        // Its channel closing is its cue to stop; then SIGTERM, then SIGKILL.
        if (child.connected) child.disconnect();
        const waited = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 1500))]);
        if (waited) return;
        child.kill('SIGTERM');
        if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 1500))])) return;
        child.kill('SIGKILL');
        await exited;
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

module.exports = { forkService };
