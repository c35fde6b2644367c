'use strict';
// Lab 16's check: does the app log every request as the contract asks,
// without the logging costing more than the request, and without stalling
// or filling memory when the log collector falls behind?
//
// The candidate and the reference run side by side, with equal treatment:
// each app's stdout is read by a collector of the check's own
// (scripts/harness/stdout-collector.js), the same pipe the app has in
// every mode. Both are warmed up with the collector reading as fast as
// lines come, then, with the collector slowed to `collectorKiBPerSecond`
// (a collector under pressure), both receive the same requests at the
// same fixed rate (`requestsPerSecond`, each order with an x-request-id of
// the check's), and /health every `healthEveryMs` ms. Then the collector
// is released and every line must arrive.
//
// Figures:
// - backlog per request: the growth of the app's whole memory (every
//   thread's heap, Buffers; census after forced GCs) from before the slow
//   phase to its end, while the collector is still behind, per order
//   request sent: a machine-independent quantity. Lines that wait in the
//   app's memory for a slow reader (a POSIX pipe's queue, a logger's
//   unbounded buffer) show here.
// - CPU per order line, against the reference's: the whole process's CPU
//   time (every thread: a logger's worker counts) in the blocks of large
//   orders less that in the blocks of small ones, per order line, yours
//   less the reference's, in units of t (calibrate.js: building one line
//   of an order). Formatting that nobody reads (a debug line at a level
//   that is off) or a whole order in every line shows here; what a
//   request costs whatever its size (HTTP, the kernel) cancels out.
// - latency, against the reference's: the 90th percentile of the orders'
//   and /health's times in the same phase. A write that blocks the event
//   loop while the collector is slow (a file, a pipe on Windows, a
//   synchronous logger) shows here.
// And every request's line, whole and parseable with the contract's
// fields (log-contract.js), and every answer right: responses.
//
// The collector's rate and the request rate are fixed: the log volume a
// line format produces (bytes per line × requests a second) against what
// the collector takes is the same on every machine, and the request rate
// is a small fraction of what any machine serves.

const crypto = require('node:crypto');
const http = require('node:http');
const { setTimeout: sleep } = require('node:timers/promises');
const { json, asError } = require('../../../scripts/harness/http-client');
const { percentile, median } = require('../../../scripts/harness/stats');
const { startRouteProbe } = require('../../../scripts/harness/route-probe');
const { responseCase, truncate, counted } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { AppError } = require('../../../scripts/harness/app-process');
const { ORDERS, idOf, lineCount } = require('../orders-db');
const { answerProblem, lineBook, lineProblem } = require('./log-contract');

const CALIBRATE = require.resolve('./calibrate');

const MEMORY_THRESHOLD = 8192;
const CPU_THRESHOLD = 8;
const LATENCY_THRESHOLD = 3;

const SETTINGS = {
  // Warm-up, collector at full speed: orders sent `warmUpConcurrency` at a time.
  warmUpRequests: 80,
  warmUpConcurrency: 4,
  // The slow phase: blocks of small orders and of large ones, alternately.
  collectorKiBPerSecond: 256,
  requestsPerSecond: 80,
  blocks: 4,
  blockMs: 625,
  smallLines: [40, 100],
  largeLines: [1800, 2000],
  healthEveryMs: 50,
  // The unit t: the CPU time of building one order line, timed on
  // `calibrationOrders` orders of calibrationLines lines in a process of the
  // check's own (orders of a few hundred lines: the largest ones time the
  // collector of a process that just started, as much as the building).
  calibrationOrders: 60,
  calibrationLines: [200, 400],
  // One order in `missingEvery` asks for an order that does not exist (a 404 is logged too).
  missingEvery: 20,
  // How long the released collector may take to bring every line, and how
  // long stdout may stay quiet before what is missing counts as never written.
  drainMs: 5000,
  quietMs: 500,
};

/**
 * Random order ids of one kind: `small` ones (smallLines lines, and now and
 * then one that does not exist: a 404 is logged too) or `large` ones.
 */
