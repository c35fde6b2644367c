'use strict';
// Preloaded into a lab app by the harness (through NODE_OPTIONS), so the lab
// apps themselves stay plain. It:
//   - reports the port every server really listens on (apps get a free
//     port of the harness's choosing, so two checks never collide);
//   - measures event-loop delay from inside the app;
//   - answers "heap used after a forced GC" on request, and joins the
//     harness's census in every thread and process of the app;
//   - closes the app's servers and exits cleanly on SIGINT/SIGTERM or when
//     asked, so profilers that write on exit (--cpu-prof, --prof, Clinic.js)
//     get their data, and exits when the harness that started it goes away.
// It talks to the harness over its census connection (census-member.js),
// and writes its "listening" report to WORKBOOK_READY_FILE when that is set
// (profilers that start the app themselves).
//
// No app can tell a check from `workbook run`, `load` or `profile` by what
// the probe leaves behind: it takes the workbook's variables (WORKBOOK_*)
// and its own preload out of the environment before the app's code runs,
// and gives them back only to the processes the app starts (so they join
// the census); there is no IPC channel. What an app sees is its port (any
// free one, or 3000 for `workbook run`) and the lab's own settings, the same
// in every mode (see the `services` of a lab's check).

const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const v8 = require('node:v8');
const vm = require('node:vm');
const { monitorEventLoopDelay } = require('node:perf_hooks');

// Captured before the app's code runs, which could replace them.
const cpuUsage = process.cpuUsage.bind(process);
const memoryUsage = process.memoryUsage.bind(process);

// The timer resolution of every event-loop delay the probe measures.
const DELAY_RESOLUTION_MS = 5;

// A worker thread's environment is a copy of its parent's, already without
// them: it gets them from its parent through setEnvironmentData.
const worker_threads = require('node:worker_threads');
const HIDDEN_ENV_KEY = 'workbook:hidden-env';
const inherited = worker_threads.isMainThread ? null : worker_threads.getEnvironmentData?.(HIDDEN_ENV_KEY);
const hiddenEnv = { ...(inherited || {}), ...require('./hidden-env').hideWorkbookEnv(process.env, __filename) };

// Profilers wrap the app in extra node processes that inherit NODE_OPTIONS,
// and node:cluster starts workers with the same flags: only the process the
// harness started, running the lab app itself, is probed. (A cluster
// worker's IPC channel is cluster's own, and keeps the worker alive.)
const target = hiddenEnv.WORKBOOK_APP;
// (Node removes NODE_UNIQUE_ID from the environment before preloads run.)
const isClusterWorker = require('node:cluster').isWorker;
// Preloads also run in worker threads; the probe belongs to the main one.
const { isMainThread } = require('node:worker_threads');
// A process the app starts inherits the workbook's variables: one that finds
// this marker is a descendant of the probed app, not the app (even when it
// runs the same file, as a fork of itself would).
const descendant = Boolean(hiddenEnv.WORKBOOK_PROBED_PID);
const isTarget = isMainThread && !isClusterWorker && !descendant && (!target || (process.argv[1] && samePath(process.argv[1], target)));
if (isTarget) hiddenEnv.WORKBOOK_PROBED_PID = String(process.pid);
worker_threads.setEnvironmentData?.(HIDDEN_ENV_KEY, hiddenEnv);

