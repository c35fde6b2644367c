'use strict';
// Lab 12's check: does the app reuse its connections to the catalogue, or
// pay a TCP connection and a TLS handshake for every call?
//
// The check runs the catalogue itself (the lab's catalog.js, in this
// process, with a CA and certificates made for this run and kept in memory:
// check/upstream.js) and hands the app its URL and the CA to trust, the way
// catalog.js's startCatalog() reads them. Because it owns the catalogue, it
// counts what the app really did. Four stages, the one that catches the
// starter first:
//
// 1. One hundred lone requests, each for another product. The catalogue
//    counts the TLS handshakes they caused, full and resumed alike: an app
//    that reuses its connections needs one, the starter a hundred. A count,
//    exact on any machine: past the threshold at all, the check stops.
// 2. The catalogue restarts (its connections close) with a renewed
//    certificate (the same CA and name, a new key) and new session ticket
//    keys; then someone else answers at its address: with a certificate
//    from a CA the app was not given (under the trusted CA's name), then
//    with one from the right CA for another name. The app must connect
//    again after the restart, and refuse both impostors (502, and not one
//    request reaches them): an app that stopped checking certificates
//    (rejectUnauthorized: false) fails here, and so does one that switched
//    verification off and pinned the first certificate it saw instead of
//    trusting the CA (it refuses the renewed one).
// 3. Sixteen clients at once while each catalogue answer takes d: the
//    median latency in units of d. Calls made side by side take about one
//    d; an app that sends its calls one at a time over a single connection
//    (a pool of one) makes each request wait for the others' calls.
// 4. The app's CPU per request, against the reference solution's, in
//    alternating rounds of the same load (requests per CPU-second): what a
//    handshake per call costs, whatever the machine.
//
// Every answer is checked against the catalogue's data, whose revision
// changes between stages (a cache is stale), and every request must reach
// the catalogue once (an app that answers without asking, or from a cache,
// makes fewer calls than it answers). The measured margins are in
// check/margins.json.

const { isDeepStrictEqual } = require('node:util');
const { randomInt } = require('node:crypto');
const { get, json } = require('../../../scripts/harness/http-client');
const { runLoad } = require('../../../scripts/harness/run-load');
const { median } = require('../../../scripts/harness/stats');
const { responseCase, truncate } = require('../../../scripts/checks/gates');
const { answersUnderLoad } = require('../../../scripts/checks/under-load');
const { compareThroughput, enoughRounds, middleRounds, answeredUnderLoad, roundsNoise } = require('../../../scripts/checks/against-reference');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { startCatalogService, countsSince, catalogModule } = require('./upstream');

const SETTINGS = {
  // Stage 1: lone requests, one product each.
  lone: 100,
  // Stage 2: how long the app is given to see its connections close.
  settleMs: 150,
  // Stage 3: clients at once, for `seconds`, each catalogue answer taking delayMs (d).
  connections: 16,
  seconds: 1,
  delayMs: 25,
  // Stage 4: CPU per request against the reference, rounds of roundSeconds.
  cpuConnections: 10,
  rounds: 6, // at most: from minRounds on, rounds that agree clearly stop there
  minRounds: 3,
  roundSeconds: 0.25,
  warmupSeconds: 0.05,
  // Before stage 3, each app serves warmupRequests of stage 4's load, or as
  // many as it can in warmupMaxSeconds (the reference, warming up while
  // stages 1 and 2 run, in referenceWarmupMaxSeconds).
  warmupRequests: 3000,
  warmupMaxSeconds: 1.2,
  referenceWarmupMaxSeconds: 2.5,
  products: 200, // the ids stage 4's load cycles through
};

const standardLoad = {
  path: '/api/products/42',
  connections: 10,
  duration: 10,
  describe: 'GET /api/products/42, 10 connections',
  examples: ['/api/products/42', '/api/products/7', '/api/products/999999', '/health'],
};

/** What the app must answer for product `id` at data revision `revision` (the walkthrough's "The API"). */
function expectedPage(id, revision) {
  const record = catalogModule().product(id, revision);
  return record && { id: record.id, name: record.name, price: `${(record.priceCents / 100).toFixed(2)} ${record.currency}`, inStock: record.stock > 0 };
}

