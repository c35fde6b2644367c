'use strict';
// Lab 02's check: does the API serve its hottest endpoints with far less
// per-request overhead, while answering every request exactly as before?
//
// Throughput is judged only against the reference solution (Fastify with
// response schemas) running at the same time on the same machine, in
// alternating rounds: absolute req/s means nothing across laptops. And it is
// counted per CPU-second the app uses, not per second of wall time: on a busy
// or small machine the load generator competes with the app for the same
// cores, which narrows a wall-clock ratio; the CPU a request costs the app is
// what a framework changes. The measured margins are in check/margins.json.

const { compareResponses, compareThroughput, roundsUntilDecided, answeredUnderLoad } = require('../../../scripts/checks/against-reference');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { ownProcessCase } = require('../../../scripts/checks/gates');
const { median } = require('../../../scripts/harness/stats');

// Every connection alternates between the two hot endpoints.
const MEASURED = ['/', '/items?limit=20'];
const SETTINGS = {
  connections: 10,
  // At most. From the fourth round on, rounds stop once they decide the
  // verdict (roundsUntilDecided): all agree and lie 1.5× or more from the
  // threshold, or their median's 90% interval lies on one side of it. On a
  // quiet machine that is four or five rounds; the rest are for machines
  // whose speed jumps from one round to the next.
  rounds: 20,
  minRounds: 4,
  seconds: 0.35,
  // Each app's warm-up, the same load unmeasured, before the rounds: what a
  // request costs is judged once V8 has optimised both apps' hot paths.
  // Both still speed up through their first two seconds of load (Node 26,
  // 2-vCPU AMD EPYC VM, 2026-12-02: the starter's requests per CPU-second
  // 7-9k in its first round after 1.5 s, 16-18k from the second on; the
  // reference's 14-18k after 0.6 s, 30k+ later), and each app at its own
  // pace: after 0.6 s the rounds' ratios spread from 0.28 to 1.11 and two
  // starter checks in eight took 20 rounds, "too noisy", and a second
  // measurement (27 and 31 s); after 2 s, in ten checks on Node 24 and 26,
  // the starter's ratios read 0.41-0.61 but for one 0.86, and each check
  // decided in 5 rounds (once 8), in 9.1-11.6 s. What it costs, in the
  // bench (ten runs a side, same VM): a check takes 8.1-8.9 s at the
  // median on Node 20, 24 and 26 (it was 5.4-8.6 s), and at most 13.9-15.4
  // s (it was 8.8-12.6 s on Node 20 and 24, 29.7 s on Node 26). The
  // margins did not widen: the rounds of this VM still jump between two
  // speeds at times, which no warm-up removes (check/margins.json).
  warmupSeconds: 2,
  // Above this share of responses not received by the app's own process, it
  // serves from others (a cluster's workers): the lab is about the cost of
  // a request in one process. (The share below it: requests still in
  // flight when a round's count is read.)
  servedElsewhere: 0.1,
};
const { servedElsewhere: SERVED_ELSEWHERE, minRounds: MIN_ROUNDS, ...LOAD } = SETTINGS;

// Compared one by one with the reference: the hot endpoints, their error
// cases, and enough of the other resources to show they all still work.
const CASES = [
  { path: '/' },
  { path: '/items' },
  { path: '/items?limit=1' },
  { path: '/items?limit=100' },
  { path: '/items?limit=0' },
  { path: '/items?limit=101' },
  { path: '/items?limit=abc' },
  { path: '/items?limit=2.5' },
  { path: '/items/7' },
  { path: '/items/1001' },
  { path: '/no/such/route' },
  { name: 'GET /users/1 before it exists', path: '/users/1' },
  { method: 'POST', path: '/users', body: { name: 'Ada', email: 'ada@example.com' } },
  { name: 'POST /users with an array body', method: 'POST', path: '/users', body: [1, 2] },
  { name: 'POST /users with malformed JSON', method: 'POST', path: '/users', body: '{"name": ' },
  // express.json() is strict: JSON that is not an object or array is refused
  // as invalid, an empty JSON body is {}, and other content types are not parsed.
  { name: 'POST /users with a JSON string body', method: 'POST', path: '/users', body: '"Ada"' },
  { name: 'POST /users with an empty JSON body', method: 'POST', path: '/users', body: '' },
  {
    name: 'POST /users with a form body (not JSON)',
    method: 'POST',
    path: '/users',
    body: 'name=Ada',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  },
  { path: '/users/1' },
  { method: 'PATCH', path: '/users/1', body: { email: 'ada@shop.example' } },
  { path: '/users' },
  { method: 'POST', path: '/orders', body: { items: [7, 9], total: 21.5 } },
  { method: 'PUT', path: '/orders/1', body: { items: [7], total: 10.5 } },
  { method: 'DELETE', path: '/orders/1' },
  { name: 'GET /orders/1 after its deletion', path: '/orders/1' },
  { method: 'DELETE', path: '/coupons/3' },
];

