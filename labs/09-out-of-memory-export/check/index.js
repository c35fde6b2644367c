'use strict';
// Lab 09's check: does the orders export stay within a small, fixed amount
// of memory per download, however large the export and however slowly the
// client reads it, and does every export still arrive whole?
//
// The app runs as it does in production, under --max-old-space-size=128
// (with --report-on-fatalerror, its report written to a scratch folder the
// check removes). Four clients download large exports at once, each a
// different range of dates chosen for this run: two read as fast as they
// can, two read the headers and then nothing until the check releases them.
// Meanwhile the check reads the memory of the whole app (every thread, Buffers
// included, after a forced collection: what the app holds, not the garbage
// it has yet to collect) every 150 ms, and divides what it holds beyond its
// memory at rest by the exports still in flight. Once the fast downloads are done and the
// app has settled (no CPU, no growth) with the slow clients still reading
// nothing, the reading shows what an export costs while its client is
// slow: an app that builds the export in memory holds all of it, one that
// streams while ignoring write()'s return value holds all that the kernel's
// socket buffers did not take, and one that waits for 'drain' holds a piece
// or two. The gate is the worst reading, in MB per export in flight: a
// machine-independent quantity. Then the slow clients read on, and every
// export must arrive complete and byte-identical to what the contract
// (contract.js, from the shipped orders-db.js) says. Before the exports the
// check posts new orders, which the open-ended exports must end with (a copy
// or cache of the orders is stale), and requires the app at rest to hold
// less than a copy of the orders would take; after them, that memory went
// back down (a cache of exports keeps it).
//
// Why a forced collection and not app.memory({ gc: false }): measured on
// the reference under this load, the uncollected heap climbs by 25–30 MB
// of garbage (the orders and pieces of text already sent) before V8 gets
// round to a full collection, whatever the app holds; the starter's peak
// was only 3–4× that. What crashes a process is memory it cannot collect.
// The measured margins are in check/margins.json.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const { get, request, json } = require('../../../scripts/harness/http-client');
const { AppError } = require('../../../scripts/harness/app-process');
const { responseCase, truncate } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { isShipped, shippedContent } = require('../../../scripts/lib/shipped');
const { readReportFile, describeCrash } = require('../../../scripts/profile/read/diagnostic-report');
const { download, exportProblem } = require('./downloads');

const CONTRACT = require.resolve('./contract');
const DRIVER = 'orders-db.js';
const MB = 1024 * 1024;
const DAY = 86_400_000;

const SETTINGS = {
  heapLimitMb: 128, // the production setting the walkthrough starts from
  sampleEveryMs: 150, // between two readings of the app's memory
  restMb: 24, // the app at rest, before the exports: its own 8–10 MB, and not a copy of the orders (their CSV alone is 17 MB)
  settleMs: 400, // the slow clients keep reading nothing at least this long after the fast ones are done
  settleMaxMs: 8000, // and the app must have settled by then
  postOrders: 3, // orders posted before the exports (the newest ones must be in them)
};

/**
 * The exports of one run: large ones (12–15 MB), each a range that starts
 * on a day chosen at random for this run, so no two runs, and no two
 * downloads, ask for the same one. Two are read slowly, two at full speed.
 * The slow CSV one is open-ended: it ends with the orders the check posted.
 */
function exportPlan(random = Math.random) {
  const day = (month, spread = 14) => new Date(Date.UTC(2025, month, 1 + Math.floor(random() * spread))).toISOString().slice(0, 10);
  const plus = (from, days) => new Date(Date.parse(from) + days * DAY).toISOString().slice(0, 10);
  const a = day(0);
  const c = day(4);
  const d = day(5);
  return [
    { name: 'a slow JSON export', slow: true, format: 'json', from: a, to: plus(a, 150) },
    { name: 'a slow CSV export, up to now', slow: true, format: 'csv', from: day(1) },
    { name: 'a fast JSON export', slow: false, format: 'json', from: c, to: plus(c, 75) },
    { name: 'a fast CSV export', slow: false, format: 'csv', from: d, to: plus(d, 150) },
  ];
}

