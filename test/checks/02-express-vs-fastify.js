'use strict';
// Lab 02's check: does the API serve its hottest endpoints with far less
// per-request overhead, while answering every request exactly as before?
//
// Throughput is judged only against the reference solution (Fastify with
// response schemas) running at the same time on the same machine, in
// alternating rounds: absolute req/s means nothing across laptops. The
// measured margins are in test/02-express-vs-fastify.test.js.

const { compareResponses, compareThroughput, answeredUnderLoad, roundsNoise } = require('../../scripts/checks/against-reference');
const { gate } = require('../../scripts/checks/gates');
const { median } = require('../../scripts/harness/stats');

const GATES = {
  // Your req/s ÷ the reference's req/s, median of the paired rounds. Set
  // between what was measured (test/02-express-vs-fastify.test.js): the
  // starter at 0.15–0.19 on Node 20/22 and 0.27–0.45 on Node 24/26, real
  // fixes (Fastify with or without schemas, node:http) at 0.86–1.13.
  throughputRatio: 0.6,
};

// Every connection alternates between the two hot endpoints.
const MEASURED = ['/', '/items?limit=20'];
const LOAD = { connections: 10, rounds: 8, seconds: 0.35, warmupSeconds: 0.6 };

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

async function run(ctx) {
  const { progress } = ctx;
  progress('Starting your app and the reference solution side by side');
  const [candidate, reference] = await Promise.all([ctx.start(ctx.candidate), ctx.start(ctx.reference)]);

  progress(`Comparing ${CASES.length} responses with the reference`);
  const responses = await compareResponses(candidate, reference, CASES);
  ctx.assertAlive(candidate, 'while its responses were checked');

  progress(
    `Throughput on ${MEASURED.join(' and ')} (alternating): ${LOAD.rounds} paired rounds of ` +
      `${LOAD.seconds} s, ${LOAD.connections} connections`,
  );
  const measured = await compareThroughput({ candidate, reference, path: MEASURED, ...LOAD, progress });
  ctx.assertAlive(candidate, 'under load');
  ctx.assertAlive(reference, 'under load');

  responses.push(answeredUnderLoad(measured));

  const gates = [
    gate({
      id: 'throughput-ratio',
      label: `GET ${MEASURED.join(' and ')}: your req/s ÷ the reference's`,
      value: measured.ratio,
      op: '>=',
      threshold: GATES.throughputRatio,
      unit: '×',
      scale: `median of ${LOAD.rounds} paired rounds; yours ${Math.round(median(measured.candidate))} req/s, reference ${Math.round(median(measured.reference))} req/s`,
      pass_meaning: 'Per-request overhead is in the same class as the reference.',
      fail_meaning:
        'Each request costs several times what the reference spends: profile it and look at what the framework does per request.',
    }),
  ];

  const noise = roundsNoise(measured, GATES.throughputRatio);

  return {
    gates,
    responses,
    info: [
      {
        id: 'rps',
        label: 'req/s per round, yours and the reference',
        value: median(measured.candidate),
        unit: 'req/s',
        text: `yours ${measured.candidate.map(Math.round).join(', ')}; reference ${measured.reference.map(Math.round).join(', ')}`,
      },
    ],
    noise,
    series: { throughput: measured },
  };
}

/** What to do after a fail on the gates, for `check`'s last line. */
const advice = 'Profile it with `npx workbook profile 02 --tool cpu` to see where the time of each request goes';

module.exports = { advice, run, GATES, MEASURED, CASES, LOAD, standardLoad };
