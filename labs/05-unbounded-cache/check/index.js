'use strict';
// Lab 05's check: does the quote cache keep within its budget of 500
// quotes however many products are quoted, and does it still save the work
// on quotes asked for again?
//
// Three gates:
//   quotes-held     a count: after 600 products never asked for before,
//                   the check asks for those same products again, newest
//                   first, under load, and counts the ones the app
//                   answers without calling the pricing model (the probe
//                   counts the calls to pricing.js's priceQuote in every
//                   thread and process of the app, in every mode: see
//                   call-counter.js). Whatever the eviction policy, a cache
//                   of at most 500 quotes can have kept at most 500 of
//                   them; a larger cap, or a cache bounded by time alone,
//                   keeps them all.
//   heap-per-quote  machine-independent: bytes the whole app still holds
//                   after a forced full GC in each of its threads, per new
//                   product quoted (the Theil–Sen slope through checkpoints
//                   every 250 products, over 2 000 of them). Every thread's
//                   heap and every Buffer count; V8's compiled code does not
//                   (see census.js). A cache that keeps everything retains a
//                   whole quote per product (~1.5 KB); one that also keeps
//                   every key it has seen, a few hundred bytes; a bounded
//                   one, close to nothing once the JIT has settled.
//   hit-saving      calibrated: the app's own CPU time per new quote minus
//                   its CPU time per repeated quote, under the same load, in
//                   units of t, the CPU time of one quote from the pricing
//                   model on this machine: about t when the cache hits (the
//                   pricing it saves), nothing when it does not.
// Beside the gates, response cases: quotes equal to those the check
// computes from the shipped pricing model, lone and sampled under load;
// 400s for bad input; every request received by the process the check
// started, with nothing kept in other processes; and a repeated quote
// answered sooner than a new one (wall time against wall time: pricing
// handed to another process costs the app little CPU, but saves no time).
// The measured margins are in check/margins.json.

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const crypto = require('node:crypto');
const { isDeepStrictEqual } = require('node:util');
const { runLoad } = require('../../../scripts/harness/run-load');
const { get, json } = require('../../../scripts/harness/http-client');
const { medianSlope, median } = require('../../../scripts/harness/stats');
const { responseCase, ownProcessCase, truncate } = require('../../../scripts/checks/gates');
const { answersUnderLoad } = require('../../../scripts/checks/under-load');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { isShipped, shippedContent } = require('../../../scripts/lib/shipped');

const CALIBRATE = require.resolve('./calibrate');
const MODEL = 'pricing.js';
const MODEL_FUNCTION = 'priceQuote';
const REGIONS = ['eu', 'uk', 'us', 'jp', 'au'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'AUD'];

const SETTINGS = {
  budget: 500, // quotes the cache may keep (the lab's stated memory budget)
  connections: 4,
  warmupSeconds: 0.5, // repeated quotes first (a thousand or more where the cache hits): the JIT warms up the request path
  fill: 600, // new products before the held count: more than the budget
  checkpointEvery: 250, // new products between memory checkpoints (a divisor of the budget: see the gate's comment)
  checkpoints: 9,
  hotQuotes: 20, // the repeated set: a cache must hold at least this many
  rounds: 3,
  seconds: 0.3, // each round of repeated quotes, after one more that is not timed
  latencySamples: 15, // pairs of a repeated and a new quote, one at a time (an odd number: a median of them)
  hitSavesT: 0.25, // a new quote must take at least this many t longer than a repeated one, in the median pair
  calibrationWarmUp: 600, // untimed quotes before t is first timed: V8 optimises the model by then (see calibrate.js)
};

const quotePath = ([product, region, currency]) => `/quote?product=${product}&region=${region}&currency=${currency}`;

// The check's product names are as long as the model allows (200
// characters: PRODUCT in pricing.js), like a catalogue's longest slugs.
// Whatever an app keeps per product that it should not (a key built from
// the name, the name itself, a line of log) then weighs what it would with
// such names, and a leak beside a bounded cache stands clear of what V8
// itself keeps per request: a Set of the keys beside lru-cache holds a key
// string of 208 characters per product (see the heap-per-quote gate). The
// quotes timed against each other (repeated ones and new ones) have such
// names too, so that when the memory checkpoints begin the cache is full of
// quotes as large as theirs; the names cost the same in both kinds of
// round, and the difference between the two is the pricing. Only the
// warm-up and the lone timings use short names.
const NAME_LENGTH = 200;
const SLUG = '-brushed-brass-desk-lamp-with-oak-base-usb-charging-port-dimmer-and-warm-white-bulb'.repeat(3);

/** A product name of NAME_LENGTH characters, unique to `prefix` and `n`. */
function productName(prefix, n) {
  const head = `${prefix}-${n}`;
  return head + SLUG.slice(0, NAME_LENGTH - head.length);
}

/**
 * `count` keys for products nobody has asked for yet: unique to this run.
 * Long names (NAME_LENGTH) for every product quoted from the fill on;
 * short ones (`tag-n`) for the warm-up and the lone timings.
 */
function newKeys(tag, count, { long = false } = {}) {
  const name = long ? productName : (prefix, n) => `${prefix}-${n}`;
  return Array.from({ length: count }, (_, i) => [name(tag, i), REGIONS[i % 5], CURRENCIES[(i * 3) % 5]]);
}

