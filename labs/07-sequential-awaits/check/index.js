'use strict';
// Lab 07's check: does a dashboard take one downstream round trip, or three?
//
// The check runs the three downstream services itself (the lab's own
// services.js, started in this process) with a fixed delay d, and hands
// their URLs to the app. The figure is the median latency of
// /dashboard/:userId under a light load, in units of d: every call waits d
// at its service, so an app that makes the three calls one after another
// needs at least 3 d per dashboard, one that makes two rounds needs at
// least 2 d, and one that makes them together needs d plus a few
// milliseconds of its own work. The CPU is nearly idle either way, so CPU
// noise moves the figure by milliseconds, not by multiples of d.
//
// Because the check owns the services, it also knows what the app really
// did: it counts the calls each service received (one each per dashboard,
// under load too), checks a sample of the dashboards served under load,
// and changes the services' data between phases, so a dashboard served
// from a cache is stale and fails. Last, it makes the services misbehave
// (one answers 503, one never answers, then all three fail) and holds the
// app to its contract: a dashboard with the failed part null within
// DOWNSTREAM_TIMEOUT_MS and a round of calls, a 502 when nothing answered,
// and no crash. The measured margins are in check/margins.json.

const { isDeepStrictEqual } = require('node:util');
const { setTimeout: sleep } = require('node:timers/promises');
const { runLoad } = require('../../../scripts/harness/run-load');
const { get, json } = require('../../../scripts/harness/http-client');
const { responseCase } = require('../../../scripts/checks/gates');
const { answersUnderLoad } = require('../../../scripts/checks/under-load');
const { defineCheck } = require('../../../scripts/checks/define-check');

// The lab's services.js, beside the app: loaded when a check runs, so that a
// learner's edit to it can break a check but nothing else.
const servicesModule = () => require('../services');

const SETTINGS = { delayMs: 100, connections: 5, duration: 2, users: 50, timeoutDelays: 6 };
// Below 2 d, so an app with two rounds of calls fails whatever the machine
// does (it cannot answer sooner than 2 d); above 1 d by far more than an
// idle app's own overhead, so one round passes even on a busy machine.
const THRESHOLD = 1.8;
const SAMPLE_USERS = [1, 2, 7, 12345];

const standardLoad = {
  path: '/dashboard/42',
  connections: 10,
  duration: 10,
  describe: 'GET /dashboard/42, 10 connections',
  examples: ['/dashboard/42', '/dashboard/7'],
};

/**
 * The three downstream services as the check runs them, and the
 * environment the app gets to reach them: the services' URLs, their delay d
 * and the app's DOWNSTREAM_TIMEOUT_MS. The one place that says how lab 07's
 * services start (the hooks let the check count calls, change the data and
 * make a service fail).
 * @param {object} [hooks] revision, onRequest and fault, as createServices takes them
 * @returns {Promise<{urls:Record<string,string>, env:Record<string,string>, close:() => Promise<void>}>}
 */
async function startDownstream(hooks = {}) {
  const { NAMES, ENV, createServices } = servicesModule();
  const d = SETTINGS.delayMs;
  const services = await createServices({ delayMs: d, ...hooks });
  const env = { DOWNSTREAM_DELAY_MS: String(d), DOWNSTREAM_TIMEOUT_MS: String(SETTINGS.timeoutDelays * d) };
  for (const name of NAMES) env[ENV[name]] = services.urls[name];
  return { ...services, env };
}

