'use strict';
// Checks that judge the learner's app against the reference solution running
// beside it: the same answers to the same requests, and throughput measured
// in alternating rounds on the same machine at the same time.

const { isDeepStrictEqual } = require('node:util');
const { request, json } = require('../harness/http-client');
const { runLoad } = require('../harness/run-load');
const { median, medianInterval } = require('../harness/stats');
const { truncate } = require('./gates');

function mediaType(headers) {
  return String(headers['content-type'] || '(none)').toLowerCase().replace(/\s+/g, '');
}

function describe(res) {
  return `${res.status} ${mediaType(res.headers)} ${truncate(res.body || '(empty body)', 90)}`;
}

/**
 * Sends each request to the reference, then to the candidate, in order (so
 * stateful APIs see the same history), and compares status, content type and
 * body (parsed when it is JSON). The candidate's requests are therefore
 * lone ones, nothing else running: `onAnswer(case, response)` gets each of
 * its responses (with `ms`, its latency) for a check that judges more of it.
 * @param {Array<{name?:string, method?:string, path:string, body?:any, headers?:object}>} cases
 * @param {{onAnswer?: (c:object, response:object|Error) => void}} [options]
 */
async function compareResponses(candidate, reference, cases, { onAnswer = () => {} } = {}) {
  const results = [];
  for (const c of cases) {
    const method = c.method || 'GET';
    const name = c.name || `${method} ${c.path}`;
    const send = (app) => request(app.url + c.path, { method, body: c.body, headers: c.headers }).catch((err) => err);
    const expected = await send(reference);
    const actual = await send(candidate);
    onAnswer(c, actual);
    if (expected instanceof Error) throw new Error(`the reference solution did not answer ${name}: ${expected.message}`);
    if (actual instanceof Error) {
      results.push({ name, pass: false, expected: describe(expected), actual: actual.message });
      continue;
    }
    const problems = [];
    if (actual.status !== expected.status) problems.push(`status ${actual.status} instead of ${expected.status}`);
    if (mediaType(actual.headers) !== mediaType(expected.headers)) {
      problems.push(`content-type ${mediaType(actual.headers)} instead of ${mediaType(expected.headers)}`);
    }
    const a = json(actual);
    const e = json(expected);
    const sameBody = e !== undefined ? isDeepStrictEqual(a, e) : actual.body === expected.body;
    if (!sameBody) problems.push('a different body');
    results.push(
      problems.length
        ? { name, pass: false, expected: describe(expected), actual: `${problems.join(', ')}: ${describe(actual)}` }
        : { name, pass: true, expected: describe(expected), actual: describe(actual) },
    );
  }
  return results;
}

/**
 * Throughput of the candidate against the reference: after a warm-up of each
 * (so the JIT has compiled the hot paths), `rounds` pairs of runs of `seconds`
 * each, alternating which app goes first. Each pair gives one ratio; pairs
 * close in time share the machine's state, which cancels most of its drift.
 *
 * With `perCpu`, a run's figure is the app's requests per CPU-second it used
 * (user + system, all its threads) instead of per second of wall time: what
 * a request costs the app, whatever else the machine is doing. On a busy or
 * small machine the load generator competes with the app for the same cores
 * and narrows wall-clock ratios; CPU time does not see that.
 *
 * With `delayOfLastRun`, the candidate's event-loop delay is read by its
 * probe over its last run (`delay` in the result): the same load, measured
 * without a run of its own.
 *
 * With `enough` (enoughRounds()), rounds stop once they agree clearly; each
 * round ends with `afterRound({pairs, ratio, round, ownProcess})`, where a
 * check may decide (ctx.decide); ownProcess counts the candidate's responses
 * so far and those its own process received (with perCpu), for
 * ownProcessCase() in gates.js.
 * @param {string|string[]} path one path, or several that every connection cycles through
 * @returns {Promise<{candidate:number[], reference:number[], pairs:number[], ratio:number,
 *   errors:number, wall:{candidate:number[], reference:number[]},
 *   ownProcess:{answered:number, received:number}, unit:string}>} per run figures (in
 *   `unit`), the median pair ratio, and the candidate's responses with those its own
 *   process received (both 0 without perCpu)
 */