function idPicker() {
  const kinds = { small: [], large: [], medium: [] };
  while (kinds.small.length < 400 || kinds.large.length < 400 || kinds.medium.length < SETTINGS.calibrationOrders) {
    const id = idOf(crypto.randomInt(1, ORDERS + 1));
    const lines = lineCount(id);
    if (lines >= SETTINGS.smallLines[0] && lines <= SETTINGS.smallLines[1]) kinds.small.push({ id, lines });
    if (lines >= SETTINGS.largeLines[0] && lines <= SETTINGS.largeLines[1]) kinds.large.push({ id, lines });
    if (lines >= SETTINGS.calibrationLines[0] && lines <= SETTINGS.calibrationLines[1]) kinds.medium.push({ id, lines });
  }
  let i = 0;
  return (kind = i % 2 ? 'large' : 'small') => {
    i++;
    if (kind === 'small' && i % SETTINGS.missingEvery === 0) return { id: `ord_${String(ORDERS + crypto.randomInt(1, 9999)).padStart(5, '0')}`, lines: 0 };
    const list = kinds[kind];
    return list[crypto.randomInt(list.length)];
  };
}

/** One app, its collector's line book, and what was sent to it. */
async function startOne(ctx, file, role) {
  const book = lineBook();
  const app = await ctx.start(file, role, { collector: { onLine: book.onLine } });
  // Kept-alive connections, as a service's clients hold them: the CPU a
  // request costs is then the app's work, not a TCP handshake's.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  return { app, book, role, agent, sent: [] };
}

/** GET `path` on a kept-alive connection; resolves with { status, body, ms } or an Error. */
function get(side, path, headers) {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.get(`${side.app.url}${path}`, { agent: side.agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      res.on('error', (err) => resolve(asError(err)));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (err) => resolve(asError(err)));
  });
}

/** GET /orders/:id with a request id of the check's; records what came back. */
async function ask(side, id, sink) {
  const reqId = crypto.randomUUID();
  side.book.expect(reqId);
  const res = await get(side, `/orders/${id}`, { 'x-request-id': reqId });
  const record = { reqId, id, status: res instanceof Error ? null : res.status, ms: res instanceof Error ? null : res.ms, problem: answerProblem(res, id) };
  side.sent.push(record);
  if (sink) sink.push(record);
  return record;
}

async function warmUp(side, pick) {
  const ids = Array.from({ length: SETTINGS.warmUpRequests }, () => pick().id);
  for (let i = 0; i < ids.length; i += SETTINGS.warmUpConcurrency) {
    await Promise.all(ids.slice(i, i + SETTINGS.warmUpConcurrency).map((id) => ask(side, id)));
  }
  // Every warm-up line in before the phase: what waits then is the phase's.
  await drain(side);
}

/**
 * Waits until a line has arrived for every request sent to `side`, or
 * until stdout has stayed quiet for quietMs (what is missing then was
 * never written), drainMs at most. Resolves with whether all arrived.
 */
async function drain(side) {
  const want = side.sent.length;
  const deadline = Date.now() + SETTINGS.drainMs;
  while (Date.now() < deadline) {
    const bytes = side.app.stdout.bytes;
    if (await side.app.stdout.until(() => side.book.arrived() >= want, Math.min(SETTINGS.quietMs, deadline - Date.now()))) return true;
    if (side.app.stdout.bytes === bytes) return false;
  }
  return side.book.arrived() >= want;
}

/**
 * The slow phase, in blocks of small orders and of large ones, alternately:
 * each side gets the same ids at the same moments, sent on time whether or
 * not earlier ones came back (as real users send them). The CPU each app
 * used is read at each block's ends, so the CPU an order line adds can be
 * told from what a request costs whatever its size (HTTP, the kernel).
 */
async function slowPhase(sides, pick) {
  const perBlock = Math.round((SETTINGS.blockMs / 1000) * SETTINGS.requestsPerSecond);
  const gap = 1000 / SETTINGS.requestsPerSecond;
  const phase = sides.map(() => []);
  const blocks = sides.map(() => ({ small: { cpuUs: 0, requests: 0, lines: 0 }, large: { cpuUs: 0, requests: 0, lines: 0 } }));
  for (let b = 0; b < SETTINGS.blocks; b++) {
    const kind = b % 2 ? 'large' : 'small';
    const cpuBefore = await Promise.all(sides.map((side) => side.app.cpuAndRequests()));
    const inflight = [];
    const started = performance.now();
    for (let i = 0; i < perBlock; i++) {
      const wait = started + i * gap - performance.now();
      if (wait > 0) await sleep(wait);
      const { id, lines } = pick(kind);
      sides.forEach((side, s) => {
        blocks[s][kind].requests++;
        blocks[s][kind].lines += lines;
        inflight.push(ask(side, id, phase[s]));
      });
    }
    // Every answer of the block in before its CPU is read: an app that
    // fell behind is charged for its own block's work, not the next one's.
    await Promise.all(inflight);
    const cpuAfter = await Promise.all(sides.map((side) => side.app.cpuAndRequests()));
    sides.forEach((_, s) => (blocks[s][kind].cpuUs += cpuAfter[s].total - cpuBefore[s].total));
  }
  return { phase, blocks };
}