const exportPath = ({ from, to, format }) => `/orders/export?from=${from}${to ? `&to=${to}` : ''}&format=${format}`;

// The standard load of `workbook load 09` and the profilers: the eight
// nightly jobs downloading the whole year's orders as JSON at once, over and
// over. The starter under the lab's heap limit dies of it within seconds on
// every Node version from 20 to 26 (Node 24's and 26's larger young
// generation survived three and four at once; measured, see the
// walkthrough's "Measure").
const standardLoad = {
  path: '/orders/export?from=2025-01-01&format=json',
  connections: 8,
  duration: 10,
  describe: "GET /orders/export of the year's orders as JSON (34 MB each), 8 connections",
  examples: ['/orders/export?from=2025-03-01&to=2025-03-02', '/orders/export?from=2025-03-01&to=2025-03-02&format=json', '/health'],
};

// Orders the check posts, whose exports it then checks.
function newOrders(tag) {
  return Array.from({ length: SETTINGS.postOrders }, (_, i) => ({
    customerId: `C-${String(90000 + i).padStart(5, '0')}`,
    customerName: ['Zoë "Quick" Ångström', 'Check, Inc.', `Run ${tag}`][i % 3],
    email: `check.${tag}.${i}@example.com`,
    street: `Teststraße ${i + 1}`,
    postcode: String(10000 + i),
    city: 'Łódź',
    country: 'PL',
    items: i + 1,
    totalCents: 1999 * (i + 1) + i,
    currency: 'PLN',
  }));
}

const BAD = [
  ['without a from date', '/orders/export?to=2025-02-01'],
  ['with a date that is not YYYY-MM-DD', '/orders/export?from=01.02.2025'],
  ['ending before it starts', '/orders/export?from=2025-03-01&to=2025-02-01'],
  ['in a format it does not have', '/orders/export?from=2025-03-01&format=xml'],
];
const SMALL = [
  { from: '2025-03-14', to: '2025-03-15', format: 'csv' },
  { from: '2025-03-14', to: '2025-03-15', format: 'json' },
  { from: '2025-07-01', to: '2025-07-01', format: 'csv', name: 'an empty range' },
  { from: '2025-07-01', to: '2025-07-01', format: 'json', name: 'an empty range' },
];

async function measure(ctx) {
  const { progress, lab } = ctx;
  const responses = [];

  // The fix belongs in app.js: judge exports by the driver as shipped.
  const driver = shippedContent(lab, DRIVER);
  if (driver.error) throw new Error(`cannot judge lab 09: ${driver.error}`);
  const unchanged = isShipped(lab, DRIVER);
  responses.push({
    name: `${DRIVER} is the shipped database driver`,
    pass: unchanged,
    expected: 'the driver as shipped (the fix belongs in app.js)',
    actual: unchanged ? 'unchanged' : `changed: undo your edits to labs/${lab.slug}/${DRIVER}`,
  });
  const scratch = ctx.tempDir();
  const driverFile = path.join(scratch, DRIVER);
  fs.writeFileSync(driverFile, driver.content);
  // Reports of a crash, and anything else the app writes in its working folder, go here.
  const reports = path.join(scratch, 'reports');
  fs.mkdirSync(reports);
  const contract = ctx.calibrator(CONTRACT);

  progress(`Starting the app with --max-old-space-size=${SETTINGS.heapLimitMb}, as in production`);
  const app = await ctx.start(ctx.candidate, undefined, {
    nodeArgs: [`--max-old-space-size=${SETTINGS.heapLimitMb}`, '--report-on-fatalerror', `--report-directory=${reports}`],
    cwd: reports,
  });
  try {
    return await measureApp(ctx, app, { responses, driverFile, contract });
  } catch (err) {
    // A crash: say what the diagnostic report saw, as `workbook profile 09 --tool report` would.
    if (err instanceof AppError && app.exit) explainCrash(err, reports, app.output.text(400, { allFrames: true }));
    throw err;
  }
}