async function compareThroughput({ candidate, reference, path, rounds = 5, seconds = 0.6, connections = 10, warmupSeconds = 1, perCpu = false, delayOfLastRun = false, progress = () => {}, cpuClock = cpuClockStep, enough = null, afterRound = () => {} }) {
  progress(`Warming up both apps (${warmupSeconds} s each)`);
  const cpuRates = [];
  for (const app of [reference, candidate]) {
    const before = perCpu ? await app.cpuAndRequests() : null;
    const load = await runLoad({ url: app.url, path, connections, duration: warmupSeconds });
    if (perCpu) cpuRates.push(((await app.cpuAndRequests()).total - before.total) / 1e6 / (load.durationS || warmupSeconds));
    await app.waitUntilIdle();
  }
  let clockStepUs = null;
  if (perCpu) {
    // CPU time is read before and after each run, so a clock that moves in
    // coarse steps (Windows: about 15.6 ms) blurs each run's figure by up to
    // one step: runs get long enough for that to stay under 1%.
    clockStepUs = cpuClock();
    const longer = roundSeconds({ seconds, clockStepUs, cpuPerSecond: Math.min(...cpuRates) });
    if (longer > seconds) {
      progress(`This system's CPU-time clock moves in ${(clockStepUs / 1000).toFixed(1)} ms steps: runs of ${longer.toFixed(2)} s instead of ${seconds} s, so a step stays under 1% of a run's CPU time`);
      seconds = longer;
    }
  }
  const samples = { candidate: [], reference: [] };
  const wall = { candidate: [], reference: [] };
  const pairs = [];
  let errors = 0;
  let responses = 0;
  let received = 0;
  // The unit of the figures: in full for charts, short for the progress lines.
  const unit = perCpu ? { full: 'requests per CPU-second', short: 'req per CPU-s' } : { full: 'req/s', short: 'req/s' };
  let delay = null;
  let roundsRun = 0;
  // The candidate's responses so far, and those its own process received
  // (counted with perCpu only: none without it).
  const ownProcess = () => ({ answered: responses, received });
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['candidate', 'reference'] : ['reference', 'candidate'];
    for (const who of order) {
      const app = who === 'candidate' ? candidate : reference;
      // Read in every round of the candidate's, kept from the last one that
      // runs (rounds may stop early).
      const readDelay = delayOfLastRun && who === 'candidate';
      const before = perCpu ? await app.cpuAndRequests() : null;
      if (readDelay) await app.resetEventLoopDelay();
      const load = await runLoad({ url: app.url, path, connections, duration: seconds });
      const after = perCpu ? await app.cpuAndRequests() : null;
      if (readDelay) delay = await app.eventLoopDelay();
      await app.waitUntilIdle();
      if (who === 'candidate') {
        errors += load.errors + load.timeouts;
        if (perCpu) {
          responses += load.responses;
          received += after.served - before.served;
        }
      }
      wall[who].push(load.requestsPerSec);
      samples[who].push(perCpu ? load.responses / Math.max((after.total - before.total) / 1e6, 1e-6) : load.requestsPerSec);
    }
    pairs.push(samples.candidate.at(-1) / samples.reference.at(-1));
    roundsRun = round + 1;
    progress(
      `  round ${round + 1}/${rounds}: yours ${Math.round(samples.candidate.at(-1))} ${unit.short}, ` +
        `reference ${Math.round(samples.reference.at(-1))} ${unit.short} (${pairs.at(-1).toFixed(2)}×)`,
    );
    // A check may decide here (ctx.decide throws to end the check).
    await afterRound({ pairs: [...pairs], ratio: median(pairs), round: roundsRun, ownProcess: ownProcess() });
    if (enough && roundsRun >= enough.minRounds && roundsRun < rounds && enough.clear(pairs)) {
      progress(`  ${enough.describe ? enough.describe(pairs) : `the ${roundsRun} rounds agree, and clearly`}: no more rounds needed`);
      break;
    }
  }
  return {
    candidate: samples.candidate,
    reference: samples.reference,
    pairs,
    ratio: median(pairs),
    errors,
    wall,
    ownProcess: ownProcess(),
    unit: unit.full,
    seconds,
    clockStepUs,
    delay,
    rounds: roundsRun,
  };
}

