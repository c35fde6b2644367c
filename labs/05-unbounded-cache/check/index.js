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
//                   every 250 products, over 1 500 of them). Every thread's
//                   heap and every Buffer count; V8's compiled code does not
//                   (see census.js). A cache that keeps everything retains a
//                   whole quote per product (~1.5 KB); one that also keeps
//                   every key it has seen, a few hundred bytes; a bounded
//                   one, close to nothing once the JIT has settled.
//   repeats-hit     a count: 20 products new to the app once its cache is
//                   full, each asked for once, then over and over under
//                   load; the share of those answers given without a call
//                   to the model (counted as for quotes-held) must be at
//                   least half. A cache that hits prices none of them
//                   again; no cache, or one that never hits, every one.
// Beside the gates, response cases: quotes equal to those the check
// computes from the shipped pricing model, lone and sampled under load;
// 400s for bad input; every request received by the process the check
// started, with nothing kept in other processes; and a repeated quote
// answered sooner than a new one, by at least a quarter of t, the CPU time
// of one quote from the pricing model on this machine (wall time against
// wall time, in pairs: a copy of the model kept for the products seen
// before calls priceQuote no more often than a cache does, but saves no
// time).
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
  checkpoints: 7,
  settle: 300, // new products, each asked for once, between the repeated quotes and the first checkpoint
  hotQuotes: 20, // the repeated set: a cache must hold at least this many
  seconds: 0.3, // the repeated quotes under load, counted; then as long of new products, some of them checked
  latencySamples: 41, // pairs of a repeated and a new quote, one at a time (an odd number: a median of them)
  hitSavesT: 0.25, // a new quote must take at least this many t longer than a repeated one, in the median pair
  tDrift: 1.5, // t timed before and after the pairs may differ by this factor before a verdict that depends on it is called noise
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
  // Kept: t is timed again on either side of the timed pairs. The
  // calibration runs while the app starts and answers its first requests:
  // its 600 quotes of warm-up are untimed, and a timing it takes while the
  // app is busy can only read high, which matters nowhere: the pairs are
  // judged against the lowest of the three timings of t.
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
  // A load, with what the probe counted during it: the calls to the model
  // (in every thread and process of the app) and the requests the app's own
  // process received.
  const countedLoad = async (keys, label, options) => {
    const calls = await app.calls();
    const { served } = await app.cpuAndRequests();
    const result = await load(keys, label, options);
    return { result, calls: (await app.calls()) - calls, served: (await app.cpuAndRequests()).served - served };
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

  // Gate 1: how many quotes the cache holds at once.
  progress(`Quotes for ${SETTINGS.fill} new products (more than the budget of ${SETTINGS.budget}), then the same ones again, newest first`);
  const fill = await countedLoad(filled, 'the new products');
  // Asked for again under load, in order: a cache of at most 500 quotes
  // holds at most 500 of the 600 when this begins, and what it prices
  // meanwhile is a quote of this same pass, asked for already, so no order
  // of arrival can make it answer more than 500 from the cache (a request
  // that overtakes another can only make one more of them a miss).
  const again = await countedLoad([...filled].reverse(), 'the same products again');
  // Each quote asked for again that did not call the model came from the
  // cache: counted, not timed (see the gate's comment).
  const priced = again.calls;
  const held = SETTINGS.fill - priced;
  responses.push(modelUsedCase(fill.calls));
  // Requests answered under load against those the app's own process
  // received: from this load on, the timed rounds' added later. Judged here
  // already, so that a check that stops at this point (on a count over its
  // limit, or another wrong answer) still names a cluster for what it is.
  let answered = fill.result.responses + again.result.responses;
  let received = fill.served + again.served;
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

  // Gate 3: do repeated quotes hit? 20 products new to the app now that
  // its cache is full (a cache must admit them to hit them later), each
  // asked for once, then over and over under load; the probe counts the
  // calls to the model meanwhile, as for the held count. A cache that hits
  // prices none of them again; no cache, a key that never repeats, or a
  // cache too small for 20 quotes prices nearly every one. Counted, not
  // timed: until 2026-11-28 this gate was the CPU time a repeated quote
  // saved against a new one, in rounds of each under load, against t. It
  // took 3.3 s of a 14 s check, and on a 2-vCPU VM a background compile
  // landing in one round moved a round's CPU per quote by tenths of a
  // millisecond: with a cheaper model (about 1 ms a quote instead of 2)
  // and 0.2 s rounds, a cache that never hit read up to 0.7 ms saved
  // against a bar of 0.2-0.35 ms. Whether a hit saves time is judged
  // below, by the clock (the "sooner" case).
  progress(`Repeated quotes: ${SETTINGS.hotQuotes} products new to the app, each asked for once, then over and over for ${SETTINGS.seconds} s; counting the quotes priced again`);
  for (const key of hot) {
    const res = await get(app.url + quotePath(key)).catch((e) => e);
    if (key === hot[7]) responses.push(quoteCase(`GET ${quotePath(key)} (a product new to the app)`, res, expected(key)));
  }
  const repeats = await countedLoad(hot, 'the repeated quotes', { amount: undefined, duration: SETTINGS.seconds });
  const { result: repeatLoad, calls: pricedAgain } = repeats;
  received += repeats.served;
  answered += repeatLoad.responses;
  // Calls can outnumber answers by the few requests still in flight when
  // the load stops: a share below zero is none.
  const hitShare = Math.max(0, 1 - pricedAgain / Math.max(repeatLoad.responses, 1));
  progress(`  ${repeatLoad.responses} repeated quotes answered, ${pricedAgain} priced again`);
  const hitFigure = {
    value: 100 * hitShare,
    scale: `of ${repeatLoad.responses} answers to ${SETTINGS.hotQuotes} products asked for over and over, the share answered without a call to the model's ${MODEL_FUNCTION} (${pricedAgain} calls)`,
  };

  // A repeated quote must also come back sooner than a new one: an app
  // that keeps a copy of the model for the products it has seen calls
  // priceQuote no more often than a cache does, and answers a repeated
  // quote as slowly as a new one. Wall time against wall time, in pairs: a
  // quote of the 20 just repeated, then a new one, one at a time, and the
  // median over the pairs of how much longer the new one took. The two of
  // a pair are a few milliseconds apart, so they meet the machine at the
  // same speed; a pause that delays one of them (a GC, a late wake-up,
  // another program) moves that pair alone, and as often one way as the
  // other. What a hit saves is the pricing, about t, whatever the way to
  // the cache costs: a cache in a worker thread pays a round trip on hits
  // and misses alike, and saves as much. Without a cache the two differ by
  // nothing. t is timed just before and just after the pairs, with the app
  // idle, so that the pairs are judged against the machine's speed of
  // their own moment (on a shared 2-vCPU VM it flips twofold from one
  // second to the next); the lowest of those and the first timing counts.
  // Measured on 2026-11-28 (2-vCPU AMD EPYC VM, Node 20 idle and with a CPU
  // hog, Node 24, Node 26; 4 checks per design and setting): the median
  // pair read 0.70-1.87 t for five designs whose cache hits (the
  // reference, two generations, an LRU of serialised quotes, a cache in a
  // worker thread, lru-cache beside a Set of keys), -0.20 to 0.09 t for three that never
  // save the pricing (no cache, pricing in a child process with no cache,
  // a copy of the model for products seen before): 2.8× either side of
  // the bar at worst.
  await app.waitUntilIdle();
  const tBefore = (await calibrator.call('quoteCost', [modelFile, []])).t;
  progress(`Timing ${SETTINGS.latencySamples} pairs of quotes, one at a time: a repeated one, then a new one`);
  const probes = newKeys(`${tag}-probe`, SETTINGS.latencySamples, { long: true });
  const times = await sequentialLatencies(app.url, probes.flatMap((key, i) => [hot[i % hot.length], key]));
  const repeated = times.filter((_, i) => i % 2 === 0);
  const fresh = times.filter((_, i) => i % 2 === 1);
  const pairSaving = median(fresh.map((ms, i) => ms - repeated[i]));
  const tAfter = (await calibrator.call('quoteCost', [modelFile, []])).t;
  const tLowest = Math.min(t, tBefore, tAfter);
  const soonerBar = SETTINGS.hitSavesT * tLowest;
  responses.push({
    name: 'a repeated quote comes back sooner than a new one',
    pass: pairSaving >= soonerBar,
    expected: `a new quote at least ${SETTINGS.hitSavesT} t (${soonerBar.toFixed(2)} ms) slower than the repeated quote just before it, in the median of ${SETTINGS.latencySamples} pairs: a hit saves the pricing`,
    actual: `${pairSaving.toFixed(2)} ms slower (${(pairSaving / tLowest).toFixed(2)} t); repeated quotes took ${median(repeated).toFixed(2)} ms at the median, new ones ${median(fresh).toFixed(2)} ms`,
  });
  const tInfo = { id: 't', label: 'CPU time of one quote from the pricing model on this machine (t)', value: tLowest, unit: 'ms', text: `${tBefore.toFixed(2)} ms before the timed pairs, ${tAfter.toFixed(2)} ms after; ${t.toFixed(2)} ms at the start` };
  ctx.decide({ figures: { 'quotes-held': heldFigure, 'repeats-hit': hitFigure }, responses, info: [tInfo] }, 'counting repeated quotes');

  // New products, one round of them under load, before the memory
  // checkpoints: one more connection keeps some answers, for the quotes the
  // check knows. Then a block of new products, each asked for once, so that
  // V8 has settled what it keeps for the request path before the first
  // checkpoint (see the heap-per-quote gate).
  progress(`New products under load for ${SETTINGS.seconds} s (some of the answers kept and checked), then ${SETTINGS.settle} more`);
  const sampledRound = await load([], 'quotes of new products', {
    amount: undefined,
    duration: SETTINGS.seconds,
    path: (i) => quotePath([productName(`${tag}-r`, i), REGIONS[i % 5], CURRENCIES[(i * 3) % 5]]),
    sample: { path: (k) => quotePath(sampledUnderLoad[k % sampledUnderLoad.length]), keep: sampledUnderLoad.length },
  });
  const sampled = sampledRound.sampled.answers;
  const settleLoad = await load(newKeys(`${tag}-settle`, SETTINGS.settle, { long: true }), 'the new products before the checkpoints');

  // Gate 2: memory per new product, once the cache is full and the JIT has
  // settled (the round and the block above quoted hundreds of new products,
  // with names as long as the checkpoints' own).
  // New products quoted so far: the fill's, the round's and the block's
  // (the warm-up's and the timed pairs' are a few dozen more, not counted
  // here).
  const quotedBefore = SETTINGS.fill + sampledRound.responses + settleLoad.responses;
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
  judgeOwnProcess(); // the repeated quotes' requests added
  responses.push(wholeAppCase(readings));

  progress('Checking two quotes again after the load');
  for (const key of [filled[3], filled.at(-1)]) {
    const res = await get(app.url + quotePath(key)).catch((e) => e);
    responses.push(quoteCase(`GET ${quotePath(key)} (quoted during the load)`, res, expected(key)));
  }
  ctx.assertAlive(app, 'at the end of the check');

  const slope = medianSlope(points.map((p) => p.requests), points.map((p) => p.heapUsed));
  const rssSlope = medianSlope(points.map((p) => p.requests), points.map((p) => p.rss));
  // The time of one quote changed while the pairs were timed: the
  // machine's speed moved, or the calibrating process's own code did. That
  // is noise only where it could change the verdict: where the median pair
  // clears a quarter of the lowest t but not of the higher of the two
  // timings around the pairs. A hit saves about a whole t and no cache
  // about none, so either way the verdict stands.
  const noise = [];
  const tHigh = Math.max(tBefore, tAfter);
  if (tHigh / tLowest > SETTINGS.tDrift && pairSaving >= soonerBar !== pairSaving >= SETTINGS.hitSavesT * tHigh) {
    noise.push(`the time of one quote changed ${(tHigh / tLowest).toFixed(1)}× while the pairs of quotes were timed, and whether a repeated quote came back sooner depends on which is used`);
  }
  const last = readings.at(-1);

  return {
    figures: {
      'quotes-held': heldFigure,
      'heap-per-quote': {
        value: slope,
        scale: `median slope over ${SETTINGS.checkpointEvery * (SETTINGS.checkpoints - 1)} new products after ${quotedBefore.toLocaleString('en-US')} others; every thread, Buffers included, compiled code excluded`,
      },
      'repeats-hit': hitFigure,
    },
    responses,
    info: [
      tInfo,
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
    series: { heap: points, slope, t: { start: t, before: tBefore, after: tAfter }, held: { held, priced }, repeats: { answered: repeatLoad.responses, pricedAgain }, latencies: { repeated, fresh, saved: pairSaving } },
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
    // Why these thresholds (margins of the starter and the reference in
    // check/margins.json: 10-run benches on 2026-11-28, Node 20 idle and
    // with a hog, Node 24 and 26 idle; other designs measured alongside,
    // figures below):
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
    //   (~1.5 KB). Bounded caches read what V8 itself still settles after
    //   about 1,000 new products (the fill's 600, a round's and the settle
    //   block's), over the 1,500 that follow (compiled code is excluded).
    //   Measured on 2026-11-28 (2-vCPU AMD EPYC VM, 4 checks per design on
    //   Node 20 idle, Node 20 with a CPU hog, Node 24 and Node 26): a Set of
    //   every key beside a bounded cache (the check's product names are 200
    //   characters: the key is 208) read 379-441 B per product on Node 20,
    //   353-363 B on Node 24, 259-262 B on Node 26; the bounded designs that
    //   spend most, a cache in a worker thread 13-40 B and an LRU of the
    //   serialised quotes 3-40 B, two generations of 250 (quick-lru's
    //   design) 3-31 B. 100 B is the geometric middle of the worst of each
    //   (40 and 259): the bounded designs 2.5× inside at worst, the Set 2.6×
    //   past on Node 26 and 3.5× past or more elsewhere. (With 2,000 products
    //   after 1,070, until that day, the same sides read 37 B and 265 B.) A
    //   leak of 100 B per product sits on the gate and may go either way:
    //   the lesson's leaks keep a key, a quote or a line of log per product,
    //   all larger.
    //   Checkpoints 250 products apart, a divisor of the budget, see a
    //   cache that empties itself every 250 or 500 products at the same
    //   point of its cycle each time, so it reads flat too.
    // - repeats-hit: a count, as quotes-held is. Of the answers to 20
    //   products asked for over and over, the share given without a call
    //   to the model: a cache that holds them prices none again (100%),
    //   one that never hits prices every one (0%). Half is the bar: a cache that
    //   hits, hits every time here, and the count has no noise to leave room
    //   for.
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
      'repeats-hit': {
        label: 'repeated quotes answered from the cache',
        op: '>=',
        threshold: 50,
        unit: '%',
        exact: true,
        pass: 'A quote asked for again is served from the cache, without pricing it again.',
        fail: 'Quotes asked for again are priced again: the cache does not hit (no cache, a key that never repeats, or too small to hold 20 quotes).',
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
      kind: 'machine-independent',
      noise: `t timed before and after the pairs of quotes differs by more than ${SETTINGS.tDrift}×, and whether a repeated quote came back sooner depends on which is used.`,
    },
    captures: [{ load: true }, { tool: 'heap' }, { tool: 'gc' }],
    tools: ['heap', 'gc', 'heapprofiler'],
    charts: [
      { kind: 'heap-over-requests', title: 'Memory used over quotes of new products', x: 'new products quoted' },
    ],
  },
  __filename,
);
