'use strict';
// The probe's half of the census (census.js is the harness's half).
// Loaded by the probe in EVERY thread of every Node process a check starts:
// the app's main thread, each worker thread it creates (and theirs), and
// each Node process it starts. Each one connects to the harness's census
// server on 127.0.0.1 and, when asked, forces a full garbage collection in
// its own isolate and reports that isolate's memory; each process's main
// thread also reports the CPU time the whole process has used. A check then
// sees all the memory an app keeps and all the CPU it spends, wherever:
// in a Map on the main thread, in a worker thread's heap, in Buffers, or in
// another Node process.
//
// The app's own main thread uses the same connection as the harness's
// control channel (the probe's "listening" report, and the questions the
// harness asks it: event-loop delay, CPU, shutdown…). There is no IPC
// channel: an app started by a check looks exactly like one started by
// `workbook run`, `load` or a profiler.
//
// Why each thread reports for itself: V8 heaps are per isolate, so
// process.memoryUsage() in a thread reports that thread's heapUsed,
// external and arrayBuffers only (each Node worker has its own isolate and
// its own ArrayBuffer allocator; measured on Node 20, 22, 24 and 26: a
// worker holding 10 MB of Buffers shows them in its own arrayBuffers, not
// in the main thread's). A collection can only be forced from inside the
// isolate too. (worker.getHeapStatistics(), from Node 22.16/24, reads a
// worker's heap from outside, but cannot collect its garbage first, and
// Node 20 lacks it.)
//
// Nothing the app does after it starts can talk the census into a figure:
// every function a reading goes through is captured here, when the probe
// is preloaded, before any of the app's code runs.
//
// How every thread gets this module: the probe is preloaded through
// NODE_OPTIONS. A worker runs that preload when it keeps the default
// execArgv and env; each thread replaces worker_threads.Worker with a
// subclass that adds the preload to any explicit execArgv or env, and
// passes the census address to new workers through setEnvironmentData
// (which reaches a worker whatever its env). Node processes started by the
// app get the preload and the census address added to their environment,
// whatever environment the app gave them. Each member also counts the live
// workers it started and the child processes it spawned, so the harness can
// tell when one never reported.

const fs = require('node:fs');
const net = require('node:net');
const v8 = require('node:v8');
const vm = require('node:vm');
const worker_threads = require('node:worker_threads');
const { withPreload } = require('./node-options');
const { createAllocationMeter } = require('./allocation-meter');
const { countCalls, CALLS_ENV } = require('./call-counter');

const ENV_KEY = 'WORKBOOK_CENSUS'; // "port:token" of the harness's census server
const DATA_KEY = 'workbook:census';
// Set in a thread whose allocation meter runs: the workers it starts start
// theirs before any of their own code runs.
const METER_KEY = 'workbook:census-metering';
// How often each process's main thread tells the harness its CPU time, so
// the CPU of a process that has ended by the time the harness asks is still
// counted (up to its last tick).
const CPU_TICK_MS = 200;

// Captured now, before the app's code can replace them.
const apply = Reflect.apply;
const own = Object.freeze({
  memoryUsage: process.memoryUsage,
  cpuUsage: process.cpuUsage,
  heapSpaces: v8.getHeapSpaceStatistics,
  codeStats: v8.getHeapCodeStatistics,
  stringify: JSON.stringify,
  parse: JSON.parse,
  write: net.Socket.prototype.write,
  setInterval,
  setImmediate,
  exit: process.exit,
  heapStatistics: v8.getHeapStatistics,
  GCProfiler: v8.GCProfiler,
  gcProfilerStart: v8.GCProfiler && v8.GCProfiler.prototype.start,
  gcProfilerStop: v8.GCProfiler && v8.GCProfiler.prototype.stop,
});

/** The census address this thread should report to, or null. */
function censusAddress(env = process.env) {
  const fromData = worker_threads.getEnvironmentData?.(DATA_KEY);
  const value = typeof fromData === 'string' ? fromData : env[ENV_KEY];
  const match = /^(\d+):([0-9a-f]+)$/.exec(value || '');
  return match ? { port: Number(match[1]), token: match[2], value } : null;
}

/**
 * Joins the census, if this process was started for one.
 * @param {string} probeFile the probe's own path, preloaded into new workers and processes
 * @param {object} options
 * @param {boolean} options.isTarget whether this is the app's own main thread
 * @param {Record<string,string>} [options.hiddenEnv] the workbook's variables, taken out of
 *   this process's environment by the probe: every process the app starts gets them back
 * @returns {ControlChannel|null} for the app's own main thread, its channel to the harness
 */
