'use strict';
// Lab 08's check: does /health stay responsive while big imports are parsed,
// and do the imports still import?
//
// Every threshold is a multiple of t, the time one JSON.parse of the check's
// standard import (20 000 products, ≈ 4.3 MB) takes on this machine, timed
// in a plain Node process before and after the load. An app that parses
// imports on its event loop holds every other request for about t per
// import (more with the validation that follows); one that parses elsewhere
// answers /health in a small fraction of t, whatever the machine. Every
// import's payload is different (see catalogue.js) and its summary is
// compared with totals computed while the payload was built, so a "fix"
// that skips the work or answers from a cache fails. The measured margins
// are in check/margins.json.

const http = require('node:http');
const { isDeepStrictEqual } = require('node:util');
const { setTimeout: sleep } = require('node:timers/promises');
const { get, json } = require('../../../scripts/harness/http-client');
const { median, percentile } = require('../../../scripts/harness/stats');
const { responseCase, truncate } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { catalogue, loadCatalogue, record, skuOf, COUNT } = require('./catalogue');

// t is timed by this module in a plain Node process (see in-child.js).
const CALIBRATE = require.resolve('./calibrate');

// Each connection sends an import at most every `importEvery` × t: faster
// than a main thread that parses can keep up with (over 1.2 t each, two
// connections), so the starter is always behind; but a bounded rate, so that
// an app which answers at once is not sent more and more bytes to receive.
const SETTINGS = { connections: 2, importEvery: 2, seconds: 3, probeEveryMs: 50, restSeconds: 1, loneImports: 3 };
// The API's documented maximum (the README's "The API"), and the size of the
// body the check sends to be refused: above it however "50 MB" is counted.
const MAX_BYTES = 50 * 1024 * 1024;
const OVERSIZED_BYTES = 60_000_000;
const LARGE_COUNT = 55_000; // ≈ 12 MB: well under the maximum, and must import
const NEAR = 1.5; // a figure this close to its threshold (either way) is too noisy to judge
const SUMMARY_FIELDS = ['received', 'imported', 'rejected', 'units', 'valueCents'];

// Seeds: the response checks use 1001–1004, the load 2001 onwards, the
// standard load 5001 onwards. Any seed gives a different catalogue.
const SEED = { first: 1001, second: 1002, oversized: 1003, large: 1004, lone: 1500, load: 2001, standard: 5001 };

/**
 * POST one import, `body` a string or a list of Buffers sent in order;
 * resolves with { status, body, ms }, or rejects on a connection error.
 */
