'use strict';
// Drives load at an app with autocannon's programmatic API, optionally while
// probing a second endpoint on a timer (the way a load balancer's health
// check would), and returns one plain result object.

const { setMaxListeners } = require('node:events');
const { get } = require('./http-client');
const { percentile } = require('./stats');

/**
 * @param {object} options
 * @param {string} options.url base URL of the app
 * @param {string|string[]|Function} options.path path(s) to request; a function
 *   `(i) => path` is called for every request (e.g. to vary a query)
 * @param {number} [options.connections=10]
 * @param {number} [options.duration] seconds (either this or `amount`)
 * @param {number} [options.amount] total number of requests
 * @param {number} [options.timeout=10] seconds before a request counts as timed out
 * @param {number} [options.sampleMs=50] autocannon's sampling tick (1000 for tables people read)
 * @param {{path:string, intervalMs?:number}} [options.probe] a second endpoint to time
 * @param {(tick:{elapsedMs:number, requests:number}) => void} [options.onTick]
 */
async function runLoad(options) {
  const { url, connections = 10, duration, amount, timeout = 10, probe, onTick, sampleMs = 50 } = options;
  const requests = requestList(options.path);
  const started = Date.now();
  const prober = probe ? startProbe(url + probe.path, probe.intervalMs ?? 50) : null;

  // Loaded on first use: CLI commands that never load an app start sooner.
  const autocannon = require('autocannon');
  const instance = autocannon({
    url,
    connections,
    ...(amount ? { amount } : { duration }),
    timeout,
    requests,
    // autocannon notices the end of a run only on its sampling tick (1 s by
    // default): a 0.5 s run would take 1 s and count the idle rest in its
    // duration. A 50 ms tick keeps the checks' short runs short and their
    // rates right. (Its own table's "Req/Sec" row is then per tick, so runs
    // meant for people to read keep the 1 s tick.)
    sampleInt: sampleMs,
  });
  let requestsSoFar = 0;
  instance.on('response', () => requestsSoFar++);
  const ticker = onTick
    ? setInterval(() => onTick({ elapsedMs: Date.now() - started, requests: requestsSoFar }), 1000)
    : null;
  let result;
  let probeResult = null;
  try {
    result = await instance;
  } finally {
    // Whatever happened, stop sending: nothing may outlive the load.
    if (ticker) clearInterval(ticker);
    if (prober) probeResult = await prober.stop();
  }

  const seconds = result.duration;
  const statusCodes = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) {
    statusCodes[code] = count;
  }
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    connections,
    durationS: seconds,
    responses,
    requestsPerSec: seconds > 0 ? responses / seconds : 0,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      mean: result.latency.mean,
      max: result.latency.max,
    },
    statusCodes,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    probe: probeResult,
    raw: result,
  };
}

function requestList(path) {
  if (typeof path === 'function') {
    let i = 0;
    return [{ setupRequest: (req) => ({ ...req, path: path(i++) }) }];
  }
  return (Array.isArray(path) ? path : [path]).map((p) => ({ path: p }));
}

/**
 * Times GET `url` every `intervalMs`, each on a fresh connection, without
 * waiting for the previous one: a blocked server shows up as requests piling up.
 */
function startProbe(url, intervalMs) {
  const samples = [];
  const inflight = new Set();
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per request in flight
  let failures = 0;
  const fire = () => {
    const sentAt = Date.now();
    const request = get(url, { timeoutMs: 30_000, signal: abort.signal })
      .then((res) => samples.push({ ms: res.ms, status: res.status }))
      .catch(() => failures++)
      .finally(() => inflight.delete(entry));
    const entry = { sentAt, request };
    inflight.add(entry);
  };
  fire();
  const timer = setInterval(fire, intervalMs);

  return {
    /** Stops sending; waits (bounded) for answers still on their way. */
    async stop({ maxWaitMs = 5000 } = {}) {
      clearInterval(timer);
      const pending = [...inflight].map((e) => e.request);
      let waitTimer;
      await Promise.race([
        Promise.allSettled(pending),
        new Promise((resolve) => (waitTimer = setTimeout(resolve, maxWaitMs))),
      ]);
      clearTimeout(waitTimer);
      // Requests still unanswered waited at least this long: count them so,
      // rather than dropping the slowest samples.
      const now = Date.now();
      const unanswered = [...inflight].map((e) => ({ ms: now - e.sentAt, status: 0 }));
      abort.abort();
      const all = [...samples, ...unanswered].map((s) => s.ms);
      return {
        sent: samples.length + unanswered.length + failures,
        answered: samples.length,
        unanswered: unanswered.length,
        failures,
        non200: samples.filter((s) => s.status !== 200).length,
        p50: percentile(all, 50),
        p90: percentile(all, 90),
        p99: percentile(all, 99),
        max: all.length ? Math.max(...all) : NaN,
      };
    },
  };
}

module.exports = { runLoad };
