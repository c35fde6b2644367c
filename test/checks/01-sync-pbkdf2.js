'use strict';
// Lab 01's check: does /health stay responsive while /auth is under load?
//
// Every threshold is a multiple of t, the time one pbkdf2Sync (10 000
// iterations, 512 bytes, sha512) takes on this machine, measured just before
// and just after the load. A blocked event loop makes /health wait behind
// several hashes (many × t); a free one answers in a small fraction of t,
// whatever the machine. The measured margins are in test/01-sync-pbkdf2.test.js.

const { randomBytes } = require('node:crypto');
const { availableParallelism } = require('node:os');
const { pbkdf2SyncCost } = require('../../scripts/harness/calibrate');
const { runLoad } = require('../../scripts/harness/load');
const { get } = require('../../scripts/harness/http-client');
const { median } = require('../../scripts/harness/stats');
const { gate, responseCase } = require('../../scripts/checks/gates');

const GATES = {
  // /health median latency while /auth is loaded, in units of t.
  healthP50: 0.5,
  // Event-loop delay p99 inside the app during the load, in units of t.
  loopDelayP99: 1,
  // One /auth must still cost real hashing work: at least this × t.
  // Stops a "fix" that drops the iterations or skips the hash.
  authWork: 0.3,
};

const LOAD = { connections: 10, duration: 3, probeEveryMs: 50 };

/** The standard load for `workbook load` and the profilers: sign in, over and over. */
const standardLoad = {
  async setup(url) {
    await get(`${url}/newUser?username=matt&password=password`);
  },
  path: '/auth?username=matt&password=password',
  connections: LOAD.connections,
  duration: 10,
  describe: '/auth for user "matt", 10 connections',
  examples: ['/newUser?username=matt&password=password', '/auth?username=matt&password=password', '/health'],
};

async function run(ctx) {
  const { progress } = ctx;
  progress('Calibrating: timing one pbkdf2Sync on this machine (t)');
  const before = pbkdf2SyncCost({ runs: 5 });
  const t = before.median;
  progress(`t = ${t.toFixed(1)} ms here. Starting the app`);

  const app = await ctx.start(ctx.candidate);
  progress(`Listening on ${app.url}. Checking its responses`);
  const responses = await checkResponses(app);
  ctx.assertAlive(app, 'while its responses were checked');

  progress('Timing single sign-ins (they must still do the full hash)');
  const authTimes = [];
  for (let i = 0; i < 3; i++) {
    const res = await get(`${app.url}/auth?username=alice&password=${freshPassword()}`);
    authTimes.push(res.ms);
  }

  progress(
    `Load: /auth from ${LOAD.connections} connections for ${LOAD.duration} s, ` +
      `timing /health every ${LOAD.probeEveryMs} ms alongside`,
  );
  await app.resetEventLoopDelay();
  // Every other sign-in uses a password never seen before, so a cache of
  // results cannot stand in for the hashing.
  const load = await runLoad({
    url: app.url,
    path: (i) =>
      `/auth?username=alice&password=${i % 2 ? 'correct-horse' : freshPassword()}`,
    connections: LOAD.connections,
    duration: LOAD.duration,
    probe: { path: '/health', intervalMs: LOAD.probeEveryMs },
    onTick: ({ elapsedMs, requests }) =>
      progress(`  … ${Math.round(elapsedMs / 1000)}/${LOAD.duration} s, ${requests} sign-ins answered`),
  });
  ctx.assertAlive(app, 'under load');
  const loop = await app.eventLoopDelay();

  progress('Calibrating again, to see whether the machine stayed steady');
  const after = pbkdf2SyncCost({ runs: 5 });

  const unexpected = Object.keys(load.statusCodes).filter((code) => code !== '200' && code !== '401');
  responses.push({
    name: `${load.responses} sign-ins under load`,
    pass: unexpected.length === 0 && load.errors === 0 && load.timeouts === 0,
    expected: 'only 200 (right password) and 401 (wrong password), no errors',
    actual: `${JSON.stringify(load.statusCodes)}, ${load.errors} errors, ${load.timeouts} timeouts`,
  });

  const tLabel = (k) => `${k} × t (t = ${t.toFixed(1)} ms)`;
  const gates = [
    gate({
      id: 'health-p50',
      label: '/health median latency while /auth is under load',
      value: load.probe.p50,
      op: '<',
      threshold: GATES.healthP50 * t,
      unit: 'ms',
      scale: tLabel(GATES.healthP50),
      pass_meaning: 'Health checks are answered at once: hashing no longer holds up other requests.',
      fail_meaning:
        'Health checks wait behind password hashing: something in /auth or /newUser blocks the event loop.',
    }),
    gate({
      id: 'loop-delay-p99',
      label: 'event-loop delay p99 inside the app during the load',
      value: loop.p99,
      op: '<',
      threshold: GATES.loopDelayP99 * t,
      unit: 'ms',
      scale: tLabel(GATES.loopDelayP99),
      pass_meaning: 'The event loop never stalls for as long as one hash takes.',
      fail_meaning: 'The event loop stalls for whole hashes at a time: the hashing runs on the main thread.',
    }),
    gate({
      id: 'auth-work',
      label: 'one /auth, alone (it must still hash the password)',
      value: median(authTimes),
      op: '>=',
      threshold: GATES.authWork * t,
      unit: 'ms',
      scale: tLabel(GATES.authWork),
      pass_meaning: 'Each sign-in still does the full 10 000-iteration hash.',
      fail_meaning:
        'A sign-in is much cheaper than one hash: the fix must keep the same PBKDF2 parameters, only run them elsewhere.',
    }),
  ];

  const noise = [];
  const drift = Math.max(after.median / t, t / after.median);
  if (drift > 2) noise.push(`the time of one hash changed ${drift.toFixed(1)}× during the check`);
  if (load.probe.answered < 10) noise.push(`only ${load.probe.answered} health checks came back`);

  const cores = availableParallelism();
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const info = [
    {
      id: 'auth-rps',
      label: '/auth throughput under the load',
      value: load.requestsPerSec,
      unit: 'req/s',
      text: throughputNote(load.requestsPerSec, t, cores, pool),
    },
    { id: 't', label: 'one pbkdf2Sync on this machine (t)', value: t, unit: 'ms', text: `after the load: ${after.median.toFixed(1)} ms` },
    { id: 'health-p99', label: '/health p99 latency under load', value: load.probe.p99, unit: 'ms' },
    { id: 'loop-delay-p50', label: 'event-loop delay p50', value: loop.p50, unit: 'ms' },
  ];

  return {
    gates,
    responses,
    info,
    noise,
    series: {
      t,
      health: { p50: load.probe.p50, p90: load.probe.p90, p99: load.probe.p99 },
      loopDelay: loop,
      authRps: load.requestsPerSec,
      ceilings: { sync: 1000 / t, async: (Math.min(cores, pool) * 1000) / t },
    },
  };
}

