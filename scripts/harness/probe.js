'use strict';
// Preloaded into a lab app by the harness (`node --require probe.js app.js`),
// so the lab apps themselves stay plain. It:
//   - reports the port every server really listens on (apps get PORT=0, so
//     two checks never collide);
//   - measures event-loop delay from inside the app;
//   - answers "heap used after a forced GC" on request;
//   - closes the app's servers and exits cleanly on SIGINT/SIGTERM or when
//     asked, so profilers that write on exit (--cpu-prof, --prof, Clinic.js)
//     get their data, and exits when the harness that started it goes away.
// It talks to the harness over the IPC channel when there is one, and
// writes its "listening" report to WORKBOOK_READY_FILE when that is set
// (profilers that start the app themselves give it no IPC channel).

const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const v8 = require('node:v8');
const vm = require('node:vm');
const { monitorEventLoopDelay } = require('node:perf_hooks');

// Profilers wrap the app in extra node processes that inherit NODE_OPTIONS,
// and node:cluster starts workers with the same flags: only the process the
// harness started, running the lab app itself, is probed. (A cluster
// worker's IPC channel is cluster's own, and keeps the worker alive.)
const target = process.env.WORKBOOK_APP;
// (Node removes NODE_UNIQUE_ID from the environment before preloads run.)
const isClusterWorker = require('node:cluster').isWorker;
// Preloads also run in worker threads; the probe belongs to the main one.
const { isMainThread } = require('node:worker_threads');
const isTarget = isMainThread && !isClusterWorker && (!target || (process.argv[1] && samePath(process.argv[1], target)));

function samePath(a, b) {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

if (isTarget) install();

/** Each job of the probe, wired together. */
function install() {
  const loop = watchEventLoopDelay();
  const servers = trackServers();
  const shutdown = closeAndExit(servers, loop);
  const handlers = { ...loop.handlers, ...memoryHandlers(), ...processHandlers(servers, shutdown) };
  stopWhenAsked(shutdown);
  if (process.send) answerHarness(handlers);
}

/** Sends a message to the harness: over IPC, and to the ready file for apps a profiler started. */
function report(message) {
  if (process.send && process.connected) process.send(message);
  if (process.env.WORKBOOK_READY_FILE) {
    fs.appendFileSync(process.env.WORKBOOK_READY_FILE, JSON.stringify(message) + '\n');
  }
}

/** Event-loop delay, measured from inside the app. */
function watchEventLoopDelay() {
  const RESOLUTION_MS = 5;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // The histogram records the time between timer ticks; what the app's
  // users feel is how late each tick was, so subtract the resolution.
  const toMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  return {
    stop: () => delay.disable(),
    handlers: {
      'eld:reset': () => {
        delay.reset();
        return {};
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
  let served = 0;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function probedListen(...args) {
    servers.add(this);
    if (this instanceof http.Server) this.on('request', () => served++);
    this.once('listening', () => {
      const address = this.address();
      if (address && typeof address === 'object') report({ type: 'listening', address });
    });
    this.once('close', () => servers.delete(this));
    return listen.apply(this, args);
  };
  return { all: servers, served: () => served };
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
      const { heapUsed, heapTotal, rss } = process.memoryUsage();
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
      const { user, system } = process.cpuUsage();
      return { user, system, total: user + system, served: servers.served() };
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
  // Apps started by a profiler have no IPC channel. The workbook asks them to
  // stop by creating a file (signals cannot be sent to a child on Windows)...
  const stopFile = process.env.WORKBOOK_STOP_FILE;
  if (stopFile) {
    setInterval(() => {
      if (fs.existsSync(stopFile)) shutdown();
    }, 200).unref();
  }
  // ...and they watch the workbook's process, to exit if it goes away.
  const parent = Number(process.env.WORKBOOK_PARENT_PID);
  if (parent && !process.send) {
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

/** Answers the harness's requests over IPC, and exits when the harness goes away. */
function answerHarness(handlers) {
  process.on('message', (message) => {
    if (!message || typeof message !== 'object' || !handlers[message.cmd]) return;
    const reply = { type: 'reply', id: message.id };
    try {
      Object.assign(reply, { ok: true, value: handlers[message.cmd](message.args || {}) });
    } catch (err) {
      Object.assign(reply, { ok: false, error: err.message });
    }
    if (process.connected) process.send(reply);
  });
  // The harness went away (finished, crashed, or was killed): so do we.
  process.on('disconnect', () => process.exit(0));
  // The channel must not keep an app alive that would otherwise exit.
  if (process.channel && process.channel.unref) process.channel.unref();
}
