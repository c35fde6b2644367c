'use strict';
// Lab 01's check: does /health stay responsive while /auth is under load?
//
// Every threshold is a multiple of t, the time one pbkdf2Sync (10 000
// iterations, 512 bytes, sha512) takes on this machine, measured just before
// and just after the load. A blocked event loop makes /health wait behind
// several hashes (many × t); a free one answers in a small fraction of t,
// whatever the machine. Both responsiveness figures are taken less what the
// probe's control thread saw at the same time in the same process (a thread
// that runs no app code, reached by the same client): what the machine
// alone adds, a coarse system timer included. The measured margins are in
// check/margins.json.

const { randomBytes } = require('node:crypto');
const { availableParallelism } = require('node:os');
const { pbkdf2SyncCost, pbkdf2CpuCost, hashesPerSide } = require('./calibrate');
const { runLoad } = require('../../../scripts/harness/run-load');
const { get } = require('../../../scripts/harness/http-client');
const { responseCase } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { formatNumber } = require('../../../scripts/lib/wording');
const { median } = require('../../../scripts/harness/stats');
const { cpuClockStep } = require('../../../scripts/checks/against-reference');

// Two seconds of load (three until 2026-11-28): 40 samples of /health,
// and the loop's delay over some 40 to 60 sign-ins. A blocked loop is many
// t late on every one of them, a free one a small fraction of t: over the
// bench's rows the worst runs still sit 4.8x or more past (the starter's
// loop delay) and 14x or more inside (check/margins.json).
const SETTINGS = { connections: 10, duration: 2, probeEveryMs: 50 };
// The least share of a hash's CPU time a sign-in may cost the app: alone
// (the auth-work gate) and under load (a response case). See the gate's
// comment and workUnderLoad's for why they differ.
const LONE_HASH_SHARE = 0.5;
const HASH_SHARE = 0.3;
const LONE_PAIRS = 5; // sign-ins timed one at a time, each beside a hash (an odd number: a median of them)

/** The standard load for `workbook load` and the profilers: sign in, over and over. */
const standardLoad = {
  async setup(url) {
    await get(`${url}/newUser?username=matt&password=password`);
  },
  path: '/auth?username=matt&password=password',
  connections: SETTINGS.connections,
  duration: 10,
  describe: '/auth for user "matt", 10 connections',
  examples: ['/newUser?username=matt&password=password', '/auth?username=matt&password=password', '/health'],
};

/**
 * What the lesson says, step by step: t on this machine; right answers;
 * a sign-in still costs a hash; then, under a load of sign-ins, how long
 * /health waits and how late the event loop runs.
 */
async function measure(ctx) {
  const { progress } = ctx;
  progress('Calibrating: timing one pbkdf2Sync on this machine (t)');
  const t = pbkdf2SyncCost({ runs: 5 }).median;
  progress(`t = ${t.toFixed(1)} ms here. Starting the app`);

  const app = await ctx.start(ctx.candidate);
  progress(`Listening on ${app.url}. Checking its responses`);
  const responses = await checkResponses(app);
  ctx.assertAlive(app, 'while its responses were checked');

  const lone = await loneSignIns(app, t, progress);
  const tScale = `t = ${t.toFixed(1)} ms`;
  const { load, loop, quiet, cpuPerSignIn } = await signInsUnderLoad(app, ctx, t);
  responses.push(workUnderLoad(cpuPerSignIn, median(lone.hashes)));
  if (load.stoppedEarly) {
    ctx.decide({ figures: { 'loop-delay-p99': loopFigure(loop, quiet, t) }, responses, info: [{ id: 't', label: 'one pbkdf2Sync on this machine (t)', value: t, unit: 'ms' }] }, 'a second of sign-ins');
  }

  progress('Calibrating again, to see whether the machine stayed steady');
  const tAfter = pbkdf2SyncCost({ runs: 5 }).median;
  responses.push(answeredUnderLoad(load));
  const [health, control] = [load.probes[0], load.probes[1]];

  return {
    figures: {
      'health-p50': {
        value: Math.max(0, health.p50 - control.p50),
        per: t,
        scale: `${tScale}; /health ${health.p50.toFixed(1)} ms less the control route's ${control.p50.toFixed(1)} ms`,
      },
      'loop-delay-p99': loopFigure(loop, quiet, t),
      'auth-work': {
        value: lone.signIn,
        per: lone.hash,
        scale: `t = ${lone.hash.toFixed(1)} ms: the CPU time of a pbkdf2Sync timed just before it; median of ${lone.pairs} pairs, sign-in ÷ hash: ${lone.ratios.map((r) => r.toFixed(2)).join(', ')}`,
      },
    },
    responses,
    info: infoLines({ t, tAfter, load, health, loop, quiet }),
    noise: noiseOf({ t, tAfter, health, control }),
    series: {
      t,
      health: { p50: health.p50, p90: health.p90, p99: health.p99 },
      control: { route: control.p50, loopDelay: quiet },
      loopDelay: loop,
      authRps: load.requestsPerSec,
      ceilings: ceilings(t),
    },
  };
}