// The standard load of `workbook load` and the profilers. Real traffic is
// a long tail of products asked for once and a few asked for all the time:
// setup() sends the tail (1,500 new products, new on every call), then the
// load repeats one popular quote. (The tail rides in setup() because a
// standard load's path is one fixed string; a load whose path varies per
// request would carry both.)
const TAIL = 1500;
const standardLoad = {
  async setup(url) {
    const keys = newKeys(`tail-${crypto.randomBytes(3).toString('hex')}`, TAIL);
    await runLoad({ url, path: (i) => quotePath(keys[i % TAIL]), connections: 4, amount: TAIL });
  },
  path: '/quote?product=lamp-0042&region=eu&currency=EUR',
  connections: 10,
  duration: 10,
  describe: `GET /quote for ${TAIL.toLocaleString('en-US')} products asked for once, then the same quote over and over (10 connections)`,
  examples: ['/quote?product=lamp-0042&region=eu&currency=EUR', '/quote?product=lamp-0042&region=jp&currency=JPY', '/health'],
};

// Fixed keys whose answers are checked exactly, in this order: the second
// and third are the same product in other regions and currencies, the
// fourth repeats the first.
const FIXED = [
  ['lamp-0042', 'eu', 'EUR'],
  ['lamp-0042', 'jp', 'JPY'],
  ['lamp-0042', 'us', 'USD'],
  ['kettle-7', 'uk', 'GBP'],
];
const BAD = [
  ['without a product', '/quote?region=eu&currency=EUR'],
  ['for an unknown region', '/quote?product=lamp-0042&region=mars&currency=EUR'],
  ['in a currency written in lowercase', '/quote?product=lamp-0042&region=eu&currency=eur'],
  ['for a product with spaces', `/quote?product=${encodeURIComponent('desk lamp')}&region=eu&currency=EUR`],
];

