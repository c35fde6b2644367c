'use strict';
// The first stage of lab 10's check: how long the app takes to judge a
// crafted address, against an ordinary address of the same length, sent one
// after the other in the same run.
//
// A backtracking pattern's time on a crafted address grows exponentially
// with the length of its run (about twice per character for the starter);
// a linear one judges both in about the time of an ordinary request. So
// the check does not send the longest crafted address at once (on the
// starter it would take longer than the universe has existed): for each
// family it grows the run from a few characters, in steps of four while the
// two times agree and of one once the crafted address takes twice as long,
// up to the longest run the specification's limits allow (MAX_RUN). A
// family whose crafted address already takes `stopRatio` times an ordinary
// one (or maxCraftedMs, once that is DECISIVE times the threshold) ends the
// stage: the app has shown what it does, and no request it is sent costs
// more than about four times that (one more character at most quadruples
// it, for any family here). With early verdicts on, a family already
// DECISIVE × past the threshold ends the whole check instead.
//
// Every family that reaches MAX_RUN is timed there again, the families in
// turn, until each has `topPairs` pairs of fresh addresses. The two
// addresses of a pair are sent back to back, so that a slow spell of the
// machine falls on both: a family's figure is the median, over its pairs,
// of crafted time ÷ ordinary time (a ratio that would end the stage must
// hold in two pairs). The gate judges the worst family.

const { request, json } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { truncate } = require('../../../scripts/checks/gates');
const { isAddress, ordinaryAddress, FAMILIES, MAX_RUN } = require('./addresses');

const FIRST_RUN = 8;
// From a crafted address this many times an ordinary one, the run grows one
// letter at a time (a late wake-up only slows the climb).
const SUSPICIOUS = 2;
// Before a ratio ends the stage, one more crafted address and this many more
// ordinary ones of its length are timed (the fastest of each side counts).
const CONFIRM_ORDINARIES = 2;

/** POST /subscribe with `email`; resolves with { status, body, ms } or an Error. */
function subscribe(url, email, { timeoutMs }) {
  return request(`${url}/subscribe`, { method: 'POST', body: JSON.stringify({ email }), timeoutMs }).catch((err) => err);
}

/** What is wrong with the answer to `email`, or null when it is the specification's. */
function answerProblem(email, res) {
  if (res instanceof Error) return res.message;
  const valid = isAddress(email);
  const body = json(res);
  if (valid) {
    if (res.status !== 201 && res.status !== 200) return `status ${res.status} for a valid address (${truncate(res.body || '(empty)', 60)})`;
    if (!body || body.subscribed !== email.toLowerCase()) return `status ${res.status} but not {"subscribed": "${truncate(email.toLowerCase(), 40)}"}: ${truncate(res.body, 60)}`;
    return null;
  }
  if (res.status !== 400) return `status ${res.status} for an invalid address`;
  if (!body || typeof body.error !== 'string') return `status 400 without a JSON {"error": "..."}: ${truncate(res.body || '(empty)', 60)}`;
  return null;
}

/**
 * @param {object} options
 * @param {string} options.url the app's base URL
 * @param {object} options.rand a generator of addresses.js, seeded for this run
 * @param {object} options.settings the check's SETTINGS (topPairs, stopRatio, requestTimeoutMs)
 * @param {number} options.decisiveRatio a figure at which the verdict is certain
 * @param {boolean} options.early whether a certain verdict ends the stage at once (false: go on
 *   to settings.stopRatio, or to a crafted address of settings.maxCraftedMs, for the bench)
 * @param {(text:string) => void} options.progress
 * @returns {Promise<CraftedResult>}
 */