function samePath(a, b) {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

// Every thread of every process started for a check reports its memory and
// CPU to the harness's census (census-member.js), not only the app's main
// thread; the main thread's connection is also its channel to the harness.
const control = require('./census-member').joinCensus(__filename, { isTarget, hiddenEnv });

if (isTarget) install();

/** Each job of the probe, wired together. */
function install() {
  const loop = watchEventLoopDelay();
  const servers = trackServers();
  const shutdown = closeAndExit(servers, loop);
  const handlers = { ...loop.handlers, ...poolWaitHandlers(), ...controlHandlers(), ...memoryHandlers(), ...processHandlers(servers, shutdown) };
  stopWhenAsked(shutdown);
  if (control) answerHarness(control, handlers);
}

/** Sends a message to the harness: over the census connection, and to the ready file for apps a profiler started. */
function report(message) {
  if (control) control.send(message);
  if (hiddenEnv.WORKBOOK_READY_FILE) {
    fs.appendFileSync(hiddenEnv.WORKBOOK_READY_FILE, JSON.stringify(message) + '\n');
  }
}

/** Event-loop delay, measured from inside the app. */
function watchEventLoopDelay() {
  const RESOLUTION_MS = DELAY_RESOLUTION_MS;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // The histogram records the time between timer ticks; what the app's
  // users feel is how late each tick was, so subtract the resolution.
  const toMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  return {
    stop: () => delay.disable(),
    handlers: {
      // A reset histogram records nothing at its first tick: that tick only
      // notes the time the next delay is measured from. A stall between a
      // reset and that tick would be lost (measured: 2 runs in 6 missed a
      // 150 ms stall), so the reset answers once a tick has passed.
      'eld:reset': () => {
        delay.reset();
        return new Promise((resolve) => setTimeout(() => resolve({}), 2 * RESOLUTION_MS + 1));
      },
      'eld:read': () => ({
        count: delay.count,
        p50: toMs(delay.percentile(50)),
        p90: toMs(delay.percentile(90)),
        p99: toMs(delay.percentile(99)),
        max: toMs(delay.max),
        mean: toMs(delay.mean),
      }),
    },
  };
}

/**
 * Every server the app starts: reports the port it really listens on (apps
 * get PORT=0, so two checks never collide), and counts the HTTP requests
 * this process receives, so a check can tell an app that serves from
 * another process (cluster) from one that serves cheaply.
 */
function trackServers() {
  const servers = new Set();
  const costs = costRecorder();
  const timeline = startupTimeline();
  let served = 0;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function probedListen(...args) {
    servers.add(this);
    if (this instanceof http.Server) {
      // First in line: the app's own handler (added when the server was
      // created) may do all its work synchronously in its listener.
      this.prependListener('request', (req, res) => {
        served++;
        timeline.request(res);
        if (costs.recording) costs.watch(req, res);
      });
    }
    this.once('listening', () => {
      timeline.listening();
      const address = this.address();
      if (address && typeof address === 'object') report({ type: 'listening', address });
    });
    this.once('close', () => servers.delete(this));
    return listen.apply(this, args);
  };
  return { all: servers, served: () => served, costs, timeline };
}

/**
 * The app's start, as the app's own clock saw it: when its first server
 * started listening, when its first request arrived, and when the last of
 * its first 64 responses was sent, each with the time the main thread had
 * spent idle in its event loop until then (waiting, with nothing to run:
 * performance.eventLoopUtilization().idle) and the CPU the process had used.
 * Only the first requests are watched, so a load pays nothing for it.
 */
function startupTimeline() {
  const WATCHED = 64;
  let watched = 0;
  const marks = { listening: null, firstRequest: null, lastResponse: null };
  const moment = () => {
    const { user, system } = process.cpuUsage();
    return { at: performance.now(), idle: performance.eventLoopUtilization().idle, cpu: (user + system) / 1000 };
  };
  return {
    listening() {
      marks.listening ??= moment();
    },
    request(res) {
      marks.firstRequest ??= moment();
      if (watched < WATCHED) {
        watched++;
        res.once('finish', () => (marks.lastResponse = moment()));
      }
    },
    read() {
      const { nodeStart, v8Start, environment, bootstrapComplete, loopStart } = performance.nodeTiming;
      return { timeOrigin: performance.timeOrigin, nodeTiming: { nodeStart, v8Start, environment, bootstrapComplete, loopStart }, ...marks, now: moment() };
    },
  };
}

/**
 * The CPU time (all threads, µs) and the wall time (µs) from each
 * request's arrival to its response being sent, with its URL, while
 * recording. Meant for requests
 * sent one at a time: it says which of them the app had to work for (a
 * cache miss) and which it answered at once (a hit), in CPU time, which a
 * busy machine delays but does not inflate.
 */
function costRecorder() {
  return {
    recording: false,
    list: [],
    watch(req, res) {
      const start = cpuUsage();
      const started = performance.now();
      res.once('finish', () => {
        const { user, system } = cpuUsage(start);
        const wall = Math.round((performance.now() - started) * 1000);
        if (this.list.length < 5000) this.list.push({ url: req.url, cpu: user + system, wall });
      });
    },
  };
}

/**
 * How long a tiny job waits for one of libuv's pool threads, timed from a
 * thread of the probe's own: every `intervalMs`, one crypto.randomFill of
 * 16 bytes (a pool job of a few microseconds on any machine) is queued,
 * and the time to its callback recorded. fs, dns.lookup, crypto and zlib
 * calls all queue on the same pool (the process has one, shared by every
 * thread), so this is how long any of them waits for a thread right now.
 * The probe's thread has its own event loop: a busy main thread does not
 * delay the callback, so the figure is the pool's wait alone.
 */
function poolWaitHandlers() {
  let worker = null;
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { randomFill } = require('node:crypto');
    const waits = [];
    const buffer = Buffer.alloc(16);
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return; // one job at a time: a queue of our own would measure itself
      busy = true;
      const queued = process.hrtime.bigint();
      randomFill(buffer, () => {
        waits.push(Number(process.hrtime.bigint() - queued) / 1e6);
        busy = false;
      });
    }, workerData.intervalMs);
    parentPort.on('message', (cmd) => {
      if (cmd === 'stop') clearInterval(timer);
      parentPort.postMessage(waits);
    });`;
  return {
    'pool:start': ({ intervalMs = 20 }) => {
      if (worker) worker.terminate();
      const { Worker } = require('node:worker_threads');
      // Marked, so the memory census leaves the probe's own thread out.
      worker = new Worker(source, { eval: true, workerData: { intervalMs, workbookProbe: true } });
      worker.unref();
      return {};
    },
    // The waits so far; `stop` (the default) ends the timing thread.
    'pool:read': ({ stop = true }) =>
      new Promise((resolve, reject) => {
        if (!worker) return reject(new Error('the pool wait probe was not started'));
        const current = worker;
        if (stop) worker = null;
        current.once('message', (waits) => {
          if (stop) current.terminate();
          resolve({ waits });
        });
        current.once('error', reject);
        current.postMessage(stop ? 'stop' : 'peek');
      }),
  };
}

/**
 * A control thread inside the app: a thread of the probe's own that runs no
 * app code, with a timer (its event-loop delay, measured as the main
 * thread's is) and a tiny HTTP server on 127.0.0.1 (the control route). It
 * lives in the same process, on the same machine, at the same moment as the
 * app's main thread, and is reached by the same client: whatever delays it
 * (a machine with more busy threads than cores, a CPU hog, a coarse system
 * timer) delays the main thread and its routes too. What the main thread
 * shows beyond it is the app's own doing.
 */
function controlHandlers() {
  let worker = null;
  const source = `
    const http = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const { monitorEventLoopDelay } = require('node:perf_hooks');
    const delay = monitorEventLoopDelay({ resolution: workerData.resolutionMs });
    delay.enable();
    const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"control":true}'));
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', (cmd) => {
      const toMs = (ns) => Math.max(0, ns / 1e6 - workerData.resolutionMs);
      if (cmd === 'reset') {
        // As eld:reset: answered once the reset histogram has ticked.
        delay.reset();
        return setTimeout(() => parentPort.postMessage({ reset: true }), 2 * workerData.resolutionMs + 1);
      }
      parentPort.postMessage({
        delay: { count: delay.count, p50: toMs(delay.percentile(50)), p90: toMs(delay.percentile(90)), p99: toMs(delay.percentile(99)), max: toMs(delay.max) },
      });
      if (cmd === 'stop') {
        server.close();
        server.closeAllConnections();
      }
    });`;
  return {
    'control:start': () =>
      new Promise((resolve, reject) => {
        if (worker) worker.terminate();
        const { Worker } = require('node:worker_threads');
        // Marked, so the memory census leaves the probe's own thread out.
        worker = new Worker(source, { eval: true, workerData: { resolutionMs: DELAY_RESOLUTION_MS, workbookProbe: true } });
        worker.unref();
        worker.once('message', ({ port }) => resolve({ url: `http://127.0.0.1:${port}` }));
        worker.once('error', reject);
      }),
    // Its event-loop delay since it started or was last reset; `stop` ends it.
    'control:read': ({ stop = true }) =>
      new Promise((resolve, reject) => {
        if (!worker) return reject(new Error('the control thread was not started'));
        const current = worker;
        if (stop) worker = null;
        current.once('message', ({ delay }) => {
          if (stop) current.terminate();
          resolve({ delay });
        });
        current.once('error', reject);
        current.postMessage(stop ? 'stop' : 'read');
      }),
    'control:reset': () =>
      new Promise((resolve, reject) => {
        if (!worker) return reject(new Error('the control thread was not started'));
        worker.once('message', () => resolve({}));
        worker.once('error', reject);
        worker.postMessage('reset');
      }),
  };
}