async function measure(ctx) {
  const { progress, lab } = ctx;
  const responses = [];

  // The fix belongs in app.js: judge quotes by the model as shipped.
  const model = shippedContent(lab, MODEL);
  if (model.error) throw new Error(`cannot judge lab 05: ${model.error}`);
  const unchanged = isShipped(lab, MODEL);
  responses.push({
    name: `${MODEL} is the shipped pricing model`,
    pass: unchanged,
    expected: 'the model as shipped (the fix belongs in app.js)',
    actual: unchanged ? 'unchanged' : `changed: undo your edits to labs/${lab.slug}/${MODEL}`,
  });
  const modelFile = path.join(ctx.tempDir(), MODEL);
  fs.writeFileSync(modelFile, model.content);

  // Every key this run will use, decided now, so that the check knows the
  // right answer to each before it asks.
  const tag = `q${crypto.randomBytes(3).toString('hex')}`;
  const filled = newKeys(`${tag}-fill`, SETTINGS.fill, { long: true });
  const measured = newKeys(`${tag}-new`, SETTINGS.checkpointEvery * (SETTINGS.checkpoints - 1), { long: true });
  // Asked for from the start (the warm-up), and later as "a repeated quote".
  const warm = newKeys(`${tag}-warm`, SETTINGS.hotQuotes);
  // New to the app only once its cache is full: a cache must admit them to
  // hit. Long names, as every product quoted from the fill on has: when the
  // memory checkpoints begin, the cache is full of quotes whose keys weigh
  // what the checkpoints' own do, so replacing them adds nothing.
  const hot = newKeys(`${tag}-hot`, SETTINGS.hotQuotes, { long: true });
  // Quotes checked exactly: fixed ones, and some that a load asks for. The
  // answers under load are sampled in the pair of rounds that is not timed,
  // not during the measured blocks: the sampler asks for its keys again and
  // again, and a hit can move a quote within a cache (quick-lru's two
  // generations move it to the newer one), which would shift a sawtooth's
  // phase from one checkpoint to the next; in the blocks every product is
  // asked for once.
  const sampledUnderLoad = newKeys(`${tag}-sampled`, 30, { long: true });
  const checked = [...FIXED, filled[3], filled.at(-1), hot[7], ...sampledUnderLoad];

  progress('Starting the app, and meanwhile timing one quote from the pricing model on this machine (t)');
  // Kept: t is timed again on either side of the repeated quotes. The
  // calibration runs while the app starts and answers its first requests:
  // its 600 quotes of warm-up are untimed, and a timing it takes while the
  // app is busy can only read high, which matters nowhere: the gates take
  // the lowest of the three timings of t (see the hit-saving gate).
  // Why not let it run on into the held count, whose 600 new products would
  // then fill the 1.2 s the app waits for it: tried on 2026-11-28 (2-vCPU
  // AMD EPYC VM, Node 24, 16 checks a way), it saved 0.85 s at the median
  // (13.0 s against 13.85 s) and made the one-at-a-time timings below
  // noisier, timed beside the calibration: a correct cache's new quote came
  // back 0.77-2.31 t after its repeated one (median 1.55 t) against
  // 1.04-2.48 t (median 1.79 t) this way (the fastest new quote against
  // the fastest repeated one, as the case was judged then). Timed
  // after the fill instead, once the app's model is optimised, it read
  // 0.56-1.78 t (13 checks). Not worth a verdict on a correct fix.
  const calibrator = ctx.calibrator(CALIBRATE);
  const calibrating = calibrator.call('quoteCost', [modelFile, checked, SETTINGS.calibrationWarmUp]);
  calibrating.catch(() => {}); // awaited below, once the app has started
  const app = await ctx.start(ctx.candidate);

  progress(`Listening on ${app.url}. Asking for its first quotes, and the errors`);
  const lone = await loneResponses(app);
  ctx.assertAlive(app, 'while its responses were checked');

  const loads = [];
  const load = async (keys, label, options = {}) => {
    const result = await runLoad({ url: app.url, path: (i) => quotePath(keys[i % keys.length]), connections: SETTINGS.connections, amount: keys.length, ...options });
    ctx.assertAlive(app, `during ${label}`);
    loads.push(result);
    return result;
  };

  progress(`Warm-up: quotes of ${SETTINGS.hotQuotes} products, asked for over and over for ${SETTINGS.warmupSeconds} s`);
  await load(warm, 'the warm-up', { amount: undefined, duration: SETTINGS.warmupSeconds });

  const calibration = await calibrating;
  const { t } = calibration;
  // Parsed again here: the child's objects come from another realm under a
  // test runner, and a deep comparison would tell their prototypes apart.
  const expectedByPath = new Map(checked.map((key, i) => [quotePath(key), JSON.parse(JSON.stringify(calibration.quotes[i]))]));
  const expected = (key) => expectedByPath.get(quotePath(key));
  judgeLoneResponses(lone, responses, expected);
  progress(`t = ${t.toFixed(2)} ms here, as first timed (beside the starting app: timed twice more later, with the app idle)`);

  // A repeated quote must also come back sooner than a new one: a fix that
  // hands the pricing to another process spends little CPU of its own, but
  // its repeated quotes take as long as its new ones. Wall time against wall
  // time, in pairs: a repeated quote, then a new one, one at a time, and
  // the median over the pairs of how much longer the new one took. The two
  // of a pair are a few milliseconds apart, so they meet the machine at
  // the same speed; a pause that delays one of them (a GC, a late wake-up,
  // another program) moves that pair alone, and as often one way as the
  // other. What a hit saves is the pricing, about t, whatever the way to
  // the cache costs: a cache in a worker thread pays a round trip on hits
  // and misses alike, and saves as much. Without a cache the two differ by
  // nothing. Until 2026-11-28 the fastest new quote was set against the
  // fastest repeated one, with a bar of 0.5 t: the speed of a shared
  // 2-vCPU VM flips twofold from one moment to the next, and a no-cache app
  // read 0.95 t there in 2 checks of 8. Measured on that VM: on Node 20 (19
  // checks, idle and with a CPU hog, against the first timing of t, which
  // reads high) the median pair read 0.65-1.68 t for the reference and a
  // cache in a worker thread, -0.08 to 0.08 t for pricing handed to a child
  // process with no cache; on Node 24 and 26 (8 checks, as the check judges)
  // 0.63-2.11 t for the reference, -0.03 to 0.02 t for that app, which
  // hit-saving passed in 2 of those 4 checks (its child's CPU moves too).
  progress(`Timing ${SETTINGS.latencySamples} pairs of quotes, one at a time: a repeated one, then a new one`);
  const probes = newKeys(`${tag}-probe`, SETTINGS.latencySamples);
  const times = await sequentialLatencies(app.url, probes.flatMap((key, i) => [warm[i % warm.length], key]));
  const repeated = times.filter((_, i) => i % 2 === 0);
  const fresh = times.filter((_, i) => i % 2 === 1);
  const pairSaving = median(fresh.map((ms, i) => ms - repeated[i]));
  // Judged once the two other timings of t are in, against the lowest: the
  // first timing ran beside the starting app and its warm-up, and on a
  // 2-vCPU VM read up to twice the others (3.55 ms against 1.6–1.8).
  const soonerCase = (tLowest) => ({
    name: 'a repeated quote comes back sooner than a new one',
    pass: pairSaving >= SETTINGS.hitSavesT * tLowest,
    expected: `a new quote at least ${SETTINGS.hitSavesT} t (${(SETTINGS.hitSavesT * tLowest).toFixed(2)} ms) slower than the repeated quote just before it, in the median of ${SETTINGS.latencySamples} pairs: a hit saves the pricing`,
    actual: `${pairSaving.toFixed(2)} ms slower (${(pairSaving / tLowest).toFixed(2)} t); repeated quotes took ${median(repeated).toFixed(2)} ms at the median, new ones ${median(fresh).toFixed(2)} ms`,
  });

  // Gate 1: how many quotes the cache holds at once.
  progress(`Quotes for ${SETTINGS.fill} new products (more than the budget of ${SETTINGS.budget}), then the same ones again, newest first`);
  const beforeFill = await app.calls();
  const servedBeforeFill = (await app.cpuAndRequests()).served;
  const fillLoad = await load(filled, 'the new products');
  const afterFill = await app.calls();
  // Asked for again under load, in order: a cache of at most 500 quotes
  // holds at most 500 of the 600 when this begins, and what it prices
  // meanwhile is a quote of this same pass, asked for already, so no order
  // of arrival can make it answer more than 500 from the cache (a request
  // that overtakes another can only make one more of them a miss).
  const againLoad = await load([...filled].reverse(), 'the same products again');
  // Each quote asked for again that did not call the model came from the
  // cache: counted, not timed (see the gate's comment).
  const priced = (await app.calls()) - afterFill;
  const servedInHeldCount = (await app.cpuAndRequests()).served - servedBeforeFill;
  const held = SETTINGS.fill - priced;
  responses.push(modelUsedCase(afterFill - beforeFill));
  // Requests answered under load against those the app's own process
  // received: from this load on, the timed rounds' added later. Judged here
  // already, so that a check that stops at this point (on a count over its
  // limit, or another wrong answer) still names a cluster for what it is.
  let answered = fillLoad.responses + againLoad.responses;
  let received = servedInHeldCount;
  // One case in the list, judged again (in place) once the rounds' requests are added.
  const servedHere = {};
  const judgeOwnProcess = () =>
    Object.assign(servedHere, ownProcessCase({ name: "every quote is served by the app's own process", answered, received, allowed: 0.01, why: 'run one process, so its memory and CPU are what is measured' }));
  judgeOwnProcess();
  responses.push(servedHere);
  progress(`  ${held} of the ${SETTINGS.fill} were answered from the cache, ${priced} priced again`);
  const heldFigure = {
    value: held,
    scale: `of the last ${SETTINGS.fill} new products, asked for again newest first: those answered without a call to the model's ${MODEL_FUNCTION}`,
  };
  ctx.decide({ figures: { 'quotes-held': heldFigure }, responses, info: [{ id: 't', label: 'CPU time of one quote from the pricing model on this machine (t)', value: t, unit: 'ms' }] }, 'counting the quotes the cache holds');

  // Gate 3: what a repeated quote saves the app: 20 products new to it now
  // that its cache is full, each asked for once, then over and over, in
  // rounds that alternate with rounds of products never asked for before,
  // both under the same load and timed the same way. A hit saves the
  // pricing, about t, whatever the rest of a request costs: the request's
  // own work (parsing, routing, sending the JSON) is in both rounds and
  // cancels out. That share moves from machine to machine (measured on
  // 2-vCPU VMs: 0.06–0.17 t on one, 0.31–0.35 t in CI, where syscalls cost
  // more), so the CPU of a hit alone, against a fraction of t, judged the
  // machine as much as the cache. Timed before the memory checkpoints,
  // whose forced collections throw some optimised code away (see the
  // heap-per-quote gate), and after a pair of rounds that is not timed: the
  // first round of hits also paid for compiling their path (on a 2-vCPU
  // machine, Node 20's first round cost up to twice its third).
  progress(`Repeated quotes: ${SETTINGS.hotQuotes} products, each asked for once, then over and over, in rounds that alternate with rounds of new products`);
  for (const key of hot) {
    const res = await get(app.url + quotePath(key)).catch((e) => e);
    if (key === hot[7]) responses.push(quoteCase(`GET ${quotePath(key)} (a product new to the app)`, res, expected(key)));
  }
  const hotLoad = () => runLoad({ url: app.url, path: (i) => quotePath(hot[i % hot.length]), connections: SETTINGS.connections, duration: SETTINGS.seconds });
  // Long names, as the repeated quotes have: only the pricing differs.
  const newLoad = (round, options = {}) =>
    runLoad({ url: app.url, path: (i) => quotePath([productName(`${tag}-r${round}`, i), REGIONS[i % 5], CURRENCIES[(i * 3) % 5]]), connections: SETTINGS.connections, duration: SETTINGS.seconds, ...options });
  // t again, on either side of the timed rounds: the machine's speed moves
  // from one second to the next (on a shared 2-vCPU VM, t read 1.05 ms in
  // some checks and 1.7 ms in others while a hit cost the same), and the
  // rounds are judged against the t of their own moment. After the app is
  // idle: its JIT compiles on other threads, which compete with the timing.
  await app.waitUntilIdle();
  const tBefore = (await calibrator.call('quoteCost', [modelFile, []])).t;
  const roundLoads = [];
  const timedRound = async (run, what) => {
    const before = await app.cpuAndRequests();
    const result = await run();
    const after = await app.cpuAndRequests();
    ctx.assertAlive(app, `while ${what} were measured`);
    await app.waitUntilIdle();
    roundLoads.push(result);
    return { result, served: after.served - before.served, cpu: (after.total - before.total) / 1000 / Math.max(result.responses, 1) };
  };
  await timedRound(hotLoad, 'repeated quotes');
  // One more connection keeps some answers in the round that is not timed,
  // for the quotes the check knows.
  const sampledRound = await timedRound(() => newLoad(0, { sample: { path: (k) => quotePath(sampledUnderLoad[k % sampledUnderLoad.length]), keep: sampledUnderLoad.length } }), 'quotes of new products');
  const sampled = sampledRound.result.sampled.answers;
  const savings = [];
  const missRounds = [];
  const hitCosts = [];
  for (let round = 1; round <= SETTINGS.rounds; round++) {
    const hit = await timedRound(hotLoad, 'repeated quotes');
    const miss = await timedRound(() => newLoad(round), 'quotes of new products');
    for (const r of [hit, miss]) {
      answered += r.result.responses;
      received += r.served;
    }
    hitCosts.push(hit.cpu);
    missRounds.push(miss);
    savings.push(miss.cpu - hit.cpu);
    progress(`  round ${round}/${SETTINGS.rounds}: ${hit.cpu.toFixed(3)} ms of CPU per repeated quote, ${miss.cpu.toFixed(3)} ms per new one (${(savings.at(-1) / tBefore).toFixed(2)} t)`);
  }
  const tAfter = (await calibrator.call('quoteCost', [modelFile, []])).t;
  // The cheapest of each: whatever else runs on the machine (another
  // thread on the same core, the app's compiler and collector threads, a
  // process of the check) only ever adds CPU time to a round or a timing,
  // never takes it away, as with the fastest of the lone requests above.
  // Measured over pairs of rounds on a 2-vCPU VM, a new quote cost a
  // correct cache 1.22–2.67 ms and t read 1.0–1.9 ms from one timing to
  // the next: the median of each pair's difference, over the median t,
  // read 0.54–2.1 t for correct caches and 0.07–0.19 t for one whose 20
  // repeated quotes never hit, too close to judge; the cheapest rounds
  // and the cheapest t read about 1 t and 0.1 t. The cheapest t of the
  // three timings, the first included: with two, one run in ten still
  // read t 1.5× too high.
  const tHits = Math.min(t, tBefore, tAfter);
  responses.push(soonerCase(tHits));
  const missCosts = missRounds.map((r) => r.cpu);
  const saved = Math.min(...missCosts) - Math.min(...hitCosts);
  responses.push(statusesUnderLoad(roundLoads, `${count(roundLoads.reduce((n, l) => n + l.responses, 0), 'quote')} under load, repeated and new`));
  const hitFigure = {
    value: saved,
    per: tHits,
    scale: `t = ${tHits.toFixed(2)} ms, the CPU time of one quote, the lowest of three timings (at the start, and either side of the rounds); CPU per new quote minus CPU per repeated quote, the cheapest of ${SETTINGS.rounds} rounds of each`,
  };
  const tInfo = { id: 't', label: 'CPU time of one quote from the pricing model on this machine (t)', value: tHits, unit: 'ms', text: `${tBefore.toFixed(2)} ms before the repeated quotes, ${tAfter.toFixed(2)} ms after; ${t.toFixed(2)} ms at the start` };
  const hitCostInfo = {
    id: 'quote-cpu',
    label: 'CPU time the app spends per repeated quote, under load',
    value: Math.min(...hitCosts),
    unit: 'ms',
    text: `${(Math.min(...hitCosts) / tHits).toFixed(2)} t; per new quote ${Math.min(...missCosts).toFixed(3)} ms (${(Math.min(...missCosts) / tHits).toFixed(2)} t); the cheapest round of each`,
  };
  ctx.decide({ figures: { 'quotes-held': heldFigure, 'hit-saving': hitFigure }, responses, info: [tInfo, hitCostInfo] }, 'timing repeated quotes');

  // Gate 2: memory per new product, once the cache is full and the JIT has
  // settled (the rounds above quoted hundreds of new products, with names
  // as long as the checkpoints' own).
  // New products quoted so far: the fill's, and those of the rounds (the
  // warm-up's and the timings' are a few dozen more, not counted here).
  const quotedBefore = SETTINGS.fill + [sampledRound, ...missRounds].reduce((n, r) => n + r.result.responses, 0);
  progress(`Memory checkpoints every ${SETTINGS.checkpointEvery} new products, after ${quotedBefore.toLocaleString('en-US')} others`);
  await app.memory(); // the first forced collection after a load leaves some for the next
  let quoted = 0;
  const points = [];
  const readings = [];
  const checkpoint = async () => {
    const reading = await app.memory();
    readings.push(reading);
    points.push({ requests: quoted, heapUsed: reading.data, rss: reading.rss });
  };
  await checkpoint();
  progress(`  0/${SETTINGS.checkpoints - 1}: memory after a forced GC in every thread: ${mb(points[0].heapUsed)}`);
  for (let i = 1; i < SETTINGS.checkpoints; i++) {
    // Each product of a block asked for once: exactly checkpointEvery new quotes.
    const block = measured.slice((i - 1) * SETTINGS.checkpointEvery, i * SETTINGS.checkpointEvery);
    const result = await load(block, `block ${i}`);
    quoted += result.responses;
    await checkpoint();
    progress(`  ${i}/${SETTINGS.checkpoints - 1}: ${count(quoted, 'new product')} quoted, memory: ${mb(points.at(-1).heapUsed)}`);
  }

  responses.push(statusesUnderLoad(loads, `${count(loads.reduce((n, l) => n + l.responses, 0), 'quote')} under load`));
  responses.push(
    answersUnderLoad({
      name: `${count(sampled.length, 'quote')} sampled under load, checked against the model`,
      answers: sampled,
      expected: "each the model's quote for its product, region and currency",
      verify: (a) => quoteProblem(a.status, a.body.toString('utf8'), expectedByPath.get(a.path)),
    }),
  );
  judgeOwnProcess(); // the timed rounds' requests added
  responses.push(wholeAppCase(readings));

  progress('Checking two quotes again after the load');
  for (const key of [filled[3], filled.at(-1)]) {
    const res = await get(app.url + quotePath(key)).catch((e) => e);
    responses.push(quoteCase(`GET ${quotePath(key)} (quoted during the load)`, res, expected(key)));
  }
  ctx.assertAlive(app, 'at the end of the check');

  const slope = medianSlope(points.map((p) => p.requests), points.map((p) => p.heapUsed));
  const rssSlope = medianSlope(points.map((p) => p.requests), points.map((p) => p.rss));
  const savingThreshold = ctx.check.threshold('hit-saving') * tHits;
  const noise = [];
  // The cheapest rounds and the pairs of rounds taken one by one (their
  // median) must agree about the verdict.
  if (median(savings) >= savingThreshold !== saved >= savingThreshold) {
    noise.push(`the rounds of repeated and new quotes disagreed about the verdict (the cheapest of each: ${(saved / tHits).toFixed(2)} t saved; pair by pair: ${savings.map((c) => `${(c / tHits).toFixed(2)} t`).join(', ')})`);
  }
  // The time of one quote changed while the hits were timed: the machine's
  // speed moved, or the calibrating process's own code did (on a 2-vCPU
  // Xeon VM, Node 20 priced a quote at a steady 1.7, 2.5 or 3.0 ms from one
  // process to the next, and one process went from 3.1 to 1.8 ms between
  // two timings). That is noise only where it could change the verdict:
  // where what a repeated quote saves clears a quarter of the lower t but
  // not of the higher. A cache saves about a whole t and no cache about
  // none, so either way the verdict stands.
  const [tLow, tHigh] = [Math.min(tBefore, tAfter), Math.max(tBefore, tAfter)];
  const drift = tHigh / tLow;
  const savingThresholdAtHighT = ctx.check.threshold('hit-saving') * tHigh;
  if (drift > 1.5 && saved >= savingThreshold !== saved >= savingThresholdAtHighT) {
    noise.push(`the time of one quote changed ${drift.toFixed(1)}× while the repeated quotes were timed, and the verdict depends on which is used`);
  }
  const last = readings.at(-1);

  return {
    figures: {
      'quotes-held': heldFigure,
      'heap-per-quote': {
        value: slope,
        scale: `median slope over ${SETTINGS.checkpointEvery * (SETTINGS.checkpoints - 1)} new products after ${quotedBefore.toLocaleString('en-US')} others; every thread, Buffers included, compiled code excluded`,
      },
      'hit-saving': hitFigure,
    },
    responses,
    info: [
      tInfo,
      hitCostInfo,
      {
        id: 'heap-growth',
        label: `memory growth over the ${SETTINGS.checkpointEvery * (SETTINGS.checkpoints - 1)} measured new products`,
        value: (points.at(-1).heapUsed - points[0].heapUsed) / 1024,
        unit: 'KiB',
        text: `from ${mb(points[0].heapUsed)} to ${mb(points.at(-1).heapUsed)} in ${last.threads} thread${last.threads === 1 ? '' : 's'}, of it ${mb(last.arrayBuffers)} in Buffers and ArrayBuffers`,
      },
      {
        id: 'rss-per-quote',
        label: 'resident memory of the process per new product (the OS\'s view)',
        value: rssSlope,
        unit: 'B/quote',
        text: 'shown, not judged: V8 keeps memory it has collected reserved for later, so the OS\'s figure moves by megabytes whatever the app keeps',
      },
      {
        id: 'hit-latency',
        label: 'a repeated quote, one at a time (the median)',
        value: median(repeated),
        unit: 'ms',
        text: `a new quote: ${median(fresh).toFixed(2)} ms; in the median pair the new one took ${pairSaving.toFixed(2)} ms longer`,
      },
    ],
    noise,
    series: { heap: points, slope, t, costs: hitCosts, missCosts, savings, held: { held, priced }, latencies: { repeated, fresh, saved: pairSaving } },
  };
}

