'use strict';
// Lab 13's check: does every read end, with the right answer, in about the
// time an ordinary read of the same size takes, whatever the data; does
// /health answer all along; and is it the same process from start to end?
//
// Stage 1, the contract: imports, periods, customers, bad input (contract.js).
// Stage 2, the families (orders.js): for each family of looping input, a
// pair of reads of the same size on the same route, sent one after the
// other: an ORDINARY one (orders spread out, with the short runs of equal
// times real data has) and a LOOPING one (a run of more than 1000 orders
// stamped with one instant, more than the store's largest page). Every
// answer is compared with the contract's. The figure is the looping read's
// time over the ordinary one's, per family the smaller of its pairs, the
// worst family judged. A looping read gets no answer at all from the
// starter: it is given HANG_UNITS × u (u: the ordinary read's time), and if
// /health has had no answer meanwhile while the probe's control route (a
// thread of the probe's own inside the app, which runs none of its code)
// did, the app is stuck: the figure is at least that many u, and the app is
// ended at once. Throughout stage 2, /health is asked every probeEveryMs
// ms, each on a fresh connection, like a load balancer's health check:
// the second figure is its longest wait (unanswered ones count as the time
// they waited), less the control route's longest, in units of u.
// Stage 3: the process the check started received every request that was
// answered (a cluster, or a supervisor that serves from another process,
// did not), and it is still the same one.
//
// Nothing here depends on the machine's speed: the first figure is a ratio
// measured in one run, the second a multiple of u, the third a count. The
// measured margins are in check/margins.json.

const { randomInt } = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const { get, request, json } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { startRouteProbes } = require('../../../scripts/harness/route-probe');
const { responseCase, truncate, counted } = require('../../../scripts/checks/gates');
const { defineCheck, DECISIVE } = require('../../../scripts/checks/define-check');
const { generator, namer, makeCase, readProblem, asJson, ordersAt, ordinaryInstants, sortOrders, iso, FAMILIES, STORE_MAX_LIMIT } = require('./orders');
const { contractCases } = require('./contract');
const { standardLoad } = require('./standard-load');
const { healthExcess, healthNoise } = require('./health-wait');

const RATIO_THRESHOLD = 10;
const HEALTH_THRESHOLD = 30;

const SETTINGS = {
  // Stage 2: the families of looping input, each read `pairs` times (a
  // looping read and an ordinary one of the same size), runs of equal
  // times from minRun to maxRun orders.
  families: FAMILIES.length,
  pairs: 2,
  minRun: STORE_MAX_LIMIT + 1,
  maxRun: STORE_MAX_LIMIT + 400,
  // A looping read unanswered after hangUnits × u, while /health is silent
  // and the control route answers, is stuck: by then both figures are past
  // DECISIVE times their thresholds (the ratio four times over), so a slow
  // spell of the machine cannot pass for a loop. The bench (early verdicts
  // off) waits benchHangUnits × u, to record how far past.
  hangUnits: 4 * DECISIVE * RATIO_THRESHOLD,
  benchHangUnits: 300,
  // Requests whose size no read sets (the contract's, imports, ordinary
  // reads) are given slowUnits × v, v being /health's own time at the start.
  slowUnits: 2000,
  // Orders per import request.
  importBatch: 500,
  // Ordinary orders imported and read before the families, untimed.
  warmUpOrders: 1500,
  probeEveryMs: 50,
};

