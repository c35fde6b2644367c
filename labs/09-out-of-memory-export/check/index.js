'use strict';
// Lab 09's check: does an export cost the app the same, small amount of
// memory however large it is, while its client reads nothing; does every
// export still arrive whole; and does an export its client abandons give
// back everything it held (its cursor's database connection included)?
//
// The app runs as it does in production, under --max-old-space-size=128
// (with --report-on-fatalerror, its report written to a scratch folder the
// check removes: a crash is read back to the learner).
//
// 1. Responses: small exports against the contract (contract.js, computed
//    from the shipped orders-db.js), CSV when no format is given, the
//    download's file name, new orders found in the exports, errors.
// 2. A staircase of slow downloads, after one that is stalled, then read
//    to its end, and not judged (see measureApp). One at a time, four
//    exports start and stay open (JSON of 68 and 136 days, CSV of 150 days
//    and of everything from a day of February or March up to now; random
//    dates each run), each
//    by a client that takes the first 16 KiB and then reads nothing. After
//    each, once the app has settled (no CPU, no growth), the check forces a
//    collection in every thread and reads what the whole app holds, Buffers
//    included: the step up is what that export holds while its client
//    waits. The gate is how that memory changes with the export's size, in
//    MB held per MB of export, the most it changed between two sizes of one
//    format: a machine-independent ratio. An app that builds an export
//    before sending it holds all of it (about 1 MB per MB: the Buffer it
//    handed the socket); one that streams without waiting for 'drain' holds
//    all that the kernel did not take (1 to 2 MB per MB: pieces queued as
//    strings, two bytes a character once one is not Latin-1); one that
//    builds short exports and streams long ones holds less for the longer
//    one (the change counts, whichever way); one that streams and waits
//    holds the same few pieces at every size (0.0x). The kernel's share
//    cancels out of the difference, and the sizes are chosen beyond it:
//    socket-buffers.js measures it on this machine first, and the smallest
//    export of each format is at least that plus settings.spareMb.
//    A correct design that holds more at once is accepted up to about
//    22,000 orders per export (68 days of them): that is what the smallest
//    JSON export holds in all, so a design holding more than that holds
//    less for the small export than for the large ones. A half-fix that
//    builds exports of fewer days than that in memory is, to this
//    measurement and to any other of memory, the same as such a design
//    (22,000 orders held as objects take about what 68 days of JSON take as
//    a Buffer); the 70-day cut-off of the fixtures fails, a 60-day one
//    would pass. Why 68 days and not fewer: the kernel's share of one
//    download is not the same for every download. socket-buffers.js reads
//    3.69 MB on Linux's defaults, but a download written in pieces of a
//    megabyte lost 4.0 to 4.5 MB to its socket (traced in the app), and
//    with a smallest export of 60 days (5.59 MB) a design with such pieces
//    then had as little as 1 MB of it left to hold: it held 3.2 MB there
//    and 4.5 MB for the larger ones, and failed 6 runs of 26 on Node 20.
//    At 68 days it read 0.033 to 0.037 in 10 runs of 10 on Node 20.
// 3. The slow clients read on: every export must arrive complete, byte for
//    byte what the contract says, with its file name, and the app must give
//    the memory back.
// 4. Abandoned downloads (only for an app whose memory passed: each of them
//    is a year of orders, and an app that builds them in memory dies of it).
//    Ten slow downloads start at once, as many as the driver has
//    connections (and more than the eight nightly jobs), then their clients
//    go away; then ten more, and they go away too. The second ten must start
//    as the first did: an export whose client went away must close its
//    cursor, which gives its connection back to the driver (a handler still
//    waiting for a 'drain' that will never come keeps it for good, although
//    the garbage collector takes its memory back). And after all of it, the
//    app must be back to the memory it held at rest.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const { get, request, json } = require('../../../scripts/harness/http-client');
const { AppError } = require('../../../scripts/harness/app-process');
const { responseCase, ownProcessCase, truncate } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { isShipped, shippedContent } = require('../../../scripts/lib/shipped');
const { readReportFile, describeCrash } = require('../../../scripts/profile/read/diagnostic-report');
const { download, exportProblem, attachmentName } = require('./downloads');
const { kernelShare } = require('./socket-buffers');
const { exportPlan, growthFigure, diagnose, describeStep, exportPath, fileName, isoDay, mb } = require('./staircase');

