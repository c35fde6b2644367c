'use strict';
// Starts a lab app (starter, solution, or any file) as a child process with
// the probe preloaded, learns the port it really listens on, and gives the
// caller a handle to query the probe and stop the app.

const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const children = require('./children');
const { OutputTail } = require('./output-tail');
const { createCensus } = require('./census');
const { StdoutCollector } = require('./stdout-collector');
const { withPreload } = require('./node-options');
const { CALLS_ENV } = require('./call-counter');

// How often a start that has not listened yet says so (with a progress function).
const STILL_STARTING_EVERY_MS = 3000;

const PROBE = path.join(__dirname, 'probe.js');

class AppError extends Error {
  /**
   * @param {string} message one plain sentence for the learner
   * @param {{reason: string, detail?: string, exitCode?: number|null}} info
   */
  constructor(message, { reason, detail = '', exitCode = null }) {
    super(message);
    this.name = 'AppError';
    this.reason = reason;
    this.detail = detail;
    this.exitCode = exitCode;
  }
}

/**
 * @param {string} appFile path to the app's entry file
 * @param {object} [options]
 * @param {number} [options.timeoutMs] how long the app may take to listen (default a minute)
 * @param {string[]} [options.nodeArgs] extra flags for node (e.g. --prof)
 * @param {object} [options.env] extra environment variables
 * @param {string} [options.cwd] working directory (default: the app's folder)
 * @param {import('node:stream').Writable} [options.output] also copy all of the app's
 *   stdout and stderr here, from its first byte (e.g. a --trace-gc log file)
 * @param {string} [options.countCalls] "file#name": count the app's calls to that export of
 *   that module (call-counter.js; a check's `countCalls`, given in every mode)
 * @param {object} [options.lab] start it as `workbook run` does: with the lab's node flags,
 *   its services (lab-launch.js), which end when the app is stopped, and its counted calls
 * @param {(line:string) => void} [options.progress] what starting the services says
 * @param {{onLine?:(line:string) => void}} [options.collector] read the app's stdout as a log
 *   collector does, at a rate the caller sets (`app.stdout.setRate(bytesPerSecond)`), and hand
 *   each complete line to `onLine` (see stdout-collector.js); the app's stdout is the same pipe
 *   as without it, read as fast as it comes until a rate is set
 * @param {() => void} [options.whileStarting] work of the caller's own, done right after the
 *   app is spawned, while it starts on another core (a check loads its load generator then)
 * @returns {Promise<AppHandle>}
 */
async function startApp(appFile, options = {}) {
  // A minute: lab 14's starter takes six or seven seconds to listen on a
  // 2-vCPU machine, more beside other work, and says it is still starting
  // meanwhile (progress). Checks pass their own, shorter one (run-check.js).
  const { timeoutMs = 60_000, output } = options;
  let { nodeArgs = [], env = {}, countCalls } = options;
  const file = path.resolve(appFile);
  if (!fs.existsSync(file)) {
    throw new AppError(`There is no app at ${file}.`, { reason: 'not-found' });
  }
  // Outside a check: the lab's flags and services, as its check gives them.
  let launch = null;
  if (options.lab) {
    launch = await require('./lab-launch').launchFor(options.lab, { progress: options.progress });
    env = { ...launch.env, ...env };
    nodeArgs = [...launch.nodeArgs, ...nodeArgs];
    countCalls = launch.countCalls || countCalls;
  }
  if (countCalls) env = { ...env, [CALLS_ENV]: countCalls };
  try {
    return await startProbed(file, { ...options, env, nodeArgs, launch, timeoutMs, output });
  } catch (err) {
    if (launch) await launch.close();
    throw err;
  }
}