/**
 * When a ratio gate's rounds may stop before `rounds`: from `minRounds` on,
 * once every pair ratio so far lies on the same side of the threshold as
 * their median, and that median lies `factor` times or more from it. Such
 * a run is not near its threshold; more rounds are spent only on runs that
 * are (and the disagreement rule, roundsNoise, still judges those).
 * @param {{threshold:number, op:'>='|'<', minRounds:number, factor?:number}} gate
 */
function enoughRounds({ threshold, op = '>=', minRounds, factor = 1.5 }) {
  const passes = (r) => (op === '>=' ? r >= threshold : r < threshold);
  return {
    minRounds,
    clear(pairs) {
      if (pairs.length < minRounds) return false;
      const m = median(pairs);
      const side = passes(m);
      const distance = side === (op === '>=') ? m / threshold : threshold / m;
      return pairs.every((r) => passes(r) === side) && distance >= factor;
    },
    /**
     * What clear() saw, in words: the rounds agree about the verdict, not
     * with each other (their ratios may differ by half and still all pass).
     */
    describe(pairs) {
      const m = median(pairs);
      const side = passes(m);
      const distance = side === (op === '>=') ? m / threshold : threshold / m;
      const where = side ? 'pass' : 'fail';
      return (
        `all ${pairs.length} rounds ${where} (ratios ${pairs.map((r) => `${r.toFixed(2)}×`).join(', ')}, threshold ${threshold}×), ` +
        `and their median, ${m.toFixed(2)}×, is ${distance.toFixed(1)}× from the threshold`
      );
    },
  };
}

/**
 * For comparisons whose starter and fixes sit close to the threshold on some
 * machines (a gap of two or three times, where a noisy round can land on the
 * wrong side): rounds go on until the median of the pair ratios is on one
 * side of the threshold with `confidence`, i.e. its distribution-free
 * interval (stats.medianInterval, the sign test's) lies wholly on that
 * side, or until enoughRounds() would stop them anyway. A run with more
 * rounds than `rounds` asks for is one the machine made hard to judge: it
 * costs time, never the verdict.
 * @param {{threshold:number, op:'>='|'<', minRounds:number, confidence?:number}} gate
 */
function roundsUntilDecided({ threshold, op = '>=', minRounds, confidence = 0.9 }) {
  const clearly = enoughRounds({ threshold, op, minRounds });
  const passes = (r) => (op === '>=' ? r >= threshold : r < threshold);
  const interval = (pairs) => medianInterval(pairs, confidence);
  const decided = (pairs) => {
    if (clearly.clear(pairs)) return true;
    const range = interval(pairs);
    return range !== null && passes(range[0]) === passes(range[1]);
  };
  return {
    minRounds,
    clear: decided,
    describe(pairs) {
      if (clearly.clear(pairs)) return clearly.describe(pairs);
      const [lo, hi] = interval(pairs);
      const where = passes(median(pairs)) ? 'passes' : 'fails';
      return `after ${pairs.length} rounds the median ratio, ${median(pairs).toFixed(2)}×, ${where}, and its ${Math.round(confidence * 100)}% interval (${lo.toFixed(2)}× to ${hi.toFixed(2)}×) lies wholly on that side of the threshold, ${threshold}×`;
    },
    /** The check's noise list when the rounds ran out undecided. */
    noise(pairs) {
      if (decided(pairs)) return [];
      const range = interval(pairs);
      const within = range ? `; the ${Math.round(confidence * 100)}% interval of their median, ${range[0].toFixed(2)}× to ${range[1].toFixed(2)}×, holds the threshold, ${threshold}×` : '';
      return [`after ${pairs.length} rounds the ratios still disagree about the verdict (${pairs.map((r) => r.toFixed(2)).join(', ')})${within}`];
    },
  };
}

/**
 * The step (µs) in which `read()` (CPU time in µs, by default this process's
 * user + system) moves: the median of `steps` increments observed in a busy
 * loop. A few µs on Linux; on Windows libuv reads GetProcessTimes (in
 * uv_getrusage, src/win/util.c), which counts CPU time in steps of the clock
 * interrupt, 15.6 ms by default. Null if the clock never moved within
 * `budgetMs`.
 */