/** The loop-delay gate's figure: the main thread's p99 less the control thread's. */
function loopFigure(loop, quiet, t) {
  return { value: Math.max(0, loop.p99 - quiet.p99), per: t, scale: `t = ${t.toFixed(1)} ms; the main thread's ${loop.p99.toFixed(1)} ms less the control thread's ${quiet.p99.toFixed(1)} ms` };
}

/**
 * Sign-ins one at a time, each with a password never seen before: the CPU
 * time the whole app (every thread and process of it) spends on one, which
 * must still be about one hash's. CPU, not wall time: a hash moved to the
 * thread pool, a worker or a child process costs the app the same CPU, and
 * a busy machine stretches a sign-in's wall time, not its CPU time. Timed
 * by the wall clock against the median t, a correct fix read as low as
 * 0.54 t in one run in ten on a 2-vCPU VM, and a tenth of the iterations
 * 0.20-0.27 t with a CPU hog: both too close to 0.3.
 *
 * Each sign-in is judged against a hash the check times in CPU time just
 * before it, and the verdict is the median of five such pairs: on a 2-vCPU
 * VM a hash cost 52 or 93 ms of CPU from one second to the next (the other
 * half of a shared core at work, or not), both in the app and in the check,
 * so a t timed a few seconds away read a correct fix at 0.6 t. A pair alone
 * read 0.65-1.75 there, the median of three 0.67-1.39 (Node 22, 8 checks),
 * the median of five 1.00-1.19. Each side of
 * a pair is long enough that the CPU clock's step is at most 5% of it
 * (Windows counts CPU time in steps of 15.6 ms: six hashes where one takes
 * 55 ms; one on Linux and macOS: hashesPerSide). `t` is the wall time of a
 * hash.
 */
async function loneSignIns(app, t, progress) {
  const perSide = hashesPerSide(cpuClockStep(), t);
  progress(`Timing ${LONE_PAIRS} sign-ins one at a time, each beside a hash of the check's own: each must still cost the app about one hash of CPU`);
  const pairs = [];
  for (let pair = 0; pair < LONE_PAIRS; pair++) {
    const hash = pbkdf2CpuCost(perSide);
    const before = await app.cpuAndRequests();
    for (let i = 0; i < perSide; i++) await get(`${app.url}/auth?username=alice&password=${freshPassword()}`);
    const after = await app.cpuAndRequests();
    pairs.push({ hash, signIn: (after.total - before.total) / 1000 / perSide });
  }
  const ratios = pairs.map((p) => p.signIn / p.hash);
  const middle = pairs[ratios.indexOf(median(ratios))];
  return { ...middle, pairs: LONE_PAIRS, ratios, hashes: pairs.map((p) => p.hash) };
}

/**
 * Sign-ins from every connection, /health and the probe's control route
 * timed alongside, the event-loop delay of the main thread and of the
 * control thread. After a second, a loop already decisively late ends the
 * load (the caller decides).
 */
async function signInsUnderLoad(app, ctx, t) {
  const { progress } = ctx;
  progress(
    `Load: /auth from ${SETTINGS.connections} connections for ${SETTINGS.duration} s, ` +
      `timing /health and a control route of the probe's own every ${SETTINGS.probeEveryMs} ms alongside`,
  );
  const control = await app.startControl();
  await Promise.all([app.resetEventLoopDelay(), app.resetControlDelay()]);
  const cpuBefore = await app.cpuAndRequests();
  // Every other sign-in uses a password never seen before, so a cache of
  // results cannot stand in for the hashing.
  const load = await runLoad({
    url: app.url,
    path: (i) => `/auth?username=alice&password=${i % 2 ? 'correct-horse' : freshPassword()}`,
    connections: SETTINGS.connections,
    duration: SETTINGS.duration,
    probes: [
      { name: '/health', path: '/health', intervalMs: SETTINGS.probeEveryMs },
      { name: 'the control route', path: '/', intervalMs: SETTINGS.probeEveryMs, baseUrl: control.url },
    ],
    onTick: ({ elapsedMs, requests }) =>
      progress(`  … ${Math.round(elapsedMs / 1000)}/${SETTINGS.duration} s, ${signIns(requests)} answered`),
    stopEarly: async (elapsedMs) => {
      if (elapsedMs < 1000 || !ctx.early) return false;
      const [loop, quiet] = await Promise.all([app.eventLoopDelay(), app.controlDelay({ stop: false })]);
      return ctx.check.decisive({ 'loop-delay-p99': loopFigure(loop, quiet, t) });
    },
  });
  const cpuAfter = await app.cpuAndRequests();
  ctx.assertAlive(app, 'under load');
  const [loop, quiet] = await Promise.all([app.eventLoopDelay(), app.controlDelay()]);
  return { load, loop, quiet, cpuPerSignIn: (cpuAfter.total - cpuBefore.total) / 1000 / Math.max(load.responses, 1) };
}