/** Heap after a forced GC, and heap snapshots. */
function memoryHandlers() {
  // A GC we can force without asking the app to run with --expose-gc.
  v8.setFlagsFromString('--expose-gc');
  const forceGc = vm.runInNewContext('gc');
  return {
    heap: () => {
      // Two passes: the first can leave objects with finalizers for the second.
      forceGc();
      forceGc();
      const { heapUsed, heapTotal, rss } = memoryUsage();
      return { heapUsed, heapTotal, rss };
    },
    // A heap snapshot to the given file, for the heap comparison.
    snapshot: ({ file }) => ({ file: v8.writeHeapSnapshot(file) }),
  };
}

/** CPU used, requests served, what the app still waits on, and shutdown. */
function processHandlers(servers, shutdown) {
  return {
    // CPU time this process has used (all threads), in microseconds, and the
    // HTTP requests it has received so far.
    cpu: () => {
      const { user, system } = cpuUsage();
      return { user, system, total: user + system, served: servers.served() };
    },
    // The app's start as its own clock saw it (see startupTimeline).
    startup: () => servers.timeline.read(),
    // Per-request CPU time: start recording, or read and stop.
    'costs:start': () => {
      servers.costs.list = [];
      servers.costs.recording = true;
      return {};
    },
    'costs:read': () => {
      servers.costs.recording = false;
      return { requests: servers.costs.list };
    },
    // What the app is still waiting on (pending file writes, timers, sockets),
    // by resource type: a check waits for file I/O to drain before measuring.
    pending: () => {
      const counts = {};
      for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] || 0) + 1;
      return counts;
    },
    shutdown: () => {
      setImmediate(shutdown);
      return {};
    },
  };
}