const CONTRACT = require.resolve('./contract');
const DRIVER = 'orders-db.js';
const MB = 1024 * 1024;
const DAY = 86_400_000;

const SETTINGS = {
  heapLimitMb: 128, // the production setting the walkthrough starts from
  sampleEveryMs: 100, // between two readings while an export settles
  stepMaxMs: 8000, // an export must have begun and settled by then
  begunKiB: 16, // a slow client takes this much of the body, and then reads nothing (an export cannot send as much without its first orders)
  spareMb: 1.5, // the smallest export of each format is at least the kernel's share plus this
  smallestJsonDays: 68, // and at least this many days (about 22,300 orders; under the fixtures' 70-day cut-off, see step 2 above)
  smallestCsvDays: 150, // (about 49,300 orders: the CSV text is half the JSON's)
  restMb: 24, // the app at rest, before the exports: its own 8–10 MB, and not a copy of the orders (their CSV alone is 17 MB)
  keptMb: 2, // what the app may keep after the exports, done or abandoned
  abandoned: 10, // downloads started and then abandoned at once, twice: as many as the driver's connections
  startMs: 3000, // each of them must have begun within this
  postOrders: 3, // orders posted before the exports (the newest ones must be in them)
};

// The standard load of `workbook load 09` and the profilers: the eight
// nightly jobs downloading the whole year's orders as JSON at once, over and
// over. The starter under the lab's heap limit dies of it within seconds on
// every Node version from 20 to 26 (measured: see the walkthrough's "Measure").
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
  { from: '2025-03-14', to: '2025-03-15', name: 'no format: CSV' },
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

  progress(`Starting the app with --max-old-space-size=${SETTINGS.heapLimitMb}, as in production, and measuring what this machine's sockets hold of a download whose client reads nothing`);
  const [kernel, app] = await Promise.all([
    kernelShare(),
    // The heap limit comes from nodeArgs below, as in every other mode.
    ctx.start(ctx.candidate, undefined, { nodeArgs: ['--report-on-fatalerror', `--report-directory=${reports}`], cwd: reports }),
  ]);
  const plan = exportPlan(kernel.taken, SETTINGS);
  // The exports of dates in 2025 are computed beside the check from now on, while the app works
  // (the orders the check posts are placed now, so none of them is in these).
  const closed = plan.steps ? plan.steps.filter((s) => s.to) : [];
  const closedExpected = contract.call('expectedExports', [driverFile, closed, []], { timeoutMs: 60_000 });
  closedExpected.catch(() => {}); // awaited in measureApp
  try {
    return await measureApp(ctx, app, { responses, driverFile, contract, plan, kernel, closed, closedExpected });
  } catch (err) {
    // A crash: say what the diagnostic report saw, as `workbook profile 09 --tool report` would.
    if (err instanceof AppError && app.exit) explainCrash(err, reports, app.output.text(400, { allFrames: true }));
    throw err;
  }
}