async function measure(ctx) {
  const { progress } = ctx;
  const seed = randomInt(2 ** 31);
  const rand = generator(seed);
  const names = namer(rand);

  progress('Starting the app');
  const app = await ctx.start(ctx.candidate);
  const counter = countAnswers();
  const ask = (path, options = {}) => counter.count(request(`${app.url}${path}`, options).catch((err) => err));

  progress(`Listening on ${app.url} (pid ${app.pid}). Timing /health, the unit for requests of no particular size`);
  const responses = [];
  const healthTimes = [];
  // Before anything is known of this machine, 5 s for /health, of a process that has just started listening.
  for (let i = 0; i < 6; i++) {
    const res = await ask('/health', { timeoutMs: 5000 });
    const answer = responseCase('GET /health', res, {
      status: 200,
      describe: 'status 200 {"status":"ok"}',
      body: (body) => (json({ body })?.status === 'ok' ? null : `not {"status":"ok"}: ${truncate(body, 60)}`),
    });
    if (i === 0 || !answer.pass) responses.push(answer);
    if (!answer.pass) {
      await app.stop({ graceMs: 0, termMs: 0 });
      ctx.decide({ responses }, 'the first requests to /health');
      // Early verdicts off (the bench): the wrong answer fails the check; nothing else was measured.
      const scale = 'not measured: /health did not answer as it should';
      return { figures: { 'loop-ratio': { value: 0, scale }, 'health-wait': { value: 0, per: 1, scale } }, responses, info: [], noise: [], series: {} };
    }
    if (i > 0) healthTimes.push(res.ms);
  }
  const v = median(healthTimes);
  const slowMs = SETTINGS.slowUnits * v;
  const info = [];

  // Every request below has a deadline: an app stuck in a loop ends the check, not the other way round.
  // Stuck before the families were read (on a request no data shapes): the
  // figures are what the check waited, in units of v.
  const stuckEarly = async (stuck, stage) => {
    await app.stop({ graceMs: 0, termMs: 0 });
    responses.push(stuckCase(stuck, slowMs));
    const scale = `no answer in ${(slowMs / 1000).toFixed(1)} s to ${stuck.path}, during ${stage}`;
    return { figures: { 'loop-ratio': { value: SETTINGS.slowUnits, scale }, 'health-wait': { value: slowMs, per: v, scale: `v = ${v.toFixed(2)} ms, /health's own time; ${scale}` } }, responses, info, noise: [], series: {} };
  };

  progress('Stage 1: the contract (imports, periods, customers, bad input)');
  const contract = await contractCases({ ask, rand, names, timeoutMs: slowMs });
  responses.push(...contract.responses);
  if (contract.stuck) return stuckEarly(contract.stuck, 'the contract');
  ctx.assertAlive(app, 'while the contract was checked');
  ctx.decide({ responses, info }, 'the contract');

  progress(
    `Stage 2: ${FAMILIES.length} families of looping input, ${SETTINGS.pairs} pairs each: a read with a run of ` +
      `${SETTINGS.minRun}–${SETTINGS.maxRun} orders stamped with one instant, and an ordinary read of the same size; /health every ${SETTINGS.probeEveryMs} ms meanwhile`,
  );
  // A warm-up, untimed: the first reads of a fresh process run on code V8 has not compiled yet.
  const warmUp = await warmUpReads({ ask, rand, names, timeoutMs: slowMs });
  responses.push(...warmUp.responses);
  if (warmUp.stuck) return stuckEarly(warmUp.stuck, 'the first reads');
  ctx.assertAlive(app, 'while it read its first orders');
  ctx.decide({ responses, info }, 'the first reads');

  await app.resetEventLoopDelay();
  const control = await app.startControl();
  // One timer sends both, so each request to /health has a twin to the
  // control route sent in the same instant: whatever held up this process
  // or the machine then, held up both.
  const probes = startRouteProbes(
    [
      { baseUrl: app.url, name: '/health', path: '/health', keep: 50 },
      { baseUrl: control.url, name: 'the control route', path: '/', keep: 0 },
    ],
    { intervalMs: SETTINGS.probeEveryMs },
  );
  const [health, controlProbe] = probes;
  // Whatever ends the check (an early verdict, a crash), the probes stop with it.
  try {
    const families = FAMILIES.map((family) => ({ family, pairs: [], wrong: [], reads: 0, imports: 0, hung: null }));
    const ordinaryTimes = [];
    let stuck = null; // { family, path, waitedMs, u, ... } once a read never came back
    const importProblems = [];
    let day = 0;

    const runPair = async (entry) => {
      const { family } = entry;
      const c = makeCase(rand, names, family, day);
      day += 60;
      // Imported as a connector would, in batches: no request holds the app for long.
      for (let i = 0; i < c.orders.length; i += SETTINGS.importBatch) {
        const batch = c.orders.slice(i, i + SETTINGS.importBatch);
        const imported = await ask('/orders', { method: 'POST', body: JSON.stringify({ orders: batch.map(asJson) }), timeoutMs: slowMs });
        entry.imports++;
        if (imported instanceof Error && /no answer within/.test(imported.message)) return { stuckAt: { path: 'POST /orders', waitedMs: slowMs } };
        const importProblem = importAnswerProblem(imported, batch.length);
        if (importProblem) importProblems.push(`${family.id}: ${importProblem}`);
      }

      const ordinary = await ask(c.ordinary.path, { timeoutMs: slowMs });
      entry.reads++;
      if (ordinary instanceof Error && /no answer within/.test(ordinary.message)) return { stuckAt: { path: c.ordinary.path, waitedMs: slowMs } };
      const ordinaryProblem = readProblem(ordinary, c.ordinary.expected);
      if (ordinaryProblem) entry.wrong.push(`the ordinary read ${truncate(c.ordinary.path, 70)}: ${ordinaryProblem}`);
      if (ordinary instanceof Error) return {}; // no time to compare with: the wrong answer says it
      ordinaryTimes.push(ordinary.ms);
      const u = Math.max(ordinary.ms || 0, median(ordinaryTimes) || 0);

      const looping = await readOrHang(c.looping.path, { u, ask, health, controlProbe, early: ctx.early });
      entry.reads++;
      if (looping.unended) {
        const { waitedMs, stuck: isStuck } = looping.unended;
        entry.hung = { path: c.looping.path, waitedMs, u, count: c.looping.expected.orders.length, stuck: isStuck };
        return isStuck ? { stuckAt: { path: c.looping.path, waitedMs, u, family } } : { unanswered: true };
      }
      if (looping.noisy) return { noisy: looping.noisy };
      const loopingProblem = readProblem(looping.res, c.looping.expected);
      if (loopingProblem) entry.wrong.push(`the looping read ${truncate(c.looping.path, 70)} (${c.looping.expected.orders.length} orders): ${loopingProblem}`);
      if (looping.res instanceof Error) return {}; // no answer to time (a connection reset): the wrong answer says it
      entry.pairs.push({ ratio: looping.res.ms / ordinary.ms, looping: looping.res.ms, ordinary: ordinary.ms, count: c.looping.expected.orders.length });
      return {};
    };

    const familyFigure = (entry) => (entry.hung ? entry.hung.waitedMs / entry.hung.u : entry.pairs.length ? Math.min(...entry.pairs.map((p) => p.ratio)) : null);
    const worstFamily = () => families.filter((e) => familyFigure(e) !== null).reduce((w, e) => (!w || familyFigure(e) > familyFigure(w) ? e : w), null);
    const ratioFigure = () => {
      const w = worstFamily();
      if (!w) return { value: NaN };
      const scale = w.hung
        ? `${w.family.id}: no answer in ${(w.hung.waitedMs / 1000).toFixed(1)} s to a read of ${w.hung.count} orders, where an ordinary one took ${w.hung.u.toFixed(1)} ms${w.hung.stuck ? '' : ' (the app answered /health meanwhile: the read never ended)'}`
        : `${w.family.id}: ${w.pairs.map((p) => `${p.looping.toFixed(1)} ms against ${p.ordinary.toFixed(1)} ms`).join(', then ')} (${w.pairs[0].count} orders), the smaller ratio`;
      return { value: familyFigure(w), scale };
    };
    // Before a read that answered (slowly) may end the check, a second pair of its family must agree.
    const decisiveRatio = DECISIVE * RATIO_THRESHOLD;
    const readResponses = () => [
      ...families.filter((e) => e.reads > 0).map(familyCase),
      { name: `${families.reduce((n, e) => n + e.imports, 0)} imports of the families' orders`, pass: importProblems.length === 0, expected: 'status 201 {"imported": n, "skipped": 0} for each', actual: importProblems[0] || 'all right' },
    ];
    const noise = [];

    outer: for (let p = 0; p < SETTINGS.pairs; p++) {
      for (const entry of families) {
        if (p > 0 && entry.pairs.length > p) continue; // already confirmed
        progress(`  ${entry.family.id}, pair ${p + 1} of ${SETTINGS.pairs}`);
        let outcome = await runPair(entry);
        if (!outcome.stuckAt && !outcome.noisy && entry.pairs.length === 1 && entry.pairs[0].ratio >= decisiveRatio && p === 0) {
          progress(`  ${entry.family.id}: ${entry.pairs[0].ratio.toFixed(0)}× an ordinary read; a second pair to confirm it`);
          outcome = await runPair(entry);
        }
        ctx.assertAlive(app, 'while it was reading orders');
        if (outcome.noisy) {
          noise.push(outcome.noisy);
          break outer;
        }
        if (outcome.stuckAt) {
          stuck = outcome.stuckAt;
          break outer;
        }
        // A read that never ended while the app answered everything else: the
        // figure says enough, and the app may be spinning in it still.
        if (outcome.unanswered) break outer;
        ctx.decide({ figures: { 'loop-ratio': ratioFigure() }, responses: [...responses, ...readResponses()], info }, `the reads of ${entry.family.id}`);
      }
    }

    if (stuck) {
      // Read /health's wait before ending the app: the requests still unanswered count as the time they waited.
      const [healthTiming, controlTiming] = await Promise.all(probes.map((p) => p.stop({ maxWaitMs: 0 })));
      await app.stop({ graceMs: 0, termMs: 0 });
      const u = stuck.u || median(ordinaryTimes) || v;
      if (!stuck.family) responses.push(stuckCase(stuck, slowMs));
      responses.push(...readResponses());
      info.push(...unitInfo(u, ordinaryTimes), stuckInfo(stuck, u, healthTiming));
      const figures = { 'loop-ratio': ratioFigure(), 'health-wait': healthFigure(healthTiming, controlTiming, u) };
      if (!Number.isFinite(figures['loop-ratio'].value)) figures['loop-ratio'] = { value: stuck.waitedMs / u, scale: `no answer in ${(stuck.waitedMs / 1000).toFixed(1)} s to ${stuck.path}` };
      return { figures, responses, info, noise, series: series(families, familyFigure, healthTiming, controlTiming, u) };
    }

    const [healthTiming, controlTiming] = await Promise.all(probes.map((p) => p.stop({ maxWaitMs: 5000 })));
    await app.controlDelay(); // ends the control thread
    const loopDelay = await app.eventLoopDelay();
    const u = median(ordinaryTimes);
    responses.push(...readResponses());
    responses.push(healthAnswers(healthTiming));
    const figures = { 'loop-ratio': ratioFigure(), 'health-wait': healthFigure(healthTiming, controlTiming, u) };
    info.push(...unitInfo(u, ordinaryTimes));
    info.push({
      id: 'health',
      label: '/health while the families were read',
      value: healthTiming.max,
      unit: 'ms',
      text: `${healthTiming.answered} of ${healthTiming.sent} answered; median ${healthTiming.p50.toFixed(1)} ms, longest ${healthTiming.max.toFixed(1)} ms; the control route's longest ${controlTiming.max.toFixed(1)} ms`,
    });
    info.push({
      id: 'event-loop-delay',
      label: 'the event loop\'s longest delay meanwhile, measured inside the app',
      value: loopDelay.max,
      unit: 'ms',
      text: `median ${loopDelay.p50.toFixed(1)} ms, 99th percentile ${loopDelay.p99.toFixed(1)} ms: the longest the app's main thread spent on one piece of work`,
    });

    progress('Stage 3: the same process all along');
    ctx.assertAlive(app, 'at the end');
    const { served } = await app.cpuAndRequests();
    responses.push(sameProcessCase(app, served, counter.answered() + healthTiming.answered));

    // Too noisy when the machine, not the app, may have made the verdict (health-wait.js).
    const healthThreshold = HEALTH_THRESHOLD * u;
    noise.push(...healthNoise(healthTiming, controlTiming, figures['health-wait'].value, healthThreshold));
    if (healthTiming.answered < 10) noise.push(`only ${counted(healthTiming.answered, 'request')} to /health came back`);

    return { figures, responses, info, noise, series: series(families, familyFigure, healthTiming, controlTiming, u) };
  } finally {
    await Promise.all(probes.map((p) => p.stop({ maxWaitMs: 0 })));
  }
}