/**
 * The sign-ins under load must cost what a lone one does: a hash each. The
 * auth-work gate times sign-ins one at a time, so an app that hashed in
 * full only when a sign-in is alone, and cheaply when others wait (a second,
 * weaker hash kept beside the real one), would pass it. CPU time of the
 * whole app over the load (the /health probes' and the control route's few
 * hundredths of a hash included), per sign-in answered, against the median
 * of the hashes timed beside the lone sign-ins. Under load the machine's
 * cores are shared, which only adds CPU time to the app's hashes. Measured
 * on a 2-vCPU AMD EPYC VM (2026-11-28, 21 checks: Node 20 idle and with a
 * CPU hog, 24, 26): the reference 0.79-1.58 t (2.6x inside 0.3 at worst),
 * the starter 0.97-2.28 t, that two-hash app 0.02 t (15x past), a tenth of
 * the iterations 0.17 t. Its bar stays 0.3 t, below the lone gate's 0.5:
 * the correct fixes' worst reading here (0.79 t) is lower than alone, and
 * the cheaper hashes are the lone gate's to catch.
 */
function workUnderLoad(cpuPerSignIn, hashCpu) {
  const ratio = cpuPerSignIn / hashCpu;
  return {
    name: 'each sign-in under load still costs the app a hash of CPU time',
    pass: ratio >= HASH_SHARE,
    expected: `at least ${HASH_SHARE} t of CPU per sign-in over the load, all threads and processes (t = ${hashCpu.toFixed(1)} ms, a hash's CPU time here)`,
    actual: `${cpuPerSignIn.toFixed(1)} ms per sign-in (${ratio.toFixed(2)} t)`,
  };
}

/** "1 sign-in", "175 sign-ins". */
function signIns(n) {
  return `${n} sign-in${n === 1 ? '' : 's'}`;
}

function answeredUnderLoad(load) {
  const unexpected = Object.keys(load.statusCodes).filter((code) => code !== '200' && code !== '401');
  return {
    name: `${signIns(load.responses)} under load`,
    pass: unexpected.length === 0 && load.errors === 0 && load.timeouts === 0,
    expected: 'only 200 (right password) and 401 (wrong password), no errors',
    actual: `${JSON.stringify(load.statusCodes)}, ${formatNumber(load.errors, 'errors')}, ${formatNumber(load.timeouts, 'timeouts')}`,
  };
}

/** Too noisy: the machine's speed moved during the check, or a route was too rarely answered. */
function noiseOf({ t, tAfter, health, control }) {
  const noise = [];
  const drift = Math.max(tAfter / t, t / tAfter);
  if (drift > 2) noise.push(`the time of one hash changed ${drift.toFixed(1)}× during the check`);
  for (const route of [health, control]) if (route.answered < 10) noise.push(`only ${formatNumber(route.answered, 'requests')} to ${route.name} came back`);
  return noise;
}

/** How many sign-ins a second one thread, and the pool, could hash here. */
function ceilings(t) {
  const parallel = Math.min(availableParallelism(), Number(process.env.UV_THREADPOOL_SIZE) || 4);
  return { sync: 1000 / t, async: (parallel * 1000) / t };
}