async function measureApp(ctx, app, { responses, driverFile, contract }) {
  const { progress } = ctx;
  progress(`Listening on ${app.url}. Checking its responses (small exports, new orders, errors)`);
  const posted = await checkResponses(app, responses, { driverFile, contract });
  ctx.assertAlive(app, 'while its responses were checked');

  const plan = exportPlan();
  // The expected exports are hashed beside the check while the app works.
  const expected = contract.call('expectedExports', [driverFile, plan, posted], { timeoutMs: 60_000 });
  expected.catch(() => {}); // awaited below

  await app.memory(); // the first forced collection after work leaves some for the next
  const base = await app.memory();
  responses.push({
    name: 'the app keeps no copy of the orders at rest',
    pass: base.data < SETTINGS.restMb * MB,
    expected: `less than ${SETTINGS.restMb} MB in the whole app after a forced collection, before the exports (the orders' CSV alone would be 17 MB)`,
    actual: `${mb(base.data)}${base.data < SETTINGS.restMb * MB ? '' : ': the app holds the orders (or their text) in memory; read them from the database for each export'}`,
  });
  await app.startControl(); // a thread of the probe's own in the app: see the settling below
  const before = await app.cpuAndRequests();
  progress(
    `Four clients download ${plan.length} large exports at once (${plan.map((p) => `${p.format.toUpperCase()} ${p.from}${p.to ? ` to ${p.to}` : ' on'}`).join(', ')}); ` +
      `two read nothing after the headers until the check releases them. Reading the app's memory every ${SETTINGS.sampleEveryMs} ms`,
  );
  const started = Date.now();
  const downloads = plan.map((p) => ({ ...p, handle: download(app.url + exportPath(p), { slow: p.slow }) }));
  let answered = 0;
  for (const d of downloads) d.handle.headersAt.then(() => answered++);
  const inFlight = () => downloads.filter((d) => !d.handle.finished).length;

  const readings = [];
  const read = async () => {
    const reading = await app.memory();
    const entry = { atMs: Date.now() - started, held: reading.data - base.data, inFlight: inFlight(), reading };
    readings.push(entry);
    return entry;
  };

  // Until the fast downloads are done and the app has settled with the slow
  // clients reading nothing: no CPU, no growth, and the machine not holding
  // the app up (the probe's control thread runs no app code: when its own
  // timer is late, so is everything in the process).
  let settled = null;
  let fastDoneAt = null;
  let starved = 0;
  while (!settled) {
    await app.resetControlDelay();
    const cpu0 = await app.cpuAndRequests();
    await sleep(SETTINGS.sampleEveryMs);
    const cpu1 = await app.cpuAndRequests();
    const quiet = await app.controlDelay({ stop: false });
    ctx.assertAlive(app, `with ${inFlight()} exports in flight`);
    const windowMs = SETTINGS.sampleEveryMs;
    const previous = readings.at(-1);
    const now = await read();
    const fastDone = downloads.filter((d) => !d.slow).every((d) => d.handle.finished);
    if (fastDone && fastDoneAt === null) fastDoneAt = Date.now();
    const idle = (cpu1.total - cpu0.total) / 1000 < 0.1 * windowMs;
    const steady = previous && now.held - previous.held < Math.max(0.25 * MB, 0.02 * now.held);
    const starvedNow = quiet.max > 0.3 * windowMs;
    if (starvedNow) starved++;
    if (fastDoneAt !== null && answered === downloads.length && Date.now() - fastDoneAt >= SETTINGS.settleMs && idle && steady && !starvedNow) settled = now;
    if (Date.now() - started > SETTINGS.settleMaxMs) break;
    if (readings.length % 4 === 0) progress(`  … ${((Date.now() - started) / 1000).toFixed(1)} s: ${mb(now.held)} held by ${now.inFlight} export${now.inFlight === 1 ? '' : 's'} in flight`);
  }
  const last = readings.at(-1);
  const worst = () => readings.filter((r) => r.inFlight > 0).reduce((w, r) => (r.held / r.inFlight > w.held / w.inFlight ? r : w), { held: 0, inFlight: 1 });
  const figure = () => {
    const w = worst();
    return {
      value: Math.max(0, w.held) / MB / w.inFlight,
      scale: `the most the app held beyond its memory at rest, ${mb(w.held)} at ${(w.atMs / 1000).toFixed(1)} s, over the ${w.inFlight} export${w.inFlight === 1 ? '' : 's'} then in flight; every thread, Buffers included, after a forced collection`,
    };
  };
  const settleInfo = settled
    ? `settled after ${(settled.atMs / 1000).toFixed(1)} s holding ${mb(settled.held)} for ${settled.inFlight} slow client${settled.inFlight === 1 ? '' : 's'}`
    : `still not settled after ${(SETTINGS.settleMaxMs / 1000).toFixed(0)} s (${answered} of ${downloads.length} exports answered; holding ${mb(last.held)})`;
  progress(`  ${settleInfo}`);
  ctx.decide({ figures: { 'memory-per-export': figure() }, responses }, 'the exports held for slow clients');

  progress('Releasing the slow clients: every export must now arrive whole');
  for (const d of downloads) d.handle.release();
  const results = [];
  const all = Promise.all(downloads.map((d, i) => d.handle.done.then((r) => (results[i] = r))));
  let done = false;
  all.then(() => (done = true));
  while (!done) {
    await Promise.race([all, sleep(SETTINGS.sampleEveryMs)]);
    if (!done) {
      ctx.assertAlive(app, 'while the exports were downloaded');
      await read();
    }
  }
  ctx.assertAlive(app, 'after the exports');
  await app.memory();
  const after = await app.memory();
  const after2 = await app.cpuAndRequests();
  await app.controlDelay(); // ends the control thread

  const want = await expected;
  const wrong = downloads.map((d, i) => ({ d, problem: exportProblem(results[i], want[i], d.format) })).filter((x) => x.problem);
  responses.push({
    name: `${downloads.length} large exports downloaded at once, two of them by slow clients`,
    pass: wrong.length === 0,
    expected: 'status 200 and each export complete and byte for byte as the contract says',
    actual: wrong.length ? `${wrong.length} wrong, e.g. ${wrong[0].d.name} (${exportPath(wrong[0].d)}): ${wrong[0].problem}` : `all ${downloads.length} right (${mb(want.reduce((n, w) => n + w.length, 0))})`,
  });
  const kept = after.data - base.data;
  responses.push({
    name: 'memory goes back down once the exports are done',
    pass: kept < ctx.check.threshold('memory-per-export') * MB,
    expected: `the app holding less than ${ctx.check.threshold('memory-per-export')} MB more than before the exports, after a forced collection`,
    actual: `${mb(kept)} more${kept >= ctx.check.threshold('memory-per-export') * MB ? ': the app keeps something of each export (a cache of exports, or a copy of the orders)' : ''}`,
  });
  const served = after2.served - before.served;
  responses.push({
    name: "every export is served by the app's own process",
    pass: served >= downloads.length,
    expected: 'the process the check started receives every request',
    actual: served >= downloads.length ? 'it does' : `it received ${served} of ${downloads.length} (a cluster, or a copy of the app started with other flags?): run one process, under the heap limit it is given`,
  });
  responses.push(wholeAppCase(readings.map((r) => r.reading)));

  // A figure under the threshold from an app that never settled may only
  // mean that the machine gave it no time to pile the exports up: when the
  // control thread was held up meanwhile, say so rather than pass it. (A
  // figure past the threshold is a fail however busy the machine was.)
  const noise = [];
  const under = figure().value < ctx.check.threshold('memory-per-export');
  if (!settled && starved > 0 && under) noise.push(`the machine held up even the probe's control thread in ${starved} of ${readings.length} readings, so the app may not have had the time to settle`);

  const slowest = Math.max(...results.filter((r) => !r.error).map((r) => r.ms), 0);
  return {
    figures: { 'memory-per-export': figure() },
    responses,
    info: [
      { id: 'settled', label: 'the slow clients', value: settled ? settled.atMs / 1000 : NaN, unit: 's', text: settleInfo },
      { id: 'rest', label: "the app's memory at rest, before the exports (every thread, Buffers included)", value: base.data / MB, unit: 'MB' },
      { id: 'rss', label: "the process's resident memory at its highest reading (the OS's view, not judged)", value: Math.max(...readings.map((r) => r.reading.rss)) / MB, unit: 'MB' },
      { id: 'downloads', label: 'the slowest of the four downloads, from request to last byte', value: slowest, unit: 'ms' },
    ],
    noise,
    series: {
      memory: readings.map((r) => ({ atMs: r.atMs, heldMb: r.held / MB, inFlight: r.inFlight })),
      settledAtMs: settled ? settled.atMs : null,
    },
  };
}