function freshPassword() {
  return randomBytes(9).toString('base64url');
}

async function checkResponses(app) {
  const cases = [
    ['GET /health', '/health', 200],
    ['sign up alice', '/newUser?username=alice&password=correct-horse', 200],
    ['sign up alice again (duplicate)', '/newUser?username=alice&password=other', 400],
    ['sign up without a password', '/newUser?username=bob', 400],
    ['sign up without a username', '/newUser?password=secret', 400],
    ['sign up with a username of symbols only', '/newUser?username=%21%21%21&password=x', 400],
    ['sign up bob', '/newUser?username=bob&password=battery-staple', 200],
    ['sign in alice, right password', '/auth?username=alice&password=correct-horse', 200],
    ['sign in alice, wrong password', '/auth?username=alice&password=correct-horsE', 401],
    ["sign in alice with bob's password", '/auth?username=alice&password=battery-staple', 401],
    ['sign in bob, right password', '/auth?username=bob&password=battery-staple', 200],
    ['sign in an unknown user', '/auth?username=nobody&password=x', 400],
    ['sign in without a password', '/auth?username=alice', 400],
  ];
  const results = [];
  for (const [name, path, status] of cases) {
    const res = await get(app.url + path).catch((err) => err);
    results.push(responseCase(`${name} (GET ${path})`, res, { status }));
  }
  return results;
}

function throughputNote(rps, t, cores, pool) {
  const sync = 1000 / t;
  const parallel = Math.min(cores, pool);
  const asyncCeiling = parallel * sync;
  return (
    `${rps.toFixed(1)} sign-ins/s, that is ${(rps / sync).toFixed(1)}× the ${sync.toFixed(1)}/s a main thread ` +
    `hashing one password at a time can reach here, and ${((100 * rps) / asyncCeiling).toFixed(0)}% of the ` +
    `${asyncCeiling.toFixed(1)}/s the thread pool could reach (min(${cores} cores, ${pool} pool threads) hashes at once). ` +
    (parallel <= 2
      ? `On ${cores} core${cores === 1 ? '' : 's'} the pool can at best double throughput, and the load generator ` +
        'competes with the app for the same cores, so moving the hash off the main thread may not raise this figure at all. ' +
        'That is why throughput is not judged: the fix is about responsiveness. On a 4–8-core laptop the pool runs 4 hashes at once.'
      : `With ${cores} cores the pool runs ${parallel} hashes at once, so the fix should also multiply this figure; ` +
        'it is not judged because other programs on the machine move it.')
  );
}

/** What to do after a fail on the gates, for `check`'s last line. */
const advice = 'Profile it with `npx workbook profile 01 --tool prof` and follow the bottom-up chain into your file';

module.exports = { advice, run, GATES, LOAD, standardLoad };
