'use strict';
// Times a route of an app on a timer while a load runs, the way a load
// balancer's health check or a user's click would meet it: each request on
// a fresh connection, sent on time whether or not the last one came back,
// so a blocked server shows up as requests piling up. Each answer is kept
// (status and body) so the check can verify what the route said under
// load, not only how fast.

const { setMaxListeners } = require('node:events');
const { performance } = require('node:perf_hooks');
const { request } = require('./http-client');
const { watchOwnPauses, pausedWithin } = require('./own-pauses');
const { percentile } = require('./stats');

/**
 * Times one route on a timer of its own.
 *
 * @param {string} baseUrl the app's base URL
 * @param {object} route
 * @param {string} [route.name] how results and messages name it (default: the path)
 * @param {string|((i:number) => string)} route.path a path, or one per request
 * @param {string} [route.method='GET']
 * @param {number} [route.intervalMs=50]
 * @param {number} [route.keep=200] answers kept for verification (the rest are timed only)
 * @param {string|((i:number) => string)} [route.body] a JSON body, or one per request (e.g. a
 *   new sign-up each time); each kept answer records the body it answered as `sent`
 * @returns {RouteProbe}
 */
function startRouteProbe(baseUrl, route) {
  return startRouteProbes([{ ...route, baseUrl }], { intervalMs: route.intervalMs })[0];
}

/**
 * Times several routes (of one app or of several) on ONE timer: at each
 * tick every route's request is sent in the same synchronous step, in the
 * order given. So the requests of one tick meet the same moment of the
 * machine and of the measuring process: a pause of this process (a
 * collection, a long piece of the check's own work) delays the answers of
 * that tick alike, and comparing route with route tick by tick (each
 * timeline entry carries its `tick`) leaves the apps' own delays. With a
 * timer per route, a pause that began between two routes' sends would
 * delay one and not the other.
 *
 * @param {Array<object>} routes as startRouteProbe's route, each with its own `baseUrl`
 * @param {{intervalMs?: number}} [options]
 * @returns {RouteProbe[]} one per route, in order; stopping any stops the timer for all
 */
function startRouteProbes(routes, { intervalMs = 50 } = {}) {
  const ownPauses = watchOwnPauses();
  const samplers = routes.map((route) => routeSampler(route.baseUrl, route, ownPauses));
  let tick = 0;
  const fireAll = () => {
    const t = tick++;
    for (const sampler of samplers) sampler.fire(t);
  };
  fireAll();
  const timer = setInterval(fireAll, intervalMs);
  return samplers.map((sampler) => ({
    snapshot: sampler.snapshot,
    stop: async (options) => {
      clearInterval(timer);
      const timing = await sampler.finish(options);
      if (samplers.every((s) => s.finished)) ownPauses.stop();
      return timing;
    },
  }));
}

/** One route's requests and answers; a timer outside it decides when to send. */
function routeSampler(baseUrl, { name, path, method = 'GET', keep = 200, body }, ownPauses) {
  const pathOf = typeof path === 'function' ? path : () => path;
  const bodyOf = typeof body === 'function' ? body : () => body;
  const samples = [];
  const inflight = new Set();
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per request in flight
  let failures = 0;
  let sent = 0;
  const fire = (tick) => {
    const i = sent++;
    const at = pathOf(i);
    const payload = bodyOf(i);
    const sentAt = Date.now();
    const sentHr = performance.now();
    const entry = { sentAt, sentHr, tick, path: at };
    entry.request = request(baseUrl + at, { method, body: payload, timeoutMs: 30_000, signal: abort.signal })
      .then((res) => {
        const kept = samples.length < keep;
        samples.push({ path: at, ms: res.ms, sentAt, sentHr, tick, status: res.status, body: kept ? res.body : undefined, headers: kept ? res.headers : undefined, sent: kept ? payload : undefined });
      })
      .catch(() => failures++)
      .finally(() => inflight.delete(entry));
    inflight.add(entry);
  };

  const sampler = {
    finished: false,
    fire,
    /**
     * Where the route stands now, without stopping: the answers so far, and
     * how long the oldest request still unanswered has waited (0 when none
     * is). A check that waits on another request can tell from it whether
     * this route was answered meanwhile.
     */
    snapshot() {
      const now = Date.now();
      const waiting = [...inflight].map((e) => now - e.sentAt);
      return { sent, answered: samples.length, failures, oldestUnansweredMs: waiting.length ? Math.max(...waiting) : 0, latest: samples.slice(-20).map((s) => s.ms) };
    },
    /** Waits (bounded) for answers still on their way, then counts them as that late. */
    async finish({ maxWaitMs = 5000 } = {}) {
      sampler.finished = true;
      let waitTimer;
      await Promise.race([
        Promise.allSettled([...inflight].map((e) => e.request)),
        new Promise((resolve) => (waitTimer = setTimeout(resolve, maxWaitMs))),
      ]);
      clearTimeout(waitTimer);
      // Requests still unanswered waited at least this long: count them so,
      // rather than dropping the slowest samples.
      const now = performance.now();
      const waiting = [...inflight];
      const unanswered = waiting.map((e) => now - e.sentHr);
      abort.abort();
      const all = [...samples.map((s) => s.ms), ...unanswered];
      // Every request's wait with the time and tick it was sent, unanswered
      // ones included, so that routes probed side by side can be compared
      // moment by moment; and how much of that wait this process itself was
      // held up (pausedMs), when an answer could arrive but not be seen.
      const pauses = ownPauses.pauses();
      const entry = (e, ms, answered) => ({ sentAt: e.sentAt, tick: e.tick, ms, answered, pausedMs: pausedWithin(pauses, e.sentHr, e.sentHr + ms) });
      const timeline = [...samples.map((s) => entry(s, s.ms, true)), ...waiting.map((e, i) => entry(e, unanswered[i], false))].sort((a, b) => a.tick - b.tick);
      return {
        name: name || (typeof path === 'string' ? path : pathOf(0)),
        sent: samples.length + unanswered.length + failures,
        answered: samples.length,
        unanswered: unanswered.length,
        failures,
        non200: samples.filter((s) => s.status !== 200).length,
        p50: percentile(all, 50),
        p90: percentile(all, 90),
        p99: percentile(all, 99),
        max: all.length ? Math.max(...all) : NaN,
        samples: samples.filter((s) => s.body !== undefined),
        timeline,
      };
    },
  };
  return sampler;
}

/**
 * @typedef {object} RouteProbe
 * @property {() => {sent:number, answered:number, failures:number, oldestUnansweredMs:number, latest:number[]}} snapshot
 * @property {(options?:{maxWaitMs?:number}) => Promise<RouteTiming>} stop stops sending; waits (bounded) for
 *   answers still on their way, then counts them as that late
 */

/**
 * @typedef {object} RouteTiming
 * @property {string} name
 * @property {number} sent
 * @property {number} answered
 * @property {number} unanswered still unanswered when the probe stopped (counted as that late)
 * @property {number} failures connection errors
 * @property {number} non200 answers with another status
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} max
 * @property {Array<{path:string, ms:number, sentAt:number, status:number, body:string, headers:object, sent?:string}>} samples
 * @property {Array<{sentAt:number, tick:number, ms:number, answered:boolean, pausedMs:number}>} timeline every
 *   request's wait (unanswered: until the probe stopped), in the order sent: the time it was sent
 *   (Date.now()), the timer's tick that sent it, and how much of the wait the measuring process's own
 *   event loop was held up
 */

module.exports = { startRouteProbe, startRouteProbes };