async function measureApp(ctx, app, { responses, driverFile, contract, plan, kernel, closed, closedExpected }) {
  const { progress } = ctx;
  progress(`Listening on ${app.url}; the sockets take ${mb(kernel.taken)}, so the slow exports will be larger. Checking the app's responses (small exports, new orders, errors)`);
  const posted = await checkResponses(app, responses, { driverFile, contract });
  ctx.assertAlive(app, 'while its responses were checked');
  const info = [{ id: 'kernel', label: "what this machine's sockets took of a download whose client read nothing (not the app's memory)", value: kernel.taken / MB, unit: 'MB' }];
  if (plan.error) return { figures: { 'memory-growth': { value: NaN } }, responses, info, noise: [plan.error], series: {} };
  ctx.decide({ responses }, 'the responses');

  // One slow download first, stalled until the app settles, then read to
  // its end, so that what an app sets up the first time an export waits
  // for its client is in place before the memory at rest is read. Without
  // it, on Node 24 the reference held 0.22 MB for whichever export came
  // first and about 0.47 MB for each one after it, whatever its size or
  // format: 0.04 MB per MB in most runs, 0.13 in some. With it, 0.004 in
  // most runs there, 0.08 in one of ten; but Node 20 now shows an offset
  // of its own on the first step (0.23 MB: 0.04 MB per MB in every run),
  // whose cause is not found (margins.json). Released rather than left
  // open: a download left open removed the offset on both, but a fifth
  // stalled socket changed what the kernel took of the smallest export,
  // and a design with 1 MB pieces then held 1.2 and 3.2 MB for it instead
  // of 4.3 in two runs of five.
  await app.startControl(); // a thread of the probe's own in the app: tells a starved app from an idle one
  progress(`A first slow download, not judged (${describeStep(plan.warmUp)}): stalled until the app settles, then read to its end`);
  const warmUp = download(app.url + exportPath(plan.warmUp), { slow: true, timeoutMs: 60_000, begunBytes: SETTINGS.begunKiB * 1024 });
  await settle(ctx, app, warmUp, 'with the first slow download open');
  warmUp.release();
  await waitAlive(ctx, app, warmUp.done, 'while the first slow download was read to its end');

  const base = await settledMemory(app);
  responses.push({
    name: 'the app keeps no copy of the orders at rest',
    pass: base.data < SETTINGS.restMb * MB,
    expected: `less than ${SETTINGS.restMb} MB in the whole app after a forced collection, before the exports (the orders' CSV alone would be 17 MB)`,
    actual: `${mb(base.data)}${base.data < SETTINGS.restMb * MB ? '' : ': the app holds the orders (or their text) in memory; read them from the database for each export'}`,
  });
  info.push({ id: 'rest', label: "the app's memory at rest, before the exports (every thread, Buffers included)", value: base.data / MB, unit: 'MB' });

  // The open-ended ones end with the posted orders.
  const open = plan.steps.filter((s) => !s.to);
  const openExpected = contract.call('expectedExports', [driverFile, open, posted], { timeoutMs: 60_000 });
  openExpected.catch(() => {}); // awaited below

  const before = await app.cpuAndRequests();
  progress(
    `${plan.steps.length} slow downloads, one after another, each left open: ${plan.steps.map((s) => `${s.format.toUpperCase()} ${s.to ? `${s.days} days` : 'up to now'}`).join(', ')}. ` +
      `Each client takes the first ${SETTINGS.begunKiB} KiB and then reads nothing; the check reads what the app holds for it once the app has settled`,
  );
  const steps = [];
  const handles = [];
  const readings = [base];
  let level = base.data;
  let starved = 0;
  for (const step of plan.steps) {
    const handle = download(app.url + exportPath(step), { slow: true, timeoutMs: 60_000, begunBytes: SETTINGS.begunKiB * 1024 });
    handles.push(handle);
    const outcome = await settle(ctx, app, handle, `with ${handles.length} slow downloads open`);
    starved += outcome.starved;
    readings.push(outcome.reading);
    steps.push({ ...step, held: outcome.data - level, settled: outcome.settled, ms: outcome.ms, began: handle.started });
    level = outcome.data;
    const last = steps.at(-1);
    progress(`  ${describeStep(last)}: the app holds ${mb(last.held)} more${last.began ? '' : ' (it has sent nothing yet)'}${last.settled ? '' : ' (not settled)'}`);
    ctx.decide({ figures: { 'memory-growth': growthFigure(steps) }, responses, info: [...info, ...stepInfo(steps)] }, `${steps.length} slow download${steps.length === 1 ? '' : 's'}`);
  }

  progress('Releasing the slow clients: every export must now arrive whole');
  for (const h of handles) h.release();
  const results = await waitAlive(ctx, app, Promise.all(handles.map((h) => h.done)), 'while the exports were downloaded');
  const [closedWants, openWants] = await Promise.all([closedExpected, openExpected]);
  const wants = plan.steps.map((p) => (p.to ? closedWants[closed.indexOf(p)] : openWants[open.indexOf(p)]));
  // The figure with each export's exact size, as the contract computed it.
  wants.forEach((want, i) => (steps[i].bytes = want.length));
  const judged = growthFigure(steps);
  const grows = !(judged.value < ctx.check.threshold('memory-growth'));
  const wrong = steps.map((s, i) => ({ s, problem: exportProblem(results[i], wants[i], { format: s.format, fileName: fileName(s) }) })).filter((x) => x.problem);
  responses.push({
    name: `${steps.length} large exports, downloaded by slow clients`,
    pass: wrong.length === 0,
    expected: 'status 200, each export complete and byte for byte as the contract says, under its file name',
    actual: wrong.length ? `${wrong.length} wrong, e.g. the ${describeStep(wrong[0].s)} (${exportPath(wrong[0].s)}): ${wrong[0].problem}` : `all ${steps.length} right (${mb(wants.reduce((n, w) => n + w.length, 0))})`,
  });
  ctx.decide({ figures: { 'memory-growth': judged }, responses, info: [...info, ...stepInfo(steps)] }, 'the slow downloads');

  if (grows) {
    info.push({ id: 'abandoned', label: 'downloads abandoned by their clients', value: NaN, unit: '', text: "not tried: they are of the year's orders, and an app that holds more for a larger export would run out of memory on them" });
  } else {
    responses.push(...(await abandonDownloads(ctx, app)));
  }
  ctx.assertAlive(app, 'after the exports');
  await app.memory();
  const after = await app.memory();
  readings.push(after);
  const cpu = await app.cpuAndRequests();
  await app.controlDelay(); // ends the control thread

  const kept = after.data - base.data;
  responses.push({
    name: 'memory goes back down once the exports are done or abandoned',
    pass: kept < SETTINGS.keptMb * MB,
    expected: `the app holding less than ${SETTINGS.keptMb} MB more than before the exports, after a forced collection`,
    actual: `${mb(kept)} more${kept >= SETTINGS.keptMb * MB ? ': the app keeps something of each export (a cache of exports, a copy of the orders, or what an abandoned export held)' : ''}`,
  });
  const downloads = handles.length + (grows ? 0 : 2 * SETTINGS.abandoned);
  responses.push(
    ownProcessCase({
      name: "every export is served by the app's own process",
      answered: downloads,
      received: cpu.served - before.served,
      why: 'run one process, under the heap limit it is given (not a cluster, nor a copy of the app started with other flags)',
    }),
  );
  responses.push(wholeAppCase(readings));

  // A figure under the threshold from an app that did not settle may only
  // mean that the machine gave it no time to pile an export up: when the
  // control thread was held up meanwhile, say so rather than pass it. (A
  // figure past the threshold is a fail however busy the machine was.)
  const noise = [];
  const unsettled = steps.filter((s) => !s.settled).length;
  if (!grows && unsettled && starved > 0) noise.push(`${unsettled} of the ${steps.length} slow downloads never settled, and meanwhile the machine held up even the probe's control thread in ${starved} readings`);

  const slowest = Math.max(...results.filter((r) => !r.error).map((r) => r.ms), 0);
  return {
    figures: { 'memory-growth': judged },
    responses,
    info: [...info, ...stepInfo(steps), { id: 'downloads', label: 'the slowest of the slow downloads, from request to last byte (its client waited for the check)', value: slowest, unit: 'ms' }],
    noise,
    series: { steps: steps.map((s) => ({ format: s.format, days: s.days, exportMb: s.bytes / MB, heldMb: s.held / MB, settled: s.settled })) },
  };
}