/** CPU µs an order line adds, from the blocks of small and large orders. */
function perLine({ small, large }) {
  const linesS = small.lines / small.requests;
  const linesL = large.lines / large.requests;
  return { value: (large.cpuUs / large.requests - small.cpuUs / small.requests) / (linesL - linesS), linesS, linesL, small: small.cpuUs / small.requests, large: large.cpuUs / large.requests };
}

async function measure(ctx) {
  const sides = [];
  try {
    return await measureSides(ctx, sides);
  } finally {
    for (const side of sides) side.agent.destroy();
  }
}

async function measureSides(ctx, sides) {
  const { progress } = ctx;
  const pick = idPicker();
  progress('Calibrating: the CPU time of building one order line on this machine (t)');
  const calibrator = ctx.calibrator(CALIBRATE);
  const calibrationIds = Array.from({ length: SETTINGS.calibrationOrders }, () => pick('medium').id);
  const t = (await calibrator.call('lineCost', [calibrationIds])).t;
  progress(`t = ${t.toFixed(2)} µs here. Starting your app and the reference side by side`);
  const candidate = await startOne(ctx, ctx.candidate, 'candidate');
  sides.push(candidate);
  const reference = await startOne(ctx, ctx.reference, 'reference');
  sides.push(reference);

  progress(`Warm-up: ${SETTINGS.warmUpRequests} orders each, the collector reading as fast as lines come`);
  await Promise.all(sides.map((side) => warmUp(side, pick)));
  for (const side of sides) ctx.assertAlive(side.app, 'during the warm-up');
  const warmUpResponses = sides.slice(0, 1).map((side) => answersCase(side.sent, `${SETTINGS.warmUpRequests} orders during the warm-up`));
  ctx.decide({ responses: warmUpResponses }, 'the warm-up');

  const before = await Promise.all(sides.map(async (side) => ({ memory: await side.app.memory(), cpu: await side.app.cpuAndRequests(), read: side.app.stdout.bytes })));
  for (const side of sides) side.app.stdout.setRate(SETTINGS.collectorKiBPerSecond * 1024);
  progress(
    `The collector slows to ${SETTINGS.collectorKiBPerSecond} KiB/s: ${SETTINGS.requestsPerSecond} orders a second for ${(SETTINGS.blocks * SETTINGS.blockMs) / 1000} s, ` +
      `small ones and large ones by turns, /health every ${SETTINGS.healthEveryMs} ms`,
  );
  const healthProbes = sides.map((side) => startRouteProbe(side.app.url, { name: '/health', path: '/health', intervalMs: SETTINGS.healthEveryMs, keep: 20 }));
  let phase;
  let blocks;
  let health;
  try {
    ({ phase, blocks } = await slowPhase(sides, pick));
  } finally {
    health = await Promise.all(healthProbes.map((p) => p.stop({ maxWaitMs: 5000 })));
  }
  for (const side of sides) ctx.assertAlive(side.app, 'while its collector was slow');
  // Read while the collector is still behind: what waits for it is in the app now.
  // (The CPU was read at each block's ends, before these forced collections,
  // which are the check's work, not the app's.)
  const after = await Promise.all(sides.map(async (side) => ({ memory: await side.app.memory() })));
  const readWhileSlow = sides.map((side, s) => side.app.stdout.bytes - before[s].read);

  progress('The collector catches up: every line must arrive');
  for (const side of sides) side.app.stdout.release();
  await Promise.all(sides.map(drain));

  const figureOf = (s) => {
    const orders = phase[s].length;
    const grown = after[s].memory.data - before[s].memory.data;
    const times = [...phase[s].filter((x) => x.ms !== null).map((x) => x.ms), ...health[s].timeline.map((x) => x.ms)];
    return { orders, grown, perRequest: grown / orders, line: perLine(blocks[s]), p90: percentile(times, 90), p50: median(times) };
  };
  const [c, r] = [figureOf(0), figureOf(1)];

  const responses = [
    answersCase(candidate.sent, `${candidate.sent.length} orders`),
    healthCase(health[0]),
    linesCase(candidate),
  ];
  // The reference must hold the contract too, or nothing is judged.
  const refWrong = [answersCase(reference.sent, 'the reference'), linesCase(reference)].filter((x) => !x.pass);
  if (refWrong.length) {
    const detail = refWrong.map((x) => `${x.name}: ${x.actual}`).join('\n');
    throw Object.assign(new AppError('The reference broke the log contract under the check\'s load.', { reason: 'contract', detail }), { role: 'reference' });
  }

  const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
  const figures = {
    'backlog-memory': {
      value: c.perRequest,
      scale: `${(c.grown / 1048576).toFixed(2)} MiB grown over ${c.orders} orders (the reference: ${kib(r.perRequest)} an order)`,
    },
    'cpu-per-line': {
      value: c.line.value - r.line.value,
      per: t,
      scale: `t = ${t.toFixed(2)} µs, building one order line here; an order of ${c.line.linesL.toFixed(0)} lines took ${(c.line.large / 1000).toFixed(2)} ms of CPU and one of ${c.line.linesS.toFixed(0)} ${(c.line.small / 1000).toFixed(2)} ms, ${(c.line.value / t).toFixed(1)} t a line; the reference's ${(r.line.large / 1000).toFixed(2)} and ${(r.line.small / 1000).toFixed(2)} ms, ${(r.line.value / t).toFixed(1)} t a line`,
    },
    latency: {
      value: c.p90 / r.p90,
      scale: `90th percentile ${c.p90.toFixed(1)} ms against the reference's ${r.p90.toFixed(1)} ms (orders and /health)`,
    },
  };
  const stats = sides.map((side) => side.book.stats());
  const info = [
    { id: 'log-volume', label: 'log written per order (your app / the reference)', value: stats[0].bytes / Math.max(1, candidate.sent.length), unit: 'B', text: `${kib(stats[0].bytes / Math.max(1, candidate.sent.length))} against ${kib(stats[1].bytes / Math.max(1, reference.sent.length))}; the collector took ${kib(SETTINGS.collectorKiBPerSecond * 1024)} a second, the orders came ${SETTINGS.requestsPerSecond} a second` },
    { id: 'read-while-slow', label: 'bytes the collector read during the slow phase', value: readWhileSlow[0], unit: 'B', text: `${kib(readWhileSlow[0])} (the reference: ${kib(readWhileSlow[1])})` },
  ];
  const noise = [];
  if (health[1].answered < 10) noise.push(`only ${counted(health[1].answered, 'request')} to the reference's /health came back`);
  return {
    figures,
    responses,
    info,
    noise,
    series: { candidate: c, reference: r },
  };
}