/**
 * Reads `path`, waiting up to `hangUnits` × u (benchHangUnits without
 * early verdicts). When no answer has come by then and the probe's control
 * route (same process, none of the app's code) answered meanwhile, the
 * read has not ended: the app is STUCK when /health has had no answer for
 * most of that wait either (its main thread is busy in the app's code and
 * turns no event loop), and merely UNANSWERED when /health answered (a
 * loop that yields between pages, or a read waiting on nothing). When the
 * control route was held up too, the machine is: wait as long again, twice
 * at most, then say it was too noisy to tell.
 */
async function readOrHang(path, { u, ask, health, controlProbe, early }) {
  const waitMs = (early ? SETTINGS.hangUnits : SETTINGS.benchHangUnits) * u;
  const abort = new AbortController();
  const started = Date.now();
  const pending = ask(path, { timeoutMs: 4 * waitMs, signal: abort.signal });
  for (let round = 1; round <= 3; round++) {
    const res = await Promise.race([pending, sleep(round * waitMs - (Date.now() - started)).then(() => null)]);
    if (res) return { res };
    const waited = Date.now() - started;
    const h = health.snapshot();
    const c = controlProbe.snapshot();
    const controlLongest = Math.max(c.oldestUnansweredMs, ...c.latest, 0);
    if (controlLongest < waited / 4) {
      abort.abort();
      pending.catch(() => {});
      return { unended: { waitedMs: waited, stuck: h.oldestUnansweredMs >= waited / 2 } };
    }
  }
  abort.abort();
  pending.catch(() => {});
  return { noisy: `a read of ${path} had no answer in ${((Date.now() - started) / 1000).toFixed(1)} s while the machine held up the control route too` };
}