/**
 * Waits for a slow download to begin and the app to settle: no CPU, no
 * growth, and the machine not holding the app up (the probe's control
 * thread runs no app code: when its own timer is late, so is everything in
 * the process). Resolves with the app's memory then.
 */
async function settle(ctx, app, handle, when) {
  const started = Date.now();
  const windowMs = ctx.check.settings.sampleEveryMs;
  let previous = null;
  let starved = 0;
  for (;;) {
    await app.resetControlDelay();
    const cpu0 = await app.cpuAndRequests();
    await Promise.race([sleep(windowMs), app.exited]);
    ctx.assertAlive(app, when);
    const cpu1 = await app.cpuAndRequests();
    const quiet = await app.controlDelay({ stop: false });
    const reading = await app.memory();
    const idle = (cpu1.total - cpu0.total) / 1000 < 0.1 * windowMs;
    const steady = previous !== null && Math.abs(reading.data - previous) < Math.max(0.1 * MB, 0.02 * reading.data);
    const starvedNow = quiet.max > 0.3 * windowMs;
    if (starvedNow) starved++;
    const ms = Date.now() - started;
    if ((handle.started || handle.finished) && idle && steady && !starvedNow) return { data: reading.data, reading, settled: true, starved, ms };
    if (ms > ctx.check.settings.stepMaxMs) return { data: reading.data, reading, settled: false, starved, ms };
    previous = reading.data;
  }
}