/** What is wrong with an answer for product `id`, or null. */
function pageProblem(status, body, id, revision) {
  if (status !== 200) return `status ${status}: ${truncate(body, 80)}`;
  const got = json({ body });
  const expected = expectedPage(id, revision);
  if (isDeepStrictEqual(got, expected)) return null;
  for (let earlier = revision - 1; earlier >= 1; earlier--) {
    if (isDeepStrictEqual(got, expectedPage(id, earlier))) return `product ${id} as it was before the data changed (revision ${earlier}, now ${revision}): served from a cache?`;
  }
  return `not the catalogue's product ${id}: ${truncate(body, 100)}`;
}

function pageCase(name, res, id, revision) {
  return responseCase(name, res, {
    status: 200,
    describe: `status 200 with product ${id} at data revision ${revision}`,
    body: (body) => pageProblem(200, body, id, revision),
  });
}

function errorCase(name, res, status, describe) {
  return responseCase(name, res, {
    status,
    describe: `status ${status} ${describe}`,
    body: (body) => (typeof json({ body })?.error === 'string' ? null : `no {"error": "…"} in ${truncate(body, 80)}`),
  });
}

const per100 = (handshakes, calls) => (calls > 0 ? (100 * handshakes) / calls : 0);

/** "1 TLS handshake", "16 TLS handshakes". */
const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The rounds the CPU ratio comes from, as a sentence: the ratio is the
 * median of the pair ratios, so the figures printed beside it are the
 * middle round's (two for an even count), whose quotient is that ratio.
 */
function middleText(measured, unit) {
  const middle = middleRounds(measured);
  const one = (r) => `yours ${Math.round(r.candidate)}, the reference ${Math.round(r.reference)} ${unit} (${r.ratio.toFixed(2)}×)`;
  return middle.length === 1
    ? `in the middle round (round ${middle[0].round}): ${one(middle[0])}`
    : `the middle two, rounds ${middle[0].round} and ${middle[1].round}: ${middle.map(one).join('; ')}`;
}