/**
 * Imports SETTINGS.warmUpOrders ordinary orders over a day of 2030 and
 * reads them a few times, by period and by customer, checking each answer:
 * the reads the families time then run on compiled code, as in a process
 * that has been serving for a while.
 */
async function warmUpReads({ ask, rand, names, timeoutMs }) {
  // December 1 to 21, 2030: after the contract's hour (contract.js, June to October) and before the families' 2031.
  const from = Date.UTC(2030, 11, 1 + rand.int(0, 20), 6);
  const to = from + 12 * 3_600_000;
  const customers = Array.from({ length: 5 }, () => names.customer());
  const orders = ordersAt(rand, names, ordinaryInstants(rand, SETTINGS.warmUpOrders, from, to), customers);
  const responses = [];
  const problems = [];
  for (let i = 0; i < orders.length; i += SETTINGS.importBatch) {
    const batch = orders.slice(i, i + SETTINGS.importBatch);
    const res = await ask('/orders', { method: 'POST', body: JSON.stringify({ orders: batch.map(asJson) }), timeoutMs });
    if (res instanceof Error && /no answer within/.test(res.message)) return { responses, stuck: { path: 'POST /orders' } };
    const problem = importAnswerProblem(res, batch.length);
    if (problem) problems.push(`an import: ${problem}`);
  }
  const reads = [
    { path: `/orders?from=${iso(from)}&to=${iso(to)}`, expected: { kind: 'period', from, to, orders: sortOrders(orders) } },
    ...customers.slice(0, 2).map((customer) => ({ path: `/customers/${customer}/orders`, expected: { kind: 'customer', customer, orders: sortOrders(orders.filter((o) => o.customer === customer)) } })),
  ];
  for (let round = 0; round < 3; round++) {
    for (const { path, expected } of reads) {
      const res = await ask(path, { timeoutMs });
      if (res instanceof Error && /no answer within/.test(res.message)) return { responses, stuck: { path: `GET ${path}` } };
      const problem = readProblem(res, expected);
      if (problem) problems.push(`${truncate(path, 60)}: ${problem}`);
    }
  }
  responses.push({
    name: `${SETTINGS.warmUpOrders} ordinary orders imported and read ${3 * reads.length} times, by period and by customer`,
    pass: problems.length === 0,
    expected: 'status 201 for each import; every order once, in (placedAt, id) order, for each read',
    actual: problems.length ? `${problems.length} wrong, e.g. ${problems[0]}` : 'all right',
  });
  return { responses, stuck: null };
}