function cpuClockStep({ read = cpuMicros, steps = 5, budgetMs = 500, now = Date.now } = {}) {
  const increments = [];
  const deadline = now() + budgetMs;
  let last = read();
  while (increments.length < steps && now() < deadline) {
    const value = read();
    if (value !== last) {
      increments.push(value - last);
      last = value;
    }
  }
  return increments.length ? median(increments) : null;
}

/**
 * How many times to repeat a unit of work (`unitUs` µs, a rough cost) so that
 * one step of the CPU clock (`clockStepUs`, from cpuClockStep(); null when
 * the clock never moved, counted as fine) is at most 1/`steps` of what the
 * repeats cost together, never fewer than `min`.
 */
function repeatsForClock(clockStepUs, unitUs, { steps = 20, min = 1 } = {}) {
  return Math.max(min, Math.ceil((steps * (clockStepUs || 0)) / Math.max(unitUs, 1)));
}

function cpuMicros() {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * A run's length (s) such that one step of the CPU clock is at most
 * `maxShare` of the CPU time an app uses in a run (`cpuPerSecond`: CPU
 * seconds per second of load, from the warm-up), never shorter than
 * `seconds` and never longer than `maxSeconds`.
 */
function roundSeconds({ seconds, clockStepUs, cpuPerSecond, maxShare = 0.01, maxSeconds = 2 }) {
  if (!(clockStepUs > 0) || !(cpuPerSecond > 0)) return seconds;
  const needed = clockStepUs / 1e6 / maxShare / cpuPerSecond;
  return Math.min(Math.max(seconds, Math.ceil(needed * 20) / 20), Math.max(seconds, maxSeconds));
}

/**
 * "Too noisy" for a ratio gate: fewer than 80% of the pair ratios fall on
 * the same side of the threshold as their median, i.e. the rounds disagree
 * about the verdict.
 */
function pairsDisagree(pairs, threshold) {
  const agree = Math.ceil(pairs.length * 0.8);
  const passing = pairs.filter((r) => r >= threshold).length;
  const side = median(pairs) >= threshold ? passing : pairs.length - passing;
  return side < agree;
}

/**
 * The round or rounds the ratio of a comparison comes from: the figure is the
 * median of the pair ratios, which is the middle round's own ratio (for an
 * even number of rounds, halfway between the two middle rounds'). Each app's
 * median over the rounds is not: taken separately, the two medians may come
 * from different rounds, and their quotient need not be the ratio (rounds
 * of 1.19×, 0.77× and 1.03× have the median 1.03×, while the medians of
 * their figures may divide to 0.77×). A check that prints the two apps'
 * figures beside the ratio prints these rounds'.
 * @param {{candidate:number[], reference:number[], pairs:number[]}} measured from compareThroughput()
 * @returns {Array<{round:number, candidate:number, reference:number, ratio:number}>} one round (odd
 *   counts) or two (even), in the order of their ratios; `round` counts from 1
 */
function middleRounds(measured) {
  const order = measured.pairs.map((ratio, i) => ({ ratio, i })).sort((a, b) => a.ratio - b.ratio);
  const n = order.length;
  if (n === 0) return [];
  const middle = n % 2 === 1 ? [order[(n - 1) / 2]] : [order[n / 2 - 1], order[n / 2]];
  return middle.map(({ ratio, i }) => ({ round: i + 1, candidate: measured.candidate[i], reference: measured.reference[i], ratio }));
}

/** The response case every throughput comparison adds: the candidate answered everything. */
function answeredUnderLoad(measured) {
  return {
    name: 'every request under load answered',
    pass: measured.errors === 0,
    expected: 'no errors or timeouts',
    actual: `${measured.errors} ${measured.errors === 1 ? 'error or timeout' : 'errors or timeouts'}`,
  };
}

/** The check's noise list for a throughput comparison against `threshold`. */
function roundsNoise(measured, threshold) {
  return pairsDisagree(measured.pairs, threshold)
    ? [`the rounds disagreed about the verdict (ratios ${measured.pairs.map((r) => r.toFixed(2)).join(', ')})`]
    : [];
}

module.exports = { compareResponses, compareThroughput, enoughRounds, roundsUntilDecided, middleRounds, answeredUnderLoad, roundsNoise, cpuClockStep, repeatsForClock, roundSeconds };
