'use strict';
// Times a route of an app on a timer while a load runs, the way a load
// balancer's health check or a user's click would meet it: each request on
// a fresh connection, sent on time whether or not the last one came back,
// so a blocked server shows up as requests piling up. Each answer is kept
// (status and body) so the check can verify what the route said under
// load, not only how fast.

const { setMaxListeners } = require('node:events');
const { request } = require('./http-client');
const { percentile } = require('./stats');

/**
 * @param {string} baseUrl the app's base URL
 * @param {object} route
 * @param {string} [route.name] how results and messages name it (default: the path)
 * @param {string|((i:number) => string)} route.path a path, or one per request
 * @param {string} [route.method='GET']
 * @param {number} [route.intervalMs=50]
 * @param {number} [route.keep=200] answers kept for verification (the rest are timed only)
 * @param {string|((i:number) => string)} [route.body] a JSON body, or one per request (e.g. a
 *   new sign-up each time); each kept answer records the body it answered as `sent`
 * @returns {{stop: (options?:{maxWaitMs?:number}) => Promise<RouteTiming>}}
 */
function startRouteProbe(baseUrl, { name, path, method = 'GET', intervalMs = 50, keep = 200, body }) {
  const pathOf = typeof path === 'function' ? path : () => path;
  const bodyOf = typeof body === 'function' ? body : () => body;
  const samples = [];
  const inflight = new Set();
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per request in flight
  let failures = 0;
  let sent = 0;
  const fire = () => {
    const i = sent++;
    const at = pathOf(i);
    const payload = bodyOf(i);
    const sentAt = Date.now();
    const entry = { sentAt, path: at };
    entry.request = request(baseUrl + at, { method, body: payload, timeoutMs: 30_000, signal: abort.signal })
      .then((res) => {
        const kept = samples.length < keep;
        samples.push({ path: at, ms: res.ms, sentAt, status: res.status, body: kept ? res.body : undefined, headers: kept ? res.headers : undefined, sent: kept ? payload : undefined });
      })
      .catch(() => failures++)
      .finally(() => inflight.delete(entry));
    inflight.add(entry);
  };
  fire();
  const timer = setInterval(fire, intervalMs);

  return {
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
    /** Stops sending; waits (bounded) for answers still on their way, then counts them as that late. */
    async stop({ maxWaitMs = 5000 } = {}) {
      clearInterval(timer);
      let waitTimer;
      await Promise.race([
        Promise.allSettled([...inflight].map((e) => e.request)),
        new Promise((resolve) => (waitTimer = setTimeout(resolve, maxWaitMs))),
      ]);
      clearTimeout(waitTimer);
      // Requests still unanswered waited at least this long: count them so,
      // rather than dropping the slowest samples.
      const now = Date.now();
      const waiting = [...inflight];
      const unanswered = waiting.map((e) => now - e.sentAt);
      abort.abort();
      const all = [...samples.map((s) => s.ms), ...unanswered];
      // Every request's wait with the time it was sent, unanswered ones
      // included, so that two routes probed side by side can be compared
      // moment by moment.
      const timeline = [...samples.map((s) => ({ sentAt: s.sentAt, ms: s.ms, answered: true })), ...waiting.map((e, i) => ({ sentAt: e.sentAt, ms: unanswered[i], answered: false }))].sort((a, b) => a.sentAt - b.sentAt);
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
}

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
 * @property {Array<{sentAt:number, ms:number, answered:boolean}>} timeline every request's wait (unanswered:
 *   until the probe stopped), by the time it was sent (Date.now())
 */

module.exports = { startRouteProbe };