async function measure(ctx) {
  const { progress } = ctx;
  let revision = 1;
  progress('Making a CA and certificates for this run, and starting the catalogue');
  const service = await startCatalogService({ revision: () => revision });
  const { upstream, certificates } = service;
  const services = [service];
  try {
    const { MAX_ID } = catalogModule();
    // The reference solution starts beside your app, with a catalogue of its
    // own, and warms up under stage 4's load while stages 1 and 2 run (your
    // app warms up after stage 2): an app's CPU per request falls by a
    // factor of two or three over its first few thousand requests, as V8
    // compiles its code, and both must be compared warm.
    const referenceService = await startCatalogService({ certificates, revision: () => revision });
    services.push(referenceService);
    const paths = Array.from({ length: SETTINGS.products }, (_, i) => `/api/products/${1 + ((i * 48_271 + 11) % MAX_ID)}`);
    const referenceReady = ctx.start(ctx.reference, 'reference', { env: referenceService.env }).then(async (reference) => {
      await warmUp(reference, paths, SETTINGS.referenceWarmupMaxSeconds);
      return reference;
    });
    referenceReady.catch(() => {}); // awaited before stage 3; a failure to start is reported there
    const app = await ctx.start(ctx.candidate, undefined, { env: service.env });
    const responses = [];
    const info = [];

    // Stage 1: lone requests, the handshakes they caused.
    progress(`Listening on ${app.url}. Stage 1: ${SETTINGS.lone} lone requests, one product each (data revision ${revision}), counting the catalogue's TLS handshakes`);
    const ids = distinctIds(SETTINGS.lone, MAX_ID);
    const before = upstream.counts();
    const wrong = [];
    const wrongCalls = [];
    for (const id of ids) {
      const callsBefore = upstream.counts().calls;
      const res = await get(`${app.url}/api/products/${id}`).catch((e) => e);
      const problem = res instanceof Error ? res.message : pageProblem(res.status, res.body, id, revision);
      if (problem) wrong.push(`product ${id}: ${problem}`);
      const calls = upstream.counts().calls - callsBefore;
      if (calls !== 1) wrongCalls.push(`product ${id}: ${calls}`);
    }
    const lone = countsSince(before, upstream.counts());
    responses.push({
      name: `${SETTINGS.lone} lone requests for products`,
      pass: wrong.length === 0,
      expected: `status 200 with each product's page at data revision ${revision}`,
      actual: wrong.length ? `${wrong.length} wrong, e.g. ${wrong[0]}` : 'all right',
    });
    responses.push({
      name: 'each lone request called the catalogue once',
      pass: wrongCalls.length === 0,
      expected: `${SETTINGS.lone} calls, one per request`,
      actual: wrongCalls.length
        ? `${count(lone.calls, 'call')}; ${count(wrongCalls.length, 'request')} made another number, e.g. ${wrongCalls[0]}${lone.calls === 0 ? ': none reached the check\'s catalogue (does the app still get its URL from startCatalog()?)' : ''}`
        : `${count(lone.calls, 'call')}`,
    });
    const missing = MAX_ID + 1 + randomInt(1000);
    responses.push(errorCase(`GET /api/products/${missing} (no such product)`, await get(`${app.url}/api/products/${missing}`).catch((e) => e), 404, '{"error": …}'));
    responses.push(errorCase('GET /api/products/not-a-number', await get(`${app.url}/api/products/not-a-number`).catch((e) => e), 400, '{"error": …}'));
    ctx.assertAlive(app, 'while its responses were checked');

    const loneHandshakes = lone.full + lone.resumed;
    const handshakesFigure = (value, scale) => ({ 'tls-handshakes': { value, scale } });
    const loneScale = `${count(loneHandshakes, 'TLS handshake')} (${lone.full} full, ${lone.resumed} resumed) for ${count(lone.calls, 'call')} of ${SETTINGS.lone} lone requests`;
    info.push({
      id: 'handshakes-lone',
      label: `TLS handshakes the catalogue made for ${SETTINGS.lone} lone requests`,
      value: loneHandshakes,
      unit: loneHandshakes === 1 ? 'handshake' : 'handshakes',
      text: `${lone.full} full, ${lone.resumed} resumed (a resumed one skips the certificate, not the connection)`,
    });
    ctx.decide({ figures: handshakesFigure(per100(loneHandshakes, lone.calls), loneScale), responses, info }, `${SETTINGS.lone} lone requests`);


    // Stage 2: the catalogue restarts; impostors at its address.
    responses.push(...(await failureCases(app, upstream, () => ++revision, progress, ids.slice(0, 3))));
    ctx.assertAlive(app, 'after the catalogue restarted and impostors answered');
    ctx.decide({ figures: handshakesFigure(per100(loneHandshakes, lone.calls), loneScale), responses, info }, 'the catalogue\'s restart and the impostors');

    // Your app warms up under stage 4's load now, while the reference
    // finishes its own warm-up: both are warm before stage 3 (whose load
    // must not share the machine with a warm-up: it would hold up your
    // app's requests) and before they are compared in stage 4.
    progress(`Warming up your app (${SETTINGS.warmupRequests} requests of stage 4's load, or ${SETTINGS.warmupMaxSeconds} s of it) while the reference solution finishes its own warm-up`);
    const [reference] = await Promise.all([referenceReady, warmUp(app, paths, SETTINGS.warmupMaxSeconds)]);
    revision++;
    const d = SETTINGS.delayMs;
    progress(`Stage 3: ${SETTINGS.connections} clients at once for ${SETTINGS.seconds} s, each catalogue answer taking d = ${d} ms (data revision ${revision})`);
    await app.waitUntilIdle();
    upstream.setDelay(d);
    upstream.recordInFlight(true);
    const beforeLoad = upstream.counts();
    const served = await app.cpuAndRequests();
    const loadRevision = revision;
    const load = await runLoad({
      url: app.url,
      path: (i) => `/api/products/${1 + ((i * 7919) % MAX_ID)}`,
      connections: SETTINGS.connections,
      duration: SETTINGS.seconds,
      // One more connection keeps its answers, to check what the app sends while it is busy.
      sample: { path: (i) => `/api/products/${1 + ((i * 104_729) % MAX_ID)}`, keep: 60 },
    });
    ctx.assertAlive(app, 'under load');
    // Calls still on their way when the load stopped arrive within d.
    await new Promise((resolve) => setTimeout(resolve, 2 * d));
    const inFlight = upstream.recordInFlight(false);
    upstream.setDelay(0);
    const underLoad = countsSince(beforeLoad, upstream.counts());
    const servedUnderLoad = (await app.cpuAndRequests()).served - served.served;
    responses.push(loadCase(load, underLoad.calls, servedUnderLoad));
    responses.push(
      answersUnderLoad({
        name: `${load.sampled.answers.length} answers sampled under load`,
        answers: load.sampled.answers,
        errors: load.sampled.errors,
        expected: `each product's page at data revision ${loadRevision}`,
        verify: (a) => pageProblem(a.status, a.body.toString('utf8'), Number(a.path.split('/').pop()), loadRevision),
      }),
    );
    const p50 = load.latency.p50;
    const p10 = load.raw.latency.p10;
    const latencyFigure = {
      'latency-p50': { value: p50, per: d, scale: `d = ${d} ms, the time the catalogue takes to answer a call` },
    };
    info.push({
      id: 'in-flight',
      label: 'calls already waiting at the catalogue when a call arrived (median)',
      value: median(inFlight),
      unit: 'calls',
      text: `${SETTINGS.connections} clients and a sampler sent requests at once: calls made side by side find about ${SETTINGS.connections} others waiting, calls sent one at a time none`,
    });
    info.push({ id: 'latency', label: `latency with ${SETTINGS.connections} clients at once`, value: p50, unit: 'ms', text: `p10 ${p10} ms, p90 ${load.latency.p90} ms, ${Math.round(load.requestsPerSec)} req/s` });
    // Under load an app opens one connection per call in flight (up to 17
    // here) before it can reuse any: its figure under load is judged over
    // stages 3 and 4 together, thousands of calls, never over stage 3 alone.
    const loadHandshakes = () => {
      const since = countsSince(beforeLoad, upstream.counts());
      return { handshakes: since.full + since.resumed, calls: since.calls };
    };
    const handshakesAll = () => {
      const { handshakes, calls } = loadHandshakes();
      return handshakesFigure(
        Math.max(per100(loneHandshakes, lone.calls), per100(handshakes, calls)),
        `the worse of: ${loneScale}; ${handshakes} for ${count(calls, 'call')} under load`,
      );
    };
    ctx.decide({ figures: { ...handshakesFigure(per100(loneHandshakes, lone.calls), loneScale), ...latencyFigure }, responses, info }, `${SETTINGS.connections} clients at once`);

    // Stage 4: CPU per request against the reference.
    revision++;
    progress('Stage 4: CPU per request, yours against the reference solution\'s, in alternating rounds of the same load');
    const threshold = ctx.check.threshold('cpu-ratio');
    await app.waitUntilIdle();
    const beforeCpu = upstream.counts();
    const servedBeforeCpu = (await app.cpuAndRequests()).served;
    const measured = await compareThroughput({
      candidate: app,
      reference,
      path: paths,
      connections: SETTINGS.cpuConnections,
      rounds: SETTINGS.rounds,
      seconds: SETTINGS.roundSeconds,
      warmupSeconds: SETTINGS.warmupSeconds,
      perCpu: true,
      progress,
      enough: enoughRounds({ threshold, op: '>=', minRounds: SETTINGS.minRounds }),
      afterRound: ({ pairs, ratio, round }) =>
        round >= 2 &&
        ctx.decide(
          {
            figures: {
              ...handshakesAll(),
              ...latencyFigure,
              'cpu-ratio': { value: ratio, scale: `the median of the first ${round} paired rounds' ratios (${pairs.map((r) => `${r.toFixed(2)}×`).join(', ')})` },
            },
            responses,
            info,
          },
          `${round} paired rounds of CPU per request`,
        ),
    });
    ctx.assertAlive(app, 'under load');
    ctx.assertAlive(reference, 'under load');
    const cpuStage = countsSince(beforeCpu, upstream.counts());
    const servedInCpuStage = (await app.cpuAndRequests()).served - servedBeforeCpu;
    responses.push(answeredUnderLoad(measured));
    responses.push(callsCase(`the ${servedInCpuStage} requests of stage 4 called the catalogue once each`, cpuStage.calls, servedInCpuStage, SETTINGS.cpuConnections));

    const perRequest = (rate) => 1e6 / rate;
    // The middle round's own figures (for an even count, the first of the
    // middle two): their quotient is the ratio the gate judges.
    const [middle] = middleRounds(measured);
    info.push({
      id: 'cpu-per-request',
      label: `CPU per request, yours and the reference's, in the round whose ratio is the median (round ${middle.round})`,
      value: perRequest(middle.candidate),
      unit: 'µs',
      text: `yours ${Math.round(perRequest(middle.candidate))} µs, the reference ${Math.round(perRequest(middle.reference))} µs; every round, yours: ${measured.candidate.map((r) => Math.round(perRequest(r))).join(', ')} µs, the reference's: ${measured.reference.map((r) => Math.round(perRequest(r))).join(', ')} µs`,
    });
    info.push({
      id: 'handshakes-load',
      label: 'TLS handshakes the catalogue made under load (stages 3 and 4)',
      value: loadHandshakes().handshakes,
      unit: loadHandshakes().handshakes === 1 ? 'handshake' : 'handshakes',
      text: `for ${count(loadHandshakes().calls, 'call')}: ${underLoad.full + cpuStage.full} full, ${underLoad.resumed + cpuStage.resumed} resumed`,
    });

    const noise = [...roundsNoise(measured, threshold)];
    // No app that sends its calls one at a time can have its fastest tenth
    // answer within two d while its median is past the threshold: those
    // were calls made side by side that the machine held up.
    const latencyThreshold = ctx.check.threshold('latency-p50') * d;
    if (p50 >= latencyThreshold && p10 < 2 * d) {
      noise.push(`the fastest tenth of the requests took ${p10} ms, under two calls (${2 * d} ms), but the median took ${p50} ms: the machine held requests up`);
    }

    return {
      figures: {
        ...handshakesAll(),
        ...latencyFigure,
        'cpu-ratio': {
          value: measured.ratio,
          scale: `the median of ${measured.rounds} paired rounds' ratios (${measured.pairs.map((r) => `${r.toFixed(2)}×`).join(', ')}), rounds of ${measured.seconds} s; ${middleText(measured, 'requests per CPU-second')}`,
        },
      },
      responses,
      info,
      noise,
      series: {
        d,
        handshakes: { lone, underLoad, cpuStage },
        latency: { p10, p50, p90: load.latency.p90 },
        throughput: measured,
      },
    };
  } finally {
    await Promise.all(services.map((u) => u.close()));
  }
}