function postImport(url, body, { timeoutMs = 30_000, unref = false, contentType = 'application/json' } = {}) {
  const chunks = typeof body === 'string' ? [Buffer.from(body)] : body;
  const length = chunks.reduce((n, c) => n + c.length, 0);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/import`,
      { method: 'POST', agent: false, headers: { 'content-type': contentType, 'content-length': length } },
      (res) => {
        const received = [];
        res.on('data', (c) => received.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(received).toString('utf8'), ms: Number(process.hrtime.bigint() - started) / 1e6 }),
        );
        res.on('error', reject);
      },
    );
    // The standard load's background imports must not keep a CLI process alive.
    if (unref) req.on('socket', (socket) => socket.unref());
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** What is wrong with an import's answer, or null when it reports `summary` exactly. */
function summaryProblem(res, summary) {
  if (res.status !== 200) return `status ${res.status}: ${truncate(res.body || '(empty body)', 100)}`;
  const got = json(res);
  if (!got || typeof got !== 'object') return `not a JSON object: ${truncate(res.body, 100)}`;
  const wrong = SUMMARY_FIELDS.filter((f) => got[f] !== summary[f]);
  return wrong.length ? wrong.map((f) => `${f} ${JSON.stringify(got[f])} instead of ${summary[f]}`).join(', ') : null;
}

function describeSummary(summary) {
  return `status 200 ${JSON.stringify(summary)}`;
}

/**
 * Imports posted from `connections` connections until `until()` says stop,
 * each connection sending its next import when the last is answered, but
 * no sooner than `intervalMs` after sending it; each answer is checked
 * against its payload's totals.
 */
async function importLoop({ url, connections, firstSeed, until, intervalMs = 0, unref = false, onImport = () => {} }) {
  let seed = firstSeed;
  const results = [];
  const worker = async () => {
    while (!until()) {
      const sentAt = Date.now();
      const { chunks, summary } = loadCatalogue(seed++);
      const res = await postImport(url, chunks, { unref }).catch((err) => err);
      const result = res instanceof Error ? { ms: NaN, problem: res.message } : { ms: res.ms, problem: summaryProblem(res, summary) };
      results.push(result);
      onImport(result);
      if (res instanceof Error) return; // the app has gone (or the load is over)
      const wait = sentAt + intervalMs - Date.now();
      if (wait > 0 && !until()) await sleep(wait);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return results;
}

/** GET `path` every `intervalMs` on a fresh connection, without waiting for the last one. */
function startProbe(url, intervalMs) {
  const samples = [];
  const inflight = new Set();
  const abort = new AbortController();
  let failures = 0;
  const fire = () => {
    const entry = { sentAt: Date.now() };
    entry.request = get(url, { timeoutMs: 30_000, signal: abort.signal })
      .then((res) => samples.push({ ms: res.ms, status: res.status }))
      .catch(() => failures++)
      .finally(() => inflight.delete(entry));
    inflight.add(entry);
  };
  fire();
  const timer = setInterval(fire, intervalMs);
  return {
    /** Stops sending; answers still due are waited for (up to 5 s), then counted as that late. */
    async stop() {
      clearInterval(timer);
      let waited;
      await Promise.race([Promise.allSettled([...inflight].map((e) => e.request)), new Promise((r) => (waited = setTimeout(r, 5000)))]);
      clearTimeout(waited);
      const now = Date.now();
      const late = [...inflight].map((e) => now - e.sentAt);
      abort.abort();
      const all = [...samples.map((s) => s.ms), ...late];
      return {
        sent: samples.length + late.length + failures,
        answered: samples.length,
        non200: samples.filter((s) => s.status !== 200).length,
        failures,
        p50: percentile(all, 50),
        p90: percentile(all, 90),
        p99: percentile(all, 99),
        max: all.length ? Math.max(...all) : NaN,
      };
    },
  };
}

/**
 * The standard load (`workbook load 08`, the profilers, the captures):
 * autocannon reads one product from 2 connections while two more connections
 * post 4.3 MB imports back to back in the background. The background starts
 * in setup() and stops by itself when the app stops answering (the
 * profilers stop it after the load) or after 10 minutes; its sockets do not
 * keep a command alive.
 */
const standardLoad = {
  async setup(url) {
    await postImport(url, loadCatalogue(SEED.standard).chunks);
    const stopAt = Date.now() + 600_000;
    importLoop({ url, connections: 2, firstSeed: SEED.standard + 1, until: () => Date.now() > stopAt, unref: true }).catch(() => {});
  },
  path: '/products/P000042',
  connections: 2,
  duration: 10,
  describe: 'GET /products/P000042 from 2 connections, while 2 more connections post 4.3 MB imports back to back',
  examples: ['/health', '/products/P000042'],
};

async function measure(ctx) {
  const { progress } = ctx;
  progress('Calibrating: timing one JSON.parse of a 4.3 MB import on this machine (t)');
  const calibrator = ctx.calibrator(CALIBRATE); // kept for the second timing
  const before = await calibrator.call('jsonParseCost', []);
  const t = before.median;
  progress(`t = ${t.toFixed(1)} ms here. Starting the app`);

  const app = await ctx.start(ctx.candidate);
  progress(`Listening on ${app.url}. Checking its responses (imports, products, errors, a body over 50 MB)`);
  const responses = await checkResponses(app, progress);
  ctx.assertAlive(app, 'while its responses were checked');

  progress(`Timing ${SETTINGS.loneImports} imports alone, one after another`);
  const lone = [];
  for (let i = 0; i < SETTINGS.loneImports; i++) {
    const { chunks, summary } = loadCatalogue(SEED.lone + i);
    const res = await postImport(app.url, chunks).catch((e) => e);
    const problem = res instanceof Error ? res.message : summaryProblem(res, summary);
    if (problem) responses.push({ name: `a lone import (seed ${SEED.lone + i})`, pass: false, expected: describeSummary(summary), actual: problem });
    else lone.push(res.ms);
  }

  // The event-loop delay at rest is the baseline (on Windows an idle timer
  // can wait for the system clock's 15.6 ms tick): the gate judges what the
  // imports add above it.
  progress(`Measuring the event-loop delay at rest (${SETTINGS.restSeconds} s), the baseline for the load`);
  await app.waitUntilIdle();
  await app.resetEventLoopDelay();
  await sleep(SETTINGS.restSeconds * 1000);
  const idle = await app.eventLoopDelay();
  ctx.assertAlive(app, 'at rest');

  progress(
    `Load: imports from ${SETTINGS.connections} connections (each at most one per ${SETTINGS.importEvery} t) for ${SETTINGS.seconds} s, ` +
      `timing /health every ${SETTINGS.probeEveryMs} ms alongside`,
  );
  const countedBefore = await app.cpuAndRequests();
  await app.resetEventLoopDelay();
  const started = Date.now();
  const deadline = started + SETTINGS.seconds * 1000;
  const probe = startProbe(`${app.url}/health`, SETTINGS.probeEveryMs);
  let done = 0;
  const loading = importLoop({
    url: app.url,
    connections: SETTINGS.connections,
    firstSeed: SEED.load,
    intervalMs: SETTINGS.importEvery * t,
    until: () => Date.now() >= deadline,
    onImport: () => done++,
  });
  const ticker = setInterval(() => progress(`  … ${Math.round((Date.now() - started) / 1000)}/${SETTINGS.seconds} s, ${done} imports answered`), 1000);
  await sleep(Math.max(0, deadline - Date.now()));
  const health = await probe.stop();
  clearInterval(ticker);
  const loop = await app.eventLoopDelay();
  ctx.assertAlive(app, 'under load');
  const imports = await loading; // the imports still on their way finish
  const countedAfter = await app.cpuAndRequests();
  ctx.assertAlive(app, 'under load');

  progress('Calibrating again, to see whether the machine stayed steady');
  const after = await calibrator.call('jsonParseCost', [{ runs: 3 }]);

  const wrong = imports.filter((r) => r.problem);
  responses.push({
    name: `${imports.length} imports under load, each a different catalogue`,
    pass: imports.length > 0 && wrong.length === 0,
    expected: 'status 200 and the exact summary of each payload',
    actual: wrong.length ? `${wrong.length} wrong, e.g. ${wrong[0].problem}` : imports.length ? 'all right' : 'no import was answered',
  });
  responses.push({
    name: `${health.sent} health checks during the imports`,
    pass: health.non200 === 0 && health.failures === 0,
    expected: 'status 200 for each',
    actual: `${health.non200} answered with another status, ${health.failures} failed`,
  });
  const answered = health.answered + imports.filter((r) => !r.problem).length;
  const served = countedAfter.served - countedBefore.served;
  const elsewhere = answered > 0 ? Math.max(0, 1 - served / answered) : 0;
  responses.push({
    name: "every request is served by the app's own process",
    pass: elsewhere <= 0.01,
    expected: 'the process the check started receives every request',
    actual:
      elsewhere <= 0.01
        ? 'it does'
        : `${Math.round(100 * elsewhere)}% went to other processes (a cluster?): a process that takes the imports must itself stay responsive`,
  });

  const tScale = `t = ${t.toFixed(1)} ms, one JSON.parse of a 4.3 MB import`;
  const figures = {
    'health-p50': { value: health.p50, per: t, scale: tScale },
    'loop-delay-p99': {
      value: Math.max(0, loop.p99 - idle.p99),
      per: t,
      scale: tScale,
      label: 'event-loop delay p99 inside the app during the imports, above its p99 at rest',
    },
  };

  const noise = [];
  const drift = Math.max(after.median / t, t / after.median);
  if (drift > 2) noise.push(`the time of one JSON.parse changed ${drift.toFixed(1)}× during the check`);
  if (health.answered < 10) noise.push(`only ${health.answered} health checks came back`);
  // On a machine with more busy threads than cores, a thread that wakes up
  // can wait for a core for tens of milliseconds: a fixed app's figures then
  // creep towards the thresholds, while a main thread that parses imports
  // stays far past them (it holds the loop for at least one parse and the
  // validation after it, over 1 t). A figure within 1.5× of its threshold,
  // on either side, is too close to call.
  for (const [id, figure] of Object.entries(figures)) {
    const ratio = figure.value / (ctx.check.threshold(id) * t);
    if (ratio > 1 / NEAR && ratio < NEAR) noise.push(`${id} landed within ${NEAR}× of its threshold (${ratio.toFixed(2)} of it)`);
  }

  const okImports = imports.filter((r) => !r.problem);
  const importMs = median(okImports.map((r) => r.ms));
  const info = [
    { id: 't', label: 'one JSON.parse of a 4.3 MB import on this machine (t)', value: t, unit: 'ms', text: `after the load: ${after.median.toFixed(1)} ms` },
    {
      id: 'import-alone',
      label: 'one import, alone (upload, parse, validation, answer)',
      value: median(lone),
      unit: 'ms',
      text: `${(median(lone) / t).toFixed(1)} t. Moving the parse elsewhere does not make an import faster; it stops it from holding up everyone else.`,
    },
    {
      id: 'imports-under-load',
      label: `imports answered during the ${SETTINGS.seconds} s load`,
      value: okImports.length,
      unit: 'imports',
      text: `median ${importMs.toFixed(0)} ms each (${(importMs / t).toFixed(1)} t), from ${SETTINGS.connections} connections`,
    },
    { id: 'health-p99', label: '/health p99 latency during the imports', value: health.p99, unit: 'ms', text: `max ${health.max.toFixed(0)} ms` },
    {
      id: 'loop-delay-rest',
      label: "event-loop delay p99 at rest, before the load (subtracted from the gate's figure)",
      value: idle.p99,
      unit: 'ms',
      text: `during the load: p99 ${loop.p99.toFixed(1)} ms, max ${loop.max.toFixed(1)} ms (${(loop.max / t).toFixed(1)} t)`,
    },
  ];

  return {
    figures,
    responses,
    info,
    noise,
    series: {
      t,
      health: { p50: health.p50, p90: health.p90, p99: health.p99 },
      loopDelay: loop,
      loopDelayAtRest: idle,
      imports: okImports.map((r) => r.ms),
    },
  };
}

/** The n-th record index (from 0) for which `predicate(i)` holds. */
function findRecord(predicate, n = 0, count = COUNT) {
  for (let i = 0; i < count; i++) if (predicate(i) && n-- === 0) return i;
  throw new Error('no such record in the catalogue');
}

async function checkResponses(app, progress) {
  const results = [];
  const getCase = async (name, path, expected) => {
    const res = await get(app.url + path).catch((e) => e);
    results.push(responseCase(`${name} (GET ${path})`, res, expected));
  };
  const productIs = (text) => ({
    status: 200,
    describe: `status 200 ${truncate(text, 70)}`,
    body: (body) => (isDeepStrictEqual(json({ body }), JSON.parse(text)) ? null : `got ${truncate(body, 100)}`),
  });
  const notFound = {
    status: 404,
    describe: 'status 404 with a JSON error',
    body: (body) => (typeof json({ body })?.error === 'string' ? null : `no {"error": "..."} in ${truncate(body, 80)}`),
  };
  const errorWith = (status) => ({ ...notFound, status, describe: `status ${status} with a JSON error` });
  const importCase = async (name, payload, options) => {
    const res = await postImport(app.url, payload.body, options).catch((e) => e);
    const problem = res instanceof Error ? res.message : summaryProblem(res, payload.summary);
    results.push({ name, pass: !problem, expected: describeSummary(payload.summary), actual: problem || 'as expected' });
  };
  const errorCase = async (name, body, status) => {
    const res = await postImport(app.url, body).catch((e) => e);
    results.push(responseCase(name, res, errorWith(status)));
  };

  await getCase('GET /health', '/health', { status: 200 });
  await getCase('a product before any import', `/products/${skuOf(1)}`, notFound);

  const A = SEED.first;
  const B = SEED.second;
  await importCase(`POST /import, 20 000 products (seed ${A})`, catalogue(A));
  const validA = findRecord((i) => record(A, i).valid, 17);
  const invalidA = findRecord((i) => !record(A, i).valid);
  await getCase('a product that import imported', `/products/${skuOf(validA)}`, productIs(record(A, validA).text));
  await getCase('a product that import rejected', `/products/${skuOf(invalidA)}`, notFound);

  await importCase(`POST /import, the same products with new prices and stock (seed ${B})`, catalogue(B));
  const updated = findRecord((i) => record(A, i).valid && record(B, i).valid, 5);
  const keptFromA = findRecord((i) => record(A, i).valid && !record(B, i).valid);
  await getCase('a product updated by the second import', `/products/${skuOf(updated)}`, productIs(record(B, updated).text));
  await getCase('a product the second import rejected keeps its first version', `/products/${skuOf(keptFromA)}`, productIs(record(A, keptFromA).text));

  const broken = catalogue(SEED.oversized, { count: 50 }).body;
  await errorCase('POST /import with malformed JSON (the catalogue cut off)', broken.slice(0, broken.length / 2), 400);
  await errorCase('POST /import without a products array', '{"items":[]}', 400);

  progress(`  a body of ${OVERSIZED_BYTES / 1e6} MB, over the 50 MB maximum: it must be refused with 413`);
  const oversized = catalogue(SEED.oversized, { count: 200, padTo: OVERSIZED_BYTES });
  await errorCase(`POST /import of ${OVERSIZED_BYTES / 1e6} MB, over the 50 MB maximum`, oversized.body, 413);
  const untouched = findRecord((i) => record(B, i).valid && record(SEED.oversized, i).valid);
  await getCase('a product of the refused import keeps its version', `/products/${skuOf(untouched)}`, productIs(record(B, untouched).text));

  progress(`  an import of ${LARGE_COUNT} products (≈ 12 MB, under the maximum): it must be imported`);
  await importCase(`POST /import, ${LARGE_COUNT} products (≈ 12 MB, seed ${SEED.large})`, catalogue(SEED.large, { count: LARGE_COUNT }));
  const last = findRecord((i) => i > LARGE_COUNT - 100 && record(SEED.large, i).valid, 0, LARGE_COUNT);
  await getCase('the last products of that import', `/products/${skuOf(last)}`, productIs(record(SEED.large, last).text));
  return results;
}

module.exports = defineCheck(
  {
    // Why these thresholds: a main thread that parses an import is held for
    // one JSON.parse (t) plus the decoding and validation around it, over
    // 1.2 t in one stretch, and under these imports /health queues behind
    // such stretches (measured: /health median 2–8 t, event-loop delay p99
    // 3.8–11 t). A fixed main thread only receives bytes, copies them out
    // and stores short strings in batches (measured: /health median
    // 0.15–0.2 t, delay p99 0.5–0.65 t). The thresholds sit near the
    // geometric middle of each pair: 0.5 t and 1 t. The delay gate's gap is
    // narrower than the workbook's 9× aim, and the starter's floor on it is
    // one stretch of ~1.2 t: runs within 1.5× of a threshold are reported
    // as too noisy. Preliminary, measured on a shared machine: see
    // margins.json.
    gates: {
      'health-p50': {
        label: '/health median latency while imports are parsed',
        op: '<',
        threshold: 0.5,
        per: 't',
        unit: 'ms',
        pass: 'Health checks are answered at once: imports no longer hold up other requests.',
        fail: 'Health checks wait behind imports: something in /import holds the event loop for about as long as parsing the body.',
      },
      'loop-delay-p99': {
        label: 'event-loop delay p99 inside the app during the imports',
        op: '<',
        threshold: 1,
        per: 't',
        unit: 'ms',
        pass: 'The event loop never stalls for as long as one parse of an import takes.',
        fail: 'The event loop stalls for whole parses at a time: imports are parsed (or walked) on the main thread.',
      },
    },
    starterFails: ['health-p50', 'loop-delay-p99'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Profile it with `npx workbook profile 08 --tool cpu` and look at what runs under the body parser',
    measure,
    explain: {
      kind: 'calibrated',
      calibration:
        't is one `JSON.parse` of the check\'s standard import (20 000 products, about 4.3 MB), timed in a plain Node process after two warm-up parses. An app that parses imports on its event loop holds `/health` for about t per import; one that parses elsewhere answers in a small fraction of t.',
      noise: 't, timed again after the load, differs from t before it by more than 2×; too few health checks came back to take a median; or a figure landed within 1.5× of its threshold, on either side (on a machine with more busy threads than cores, a fixed app\'s figures creep up while a thread waits for a core).',
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'clinic-doctor' }],
    tools: ['cpu', 'clinic-doctor'],
    charts: [
      {
        kind: 'gate-bars',
        title: 'Responsiveness while imports are parsed',
        gates: [
          { id: 'health-p50', label: '/health median' },
          { id: 'loop-delay-p99', label: 'event-loop delay p99' },
        ],
      },
    ],
  },
  __filename,
);