/** The lone requests: the fixed quotes, one of them twice, and the errors. Judged once the expected quotes are known. */
async function loneResponses(app) {
  const quotes = [];
  for (const key of FIXED) quotes.push({ key, res: await get(app.url + quotePath(key)).catch((e) => e) });
  const again = await get(app.url + quotePath(FIXED[0])).catch((e) => e);
  const errors = [];
  for (const [what, p] of BAD) errors.push({ what, res: await get(app.url + p).catch((e) => e) });
  return { quotes, again, errors };
}

function judgeLoneResponses({ quotes, again, errors }, responses, expected) {
  for (const { key, res } of quotes) responses.push(quoteCase(`GET ${quotePath(key)}`, res, expected(key)));
  const first = quotes[0].res;
  responses.push(
    responseCase(`GET ${quotePath(FIXED[0])} again`, again, {
      status: 200,
      describe: 'the same quote, byte for byte',
      body: (body) => (first instanceof Error || body === first.body ? null : `a different body: ${truncate(body, 90)}`),
    }),
  );
  for (const { what, res } of errors) {
    responses.push(
      responseCase(`GET /quote ${what}`, res, {
        status: 400,
        describe: 'status 400 with {"error": "…"}',
        body: (body) => (typeof json({ body })?.error === 'string' ? null : `no "error" message in ${truncate(body, 90)}`),
      }),
    );
  }
}