/** What each slow download held, and what the pattern says. */
function stepInfo(steps) {
  const items = steps.map((s, i) => ({
    id: `step-${i + 1}`,
    label: `held for the ${describeStep(s, s.bytes)}, while its client read nothing`,
    value: s.held / MB,
    unit: 'MB',
    text: s.settled ? undefined : `the app had not settled after ${(s.ms / 1000).toFixed(1)} s`,
  }));
  const diagnosis = diagnose(steps);
  if (diagnosis) items.push({ id: 'diagnosis', label: 'what the staircase shows', value: NaN, unit: '', text: diagnosis });
  return items;
}

/**
 * The app's memory once forced collections no longer change it: after work,
 * V8 may keep freeing for a few collections more (on Node 24, about a
 * quarter of a megabyte after the responses, in the first readings of the
 * first slow download), which would otherwise be taken off what that
 * download holds.
 */
async function settledMemory(app, { tries = 8, within = 0.02 * MB } = {}) {
  let previous = await app.memory();
  for (let i = 0; i < tries; i++) {
    const reading = await app.memory();
    if (Math.abs(reading.data - previous.data) < within) return reading;
    previous = reading;
  }
  return previous;
}

/** Waits for `promise`, checking every 150 ms that the app is still alive. */
async function waitAlive(ctx, app, promise, when) {
  let done = false;
  let value;
  promise.then((v) => {
    done = true;
    value = v;
  });
  while (!done) {
    await Promise.race([promise, sleep(150)]);
    if (!done) ctx.assertAlive(app, when);
  }
  return value;
}

/**
 * Two rounds of downloads abandoned by their clients, each of the year's
 * orders (from a random day of January: up to now, or to the year's end,
 * JSON and CSV alternately). The second round must begin as the first did.
 */
