'use strict';
// The probe's half of the memory census (census.js is the harness's half).
// Loaded by the probe in EVERY thread of every Node process a check starts:
// the app's main thread, each worker thread it creates (and theirs), and
// each Node process it starts. Each one connects to the harness's census
// server on 127.0.0.1 and, when asked, forces a full garbage collection in
// its own isolate and reports that isolate's memory. A check then sees all
// the memory an app keeps, wherever it keeps it: in a Map on the main
// thread, in a worker thread's heap, or in Buffers.
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
// How every thread gets this module: the probe is preloaded with --require,
// which workers inherit only when they keep the default execArgv and env.
// So each thread replaces worker_threads.Worker with a subclass that adds
// the preload to any explicit execArgv, and passes the census address to
// new workers through setEnvironmentData (which reaches a worker whatever
// its env). Node processes started by the app get the preload and the
// address through NODE_OPTIONS and the environment, as the app did.
// Each member also counts the live workers it started and the child
// processes it spawned, so the harness can tell when one never reported.

const fs = require('node:fs');
const net = require('node:net');
const v8 = require('node:v8');
const vm = require('node:vm');
const worker_threads = require('node:worker_threads');

const ENV_KEY = 'WORKBOOK_CENSUS'; // "port:token" of the harness's census server
const DATA_KEY = 'workbook:census';

/** The census address this thread should report to, or null. */
function censusAddress() {
  const fromData = worker_threads.getEnvironmentData?.(DATA_KEY);
  const value = typeof fromData === 'string' ? fromData : process.env[ENV_KEY];
  const match = /^(\d+):([0-9a-f]+)$/.exec(value || '');
  return match ? { port: Number(match[1]), token: match[2], value } : null;
}

/**
 * Joins the census, if this process was started for one.
 * @param {string} probeFile the probe's own path, preloaded into new workers
 * @param {{isTarget:boolean}} role whether this is the app's own main thread
 */
function joinCensus(probeFile, { isTarget }) {
  const address = censusAddress();
  if (!address) return;
  // The probe's own threads (e.g. its thread-pool timer) are not the app's.
  if (worker_threads.workerData?.workbookProbe) return;
  worker_threads.setEnvironmentData?.(DATA_KEY, address.value);
  const offspring = trackOffspring(probeFile);
  const forceGc = gcFunction();

  const socket = net.connect(address.port, '127.0.0.1');
  // The census must never keep a thread or process alive, nor crash it.
  socket.unref();
  socket.on('error', () => {});
  socket.setNoDelay(true);
  const send = (message) => socket.write(`${JSON.stringify(message)}\n`);
  socket.on('connect', () =>
    send({
      type: 'hello',
      token: address.token,
      pid: process.pid,
      threadId: worker_threads.threadId,
      isMainThread: worker_threads.isMainThread,
      isTarget,
      argv: process.argv.slice(1, 3),
    }),
  );
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let request;
      try {
        request = JSON.parse(line);
      } catch {
        continue;
      }
      if (request.type === 'measure') send({ type: 'memory', id: request.id, ...measure(request, forceGc, offspring) });
    }
  });
}

/** This isolate's memory, after a full collection when asked. */
function measure({ gc }, forceGc, offspring) {
  if (gc) {
    // Two passes: the first can leave objects with finalizers for the second.
    forceGc();
    forceGc();
  }
  const { heapUsed, heapTotal, external, arrayBuffers, rss } = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  const code = v8.getHeapCodeStatistics();
  return { heapUsed, heapTotal, external, arrayBuffers, rss, spaces, code, workers: offspring.workers(), children: offspring.children() };
}

/** A full GC we can force without asking the app to run with --expose-gc. */
function gcFunction() {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/**
 * Makes every worker this thread starts load the probe, and counts the live
 * workers and child processes this thread started.
 */
function trackOffspring(probeFile) {
  const live = new Set();
  const Original = worker_threads.Worker;
  if (!Original.workbookCensus) {
    class Worker extends Original {
      constructor(filename, options = {}) {
        super(filename, withPreload(options, probeFile));
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
    ChildProcess.prototype.spawn = function censusSpawn(...args) {
      const result = spawn.apply(this, args);
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

/** Worker options that preload the probe even with an explicit execArgv. */
function withPreload(options, probeFile) {
  if (!options || !Array.isArray(options.execArgv)) return options;
  const argv = options.execArgv;
  const has = argv.some((arg, i) => (arg === '--require' || arg === '-r') && samePath(argv[i + 1], probeFile));
  return has ? options : { ...options, execArgv: [...argv, '--require', probeFile] };
}

function samePath(a, b) {
  if (typeof a !== 'string') return false;
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return a === b;
  }
}

module.exports = { joinCensus, withPreload, censusAddress, ENV_KEY };