/** What is wrong with a quote's answer, or null when it is `want` exactly. */
function quoteProblem(status, body, want) {
  if (status !== 200) return `status ${status}`;
  const got = json({ body });
  if (got === undefined) return `not JSON: ${truncate(body, 90)}`;
  if (isDeepStrictEqual(got, want)) return null;
  const wrong = Object.keys(want).filter((k) => !isDeepStrictEqual(got[k], want[k]));
  return `a different quote (${wrong.join(', ') || 'extra fields'}): ${truncate(body, 90)}`;
}

/** A quote response against the quote the shipped model gives for the same key. */
function quoteCase(name, res, want) {
  return responseCase(name, res, {
    status: 200,
    describe: `the model's quote (unit price ${want.unitPrice} ${want.currency})`,
    body: (body) => quoteProblem(200, body, want),
  });
}

function statusesUnderLoad(loads, name) {
  const statuses = {};
  for (const result of loads) for (const [code, n] of Object.entries(result.statusCodes)) statuses[code] = (statuses[code] || 0) + n;
  const errors = loads.reduce((n, l) => n + l.errors + l.timeouts, 0);
  return {
    name,
    pass: Object.keys(statuses).every((c) => c === '200') && errors === 0,
    expected: 'status 200 for every one, no errors',
    actual: `${JSON.stringify(statuses)}, ${count(errors, 'error or timeout', 'errors or timeouts')}`,
  };
}