/** Counts the requests to the app that came back with an answer (any status). */
function countAnswers() {
  let answered = 0;
  return {
    count: (promise) =>
      promise.then((res) => {
        if (!(res instanceof Error)) answered++;
        return res;
      }),
    answered: () => answered,
  };
}

function importAnswerProblem(res, count) {
  if (res instanceof Error) return res.message;
  const body = json(res);
  if (res.status !== 201) return `status ${res.status}: ${truncate(res.body || '(empty)', 80)}`;
  if (!body || body.imported !== count || body.skipped !== 0) return `${truncate(res.body, 80)} for ${count} new orders`;
  return null;
}

function familyCase(entry) {
  const { family, reads, wrong } = entry;
  return {
    name: `${family.id}: ${reads} read${reads === 1 ? '' : 's'} (${family.describe})`,
    pass: wrong.length === 0,
    expected: 'status 200 with every order once, in (placedAt, id) order, as imported',
    actual: wrong.length ? `${wrong.length} wrong, e.g. ${wrong[0]}` : entry.hung ? 'no answer to the looping read (judged by its gate)' : 'all right',
  };
}

function stuckCase(stuck, slowMs) {
  return {
    name: `${stuck.path}: an answer`,
    pass: false,
    expected: 'an answer',
    actual: `no answer within ${(slowMs / 1000).toFixed(1)} s: the app is stuck in a request that does not depend on the data's shape`,
  };
}