/**
 * Puts stage 4's load on an app until it has served `target` requests in
 * all (SETTINGS.warmupRequests unless given), or for `maxSeconds` if it
 * cannot serve that many sooner (an app that pays a handshake per call).
 */
async function warmUp(app, paths, maxSeconds, target = SETTINGS.warmupRequests) {
  const { served } = await app.cpuAndRequests();
  const left = target - served;
  if (left <= 0) return;
  await runLoad({
    url: app.url,
    path: paths,
    connections: SETTINGS.cpuConnections,
    amount: left,
    stopEarly: (elapsedMs) => elapsedMs >= maxSeconds * 1000,
  });
}

/** `count` distinct product ids in [1, max]. */
function distinctIds(count, max) {
  const ids = new Set();
  while (ids.size < count) ids.add(1 + randomInt(max));
  return [...ids];
}

/**
 * Stage 2. The catalogue restarts: its connections close, its data changes,
 * and the app must connect again and answer right (for products stage 1
 * asked for: a cache answers them as they were). Then someone else answers
 * at its address, with a certificate from another CA, then with one from the
 * right CA for another name: the app must refuse both (a 502), and not one
 * request may reach them. Then the catalogue is back.
 */
async function failureCases(app, upstream, nextRevision, progress, askedBefore) {
  const cases = [];
  const settle = { settleMs: SETTINGS.settleMs };
  const pages = async (label, ids, revision) => {
    for (const id of ids) {
      cases.push(pageCase(`GET /api/products/${id} ${label}`, await get(`${app.url}/api/products/${id}`).catch((e) => e), id, revision));
    }
  };
  let revision = nextRevision();
  progress(`Stage 2: the catalogue restarts with a renewed certificate (the same CA and name, a new key); every connection to it closes (data revision ${revision})`);
  await upstream.present('renewed', settle);
  // Products stage 1 asked for: their prices and stock have changed since.
  for (const id of askedBefore) {
    const res = await get(`${app.url}/api/products/${id}`).catch((e) => e);
    const judged = pageCase(`GET /api/products/${id} again, after the catalogue restarted with a renewed certificate`, res, id, revision);
    if (!judged.pass && !(res instanceof Error) && res.status === 502) {
      judged.actual += ': the app refused the catalogue\'s renewed certificate, which the CA it was given signed (does it pin the first certificate it saw instead of trusting the CA?)';
    }
    cases.push(judged);
  }

  for (const [which, who] of [
    ['foreign', 'a certificate from a CA the app was not given (under the trusted CA\'s name)'],
    ['misnamed', 'a certificate from the right CA, for another name (billing.internal)'],
  ]) {
    progress(`  someone else answers at the catalogue's address, with ${who}`);
    await upstream.present(which, settle);
    const before = upstream.counts();
    for (let i = 0; i < 2; i++) {
      const id = 1 + randomInt(catalogModule().MAX_ID);
      const res = await get(`${app.url}/api/products/${id}`).catch((e) => e);
      const judged = errorCase(`GET /api/products/${id} while ${who} answers`, res, 502, '{"error": …}: the certificate is refused');
      if (!judged.pass && !(res instanceof Error) && res.status === 200) {
        judged.actual += ': the app accepted a certificate it must refuse (rejectUnauthorized: false, or a checkServerIdentity that checks nothing?)';
      }
      cases.push(judged);
    }
    const reached = countsSince(before, upstream.counts());
    cases.push({
      name: `no request reached the catalogue's address while ${who} answered`,
      pass: reached.calls === 0,
      expected: 'the app refuses the certificate before it sends anything',
      actual:
        reached.calls === 0
          ? `none (${count(reached.refused, 'handshake')} refused, ${reached.full + reached.resumed} completed and then dropped)`
          : `${count(reached.calls, 'request')} sent to it: the app does not verify the certificate`,
    });
  }

  revision = nextRevision();
  progress(`  the catalogue is back (data revision ${revision})`);
  await upstream.present('renewed', settle);
  await pages('after the catalogue came back', distinctIds(2, catalogModule().MAX_ID), revision);
  return cases;
}