/**
 * The app prices with the shipped model: each new product calls its
 * priceQuote at least once, wherever the call runs. The quotes held are
 * counted from those calls, so an app that prices some other way (a copy
 * of the model) could not be counted, and is told why.
 */
function modelUsedCase(calls) {
  return {
    name: `the app prices new products with ${MODEL_FUNCTION} from ${MODEL}`,
    pass: calls >= SETTINGS.fill,
    expected: `at least ${SETTINGS.fill} calls to ${MODEL_FUNCTION}, required from ${MODEL}, for ${SETTINGS.fill} new products (the check counts them to tell the quotes the cache answers from those it prices)`,
    actual: calls >= SETTINGS.fill ? `${calls} calls` : `${count(calls, 'call')}: quote with the shipped model, \`require('./${MODEL.replace(/\.js$/, '')}').${MODEL_FUNCTION}\`, not a copy of it`,
  };
}

/** The memory census reached every thread, and the app kept nothing in other processes. */
function wholeAppCase(readings) {
  const missing = [...new Set(readings.flatMap((r) => r.missing))];
  const processes = Math.max(...readings.map((r) => r.processes));
  const problems = [...missing];
  if (processes > 1) {
    problems.push(`the app ran ${processes - 1} other Node.js process${processes === 2 ? '' : 'es'}: keep the cache and the pricing in the app's own process, where the lab's budget applies`);
  }
  return {
    name: "the app's memory is measured whole",
    pass: problems.length === 0,
    expected: 'every thread of the app reports its memory, and the app keeps nothing in other processes',
    actual: problems.length ? problems.join('; ') : `${readings.at(-1).threads} thread${readings.at(-1).threads === 1 ? '' : 's'}, one process`,
  };
}