/** Lone requests: small exports against the contract, new orders, errors. */
async function checkResponses(app, responses, { driverFile, contract }) {
  responses.push(responseCase('GET /health', await get(`${app.url}/health`).catch((e) => e), { status: 200 }));

  const tag = crypto.randomBytes(3).toString('hex');
  const posted = [];
  for (const order of newOrders(tag)) {
    const res = await request(`${app.url}/orders`, { method: 'POST', body: order }).catch((e) => e);
    const stored = res instanceof Error ? null : json(res);
    responses.push(
      responseCase(`POST /orders (${order.customerName})`, res, {
        status: 201,
        describe: 'status 201 with the order as stored: its id, its time, and every field sent',
        body: () => {
          if (!stored || typeof stored.id !== 'string' || Number.isNaN(Date.parse(stored.placedAt))) return `no id or placedAt in ${truncate(res.body, 90)}`;
          const differs = Object.keys(order).filter((k) => stored[k] !== order[k]);
          return differs.length ? `${differs.join(', ')} differ from what was sent` : null;
        },
      }),
    );
    if (stored && typeof stored.id === 'string') posted.push(stored);
  }
  const invalid = await request(`${app.url}/orders`, { method: 'POST', body: { ...newOrders(tag)[0], totalCents: -5 } }).catch((e) => e);
  responses.push(responseCase('POST /orders with a negative total', invalid, errorCase(400)));

  const recent = { from: new Date(Date.parse(posted[0]?.placedAt || Date.now()) - DAY).toISOString().slice(0, 10) };
  const small = [...SMALL, { ...recent, format: 'csv', name: 'the newest orders, up to now' }, { ...recent, format: 'json', name: 'the newest orders, up to now' }];
  const texts = await contract.call('expectedTexts', [driverFile, small, posted]);
  for (const [i, s] of small.entries()) {
    const res = await get(app.url + exportPath(s)).catch((e) => e);
    const want = texts[i];
    responses.push(
      responseCase(`GET ${exportPath(s)}${s.name ? ` (${s.name})` : ''}`, res, {
        status: 200,
        describe: `status 200 and the ${s.format.toUpperCase()} export the contract gives (${Buffer.byteLength(want)} bytes)`,
        body: (body, headers) => {
          const type = s.format === 'json' ? 'application/json' : 'text/csv';
          if (!String(headers['content-type'] || '').startsWith(type)) return `Content-Type "${headers['content-type']}" instead of ${type}`;
          if (body === want) return null;
          const at = [...body].findIndex((ch, k) => ch !== want[k]);
          return `differs from character ${at < 0 ? Math.min(body.length, want.length) : at}: "${truncate(body.slice(Math.max(0, at - 20), at + 60), 90)}" instead of "${truncate(want.slice(Math.max(0, at - 20), at + 60), 90)}"`;
        },
      }),
    );
  }
  for (const [what, p] of BAD) responses.push(responseCase(`GET /orders/export ${what}`, await get(app.url + p).catch((e) => e), errorCase(400)));
  return posted;
}