async function measure(ctx) {
  const { progress } = ctx;
  const { NAMES } = servicesModule();
  const d = SETTINGS.delayMs;
  let revision = 1;
  const calls = Object.fromEntries(NAMES.map((name) => [name, 0]));
  const arrivals = []; // [{name, id, at}] for the lone requests
  let recordArrivals = false;
  const faults = new Map(); // user id → { service name → 'fail' | 'hang' }
  const downstream = await startDownstream({
    revision: () => revision,
    onRequest: (name, id) => {
      calls[name]++;
      if (recordArrivals) arrivals.push({ name, id, at: performance.now() });
    },
    fault: (name, id) => faults.get(id)?.[name] ?? null,
  });
  try {
    progress(`Started the three downstream services; each answers after d = ${d} ms`);
    // services.js is in the lab folder, beside your app: make sure its
    // services still take d, or the figure would not be in units of d.
    const direct = await Promise.all(NAMES.map((name) => get(`${downstream.urls[name]}/users/1`).catch((e) => e)));
    const slowest = Math.min(...direct.map((r) => (r instanceof Error ? 0 : r.ms)));
    const servicesCase = {
      name: `each downstream service in services.js answers after d = ${d} ms`,
      pass: slowest >= d,
      expected: `at least ${d} ms per call`,
      actual: `the quickest took ${slowest.toFixed(0)} ms${slowest >= d ? '' : ': undo your changes to services.js'}`,
    };
    const timeoutMs = SETTINGS.timeoutDelays * d;
    const app = await ctx.start(ctx.candidate, undefined, { env: downstream.env });
    progress(`Listening on ${app.url}. Checking its responses (data revision ${revision})`);

    const responses = [servicesCase];
    const lone = [];
    recordArrivals = true;
    for (const id of SAMPLE_USERS) {
      const before = { ...calls };
      const res = await get(`${app.url}/dashboard/${id}`).catch((e) => e);
      if (!(res instanceof Error)) lone.push(res.ms);
      responses.push(dashboardCase(`GET /dashboard/${id}`, res, id, revision));
      responses.push(callsCase(`GET /dashboard/${id} called each service once`, before, calls, 1));
    }
    recordArrivals = false;
    const bad = await get(`${app.url}/dashboard/not-a-user`).catch((e) => e);
    responses.push(
      responseCase('GET /dashboard/not-a-user', bad, {
        status: 400,
        describe: 'status 400 {"error":"userId must be a number"}',
        body: (body) => (isDeepStrictEqual(json({ body }), { error: 'userId must be a number' }) ? null : body.slice(0, 80)),
      }),
    );
    ctx.assertAlive(app, 'while its responses were checked');

    revision = 2;
    progress(
      `Load: /dashboard for ${SETTINGS.users} users from ${SETTINGS.connections} connections for ${SETTINGS.duration} s ` +
        `(data revision ${revision})`,
    );
    const before = { ...calls };
    const cpuBefore = await app.cpuAndRequests();
    const load = await runLoad({
      url: app.url,
      path: (i) => `/dashboard/${1 + (i % SETTINGS.users)}`,
      connections: SETTINGS.connections,
      duration: SETTINGS.duration,
      // One more connection keeps its dashboards, to check what the app
      // sends while it is busy (its calls are counted with the others).
      sample: { path: (i) => `/dashboard/${1 + ((7 * i) % SETTINGS.users)}`, keep: 60 },
    });
    ctx.assertAlive(app, 'under load');
    const cpuAfter = await app.cpuAndRequests();
    // The share of one core the app used while the load ran.
    const cpuShare = (cpuAfter.total - cpuBefore.total) / 1000 / (load.durationS * 1000);
    // Calls still on their way when the load stopped arrive within d.
    await sleep(2 * d);
    responses.push(loadCase(load, before, calls));
    const loadRevision = revision;
    responses.push(
      answersUnderLoad({
        name: `${counted(load.sampled.answers.length, 'dashboard')} sampled under load`,
        answers: load.sampled.answers,
        errors: load.sampled.errors,
        expected: `each user's dashboard at data revision ${loadRevision}`,
        verify: (a) => dashboardProblem(a.status, a.body.toString('utf8'), Number(a.path.split('/').pop()), loadRevision),
      }),
    );

    const p50 = load.latency.p50;
    const p10 = load.raw.latency.p10;
    const threshold = THRESHOLD * d;
    const latencyFigure = (certain) => ({
      'latency-p50': { value: p50, per: d, scale: `d = ${d} ms, the delay of each downstream service`, certain },
    });
    const spread = overlapOf(arrivals);
    const info = () => [
      { id: 'd', label: 'delay of each downstream service (d)', value: d, unit: 'ms' },
      {
        id: 'rounds',
        label: 'median /dashboard latency under load, in round trips of d',
        value: p50 / d,
        unit: 'd',
        text: `p10 ${p10.toFixed(0)} ms, p90 ${load.latency.p90.toFixed(0)} ms`,
      },
      {
        id: 'cpu',
        label: 'CPU the app used during the load',
        value: cpuShare * 100,
        unit: '% of one core',
        text: 'the app spends most of each request waiting, not computing',
      },
      { id: 'throughput', label: `/dashboard throughput, ${SETTINGS.connections} connections`, value: load.requestsPerSec, unit: 'req/s' },
      {
        id: 'call-spread',
        label: 'time from the first to the last of one dashboard\'s three calls (median, lone requests)',
        value: spread,
        unit: 'ms',
        text: spread < d / 2 ? 'the calls were made together' : 'each call waited for the one before it',
      },
      { id: 'lone', label: 'one dashboard at a time (median)', value: median(lone), unit: 'ms' },
    ];
    const series = () => ({ d, p10, p50, p90: load.latency.p90, requestsPerSec: load.requestsPerSec, cpuShare, calls: { ...calls } });
    // An app that makes its calls in rounds cannot answer faster than d per
    // round: with two rounds or more, not even the fastest tenth of its
    // dashboards comes in under 2 d. A median past the threshold while the
    // fastest tenth took less than 2 d is one round of calls that the
    // machine held up, not the code's shape (the noise below). A median past
    // it with the fastest tenth at 2 d or more is the code's shape: what is
    // left to check (stale data, failing services) could only add failures,
    // so the verdict is certain here and the learner waits no longer.
    if (p50 >= threshold && p10 >= 2 * d) {
      ctx.decide(
        {
          figures: latencyFigure(
            `even the fastest tenth of the dashboards took two round trips or more (p10 ${p10.toFixed(0)} ms, 2 d = ${2 * d} ms): the calls come in rounds, the machine did not hold them up`,
          ),
          responses,
          info: info(),
          series: series(),
        },
        'the load',
      );
    }

    revision = 3;
    progress(`Checking the same users again after their data changed (revision ${revision})`);
    const changed = SAMPLE_USERS.slice(0, 3);
    const answers = await Promise.all(changed.map((id) => get(`${app.url}/dashboard/${id}`).catch((e) => e)));
    changed.forEach((id, i) => responses.push(dashboardCase(`GET /dashboard/${id} after the data changed`, answers[i], id, revision)));
    ctx.assertAlive(app, 'while its responses were checked');

    revision = 4;
    progress(`When services fail, three users at once: for one a service answers 503, for one a service never answers (the app gives up after DOWNSTREAM_TIMEOUT_MS = ${timeoutMs} ms), for one all three fail`);
    responses.push(...(await failureCases(app, { faults, revision, deadlineMs: timeoutMs + 4 * d })));
    ctx.assertAlive(app, 'after its downstream services failed');

    const noise =
      p50 >= threshold && p10 < 2 * d
        ? [`the fastest tenth of the dashboards took ${p10.toFixed(0)} ms, under two round trips (${2 * d} ms), so the calls were made together, but the median took ${p50.toFixed(0)} ms: the machine held requests up`]
        : [];
    return {
      figures: latencyFigure(),
      responses,
      info: info(),
      noise,
      series: series(),
    };
  } finally {
    await downstream.close();
  }
}