/** Times a GET of each key in turn, on one kept-alive connection, in ms. */
async function sequentialLatencies(url, keys) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  try {
    for (const key of keys) {
      const started = process.hrtime.bigint();
      await new Promise((resolve, reject) => {
        const req = http.get(url + quotePath(key), { agent }, (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
        req.on('error', reject);
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  return times;
}

/** "1 quote", "2 quotes": a count and its noun, singular for one. */
function count(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}

function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

module.exports = defineCheck(
  {
    // Why these thresholds (margins in check/margins.json: 10-run benches
    // on 2026-11-27, Node 20 idle and with a hog, Node 24 and 26 idle, 80
    // of 80 verdicts right; heap-per-quote: the starter 1.7-1.8 KB (worst
    // 17× past), the reference 14-20 B in the median run (worst 4.3×
    // inside)):
    // - quotes-held is a count, judged as the lab states it: at most 500.
    //   It is counted, not timed: a quote asked for again either calls the
    //   model or does not. It used to be timed (a request costing under
    //   half a new quote's CPU time was a hit), and on the 2-vCPU VM the
    //   timing missed 3-14% of a correct cache's hits (V8's background
    //   threads add CPU time to a request they overlap) and, in CI, 23% of
    //   a cache capped at 800, which then passed at 460 of 600. Timing
    //   with both clocks and a floor of 3/4 of a pricing missed fewer hits,
    //   but counted a correct cache at 555 once in ten runs: the model's
    //   own cost moves 2× from one process to the next (its JIT state:
    //   1.15 or 2.3 ms per quote on Node 20), so no floor sits safely
    //   between a hit and a pricing every time.
    // - heap-per-quote: a cache that keeps everything retains each quote
    //   (~1.5 KB). A Set of every key beside a bounded cache (the check's
    //   product names are 200 characters: the key is 208) read 366-417 B
    //   per product on Node 20, 365-392 B on Node 24 and 265-270 B on
    //   Node 26 (10, 10 and 5 runs on a 2-vCPU Xeon VM, 2026-11-27).
    //   Bounded caches read what V8 itself still settles after about
    //   1,000 new products (the fill's 600 and the rounds'), over the
    //   2 000 that follow (compiled code is excluded):
    //   the reference 14-25 B, quick-lru's two generations of 250 (the
    //   design that spends most) 19-33 B on Node 20, 16-37 B on Node 24 and
    //   17-20 B on Node 26, in the same runs. 100 B is the geometric middle
    //   of the worst of each (37 and 265): the bounded designs 2.7× inside
    //   at worst, the Set 2.65× past on Node 26 and 3.6× past on Node 20
    //   and 24. Since the timed rounds quote long names too (so the cache
    //   is full of them when the checkpoints begin), the two generations
    //   read 10-20 B on Node 20 and 21-32 B on Node 24, and the Set
    //   361-405 B and 363-375 B (margins.json). (The gate was 80 B, set from older readings of the Set,
    //   about 245 B; the two generations sat 2.1-2.4× inside it.) A leak of 100 B per
    //   product sits on the gate and may go either way: the lesson's leaks
    //   keep a key, a quote or a line of log per product, all larger.
    //   Checkpoints 250 products apart, a divisor of the budget, see a
    //   cache that empties itself every 250 or 500 products at the same
    //   point of its cycle each time, so it reads flat too.
    // - hit-saving: a cache that hits saves the pricing, 1.0–1.1 t with
    //   the cheapest rounds and the cheapest t (the twelve bounded designs
    //   of the fixtures, Node 20, 2-vCPU VM); a cache whose repeated quotes
    //   are priced again saves nothing (-0.07 t measured). A quarter of t
    //   keeps the first 2.7× inside or more (a third kept it only 2×: one
    //   run in ten reads t 1.4× high) and is never reached by the second. It used to be the CPU per repeated quote alone, under
    //   0.35 t: a correct cache read 0.06–0.2 t on one VM and 0.31–0.35 t
    //   in CI (a request's own work costs more where syscalls do), and
    //   failed there.
    gates: {
      'quotes-held': {
        label: 'quotes the cache holds at once',
        op: '<',
        threshold: 501,
        unit: 'quotes',
        exact: true,
        pass: 'The cache keeps at most 500 quotes, its budget: new quotes take the place of old ones.',
        fail: 'The cache keeps more quotes than its budget of 500: it has no size limit, a limit above 500, or only a time limit (a time limit bounds how long a quote stays, not how many arrive meanwhile).',
      },
      'heap-per-quote': {
        label: 'memory retained per quote of a new product, after a forced GC',
        op: '<',
        threshold: 100,
        unit: 'B/quote',
        pass: 'Memory stays flat once the cache is full: nothing is kept for good per product quoted.',
        fail: 'Every new product quoted leaves something in memory for good: the cache has no limit, or something beside it (a list of every key seen, a log, a copy in a worker) keeps growing.',
      },
      'hit-saving': {
        label: 'CPU time a repeated quote saves the app, against a new one',
        op: '>=',
        threshold: 0.25,
        per: 't',
        unit: 'ms',
        pass: 'A quote asked for again is served from the cache, without pricing it again.',
        fail: 'A quote asked for again costs about as much as a new one: the cache does not hit (no cache, a key that never repeats, or too small to hold 20 quotes).',
      },
    },
    // The leak is the lesson; the starter's cache works, it just never forgets.
    starterFails: ['quotes-held', 'heap-per-quote'],
    // Counted in every mode (run, load, profile, check), so the app sees the
    // same model function whoever started it.
    countCalls: `${MODEL}#${MODEL_FUNCTION}`,
    settings: SETTINGS,
    standardLoad,
    advice: 'Find what holds the quotes with `npx workbook profile 05 --tool heap`, and bound the cache to its budget of 500 quotes',
    measure,
    explain: {
      kind: 'calibrated',
      calibration:
        "t is the CPU time of one quote from the lab's pricing model (timed in a plain Node process once its JIT has optimised the model, after 600 untimed quotes; again just before and just after the repeated quotes it scales). A repeated quote that hits the cache saves the app about t against a new quote under the same load, one that is priced again saves nothing. The quotes the cache still held are counted, not timed: those the app answered without calling the model's priceQuote. The memory gate is machine-independent: bytes per new product after a forced GC in every thread of the app.",
      noise: 'the three pairs of rounds (repeated quotes, new quotes) disagree about the verdict, or t timed before and after them differs by more than 1.5×.',
    },
    captures: [{ load: true }, { tool: 'heap' }, { tool: 'gc' }],
    tools: ['heap', 'gc', 'heapprofiler'],
    charts: [
      { kind: 'heap-over-requests', title: 'Memory used over quotes of new products', x: 'new products quoted' },
      { kind: 'gate-bars', title: 'What a repeated quote saves, against its threshold', gates: [{ id: 'hit-saving', label: 'CPU saved per repeated quote' }] },
    ],
  },
  __filename,
);