async function startProbed(file, { timeoutMs, nodeArgs, env, output, launch, cwd, collector, whileStarting, progress, stillStartingEveryMs = STILL_STARTING_EVERY_MS }) {
  // Every thread and Node process of the app reports its memory and CPU
  // here; the app's main thread also takes the harness's questions here.
  const census = await createCensus();
  // A port of our choosing rather than 0, so the app sees a port number in
  // every mode (`workbook run` gives it 3000): 0 would tell it a check.
  const port = env.PORT === undefined || String(env.PORT) === '0' ? String(await freePort()) : String(env.PORT);
  const baseEnv = { ...process.env, HOST: '127.0.0.1', ...env, PORT: port };
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = children.track(
    // The probe is preloaded through NODE_OPTIONS alone (it takes itself out
    // again before the app runs): nothing in process.execArgv but the flags
    // asked for, and every Node process the app starts loads it too.
    spawn(process.execPath, [...nodeArgs, file], {
      cwd: cwd || path.dirname(file),
      env: {
        ...baseEnv,
        WORKBOOK_APP: file,
        ...census.env,
        NODE_OPTIONS: withPreload(baseEnv.NODE_OPTIONS, PROBE),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    }),
  );
  const handle = new AppHandle(child, file, census, { collector, output });
  handle.launch = launch;
  handle.spawnedAt = spawnedAt;
  if (output) {
    // With a collector, its reads copy stdout to `output` (a pipe would read at its own pace).
    if (!collector) child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
  }
  // A slow start (lab 14's starter takes seconds) says it is still going,
  // so that the terminal is never silent for long.
  const stillStarting = progress
    ? setInterval(() => {
        const elapsedMs = performance.timeOrigin + performance.now() - spawnedAt;
        if (elapsedMs >= timeoutMs) return; // the timeout's own error says the rest
        const s = Math.round(elapsedMs / 1000);
        progress(`  still starting: ${s} s since it was spawned, not listening yet (waiting for it up to ${timeoutMs < 10_000 ? (timeoutMs / 1000).toFixed(1) : Math.round(timeoutMs / 1000)} s)`);
      }, stillStartingEveryMs)
    : null;
  try {
    if (whileStarting) whileStarting();
    await handle.listening(timeoutMs);
  } catch (err) {
    await handle.stop();
    throw err;
  } finally {
    clearInterval(stillStarting);
  }
  return handle;
}

/** A TCP port free on 127.0.0.1 right now (the OS's choice). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

class AppHandle {
  constructor(child, file, census, { collector = null, output = null } = {}) {
    this.child = child;
    this.census = census;
    this.file = file;
    this.pid = child.pid;
    this.port = null;
    this.url = null;
    // When it was spawned and when it reported listening, in ms since the
    // epoch on this process's clock (a start-up check times the start).
    this.spawnedAt = null;
    this.listeningAt = null;
    this.output = new OutputTail();
    this.exit = null; // {code, signal} once the process has ended
    this.stopping = false;
    this.pending = new Map();
    this.nextId = 1;

    // stdout read as a log collector reads it (at the caller's rate, line by
    // line), or as fast as it comes; either way the tail keeps its end.
    this.stdout = collector
      ? new StdoutCollector(child.stdout, {
          onLine: collector.onLine,
          onChunk: (chunk) => {
            this.output.push(chunk);
            if (output) output.write(chunk);
          },
        })
      : null;
    if (!collector) child.stdout.on('data', (chunk) => this.output.push(chunk));
    child.stderr.on('data', (chunk) => this.output.push(chunk));
    // Output can still arrive after 'exit'; it is complete at 'close'. A
    // process the app started may hold the pipes open, so wait at most 1 s.
    const closed = new Promise((resolve) => child.once('close', resolve));
    this.exited = new Promise((resolve) => {
      child.once('exit', async (code, signal) => {
        this.exit = { code, signal };
        await Promise.race([closed, new Promise((r) => setTimeout(r, 1000).unref())]);
        for (const { reject } of this.pending.values()) {
          reject(this.crashError('while the harness was waiting for it'));
        }
        this.pending.clear();
        resolve(this.exit);
      });
    });
    child.once('error', (err) => this.output.push(`\n[spawn error] ${err.message}\n`));
    census.onTargetMessage = (message) => this.onMessage(message);
  }

  onMessage(message) {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'listening' && !this.port) {
      this.listeningAt = performance.timeOrigin + performance.now();
      const { address, port } = message.address;
      this.port = port;
      const host = address.includes(':') ? `[${address}]` : address;
      this.url = `http://${host}:${port}`;
      if (this.onListening) this.onListening();
    } else if (message.type === 'reply' && this.pending.has(message.id)) {
      const { resolve, reject } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.ok) resolve(message.value);
      else reject(new Error(message.error));
    } else if (message.type === 'closed') {
      // The channel closes a moment before the exit event: wait for it (at
      // most 2 s), so the error can say how the app ended.
      Promise.race([this.exited, new Promise((r) => setTimeout(r, 2000).unref())]).then(() => {
        for (const { reject } of this.pending.values()) reject(this.crashError());
        this.pending.clear();
      });
    }
  }

  listening(timeoutMs) {
    if (this.port) return Promise.resolve(this);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AppError(
            `The app did not start listening within ${Math.round(timeoutMs / 1000)} s.`,
            { reason: 'timeout', detail: this.output.text() },
          ),
        );
      }, timeoutMs);
      this.onListening = () => {
        clearTimeout(timer);
        resolve(this);
      };
      this.exited.then(() => {
        clearTimeout(timer);
        reject(this.startError());
      });
    });
  }

  startError() {
    const detail = this.output.text();
    const { code, signal } = this.exit;
    if (/^SyntaxError\b/m.test(detail)) {
      return new AppError('The app has a syntax error, so it could not start.', {
        reason: 'syntax',
        detail,
        exitCode: code,
      });
    }
    if (code === 0 && !signal) {
      return new AppError('The app exited without ever listening for requests.', {
        reason: 'no-listen',
        detail,
        exitCode: code,
      });
    }
    return new AppError(
      `The app stopped during start-up (${signal ? `signal ${signal}` : `exit code ${code}`}).`,
      { reason: 'startup-crash', detail, exitCode: code },
    );
  }

  crashError(when = 'while it was being measured') {
    const { code, signal } = this.exit || {};
    const how = !this.exit ? 'it closed its channel to the check' : signal ? `signal ${signal}` : `exit code ${code}`;
    return new AppError(
      `The app crashed ${when} (${how}).`,
      { reason: 'crash', detail: this.output.text(), exitCode: code },
    );
  }

  /** Throws an AppError if the app has died unexpectedly. */
  assertAlive(when) {
    if (this.exit && !this.stopping) throw this.crashError(when);
  }

  /** Sends a command (with optional arguments) to the probe and waits for its answer. */
  ask(cmd, timeoutMs = 15_000, args = undefined) {
    if (this.exit) return Promise.reject(this.crashError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AppError(`The app did not answer the harness within ${timeoutMs / 1000} s.`, {
          reason: 'unresponsive',
          detail: this.output.text(),
        }));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      });
      if (!this.census.sendToTarget({ type: 'ask', id, cmd, args })) {
        this.pending.get(id).reject(
          new AppError('The app\'s main thread never joined the harness: it cannot be measured.', { reason: 'unresponsive', detail: this.output.text() }),
        );
        this.pending.delete(id);
      }
    });
  }

  resetEventLoopDelay() {
    return this.ask('eld:reset');
  }

  /** Event-loop delay percentiles in ms since the last reset. */
  eventLoopDelay() {
    return this.ask('eld:read');
  }

  /** Writes a heap snapshot of the app to `file` (the app pauses meanwhile). */
  heapSnapshot(file) {
    return this.ask('snapshot', 120_000, { file });
  }

  /**
   * CPU time the whole app has used so far (µs, user + system, every
   * thread of its own process and of every Node process it started, ended
   * ones included) as `total` (`own`: its own process alone), and the HTTP
   * requests its own process has received as `served`.
   */
  async cpuAndRequests() {
    const [own, tree] = await Promise.all([this.ask('cpu'), this.census.cpu()]);
    // The probe's answer is the freshest figure of the app's own process;
    // the census adds every other process of the app.
    const others = Math.max(0, tree.total - tree.own);
    return { ...own, own: own.total, total: own.total + others, processes: Math.max(1, tree.processes) };
  }

  /**
   * Resolves once the app has stopped working: less than 20% of a core used
   * over 50 ms. After a load run a slow app may still be busy with requests
   * that were already queued; the next measurement must not inherit them.
   * Gives up after 5 s (an app that never idles is judged by its figures).
   */
  async waitUntilIdle() {
    const deadline = Date.now() + 5000;
    let before = (await this.cpuAndRequests()).total;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      const now = (await this.cpuAndRequests()).total;
      if (now - before < 10_000) return;
      before = now;
    }
  }

  /**
   * Starts timing, from a thread of the probe's own inside the app, how long
   * a tiny job waits for one of libuv's pool threads (see poolWait).
   */
  startPoolWait({ intervalMs = 20 } = {}) {
    return this.ask('pool:start', 15_000, { intervalMs });
  }

  /** The pool waits (ms) timed since startPoolWait(); stops timing unless `stop` is false. */
  async poolWait({ stop = true } = {}) {
    return (await this.ask('pool:read', 15_000, { stop })).waits;
  }

  /**
   * Starts the probe's control thread inside the app (see controlHandlers in
   * probe.js): a thread that runs no app code, with its own timer and a tiny
   * HTTP server. Resolves with the control route's base URL.
   * @returns {Promise<{url:string}>}
   */
  startControl() {
    return this.ask('control:start');
  }

  /**
   * The control thread's event-loop delay (ms percentiles) since it started
   * or was last reset; `stop: false` keeps it running.
   */
  async controlDelay({ stop = true } = {}) {
    return (await this.ask('control:read', 15_000, { stop })).delay;
  }

  /** Starts the control thread's event-loop delay afresh. */
  resetControlDelay() {
    return this.ask('control:reset');
  }

  /** Starts recording each request's CPU time inside the app (see requestCosts). */
  recordRequestCosts() {
    return this.ask('costs:start');
  }

  /**
   * The CPU time (µs, all threads) and wall time (µs) each request took
   * inside the app, from its arrival to its response, with its URL, since
   * recordRequestCosts(); stops recording.
   * @returns {Promise<Array<{url:string, cpu:number, wall:number}>>}
   */
  async requestCosts() {
    return (await this.ask('costs:read')).requests;
  }

  /**
   * The app's start as its own clock saw it: performance.nodeTiming, and
   * when it started listening, received its first request and sent the
   * last of its first responses (ms since its timeOrigin), each with the
   * event loop's idle time and the CPU used (ms) until then.
   */
  startupTimeline() {
    return this.ask('startup');
  }

  /** The app's active resources by type, e.g. { FSReqCallback: 3, TCPWRAP: 2 }. */
  pendingResources() {
    return this.ask('pending');
  }

  /**
   * The calls the app has made so far to the function its check counts
   * (the check's `countCalls`), in every thread of every live process.
   */
  async calls() {
    if (this.exit) throw this.crashError();
    return (await this.census.calls()).calls;
  }

  /** Heap used (bytes) by the app's main thread after a forced full GC, measured inside the app. */
  async heapUsed() {
    return (await this.ask('heap')).heapUsed;
  }

  /**
   * The memory of the whole app, after a forced full GC in every thread:
   * every thread's heap, Buffers and ArrayBuffers, in the app's process and
   * in every Node process it started (see census.js). `total` is what a
   * memory gate judges.
   * @param {{gc?:boolean}} [options] gc: false reads without collecting (e.g. a peak under load)
   * @returns {Promise<import('./census').CensusReading>}
   */
  async memory(options) {
    if (this.exit) throw this.crashError();
    const reading = await this.census.measure(options);
    if (!reading.targetAnswered) {
      this.assertAlive('while its memory was read');
      throw new AppError('The app\'s main thread did not report its memory within the time allowed, so the memory of the app cannot be read (a main thread busy for seconds?).', {
        reason: 'unresponsive',
        detail: [...reading.missing, this.output.text()].filter(Boolean).join('\n'),
      });
    }
    return reading;
  }

  /**
   * A mark to measure allocation from: the first call starts the allocation
   * meter of every thread of the app (census.allocation()). Give it to
   * allocatedSince() after the work to judge.
   */
  async allocationMark() {
    if (this.exit) throw this.crashError();
    const reading = await this.census.allocation();
    if (!reading.members.some((m) => m.isTarget && m.totals)) {
      this.assertAlive('while its allocation was read');
      throw new AppError('The app\'s main thread did not report its allocation within the time allowed, so what the app allocates cannot be read.', { reason: 'unresponsive', detail: this.output.text() });
    }
    return reading;
  }

  /**
   * What every thread of the app (and every Node process it started)
   * allocated in its V8 heap since `mark` (allocationMark()), with its
   * garbage collections and their pauses (allocation-meter.js):
   * { allocated (bytes), collections, scavenges, markCompacts, pauseUs,
   * threads, lost (threads gone since the mark), silent }.
   */
  async allocatedSince(mark) {
    const now = await this.allocationMark();
    const { allocationBetween } = require('./allocation-meter');
    return { ...allocationBetween(mark, now), silent: now.silent, unsupported: now.unsupported };
  }

  /**
   * Ends the app: a polite request first (so profilers can write their
   * files), then SIGTERM, then SIGKILL. Resolves once it has exited. (On
   * Windows, kill() terminates at once whatever the signal, and the exit
   * reports the signal asked for: an app that ignored the request ends at
   * the SIGTERM step there.) `graceMs` and `termMs` are how long each of
   * the first two may take: an app whose main thread is stuck in a loop
   * can answer neither (the probe's handlers are JavaScript), so a check
   * that knows it is stuck passes 0 for both.
   */
  async stop({ graceMs = 3000, termMs = 1000 } = {}) {
    this.stopping = true;
    // A throttled stdout must not hold up the app's exit (a blocked write on Windows).
    if (this.stdout) this.stdout.release();
    if (this.exit) {
      await this.census.close();
      await this.closeLaunch();
      return this.exit;
    }
    const waitFor = (ms) =>
      Promise.race([this.exited, new Promise((r) => setTimeout(r, ms).unref())]);
    if (this.census.sendToTarget({ type: 'ask', id: 0, cmd: 'shutdown' })) {
      await waitFor(graceMs);
    }
    if (!this.exit) {
      this.child.kill('SIGTERM');
      await waitFor(termMs);
    }
    if (!this.exit) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    await this.census.close();
    await this.closeLaunch();
    return this.exit;
  }

  /** Ends the lab's services started with the app (once). */
  async closeLaunch() {
    const launch = this.launch;
    this.launch = null;
    if (launch) await launch.close();
  }
}

module.exports = { startApp, AppError, PROBE, freePort };