async function judgeCrafted({ url, rand, settings, decisiveRatio, early, progress }) {
  const wrong = []; // { email, problem }
  const ordinaryTimes = [];
  const ordinaryLengths = [];
  const families = [];
  let sent = 0;
  let held = null; // a crafted request that got no answer in time: the app is stuck in it

  const ask = async (email) => {
    sent++;
    const res = await subscribe(url, email, { timeoutMs: settings.requestTimeoutMs });
    const problem = answerProblem(email, res);
    if (problem) wrong.push({ email, problem });
    return res instanceof Error ? { ms: Infinity, error: res } : res;
  };

  /**
   * `craftedCount` crafted addresses of `family` with a run of n and
   * `ordinaries` ordinary addresses of the same length, one at a time, the
   * two kinds alternating from `first`.
   */
  const pair = async (family, n, first, { crafted: craftedCount = 1, ordinaries = 1 } = {}) => {
    const example = family.make(rand, n);
    const sameLength = () => {
      for (let tries = 0; tries < 50; tries++) {
        const email = family.make(rand, n);
        if (email.length === example.length) return email;
      }
      return family.make(rand, n);
    };
    const queue = [];
    let c = 0;
    let o = 0;
    for (let turn = first; c < craftedCount || o < ordinaries; turn = turn === 'crafted' ? 'ordinary' : 'crafted') {
      if ((turn === 'crafted' && c < craftedCount) || o >= ordinaries) queue.push(['crafted', c++ === 0 ? example : sameLength()]);
      else queue.push(['ordinary', ordinaryAddress(rand, example.length), o++]);
    }
    const result = { crafted: [], ordinary: [], length: example.length, example };
    for (const [kind, email] of queue) {
      if (held) break;
      const res = await ask(email);
      if (kind === 'crafted') {
        if (res.error && /no answer within/.test(res.error.message)) held = { family: family.id, n, email };
        result.crafted.push(res.ms);
      } else {
        if (Number.isFinite(res.ms)) ordinaryTimes.push(res.ms);
        ordinaryLengths.push(email.length);
        result.ordinary.push(res.ms);
      }
    }
    return result;
  };

  let decided = null;
  const endsStage = early ? Math.min(decisiveRatio, settings.stopRatio) : settings.stopRatio;
  // Past a certain verdict, a crafted address of maxCraftedMs is enough
  // measuring: one letter more would only cost more time.
  const enough = (crafted, ratio) => ratio >= endsStage || (ratio >= decisiveRatio && crafted >= settings.maxCraftedMs);
  // The addresses of a pair are sent back to back, so a slow spell of the
  // machine falls on both alike: a pair's ratio is its crafted time over
  // its fastest ordinary time. Across pairs: the median of their ratios at
  // the longest run; the smallest before the stage ends on them (every
  // pair must show it).
  // The times shown are those of the pair the figure rests on (with an odd
  // number of pairs, the median is one of them), so that they divide into it.
  const settle = (record, pairs, combine) => {
    const timed = pairs
      .map((x) => ({ crafted: Math.min(...x.crafted), ordinary: Math.min(...x.ordinary), length: x.length, example: x.example }))
      .map((x) => ({ ...x, ratio: x.crafted / x.ordinary }))
      .sort((a, b) => a.ratio - b.ratio);
    const chosen = combine === 'median' ? timed[Math.floor((timed.length - 1) / 2)] : timed[0];
    const ratio = combine === 'median' ? median(timed.map((x) => x.ratio)) : chosen.ratio;
    Object.assign(record, { ratio, crafted: chosen.crafted, ordinary: chosen.ordinary, length: chosen.length, example: chosen.example });
  };
  let flip = 0;
  const order = () => (flip++ % 2 ? 'ordinary' : 'crafted');
  const top = new Map(); // family → its pairs at MAX_RUN

  // The climb: each family's run grows until it reaches MAX_RUN, or its
  // crafted address ends the stage.
  for (const family of FAMILIES) {
    const record = { id: family.id, describe: family.describe, valid: family.id === 'long-tld-valid', steps: [], n: null, ratio: null, crafted: null, ordinary: null, length: null, example: null, stopped: false };
    families.push(record);
    let n = FIRST_RUN;
    let step = 4;
    const recent = []; // the family's last ordinary times: the climb's yardstick
    for (;;) {
      const first = await pair(family, n, order());
      if (held) break;
      recent.push(...first.ordinary);
      // Measured against the fastest recent ordinary address: one slow
      // ordinary answer must not let the crafted ones climb on.
      const climb = first.crafted[0] / Math.min(...recent.slice(-6));
      if (climb >= SUSPICIOUS) step = 1; // growth, or a late wake-up: one letter at a time from here
      const pairs = [first];
      // Before the stage ends on it: one more crafted address and two more
      // ordinary ones of the same length.
      if (enough(first.crafted[0], climb)) pairs.push(await pair(family, n, order(), { crafted: 1, ordinaries: CONFIRM_ORDINARIES }));
      if (held) break;
      record.n = n;
      settle(record, pairs, 'smallest');
      record.steps.push({ n, crafted: record.crafted, ordinary: record.ordinary });
      if (enough(record.crafted, record.ratio)) {
        record.stopped = true;
        decided = record;
        break;
      }
      if (n >= MAX_RUN) {
        top.set(family, pairs);
        break;
      }
      n = Math.min(MAX_RUN, n + step);
    }
    progress(
      held
        ? `  ${family.id}: no answer within ${settings.requestTimeoutMs / 1000} s at a run of ${held.n}`
        : `  ${family.id}: ${record.stopped ? 'stopped at' : 'reached'} a run of ${record.n} (${record.length} characters): ${record.crafted.toFixed(1)} ms against ${record.ordinary.toFixed(1)} ms, ${record.ratio.toFixed(1)}×`,
    );
    if (held || decided || wrong.length) break;
  }

  // The longest runs, timed again: every family in turn, `topPairs` rounds,
  // so that a slow spell of the machine falls on many families a little
  // rather than on one family's every request.
  if (!held && !decided && !wrong.length && top.size) {
    progress(`  every family again at a run of ${MAX_RUN}, ${settings.topPairs - 1} more rounds`);
    for (let round = 1; round < settings.topPairs && !held; round++) {
      for (const [family, pairs] of top) {
        pairs.push(await pair(family, MAX_RUN, order()));
        if (held) break;
      }
    }
    for (const [family, pairs] of top) if (!held) settle(families.find((f) => f.id === family.id), pairs, 'median');
  }

  if (held) {
    const record = families.find((f) => f.id === held.family);
    Object.assign(record, { n: held.n, crafted: settings.requestTimeoutMs, ordinary: median(ordinaryTimes), length: held.email.length, example: held.email, stopped: true });
    record.ratio = record.crafted / record.ordinary;
  }
  const measured = families.filter((f) => Number.isFinite(f.ratio));
  const worst = measured.reduce((a, b) => (!a || b.ratio > a.ratio ? b : a), null);
  return { families, worst, held, wrong, sent, v: median(ordinaryTimes), ordinaryCount: ordinaryTimes.length, ordinaryLengths: [Math.min(...ordinaryLengths), Math.max(...ordinaryLengths)], complete: !decided && !held && !wrong.length };
}

/**
 * @typedef {object} CraftedResult
 * @property {object[]} families per family: id, n (its longest run), ratio, crafted and ordinary ms, length, example
 * @property {object} worst the family with the largest ratio
 * @property {object|null} held the crafted address the app did not answer in time, if any
 * @property {Array<{email:string, problem:string}>} wrong answers that were not the specification's
 * @property {number} sent requests sent
 * @property {number} v the median time to judge an ordinary address (ms)
 * @property {number[]} ordinaryLengths the shortest and longest ordinary address sent
 * @property {boolean} complete every family reached MAX_RUN
 */

module.exports = { judgeCrafted, subscribe, answerProblem, FIRST_RUN };