function infoLines({ t, tAfter, load, health, loop, quiet }) {
  const cores = availableParallelism();
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return [
    {
      id: 'auth-rps',
      label: '/auth throughput under the load',
      value: load.requestsPerSec,
      unit: 'req/s',
      text: throughputNote(load.requestsPerSec, t, cores, pool),
    },
    { id: 't', label: 'one pbkdf2Sync on this machine (t)', value: t, unit: 'ms', text: `after the load: ${tAfter.toFixed(1)} ms` },
    { id: 'health-p99', label: '/health p99 latency under load', value: health.p99, unit: 'ms' },
    { id: 'loop-delay-p50', label: 'event-loop delay p50', value: loop.p50, unit: 'ms' },
    {
      id: 'loop-delay-control',
      label: "the control thread's event-loop delay p99 during the load (subtracted from the gate's figure)",
      value: quiet.p99,
      unit: 'ms',
      text: `the main thread's: ${loop.p99.toFixed(1)} ms. The control thread runs no app code, so its delay is what the system adds by itself (how coarsely its timers fire, and whatever else is running), not the app's doing.`,
    },
  ];
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

module.exports = defineCheck(
  {
    gates: {
      'health-p50': {
        label: '/health median latency while /auth is under load',
        op: '<',
        threshold: 0.5,
        per: 't',
        unit: 'ms',
        pass: 'Health checks are answered at once: hashing no longer holds up other requests.',
        fail: 'Health checks wait behind password hashing: something in /auth or /newUser blocks the event loop.',
      },
      'loop-delay-p99': {
        label: "event-loop delay p99 inside the app during the load, above the control thread's",
        op: '<',
        threshold: 1,
        per: 't',
        unit: 'ms',
        pass: 'The event loop never stalls for as long as one hash takes.',
        fail: 'The event loop stalls for whole hashes at a time: the hashing runs on the main thread.',
      },
      // A guard both sides pass: stops a "fix" that drops the iterations or
      // skips the hash. A sign-in that hashes in full reads about 1 t (the
      // bench, 2-vCPU AMD EPYC VM, 2026-11-28, Node 20 idle and with a hog,
      // 24 and 26: medians 1.01-1.12 t, the worst run 2.9x inside 0.3 t,
      // starter and reference alike). Half-fixes (solutions/01-sync-pbkdf2/
      // fixtures.test.js), five checks idle and five with a hog each: a
      // tenth of the iterations read 0.11-0.16 t (1.85x past at worst: the
      // request's own CPU adds a few hundredths of t), a 64-byte key (one
      // block of SHA-512 instead of eight) 0.11-0.19 t (1.56x past); no hash
      // at all 0.02 t. The threshold was 0.3 t until a CI run (2026-12-02,
      // Node 20, late in the extended suite) read the 64-byte key at 0.24,
      // 0.30, 0.30, 0.34, 0.29 t and passed it (median 0.30: 1.0x inside).
      // 0.5 t sits in the middle of the two worst runs seen (0.86 t of a full
      // hash, 0.30 t of an eighth of one): 1.7x from each. A cut to a
      // quarter of the work would read about 0.3 t; a smaller cut than that
      // is beyond what a measurement can tell from noise.
      'auth-work': {
        label: 'CPU time the app spends on one /auth, alone (it must still hash the password)',
        op: '>=',
        threshold: LONE_HASH_SHARE,
        per: 't',
        unit: 'ms',
        pass: 'Each sign-in still does the full 10 000-iteration hash.',
        fail: 'A sign-in is much cheaper than one hash: the fix must keep the same PBKDF2 parameters, only run them elsewhere.',
      },
    },
    starterFails: ['health-p50', 'loop-delay-p99'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Profile it with `npx workbook profile 01 --tool prof` and follow the bottom-up chain into your file',
    measure,
    explain: {
      kind: 'calibrated',
      calibration:
        't is one `pbkdf2Sync` with the app\'s parameters (10 000 iterations, 512 bytes, SHA-512). A blocked event loop makes `/health` wait behind several hashes, many × t; a free one answers in a small fraction of t. The check times t before the load and again after it. A lone sign-in must still cost the app (every thread and process of it) about one hash of CPU time, wherever it runs the hash: each is judged against a hash the check times in CPU time just before it.',
      noise: "t, timed again after the load, differs from t before it by more than 2×, or fewer than ten requests to /health or to the probe's control route came back to take a median.",
    },
    captures: [{ load: true }, { tool: 'prof' }, { tool: 'cpu' }],
    tools: ['prof', 'cpu', 'flame', 'clinic-doctor', 'clinic-flame', 'bubbleprof', 'perf'],
    // What the profilers must find in the starter (the extended suite runs each).
    findings: {
      prof: /Hot spot in your code\n.*`pbkdf2Sync`, called from labs\/\S+\/app\.js:21/,
      cpu: /`pbkdf2Sync`, called from labs\/\S+\/app\.js:21/,
      // Doctor's measured flag, not its headline: the headline also weighs
      // its heuristic on active handles, which a short run can trip.
      'clinic-doctor': /✗ flagged {2}event-loop delay/,
      perf: /sha512/,
    },
    charts: [
      {
        kind: 'gate-bars',
        title: 'Responsiveness while /auth is under load',
        gates: [
          { id: 'health-p50', label: '/health median' },
          { id: 'loop-delay-p99', label: 'event-loop delay p99' },
        ],
      },
      {
        kind: 'ceilings',
        title: '/auth throughput against what one thread and the pool can reach',
        series: 'authRps',
        ceilings: { sync: 'one hash at a time', async: 'thread pool' },
      },
    ],
  },
  __filename,
);