/** The dashboard a user must get: each service's answer, as it is now. */
function expectedDashboard(id, revision) {
  const { answers } = servicesModule();
  return {
    profile: answers.profile(id, revision),
    orders: answers.orders(id, revision),
    recommendations: answers.recommendations(id, revision),
  };
}

/**
 * What is wrong with a dashboard, or null. The contract (the walkthrough's
 * "The API"): profile, orders and recommendations as the services answered
 * them, a part that failed as null; and optionally `missing`, the names of
 * the null parts (an empty list when none failed). Nothing else.
 * @param {string[]} failed the parts that must be null
 */
function dashboardProblem(status, body, id, revision, failed = []) {
  if (status !== 200) return `status ${status}: ${body.slice(0, 80)}`;
  const got = json({ body });
  if (!got || typeof got !== 'object') return `not JSON: ${body.slice(0, 80)}`;
  const expected = expectedDashboard(id, revision);
  for (const part of failed) expected[part] = null;
  const wrong = Object.keys(expected).filter((key) => !isDeepStrictEqual(got[key], expected[key]));
  const extra = Object.keys(got).filter((key) => !(key in expected) && key !== 'missing');
  if (wrong.length === 0 && extra.length === 0) {
    if (got.missing === undefined) return null;
    const listed = Array.isArray(got.missing) ? [...got.missing].sort() : null;
    return isDeepStrictEqual(listed, [...failed].sort()) ? null : `missing is ${JSON.stringify(got.missing)}, not the parts that failed (${JSON.stringify(failed)})`;
  }
  for (let earlier = revision - 1; earlier >= 1; earlier--) {
    const stale = wrong.filter((key) => isDeepStrictEqual(got[key], expectedDashboard(id, earlier)[key]));
    if (stale.length) return `${stale.join(', ')} as they were before the data changed (revision ${earlier}, now ${revision}): served from a cache?`;
  }
  if (wrong.length === 0) return `unexpected fields besides profile, orders, recommendations and missing: ${extra.join(', ')}`;
  return `${wrong.join(', ')} ${failed.length ? 'not null after a failed call, or ' : ''}not what the service answered: ${JSON.stringify(got[wrong[0]])?.slice(0, 80)}`;
}