/**
 * Closes the app's servers and lets the process end by itself, so profilers
 * that write on exit (--cpu-prof, --prof, Clinic.js) get their data.
 */
function closeAndExit(servers, loop) {
  let closing = false;
  return function shutdown() {
    if (closing) return;
    closing = true;
    loop.stop();
    for (const server of servers.all) {
      server.close();
      if (typeof server.closeAllConnections === 'function') server.closeAllConnections();
    }
    // Ending by itself is what fires 'beforeExit', where Clinic.js flushes
    // its data. If the app keeps something else alive (a timer, a pool),
    // nudge: 'beforeExit' for the profilers that wait on it, then exit for
    // good (--cpu-prof and --prof write on any exit).
    const waitsForBeforeExit = process.listenerCount('beforeExit') > 0;
    setTimeout(() => {
      if (waitsForBeforeExit) process.emit('beforeExit', 0);
      setTimeout(() => process.exit(0), waitsForBeforeExit ? 2000 : 0).unref();
    }, waitsForBeforeExit ? 2000 : 200).unref();
  };
}

/** Stops on SIGINT/SIGTERM, on a stop file, or when the workbook's process is gone. */
function stopWhenAsked(shutdown) {
  // Apps started by a profiler have no census connection. The workbook asks
  // them to stop by creating a file (signals cannot be sent to a child on
  // Windows)...
  const stopFile = hiddenEnv.WORKBOOK_STOP_FILE;
  if (stopFile) {
    setInterval(() => {
      if (fs.existsSync(stopFile)) shutdown();
    }, 200).unref();
  }
  // ...and they watch the workbook's process, to exit if it goes away.
  const parent = Number(hiddenEnv.WORKBOOK_PARENT_PID);
  if (parent && !control) {
    setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch (err) {
        if (err.code !== 'EPERM') process.exit(0); // EPERM: it exists, we may just not signal it
      }
    }, 1000).unref();
  }

  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

/** Answers the harness's requests over the control channel, and exits when the harness goes away. */
function answerHarness(channel, handlers) {
  channel.handle(handlers);
  // The harness went away (finished, crashed, or was killed): so do we.
  channel.onClose(() => process.exit(0));
}