function answersCase(records, name) {
  const wrong = records.filter((r) => r.problem);
  return {
    name: `GET /orders/:id: ${name}`,
    pass: wrong.length === 0,
    expected: 'status 200 with the order\'s summary (404 for one that does not exist)',
    actual: wrong.length ? `${wrong.length} wrong, e.g. ${wrong[0].id}: ${wrong[0].problem}` : 'all right',
  };
}

function healthCase(timing) {
  const wrong = timing.samples.filter((s) => s.status !== 200 || json({ body: s.body })?.status !== 'ok');
  return {
    name: `${timing.sent} requests to /health while the collector was slow`,
    pass: timing.failures === 0 && timing.unanswered === 0 && wrong.length === 0 && timing.answered > 0,
    expected: 'status 200 {"status":"ok"} for each',
    actual: timing.failures ? `${timing.failures} failed` : timing.unanswered ? `${timing.unanswered} never answered` : wrong.length ? `${wrong.length} wrong, e.g. status ${wrong[0].status}: ${truncate(wrong[0].body || '', 60)}` : `${timing.answered} answered, all right`,
  };
}

function linesCase(side) {
  const wrong = [];
  for (const record of side.sent) {
    if (record.status === null) continue; // no answer: the answers' case says so
    const problem = lineProblem(side.book.entries(record.reqId), { reqId: record.reqId, id: record.id, status: record.status });
    if (problem) wrong.push({ record, problem });
  }
  const { unparsed } = side.book.stats();
  return {
    name: `a log line for each of the ${side.sent.length} orders, whole and with the contract's fields`,
    pass: wrong.length === 0,
    expected: 'one JSON line per request: reqId, method, url, statusCode, responseTime, level info, orderId (lines and totalCents for an order found)',
    actual: wrong.length
      ? `${wrong.length} of ${side.sent.length} wrong, e.g. ${wrong[0].record.id} (x-request-id ${wrong[0].record.reqId.slice(0, 8)}…): ${wrong[0].problem}${unparsed ? `; ${unparsed} lines on stdout were not JSON` : ''}`
      : 'all there',
  };
}