function joinCensus(probeFile, { isTarget, hiddenEnv = {} }) {
  const address = censusAddress(hiddenEnv[ENV_KEY] ? hiddenEnv : process.env);
  // The probe's own threads (e.g. its thread-pool timer) are not the app's.
  if (worker_threads.workerData?.workbookProbe) return null;
  const offspring = trackOffspring(probeFile, hiddenEnv);
  // Before any of the app's modules is loaded, in every mode alike.
  const calls = hiddenEnv[CALLS_ENV] ? countCalls(hiddenEnv[CALLS_ENV]) : null;
  if (!address) return null;
  worker_threads.setEnvironmentData?.(DATA_KEY, address.value);
  const forceGc = gcFunction();
  const meter = allocationMeter();
  if (meter && worker_threads.getEnvironmentData?.(METER_KEY)) meter.start();

  const socket = net.connect(address.port, '127.0.0.1');
  // The census must never keep a thread or process alive, nor crash it.
  socket.unref();
  socket.on('error', () => {});
  socket.setNoDelay(true);
  const send = (message) => apply(own.write, socket, [`${apply(own.stringify, JSON, [message])}\n`]);
  // Written at once: a socket keeps what is written before it connects, in
  // order, so the hello always goes first.
  send({
    type: 'hello',
    token: address.token,
    pid: process.pid,
    threadId: worker_threads.threadId,
    isMainThread: worker_threads.isMainThread,
    isTarget,
    argv: process.argv.slice(1, 3),
  });
  if (worker_threads.isMainThread) {
    const timer = apply(own.setInterval, globalThis, [() => send({ type: 'tick', cpu: processCpu() }), CPU_TICK_MS]);
    timer.unref();
  }

  const control = isTarget ? new ControlChannel(send) : null;
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let request;
      try {
        request = apply(own.parse, JSON, [line]);
      } catch {
        continue;
      }
      if (request.type === 'measure') send({ type: 'memory', id: request.id, ...measure(request, forceGc, offspring) });
      else if (request.type === 'cpu') send({ type: 'cpu', id: request.id, cpu: processCpu() });
      else if (request.type === 'allocation:start') startMeter(meter);
      else if (request.type === 'allocation') send({ type: 'allocation', id: request.id, ...allocationReading(meter, request) });
      else if (request.type === 'calls') send({ type: 'calls', id: request.id, calls: calls ? calls.count() : 0, workers: offspring.workers(), children: offspring.children() });
      else if (request.type === 'ask' && control) control.answer(request);
    }
  });
  if (control) socket.on('close', () => control.closed());
  return control;
}

/**
 * The app's main thread's channel to the harness, over its census
 * connection: reports (e.g. the port it listens on) go out with send(),
 * the harness's questions come in and are answered by the handlers given
 * to handle(); when the harness goes away, the onClose() callbacks run.
 */
class ControlChannel {
  constructor(send) {
    this.send = send;
    this.handlers = {};
    this.closeCallbacks = [];
    this.isClosed = false;
  }

  handle(handlers) {
    Object.assign(this.handlers, handlers);
  }

  onClose(callback) {
    this.closeCallbacks.push(callback);
  }

  answer({ id, cmd, args }) {
    const handler = this.handlers[cmd];
    const reply = { type: 'reply', id };
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`the probe has no command ${cmd}`);
        return handler(args || {});
      })
      .then(
        (value) => Object.assign(reply, { ok: true, value }),
        (err) => Object.assign(reply, { ok: false, error: err.message }),
      )
      .then(() => !this.isClosed && this.send(reply));
  }

  closed() {
    this.isClosed = true;
    for (const callback of this.closeCallbacks) callback();
  }
}

/** This process's CPU time (µs, every thread), through the function captured at start. */
function processCpu() {
  const { user, system } = apply(own.cpuUsage, process, []);
  return { user, system, total: user + system };
}

/** This isolate's memory, after a full collection when asked. */
function measure({ gc }, forceGc, offspring) {
  if (gc) {
    // Two passes: the first can leave objects with finalizers for the second.
    forceGc();
    forceGc();
  }
  const { heapUsed, heapTotal, external, arrayBuffers, rss } = apply(own.memoryUsage, process, []);
  const spaces = Object.fromEntries(apply(own.heapSpaces, v8, []).map((s) => [s.space_name, s.space_used_size]));
  const code = apply(own.codeStats, v8, []);
  return {
    heapUsed,
    heapTotal,
    external,
    arrayBuffers,
    rss,
    spaces,
    code,
    cpu: worker_threads.isMainThread ? processCpu() : null,
    workers: offspring.workers(),
    children: offspring.children(),
  };
}

/**
 * This isolate's allocation meter (allocation-meter.js), started by the
 * harness's first 'allocation' request (and at once in a thread that joins
 * while the harness meters): until then the app pays nothing for it.
 */