function healthAnswers(timing) {
  const wrong = timing.samples.filter((s) => s.status !== 200 || json({ body: s.body })?.status !== 'ok');
  return {
    name: `${timing.sent} requests to /health while the families were read`,
    pass: timing.failures === 0 && timing.unanswered === 0 && wrong.length === 0 && timing.answered > 0,
    expected: 'status 200 {"status":"ok"} for each',
    actual: timing.failures
      ? `${timing.failures} failed`
      : timing.unanswered
        ? `${timing.unanswered} never answered`
        : wrong.length
          ? `${wrong.length} wrong, e.g. status ${wrong[0].status}: ${truncate(wrong[0].body || '', 60)}`
          : `${timing.answered} answered, all right`,
  };
}

function healthFigure(healthTiming, controlTiming, u) {
  const worst = healthExcess(healthTiming, controlTiming, SETTINGS.probeEveryMs);
  return {
    value: worst.excess,
    per: u,
    scale: `u = ${u.toFixed(1)} ms, the median time of an ordinary read here; the worst /health request ${worst.answered ? 'waited' : 'had no answer after'} ${worst.ms.toFixed(0)} ms${worst.paused >= 1 ? ` (${worst.paused.toFixed(0)} ms of it while the check's own process was held up)` : ''}, the control route's sent with it ${worst.control.toFixed(0)} ms${healthTiming.unanswered ? `; ${healthTiming.unanswered} never answered` : ''}`,
  };
}

function sameProcessCase(app, served, answered) {
  return {
    name: `every request answered came to the process the check started (pid ${app.pid})`,
    pass: served >= answered,
    expected: `${answered} requests received by pid ${app.pid}, the process that is still running`,
    actual:
      served >= answered
        ? `${served} received`
        : `it received ${served} of the ${answered} requests answered: the others were served by another process (a cluster's worker, or a copy a supervisor started)`,
  };
}

function unitInfo(u, ordinaryTimes) {
  return [
    {
      id: 'u',
      label: 'time of an ordinary read (u)',
      value: u,
      unit: 'ms',
      text: `the median of ${ordinaryTimes.length} ordinary read${ordinaryTimes.length === 1 ? '' : 's'} of ${SETTINGS.minRun} to about ${2 * SETTINGS.maxRun + 200} orders, each sent just before a looping read of its size`,
    },
  ];
}

function stuckInfo(stuck, u, healthTiming) {
  return {
    id: 'stuck',
    label: 'the read that never came back',
    value: stuck.waitedMs,
    unit: 'ms',
    text:
      `${truncate(stuck.path, 90)}${stuck.family ? ` (${stuck.family.id})` : ''}: no answer in ${(stuck.waitedMs / 1000).toFixed(1)} s, ${(stuck.waitedMs / u).toFixed(0)} × u; ` +
      `meanwhile ${healthTiming.unanswered} requests to /health waited with no answer while the control route, in the same process, answered: the main thread was running the app's code all along. ` +
      'The app was ended (whether the same process served every request was not asked: a process stuck in a loop cannot answer the check either).',
  };
}

function series(families, familyFigure, healthTiming, controlTiming, u) {
  return {
    u,
    families: families
      .filter((e) => familyFigure(e) !== null)
      .map((e) => ({ id: e.family.id, ratio: familyFigure(e), hung: Boolean(e.hung), pairs: e.pairs.map((p) => ({ looping: p.looping, ordinary: p.ordinary, count: p.count })) })),
    health: { max: healthTiming.max, p50: healthTiming.p50, answered: healthTiming.answered, unanswered: healthTiming.unanswered },
    control: { route: { max: controlTiming.max, p50: controlTiming.p50 } },
  };
}

module.exports = defineCheck(
  {
    // Why these thresholds (margins in check/margins.json):
    // - loop-ratio: a read whose cursor moves forward on every page costs
    //   what an ordinary read of the same size costs (about 1×: the same
    //   pages, the same JSON); the starter's never ends, and is given
    //   hangUnits × u before it is called stuck.
    // - health-wait: an app whose reads end answers /health within the time
    //   of its longest request (about one u: an import or a read); one stuck
    //   in a read never answers it again.
    // Measured on a 2-vCPU Intel Xeon VM on 2026-11-27, 10 runs a side on
    // Node 20, 24 and 26, each idle and beside a CPU hog: the reference read
    // 1.10–1.40× and /health 1.7–3.9 u at the median, its worst runs 5.9×
    // (ratio, Node 24 with a hog) and 6.3× (/health, Node 20) inside; the
    // starter, stuck, past both in every run (30× and at least 9.4× past:
    // a read that never ends is cut off at hangUnits, so its figures are
    // the cut-off's).
    gates: {
      'loop-ratio': {
        label: 'time to read orders stamped with one instant in a run longer than a page, against an ordinary read of the same size (the worst of seven families)',
        op: '<',
        threshold: RATIO_THRESHOLD,
        unit: '×',
        pass: 'A read with a long run of orders placed at one instant takes about what an ordinary read of its size takes: the cursor moves forward on every page.',
        fail: 'A read with a long run of orders placed at one instant takes far longer than an ordinary one, or never ends: the loop reads the same page again and again (its cursor stops on the run\'s instant).',
      },
      'health-wait': {
        label: 'longest wait for /health while the families were read, less the control route\'s',
        op: '<',
        threshold: HEALTH_THRESHOLD,
        per: 'u',
        unit: 'ms',
        pass: '/health answered within about one request\'s time all along.',
        fail: '/health went unanswered: the main thread was busy in one request for many times an ordinary read (for good, if the read loops), and a load balancer would have taken the process out, or restarted it and lost the evidence.',
      },
    },
    starterFails: ['loop-ratio', 'health-wait'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Find where it loops while it loops: start it with `npx workbook run 13`, send it the load, then `node inspect -p <pid>` and `pause` (or `npx workbook profile 13 --tool inspect`)',
    measure,
    explain: {
      kind: 'calibrated',
      calibration:
        'No absolute time is judged. The first figure is a ratio measured in one run: the time to read a period (or a customer) whose orders include a run of more than 1000 stamped with one instant, over the time to read an ordinary one of the same size just before, per family the smaller of two pairs. A read that never comes back is called stuck after `hangUnits` × u (u: the ordinary read\'s time) when /health had no answer meanwhile either, while a control thread of the probe\'s own, in the same process, did. The second figure is /health\'s longest wait during the reads, less the control route\'s, in units of u. The third is a count: every answered request reached the process the check started.',
      noise: "fewer than ten requests to /health came back; or a request to /health waited the threshold, and only the wait of its twin to the probe's control route (it runs no app code) brings it under; or /health's figure is past the threshold but not three times past, and the machine held up the control route for half the threshold; or a read had no answer while the control route was held up as well. A looping read's ratio that would end the check early must hold in a second pair of its family.",
    },
    captures: [{ load: true }, { tool: 'inspect' }, { tool: 'perf' }],
    tools: ['inspect', 'perf'],
    // What the tools must find in the starter (the extended suite runs
    // each): the inspector pauses it in readAll() and its variables read
    // the same at two passes of the loop.
    findings: {
      inspect: /#0 readAll labs\/\S+\/app\.js:\d+:\d+[\s\S]*Every variable reads the same on the next pass/,
    },
    charts: [
      {
        kind: 'gate-bars',
        title: 'A read with a long run of equal times against an ordinary one, and /health meanwhile',
        gates: [
          { id: 'loop-ratio', label: 'looping ÷ ordinary read' },
          { id: 'health-wait', label: '/health, longest wait' },
        ],
      },
    ],
  },
  __filename,
);