const standardLoad = {
  path: '/orders/ord_00042',
  connections: 10,
  duration: 10,
  describe: `GET /orders/ord_00042 (an order of ${lineCount('ord_00042')} lines), 10 connections`,
  examples: ['/orders/ord_00042', '/orders/ord_00007', '/health'],
};

module.exports = defineCheck(
  {
    // Why these thresholds (margins in check/margins.json: 10-run benches
    // of 2026-11-26, Node 20 and 24 idle and beside a CPU hog, Node 26
    // idle, every verdict right):
    // - backlog-memory, 8 KiB an order: what waits in the app for a slow
    //   collector is the volume written beyond what the collector takes.
    //   The starter's access lines (a whole order, over 100 KiB for a large
    //   one) read about 130 KiB an order (16× past at worst); the
    //   reference's lines fit, 0.4-1.1 KiB (7.6× inside at worst). A
    //   machine-independent quantity: bytes per order sent, after forced
    //   collections.
    // - cpu-per-line, 8 t: the CPU an order line adds to a request beyond
    //   what it adds to the reference's, in units of building one line.
    //   The starter formats every line of the order twice (its debug line
    //   at a level that is off, and the access line): 36-54 t at the
    //   median, 3.2× past in its least; the reference about 0 (8× inside).
    // - latency, 3× the reference's p90: a write that blocks the loop while
    //   the collector is slow. The starter's pipe is asynchronous on POSIX,
    //   so it may pass (1.15× inside at worst on Node 20, 1.2× past on Node
    //   26): in starterMayFail, its verdict is the two gates above. The
    //   reference reads about 1× (2.5× inside at worst).
    gates: {
      'backlog-memory': {
        label: 'memory the app gained per order while its log collector was slow',
        op: '<',
        threshold: MEMORY_THRESHOLD,
        unit: 'B',
        pass: 'What the app logs fits through the collector: nothing piles up in its memory while the collector is slow.',
        fail: 'Log lines piled up in the app\'s memory while the collector was slow: the app writes more than a busy collector takes (on POSIX, a pipe\'s writes queue in the process), or its logger buffers without bound.',
      },
      'cpu-per-line': {
        label: 'CPU time each order line adds to a request (large orders against small ones), beyond what it adds to the reference\'s',
        op: '<',
        threshold: CPU_THRESHOLD,
        per: 't',
        unit: 'µs',
        pass: 'A larger order costs your app about what it costs the reference: nothing is formatted that is not written.',
        fail: 'Each line of an order costs your app several times more than building it, beyond the reference\'s cost: it formats the whole order on every request (a debug line formatted at a level that is off, the whole order in the access line). Profile it.',
      },
      latency: {
        label: 'latency (90th percentile) while the collector was slow, against the reference\'s',
        op: '<',
        threshold: LATENCY_THRESHOLD,
        unit: '×',
        pass: 'The event loop kept answering while the collector was slow.',
        fail: 'Requests waited while the collector was slow: writes to stdout blocked the event loop (as a pipe does on Windows, and a file everywhere), or the logging took the loop\'s time.',
      },
    },
    starterFails: ['backlog-memory', 'cpu-per-line'],
    // On POSIX the starter's pipe writes queue in its memory instead of blocking; on Windows they block.
    starterMayFail: ['latency'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Profile it with `npx workbook profile 16 --tool cpu`, and read the walkthrough\'s "The log contract"',
    measure,
    explain: {
      kind: 'reference',
      noise: 'fewer than ten requests to the reference\'s /health came back.',
    },
    captures: [{ load: true }, { tool: 'cpu' }],
    tools: ['cpu'],
    // What the CPU profile must show on the starter (the extended suite runs
    // it): the formatting of the debug line that is never written.
    findings: {
      cpu: /under `formatWithOptions`, called from labs\/16-logging-cost\/app\.js:\d+ in debug\(\)/,
    },
    charts: [
      {
        kind: 'gate-bars',
        title: 'Your app against its thresholds while the log collector is slow',
        gates: [
          { id: 'backlog-memory', label: 'memory gained per order' },
          { id: 'cpu-per-line', label: 'CPU per order line' },
          { id: 'latency', label: 'p90 latency ÷ reference' },
        ],
      },
    ],
  },
  __filename,
);