function dashboardCase(name, res, id, revision, failed = []) {
  const parts = failed.length ? `${failed.join(' and ')} null (its service failed), the rest` : "profile, orders and recommendations";
  return responseCase(name, res, {
    status: 200,
    describe: `status 200 with user ${id}'s ${parts} at data revision ${revision}`,
    body: (body) => dashboardProblem(200, body, id, revision, failed),
  });
}

/**
 * The services misbehave, one user at a time; the app must still answer,
 * within its timeout and a round of calls, with what it could get.
 */
async function failureCases(app, { faults, revision, deadlineMs }) {
  const within = async (name, id, judge) => {
    const res = await get(`${app.url}/dashboard/${id}`, { timeoutMs: deadlineMs * 4 }).catch((e) => e);
    const judged = judge(res);
    if (judged.pass && !(res instanceof Error) && res.ms > deadlineMs) {
      return { ...judged, name, pass: false, actual: `answered after ${res.ms.toFixed(0)} ms, past DOWNSTREAM_TIMEOUT_MS and a round of calls (${deadlineMs} ms): give up on a call after DOWNSTREAM_TIMEOUT_MS` };
    }
    return { ...judged, name };
  };
  // Each user's fault is its own, so the three are asked at once: the check
  // waits for the slowest (the call that never answers) and no longer, and
  // an app that handles one failure by breaking another's dashboard shows it.
  faults.set(21, { recommendations: 'fail' });
  faults.set(22, { orders: 'hang' });
  faults.set(23, { profile: 'fail', orders: 'fail', recommendations: 'fail' });
  const cases = await Promise.all([
    within('GET /dashboard/21 while recommendations answers 503', 21, (res) => dashboardCase('', res, 21, revision, ['recommendations'])),
    within('GET /dashboard/22 while orders never answers', 22, (res) => dashboardCase('', res, 22, revision, ['orders'])),
    within('GET /dashboard/23 while all three services answer 503', 23, (res) =>
      responseCase('', res, {
        status: 502,
        describe: 'status 502 {"error":"…"}',
        body: (body) => (typeof json({ body })?.error === 'string' ? null : `no "error" message in ${body.slice(0, 80)}`),
      }),
    ),
  ]);
  return cases;
}

function callsCase(name, before, after, perDashboard) {
  const { NAMES } = servicesModule();
  const made = NAMES.map((n) => after[n] - before[n]);
  return {
    name,
    pass: made.every((n) => n === perDashboard),
    expected: NAMES.map((n) => `${n} ${perDashboard}`).join(', '),
    actual:
      NAMES.map((n, i) => `${n} ${made[i]}`).join(', ') +
      (made.every((n) => n === 0) ? ': none reached the check\'s services (does the app still get their URLs from startServices()?)' : ''),
  };
}