function errorCase(status) {
  return {
    status,
    describe: `status ${status} with {"error": "…"}`,
    body: (body) => (typeof json({ body })?.error === 'string' ? null : `no "error" message in ${truncate(body, 90)}`),
  };
}

/** The memory census reached every thread, and the app kept nothing in other processes. */
function wholeAppCase(readings) {
  const missing = [...new Set(readings.flatMap((r) => r.missing))];
  const processes = Math.max(...readings.map((r) => r.processes));
  const problems = [...missing];
  if (processes > 1) problems.push(`the app ran ${processes - 1} other Node.js process${processes === 2 ? '' : 'es'}: serve the exports from the process the check started, under the heap limit it was given`);
  return {
    name: "the app's memory is measured whole",
    pass: problems.length === 0,
    expected: 'every thread of the app reports its memory, and the app runs in one process',
    actual: problems.length ? problems.join('; ') : `${readings.at(-1).threads} thread${readings.at(-1).threads === 1 ? '' : 's'}, one process`,
  };
}

/**
 * An out-of-memory crash, said plainly: the fatal error's line and what the
 * diagnostic report saw, instead of the tail of V8's native stack trace.
 */
function explainCrash(err, dir, output) {
  const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => /^report\..*\.json$/.test(f)) : null;
  let report = null;
  try {
    report = file ? readReportFile(path.join(dir, file)) : null;
  } catch {
    // A report cut short by the crash itself: the output says enough.
  }
  const fatal = output.split('\n').find((line) => /^FATAL ERROR:/.test(line.trim()));
  if (!(report && report.trigger === 'OOMError') && !/heap out of memory/.test(fatal || '')) return;
  err.message = `The app ran out of memory under --max-old-space-size=${SETTINGS.heapLimitMb} while the check was downloading exports (FATAL ERROR: JavaScript heap out of memory).`;
  err.detail = [fatal ? fatal.trim() : null, report ? describeCrash(report, { brief: true }) : null, 'Read it yourself: npx workbook profile 09 --tool report (and --tool oom-snapshot for what filled the heap).']
    .filter(Boolean)
    .join('\n');
}