function loadCase(load, calls, served) {
  const ok = load.statusCodes['200'] || 0;
  const errors = load.errors + load.timeouts;
  const sampled = load.sampled ? load.sampled.answers.length : 0;
  const pass = ok === load.responses && errors === 0 && calls >= ok + sampled && calls <= served;
  return {
    name: `${load.responses} requests from ${load.connections} clients at once`,
    pass,
    expected: 'status 200 for every one, and one catalogue call for each request the app received',
    actual: `${JSON.stringify(load.statusCodes)}, ${errors} errors or timeouts; ${count(calls, 'catalogue call')} for ${count(served, 'request')} received (${ok + sampled} answered)`,
  };
}

function callsCase(name, calls, served, connections) {
  // A request cut off when a round stopped may have been received without
  // its call, at most one per connection and round end.
  const pass = calls <= served && calls >= served - 4 * connections && served > 0;
  return {
    name,
    pass,
    expected: 'one catalogue call for each request the app received',
    actual: `${count(calls, 'call')} for ${count(served, 'request')}${calls < served - 4 * connections ? ': the app answered without asking the catalogue (a cache?)' : calls > served ? ': more calls than requests' : ''}`,
  };
}

module.exports = defineCheck(
  {
    // Why these thresholds (margins in check/margins.json: 10-run benches on
    // a quiet 2-vCPU VM, 2026-11-27, Node 20 and 24 idle and with a hog,
    // Node 26 idle, 100 of 100 verdicts right; cpu-ratio at the median: the
    // starter 0.086-0.10 on Node 24 and 26, 0.13 on Node 20 (0.17 with a
    // hog), the reference against itself 0.97-1.10, 3.2× inside 0.2 or more
    // in its worst run; latency-p50: the reference 2.8× inside or more; the
    // starter passes either or not, as it may. The development runs below
    // were on a busy shared machine, Node 20 and 24):
    // - tls-handshakes: a count, the same on any machine. The starter makes
    //   100 per 100 calls; an app that reuses its connections makes one for
    //   the lone requests and, under load, one per call in flight (17) for
    //   thousands of calls. Past 10 is an app that does not keep them.
    // - latency-p50: calls made side by side took 1.05-1.5 d (26-37 ms at
    //   d = 25 ms, also with a CPU hog); one connection for every call
    //   (maxSockets: 1) 17-18 d. 4 d sits about 3× from the first and 4×
    //   from the second: the gap is physical (1 d against 17 d), and a
    //   median past 4 d whose fastest tenth took under 2 d is "too noisy".
    // - cpu-ratio: the starter measured 0.10-0.13 (it pays a secure context,
    //   a TCP connection and a full TLS handshake per call); the reference
    //   against itself 0.74-1.35, other real fixes 0.60-1.5 (undici's fetch
    //   is the dearest). On Node 20, Node's own fetch (undici 6, through
    //   setGlobalDispatcher) cost 2-4.5× the reference's CPU per request in
    //   CI's fixture runs: rounds of 0.22-0.66, medians 0.39-0.48. At 0.32
    //   a third of its rounds fell below, and CI called a correct fix "too
    //   noisy" twice in a row. 0.2 leaves that fix 2.2× at its median and
    //   every round it ran above; the starter (0.086-0.10 on Node 24 and 26,
    //   0.13-0.17 on Node 20) may pass it on Node 20, so it is in
    //   starterMayFail: its verdict rests on its handshakes, an exact count
    //   (100 per 100 calls), and no cheat the fixtures hold passes them.
    gates: {
      'tls-handshakes': {
        label: 'new TLS connections to the catalogue per 100 calls (the worse of the lone requests and the loads)',
        op: '<',
        threshold: 10,
        unit: 'per 100 calls',
        exact: true,
        pass: 'The app keeps its connections to the catalogue and sends the next call on one of them.',
        fail: 'The app opens a new TCP connection and makes a new TLS handshake for most calls: its connections are not reused (an agent made per call, or one that does not keep them alive).',
      },
      'latency-p50': {
        label: `median latency with ${SETTINGS.connections} clients at once`,
        op: '<',
        threshold: 4,
        per: 'd',
        unit: 'ms',
        pass: 'Requests do not wait for each other: their calls to the catalogue are made side by side.',
        fail: 'Requests wait for each other\'s calls: the app sends its calls to the catalogue one at a time (one connection, or a pool too small for the load).',
      },
      'cpu-ratio': {
        label: 'your requests per CPU-second ÷ the reference\'s, on the same load',
        op: '>=',
        threshold: 0.2,
        unit: '×',
        pass: 'A request costs about what the reference\'s costs: no connection set up per call.',
        fail: 'Each request costs several times the reference\'s CPU: profile it and look at what each call to the catalogue sets up.',
      },
    },
    starterFails: ['tls-handshakes'],
    // The starter pays a TCP connection and a TLS handshake for each of 16
    // calls at once: on a busy 2-core machine (a CPU hog, the reference
    // warming up beside it) the queue for the CPU alone can take its median
    // past 4 d. Calls one at a time are not its bug; its verdict does not
    // depend on this gate (and the check stops it at stage 1).
    // Nor does it depend on cpu-ratio: on Node 20 the starter's per-call
    // handshakes cost 6-8× the reference's CPU, not the 10-12× of Node 24
    // and 26, and the threshold leaves room for the dearest correct fix.
    starterMayFail: ['latency-p50', 'cpu-ratio'],
    settings: SETTINGS,
    // `workbook run`, `load` and `profile` start the catalogue as
    // catalog.js does for `node app.js` (a CA of its own, CATALOG_DELAY_MS)
    // and give the app its address and CA in the variables this check uses.
    services: {
      env: ['CATALOG_URL', 'CATALOG_CA'],
      describe: 'the catalogue service',
      start: ({ progress }) =>
        require('../../../scripts/harness/lab-services').forkService(require.resolve('../catalog'), {
          progress,
          toEnv: (message) => ({ CATALOG_URL: message.url, CATALOG_CA: message.ca }),
        }),
    },
    standardLoad,
    advice: 'Profile it with `npx workbook profile 12 --tool cpu` and look at what each call to the catalogue sets up',
    measure,
    explain: {
      kind: 'reference',
      noise:
        'the paired rounds of CPU per request disagree about the verdict (fewer than four in five of the pair ratios on the same side of the threshold as their median), or the median latency with 16 clients is past its threshold while the fastest tenth took less than 2 d, which no app that sends its calls one at a time can do. The handshake count needs no such rule: it is counted by the catalogue, the same on any machine.',
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'perf' }, { tool: 'cpu', solution: true }],
    tools: ['cpu', 'perf'],
    // One unit per chart: handshakes per 100 calls, then milliseconds, then
    // requests per CPU-second.
    charts: [
      { kind: 'gate-bars', title: 'New TLS connections to the catalogue per 100 calls', gates: [{ id: 'tls-handshakes', label: 'handshakes per 100 calls' }] },
      { kind: 'gate-bars', title: `Median latency with ${SETTINGS.connections} clients at once`, gates: [{ id: 'latency-p50', label: 'median latency (ms)' }] },
      { kind: 'rounds', gate: 'cpu-ratio' },
    ],
  },
  __filename,
);