const standardLoad = {
  path: '/items?limit=20',
  connections: 10,
  duration: 10,
  describe: 'GET /items?limit=20, 10 connections',
  examples: ['/', '/items?limit=5', '/items/7', '/users'],
};

/** Whether the process the check started answered the requests itself (not a cluster's workers). */
function servedHere({ answered, received }) {
  return ownProcessCase({ name: "requests served by the app's own process", answered, received, allowed: SERVED_ELSEWHERE, why: 'the lab is about the cost of one request in one process' });
}

async function measure(ctx) {
  const { progress } = ctx;
  progress('Starting your app and the reference solution side by side');
  const [candidate, reference] = await Promise.all([ctx.start(ctx.candidate), ctx.start(ctx.reference)]);

  progress(`Comparing your app's answers to ${CASES.length} requests with the reference's (status, content type, JSON body)`);
  const responses = await compareResponses(candidate, reference, CASES);
  ctx.assertAlive(candidate, 'while its responses were checked');

  progress(
    `Throughput on ${MEASURED.join(' and ')} (alternating): paired rounds of ` +
      `${LOAD.seconds} s, ${LOAD.connections} connections, until they decide (at most ${LOAD.rounds})`,
  );
  const threshold = ctx.check.threshold('throughput-ratio');
  const until = roundsUntilDecided({ threshold, op: '>=', minRounds: MIN_ROUNDS });
  const measured = await compareThroughput({
    candidate,
    reference,
    path: MEASURED,
    ...LOAD,
    perCpu: true,
    progress,
    enough: until,
    // A ratio already decisively past after two rounds decides the check,
    // and names a cluster for what it is already (its workers' CPU makes
    // its ratio low, so it is often what stops there).
    afterRound: ({ ratio, round, ownProcess }) =>
      round >= 2 && ctx.decide({ figures: { 'throughput-ratio': { value: ratio, scale: `median of the first ${round} paired rounds` } }, responses: [...responses, servedHere(ownProcess)] }, `${round} paired rounds`),
  });
  ctx.assertAlive(candidate, 'under load');
  ctx.assertAlive(reference, 'under load');

  responses.push(answeredUnderLoad(measured));
  responses.push(servedHere(measured.ownProcess));

  const figures = {
    'throughput-ratio': {
      value: measured.ratio,
      scale: `median of ${measured.rounds} paired rounds of ${measured.seconds} s; yours ${Math.round(median(measured.candidate))}, reference ${Math.round(median(measured.reference))} requests per CPU-second`,
    },
  };

  const noise = until.noise(measured.pairs);

  return {
    figures,
    responses,
    info: [
      {
        id: 'rps',
        label: 'req/s (wall clock) per round, yours and the reference',
        value: median(measured.wall.candidate),
        unit: 'req/s',
        text:
          `yours ${measured.wall.candidate.map(Math.round).join(', ')}; reference ${measured.wall.reference.map(Math.round).join(', ')}. ` +
          'Not judged: on a busy machine the load generator takes CPU from both apps alike and narrows this ratio.',
      },
    ],
    noise,
    series: { throughput: measured },
  };
}

module.exports = defineCheck(
  {
    gates: {
      // Set in the middle of what was measured (check/margins.json, ten
      // runs per side, 2-vCPU AMD EPYC VM, 2026-12-02, with the 2 s
      // warm-up): the starter at 0.19-0.20 on Node 20 but 0.53-0.58 on Node
      // 24 and 26 (medians; 0.63 in the worst run); the reference at
      // 0.98-1.03 against itself (0.80 in its worst run), and the other real
      // fixes (Fastify without schemas, node:http) at 0.98-1.12. Why the
      // margins are 1.1-1.3x, not 3x, on Node 24 and 26: Express 5 costs
      // only about twice what Fastify does per request there, and no
      // threshold sits 3x from both sides of a 2x gap. So the rounds go on
      // until their median is on one side with 90% confidence (at most
      // SETTINGS.rounds); otherwise "too noisy, rerun", never a guess.
      'throughput-ratio': {
        label: `GET ${MEASURED.join(' and ')}: your requests per CPU-second ÷ the reference's`,
        op: '>=',
        threshold: 0.7,
        unit: '×',
        pass: 'Per-request overhead is in the same class as the reference.',
        fail: 'Each request costs several times what the reference spends: profile it and look at what the framework does per request.',
      },
    },
    starterFails: ['throughput-ratio'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Profile it with `npx workbook profile 02 --tool cpu` to see where the time of each request goes',
    measure,
    explain: {
      kind: 'reference',
      noise: `after ${SETTINGS.rounds} paired rounds the ratios still disagree about the verdict: the 90% interval of their median (the sign test's, from the rounds' own order) holds the threshold.`,
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'cpu', solution: true }],
    tools: ['cpu', 'flame'],
    charts: [{ kind: 'rounds', gate: 'throughput-ratio' }],
  },
  __filename,
);