function mb(bytes) {
  return `${(bytes / MB).toFixed(2)} MB`;
}

module.exports = defineCheck(
  {
    // Why this threshold (margins in check/margins.json: 10-run benches,
    // Node 20 idle and with a hog, Node 26 idle, 60 of 60 verdicts right;
    // the starter 14.1-14.4 MB, worst 4.6× past; the reference 0.36-0.62 MB,
    // worst 4.8× inside): an app that builds
    // each export in memory holds all of it while a slow client reads
    // (12–15 MB here, as a Buffer handed to the socket): the starter held
    // 14.0–14.3 MB per export in flight, on Node 20 and 24, idle and with
    // hogs (dev benches of 5 runs a side, 2026-11-23; the figure is bytes,
    // so it barely moves). One that streams without waiting for 'drain'
    // holds all the kernel did not take (about 4 MB per connection on
    // Linux's loopback; 8–11 MB per export, more where strings are two
    // bytes a character). One that waits holds a batch of orders from the
    // driver and a piece or two of text: the reference 0.62 MB on Node 20,
    // 0.36 MB on Node 24. 3 MB is near the geometric middle of 14 and 0.62:
    // 4.7× on the starter's side, 4.8× on the reference's.
    gates: {
      'memory-per-export': {
        label: 'memory the app holds per export in flight, at its worst',
        op: '<',
        threshold: 3,
        unit: 'MB',
        pass: 'Each export costs the app a small, fixed amount of memory, however large it is and however slowly its client reads: it streams, and waits when the client is slow.',
        fail: 'The app holds whole exports in memory: it builds them before sending (an array of every order, one big string), or it streams without waiting for the client, so a slow client makes it pile the export up in the socket\'s buffer.',
      },
    },
    starterFails: ['memory-per-export'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Reproduce the crash under `--max-old-space-size=128` and read it with `npx workbook profile 09 --tool report`, then stream the export',
    measure,
    explain: {
      kind: 'machine-independent',
      noise: "the app had not settled with the slow clients reading nothing when the time ran out, its figure was under the threshold, and meanwhile the machine held up even the probe's control thread (a thread of the app that runs no app code) for more than a third of a reading's interval.",
    },
    captures: [{ tool: 'report' }, { tool: 'oom-snapshot' }, { tool: 'report', solution: true }],
    tools: ['report', 'oom-snapshot'],
    findings: {
      report: /trigger OOMError/,
      'oom-snapshot': /awaited by an anonymous async function at labs\/09-out-of-memory-export\/app\.js:45/,
    },
    charts: [{ kind: 'gate-bars', title: 'Memory per export in flight, against its threshold', gates: [{ id: 'memory-per-export', label: 'MB per export' }] }],
  },
  __filename,
);