function allocationMeter() {
  if (typeof own.GCProfiler !== 'function') return null;
  return createAllocationMeter({
    createProfiler: () => new own.GCProfiler(),
    start: (profiler) => apply(own.gcProfilerStart, profiler, []),
    stop: (profiler) => apply(own.gcProfilerStop, profiler, []),
    usedHeapSize: () => apply(own.heapStatistics, v8, []).used_heap_size,
  });
}

/** Starts the meter when asked, and reads it: the totals since it started (null before). */
function allocationReading(meter, { start }) {
  if (!meter) return { totals: null, unsupported: true };
  if (start) startMeter(meter);
  return { totals: meter.read() };
}

function startMeter(meter) {
  if (!meter) return;
  meter.start();
  worker_threads.setEnvironmentData?.(METER_KEY, true);
}

/** A full GC we can force without asking the app to run with --expose-gc. */
function gcFunction() {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/**
 * Makes every worker and Node process this thread starts load the probe
 * and know the census, and counts the live workers and child processes
 * this thread started.
 */
function trackOffspring(probeFile, hiddenEnv) {
  const live = new Set();
  const Original = worker_threads.Worker;
  if (!Original.workbookCensus) {
    class Worker extends Original {
      constructor(filename, options = {}) {
        super(filename, withWorkerPreload(options, probeFile));
        if (options?.workerData?.workbookProbe) return;
        live.add(this);
        this.once('exit', () => live.delete(this));
      }
    }
    Worker.workbookCensus = true;
    worker_threads.Worker = Worker;
    // ESM imports of node:worker_threads see the replacement too.
    require('node:module').syncBuiltinESMExports();
  }

  const children = new Set();
  const { ChildProcess } = require('node:child_process');
  const spawn = ChildProcess.prototype.spawn;
  if (!spawn.workbookCensus) {
    ChildProcess.prototype.spawn = function censusSpawn(options, ...rest) {
      if (options && Array.isArray(options.envPairs)) options.envPairs = withWorkbookEnv(options.envPairs, hiddenEnv, probeFile);
      const result = apply(spawn, this, [options, ...rest]);
      if (this.pid) {
        children.add(this);
        this.once('exit', () => children.delete(this));
      }
      return result;
    };
    ChildProcess.prototype.spawn.workbookCensus = true;
  }
  return {
    workers: () => live.size,
    children: () => [...children].filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid),
  };
}

/**
 * A child process's environment (as "KEY=value" pairs) with the workbook's
 * hidden variables and the probe's preload added back: whatever environment
 * the app gave the child, it joins the census.
 */
function withWorkbookEnv(pairs, hiddenEnv, probeFile) {
  const windows = process.platform === 'win32'; // variable names are case-insensitive there
  const nameOf = (pair) => {
    const name = pair.slice(0, pair.indexOf('=', 1));
    return windows ? name.toUpperCase() : name;
  };
  const names = new Set(pairs.map(nameOf));
  const result = [...pairs];
  for (const [name, value] of Object.entries(hiddenEnv)) {
    if (name === 'NODE_OPTIONS' || names.has(windows ? name.toUpperCase() : name)) continue;
    result.push(`${name}=${value}`);
  }
  const index = result.findIndex((pair) => nameOf(pair) === 'NODE_OPTIONS');
  const current = index === -1 ? '' : result[index].slice(result[index].indexOf('=') + 1);
  if (!current.includes(probeFile)) {
    const pair = `NODE_OPTIONS=${withPreload(current, probeFile)}`;
    if (index === -1) result.push(pair);
    else result[index] = pair;
  }
  return result;
}

/**
 * Worker options that run the probe's preload: a worker given its own
 * execArgv, or its own env, runs no preload from NODE_OPTIONS (tried on
 * Node 20, 22, 24 and 26), so the preload goes into its execArgv.
 */
function withWorkerPreload(options, probeFile) {
  if (!options || (!Array.isArray(options.execArgv) && !ownEnv(options))) return options;
  const argv = Array.isArray(options.execArgv) ? options.execArgv : process.execArgv;
  const has = argv.some((arg, i) => (arg === '--require' || arg === '-r') && samePath(argv[i + 1], probeFile));
  return has ? options : { ...options, execArgv: [...argv, '--require', probeFile] };
}

function ownEnv(options) {
  return options.env !== undefined && options.env !== worker_threads.SHARE_ENV && options.env !== process.env;
}

function samePath(a, b) {
  if (typeof a !== 'string') return false;
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return a === b;
  }
}

module.exports = { joinCensus, withWorkerPreload, withWorkbookEnv, censusAddress, ENV_KEY, CPU_TICK_MS };
