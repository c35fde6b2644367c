'use strict';
// Drives load at an app with autocannon's programmatic API, optionally while
// timing other routes on a timer (the way a load balancer's health check or
// another user would meet them) and keeping the answers of one more
// connection of the same load for the check to verify, and returns one
// plain result object.

const { startRouteProbe } = require('./route-probe');
const { startSampler } = require('./response-sampler');

/**
 * @param {object} options
 * @param {string} options.url base URL of the app
 * @param {string|string[]|Function} options.path path(s) to request; a function
 *   `(i) => path` is called for every request (e.g. to vary a query), and may
 *   return a whole request instead, `{ path, method, headers, body }` (e.g. a
 *   new batch to POST each time)
 * @param {number} [options.connections=10]
 * @param {number} [options.duration] seconds (either this or `amount`)
 * @param {number} [options.amount] total number of requests
 * @param {number} [options.timeout=10] seconds before a request counts as timed out
 * @param {number} [options.sampleMs=50] autocannon's sampling tick (1000 for tables people read)
 * @param {{path:string, intervalMs?:number}} [options.probe] one route to time (result: `probe`)
 * @param {Array<object>} [options.probes] routes to time, each as route-probe.js takes them,
 *   plus an optional `baseUrl` when it is not the app's (result: `probes`, in the same order)
 * @param {object} [options.sample] one more connection whose answers are kept, as
 *   response-sampler.js takes it (result: `sampled`); its path defaults to the load's
 * @param {(tick:{elapsedMs:number, requests:number}) => void} [options.onTick]
 * @param {(elapsedMs:number) => Promise<boolean>|boolean} [options.stopEarly] asked every
 *   250 ms; when it says true, the load ends there (a check whose verdict is already certain)
 */
/**
 * autocannon, loaded on first use: CLI commands that never load an app start
 * sooner. Its modules take about 0.2 s to load (2-vCPU VM), so a check loads
 * it while its app starts (run-check.js), not when a load begins, where it
 * would also stall the check's own probes.
 */
function loadGenerator() {
  return require('autocannon');
}

async function runLoad(options) {
  const { url, connections = 10, duration, amount, timeout = 10, probe, probes = [], sample, onTick, stopEarly, sampleMs = 50 } = options;
  const requests = requestList(options.path);
  const started = Date.now();
  const sampledPath = sample ? sample.path || samplePath(options.path) : null;
  const routes = [...(probe ? [probe] : []), ...probes];
  // A route may live elsewhere (the probe's control route has a port of its own).
  const probers = routes.map((route) => startRouteProbe(route.baseUrl || url, route));
  const sampler = sample ? startSampler(url, { ...sample, path: sampledPath }) : null;

  const autocannon = loadGenerator();
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
  let stoppedEarly = false;
  let asking = false;
  const stopper = stopEarly
    ? setInterval(async () => {
        if (asking || stoppedEarly) return;
        asking = true;
        try {
          if (await stopEarly(Date.now() - started)) {
            stoppedEarly = true;
            instance.stop();
          }
        } catch {
          // a question that fails means: carry on
        } finally {
          asking = false;
        }
      }, 250)
    : null;
  let result;
  let timings = [];
  let sampled = null;
  try {
    result = await instance;
  } finally {
    // Whatever happened, stop sending: nothing may outlive the load.
    if (ticker) clearInterval(ticker);
    if (stopper) clearInterval(stopper);
    [timings, sampled] = await Promise.all([Promise.all(probers.map((p) => p.stop())), sampler ? sampler.stop() : null]);
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
    stoppedEarly,
    probe: probe ? timings[0] : null,
    probes: timings.slice(probe ? 1 : 0),
    sampled,
    raw: result,
  };
}

/** The sampler's paths when it is given none: the load's fixed path(s). */
function samplePath(path) {
  // A generated path means something to the check (a new key each time, a
  // round of users): the check says which ones the sampler asks for.
  if (typeof path === 'function') throw new Error('runLoad: a load whose path is a function needs sample.path too');
  const list = Array.isArray(path) ? path : [path];
  return (i) => list[i % list.length];
}

function requestList(path) {
  if (typeof path === 'function') {
    let i = 0;
    return [
      {
        setupRequest: (req) => {
          const next = path(i++);
          return typeof next === 'string' ? { ...req, path: next } : { ...req, ...next };
        },
      },
    ];
  }
  return (Array.isArray(path) ? path : [path]).map((p) => ({ path: p }));
}

module.exports = { loadGenerator, runLoad };