function loadCase(load, before, after) {
  const { NAMES } = servicesModule();
  const ok = load.statusCodes['200'] || 0;
  const errors = load.errors + load.timeouts;
  const made = NAMES.map((n) => after[n] - before[n]);
  // The sampler's connection is one more client of the same load.
  const sampled = load.sampled ? load.sampled.answers.length : 0;
  const sent = load.sampled ? load.sampled.sent : 0;
  // Requests cut off when the load stopped may have made their calls without
  // their answer being counted: at most one per connection.
  const callsRight = made.every((n) => n >= ok + sampled && n <= load.responses + errors + sent + SETTINGS.connections + 1);
  return {
    name: `${counted(load.responses, 'dashboard')} under load`,
    pass: ok === load.responses && errors === 0 && callsRight,
    expected: 'status 200 for every one, and each service called once per dashboard',
    actual: `${JSON.stringify(load.statusCodes)}, ${errors} ${errors === 1 ? 'error or timeout' : 'errors or timeouts'}; calls: ${NAMES.map((n, i) => `${n} ${made[i]}`).join(', ')}`,
  };
}

/** "1 dashboard", "5 dashboards". */
function counted(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Median, over the lone requests, of the time between one user's first and last call. */
function overlapOf(arrivals) {
  const byUser = new Map();
  for (const a of arrivals) byUser.set(a.id, [...(byUser.get(a.id) || []), a.at]);
  const spans = [...byUser.values()].filter((ts) => ts.length > 1).map((ts) => Math.max(...ts) - Math.min(...ts));
  return spans.length ? median(spans) : NaN;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

module.exports = defineCheck(
  {
    gates: {
      'latency-p50': {
        label: 'median /dashboard latency under load',
        op: '<',
        threshold: THRESHOLD,
        per: 'd',
        unit: 'ms',
        pass: 'A dashboard waits for one round of downstream calls: the three calls are in flight together.',
        fail: 'A dashboard waits for more than one round of downstream calls: a call starts only after the one before it has answered.',
      },
    },
    starterFails: ['latency-p50'],
    settings: SETTINGS,
    // `workbook run`, `load` and `profile` start the three services as
    // services.js does for `node app.js` (DOWNSTREAM_DELAY_MS, 40 ms unless
    // set) and give the app their addresses and a timeout (1000 ms unless
    // set), in the variables this check gives it.
    services: {
      env: ['PROFILE_SERVICE_URL', 'ORDERS_SERVICE_URL', 'RECOMMENDATIONS_SERVICE_URL', 'DOWNSTREAM_DELAY_MS', 'DOWNSTREAM_TIMEOUT_MS'],
      describe: 'the three downstream services',
      start: ({ progress }) => {
        const { forkService } = require('../../../scripts/harness/lab-services');
        const delayMs = process.env.DOWNSTREAM_DELAY_MS ?? '40';
        return forkService(require.resolve('../services'), {
          env: { DOWNSTREAM_DELAY_MS: delayMs },
          progress,
          toEnv: (urls) => ({
            ...Object.fromEntries(Object.entries(servicesModule().ENV).map(([name, variable]) => [variable, urls[name]])),
            DOWNSTREAM_DELAY_MS: delayMs,
            DOWNSTREAM_TIMEOUT_MS: process.env.DOWNSTREAM_TIMEOUT_MS ?? '1000',
          }),
        });
      },
    },
    standardLoad,
    advice: 'See where a request waits: `npx workbook profile 07 --tool bubbleprof` draws the calls one after another',
    measure,
    explain: {
      kind: 'fixed-delay',
      noise: 'the median dashboard took longer than the threshold while the fastest tenth took less than 2 d, which no app with two rounds of calls can do: the calls were made together, but the machine held most requests up.',
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'clinic-doctor' }, { tool: 'bubbleprof' }, { tool: 'bubbleprof', solution: true }],
    tools: ['bubbleprof', 'cpu', 'clinic-doctor'],
    // What the profilers must find in the starter (the extended suite runs each).
    findings: {
      cpu: /`fetch`, called from labs\/\S+\/app\.js:21/,
      // None for Clinic Doctor: its reading of this lab varies with the
      // machine and the length of the run. On the workbook's machine it
      // flags the idle CPU and says "io" (the walkthrough's capture); in a
      // fresh clone on a 2-vCPU CI machine, a 4-second run read "none" with
      // the busiest tenth of CPU samples over 90% of a core. The extended
      // suite still runs it here and checks its report is written.
    },
    charts: [
      {
        kind: 'gate-bars',
        title: 'Median /dashboard latency under load, against 1.8 × d',
        gates: [{ id: 'latency-p50', label: 'median latency under load' }],
      },
    ],
  },
  __filename,
);