async function abandonDownloads(ctx, app) {
  const { progress } = ctx;
  const n = SETTINGS.abandoned;
  const rounds = [];
  for (let round = 1; round <= 2; round++) {
    progress(`${round === 1 ? 'Abandoned downloads: ' : ''}${n} downloads of the year's orders at once, each client going away once its export has begun (round ${round} of 2)`);
    const handles = Array.from({ length: n }, (_, i) => {
      const from = isoDay(Date.parse('2025-01-01') + Math.floor(Math.random() * 20) * DAY);
      const spec = { from, to: i % 4 < 2 ? undefined : '2025-12-31', format: i % 2 ? 'csv' : 'json' };
      const handle = download(app.url + exportPath(spec), { slow: true, timeoutMs: 60_000, begunBytes: SETTINGS.begunKiB * 1024 });
      handle.firstBytes.then(() => handle.abandon()); // gone as soon as the export has begun
      return handle;
    });
    const t0 = Date.now();
    while (handles.some((h) => !h.started && !h.finished) && Date.now() - t0 < SETTINGS.startMs) {
      await Promise.race([Promise.all(handles.map((h) => h.firstBytes)), sleep(100)]);
      ctx.assertAlive(app, `with ${n} downloads of the year's orders in flight`);
    }
    const begun = handles.filter((h) => h.started).length;
    for (const h of handles) h.abandon(); // and those that never began
    await Promise.all(handles.map((h) => h.done));
    await app.waitUntilIdle();
    ctx.assertAlive(app, 'after its clients went away');
    rounds.push(begun);
  }
  const [first, second] = rounds;
  const responses = [
    {
      name: `${n} downloads of the year's orders at once`,
      pass: first > 0,
      expected: `each export to begin within ${SETTINGS.startMs / 1000} s`,
      actual: first === n ? `all ${n} began` : `${first} of ${n} began within ${SETTINGS.startMs / 1000} s`,
    },
    {
      name: `${n} more, after the first ${n} were abandoned by their clients`,
      pass: second >= first && first > 0,
      expected: `as many to begin as before (${first}): an abandoned export gives back what it held`,
      actual:
        second >= first
          ? `${second} began`
          : `${second} of ${n} began within ${SETTINGS.startMs / 1000} s: the abandoned exports still hold the driver's connections (${n} in all). When the client goes away, close the cursor: a handler left waiting for 'drain' never does`,
    },
  ];
  return responses;
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

  // The day before the newest order the app stored, or before now when it
  // stored none (its answers are then wrong, and said so above).
  const newest = Date.parse(posted[0]?.placedAt);
  const recent = { from: isoDay((Number.isNaN(newest) ? Date.now() : newest) - DAY) };
  const small = [...SMALL, { ...recent, format: 'csv', name: 'the newest orders, up to now' }, { ...recent, format: 'json', name: 'the newest orders, up to now' }];
  const texts = await contract.call('expectedTexts', [driverFile, small.map((s) => ({ format: 'csv', ...s })), posted]);
  for (const [i, s] of small.entries()) {
    const res = await get(app.url + exportPath(s)).catch((e) => e);
    const want = texts[i];
    const format = s.format || 'csv';
    responses.push(
      responseCase(`GET ${exportPath(s)}${s.name ? ` (${s.name})` : ''}`, res, {
        status: 200,
        describe: `status 200 and the ${format.toUpperCase()} export the contract gives (${Buffer.byteLength(want)} bytes), named ${fileName(s)}`,
        body: (body, headers) => {
          const type = format === 'json' ? 'application/json' : 'text/csv';
          if (!String(headers['content-type'] || '').startsWith(type)) return `Content-Type "${headers['content-type']}" instead of ${type}`;
          const name = attachmentName(headers['content-disposition']);
          if (name !== fileName(s)) return headers['content-disposition'] ? `Content-Disposition "${headers['content-disposition']}" instead of attachment; filename="${fileName(s)}"` : `no Content-Disposition: the download must be named ${fileName(s)}`;
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

module.exports = defineCheck(
  {
    // Why 0.2 MB per MB: an app that builds an export holds about 1 MB per
    // MB of it (the starter read 1.00-1.08 on Node 20, 24 and 26), one that
    // streams and waits holds the same few pieces at every size (the
    // reference's worst of ten runs: 0.04 on Node 20, 0.005 on Node 24 and
    // 26; see margins.json for the offset of the first step that makes it
    // more than 0 on Node 20); 0.2 sits 5x from the first and 5x or more
    // from the second. A cut-off that builds exports of 70 days or
    // fewer in memory reads about 0.8 (the fixtures). The
    // fixtures' designs (1 MB pieces, batches of 20,000 orders) hold more at
    // once and change as little. The benches are in check/margins.json.
    gates: {
      'memory-growth': {
        label: 'memory an export holds while its client waits, per MB more of export',
        op: '<',
        threshold: 0.2,
        unit: 'MB per MB',
        pass: 'Each export costs the app the same amount of memory however large it is, while its client reads nothing: it streams, and waits for the client.',
        fail: "What the app holds for an export while its client waits changes with the export's size: it builds exports (or some of them) before sending, queues them without waiting for 'drain', or holds more of each at once than streaming needs (see what the staircase shows, below).",
      },
    },
    starterFails: ['memory-growth'],
    settings: SETTINGS,
    // Production's heap limit, in the check, `workbook run`, `load`, `profile` and `capture` alike.
    nodeArgs: [`--max-old-space-size=${SETTINGS.heapLimitMb}`],
    standardLoad,
    advice: 'Reproduce the crash under `--max-old-space-size=128` and read it with `npx workbook profile 09 --tool report`, then stream the export',
    measure,
    explain: {
      kind: 'machine-independent',
      noise: "an export never settled with its client reading nothing, the figure was under the threshold, and meanwhile the machine held up even the probe's control thread (a thread of the app that runs no app code) for more than a third of a reading's interval.",
    },
    captures: [{ tool: 'report' }, { tool: 'oom-snapshot' }, { tool: 'report', solution: true }],
    tools: ['report', 'oom-snapshot'],
    findings: {
      report: /trigger OOMError/,
      'oom-snapshot': /awaited by an anonymous async function at labs\/09-out-of-memory-export\/app\.js:45/,
    },
    charts: [{ kind: 'gate-bars', title: 'Memory an export holds per MB more of export, against its threshold', gates: [{ id: 'memory-growth', label: 'MB per MB' }] }],
  },
  __filename,
);
