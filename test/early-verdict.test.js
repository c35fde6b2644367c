'use strict';
// "A verdict as soon as it is certain": the rule that lets a check stop
// early (ctx.decide, define-check's DECISIVE), and the rule that lets a
// comparison in rounds stop once its rounds agree clearly (enoughRounds).
// Pure functions and hand-built checks: no app is started.

const { defineCheck, EarlyVerdict, DECISIVE } = require('../scripts/checks/define-check');
const { enoughRounds, roundsUntilDecided, middleRounds } = require('../scripts/checks/against-reference');
const { medianInterval } = require('../scripts/harness/stats');

const GATES = {
  latency: { label: 'latency', op: '<', threshold: 1, per: 't', unit: 'ms', pass: 'fast', fail: 'slow' },
  held: { label: 'held', op: '<', threshold: 501, unit: 'quotes', exact: true, pass: 'within', fail: 'over' },
  ratio: { label: 'ratio', op: '>=', threshold: 0.6, unit: '×', pass: 'close', fail: 'far' },
};
const STANDARD = { path: '/', connections: 1, duration: 1, describe: 'GET /' };
const EXPLAIN = { kind: 'calibrated', calibration: 't', noise: 'never' };

/** A check whose measure() goes through `stages`, calling decide after each as a check would. */
function checkOf(stages) {
  return defineCheck(
    {
      gates: GATES,
      starterFails: ['latency'],
      standardLoad: STANDARD,
      advice: 'a command',
      explain: EXPLAIN,
      async measure(ctx) {
        const figures = {};
        for (const [stage, found] of stages) {
          Object.assign(figures, found);
          ctx.decide({ figures: { ...figures }, responses: [] }, stage);
        }
        return { figures, responses: [], info: [], noise: [], series: {} };
      },
    },
    'a test check',
  );
}

/** A context with decide() as run-check.js's CheckContext has it. */
function contextFor(check, early = true) {
  return {
    early,
    check,
    progress: () => {},
    decide(partial, stage) {
      const wrong = (partial.responses || []).some((r) => !r.pass);
      if (this.early && (wrong || check.decisive(partial.figures || {}))) throw new EarlyVerdict(partial, stage);
    },
  };
}

const ALL_PASS = [
  ['first', { latency: { value: 0.1, per: 1 } }],
  ['second', { held: { value: 500 } }],
  ['third', { ratio: { value: 1 } }],
];

describe('a figure decides a fail once it is DECISIVE times past its threshold', () => {
  test('3× decides; just under 3× does not', () => {
    const check = checkOf([]);
    expect(DECISIVE).toBe(3);
    expect(check.decisive({ latency: { value: 3, per: 1 } })).toBe(true);
    expect(check.decisive({ latency: { value: 2.9, per: 1 } })).toBe(false);
    expect(check.decisive({ ratio: { value: 0.19 } })).toBe(true); // 0.6 / 0.19 > 3
    expect(check.decisive({ ratio: { value: 0.25 } })).toBe(false);
  });

  test('an exact count decides as soon as it is over its limit, by one', () => {
    expect(checkOf([]).decisive({ held: { value: 501 } })).toBe(true);
    expect(checkOf([]).decisive({ held: { value: 500 } })).toBe(false);
  });

  test('a figure that says why its fail is certain decides at any margin, and carries the reason to the report', async () => {
    const why = 'even the fastest tenth took two round trips';
    expect(checkOf([]).decisive({ latency: { value: 1.2, per: 1, certain: why } })).toBe(true);
    expect(checkOf([]).decisive({ latency: { value: 0.9, per: 1, certain: why } })).toBe(false); // it passes
    const check = checkOf([['the load', { latency: { value: 1.2, per: 1, certain: why } }], ...ALL_PASS.slice(1)]);
    const result = await check.run(contextFor(check));
    expect(result.early.stage).toBe('the load');
    expect(result.gates).toEqual([expect.objectContaining({ id: 'latency', pass: false, decisive: true, certain: why })]);
  });

  test('a passing figure, however far inside, never decides', () => {
    expect(checkOf([]).decisive({ latency: { value: 0.001, per: 1 }, held: { value: 0 }, ratio: { value: 99 } })).toBe(false);
  });

  test('a check that decides stops there: FAIL on what it measured, the rest named as not measured', async () => {
    const check = checkOf([['the first stage', { latency: { value: 5, per: 1 } }], ...ALL_PASS.slice(1)]);
    const result = await check.run(contextFor(check));
    expect(result.early).toEqual({ stage: 'the first stage', unmeasured: ['held', 'ratio'] });
    expect(result.gates.map((g) => [g.id, g.pass])).toEqual([['latency', false]]);
  });

  test('with early verdicts off (the bench), every gate is measured', async () => {
    const check = checkOf([['the first stage', { latency: { value: 5, per: 1 } }], ...ALL_PASS.slice(1)]);
    const result = await check.run(contextFor(check, false));
    expect(result.early).toBeUndefined();
    expect(result.gates.map((g) => g.id)).toEqual(['latency', 'held', 'ratio']);
  });

  test('a fail that decides is a fail however noisy the rest was (the bench runs without early verdicts)', async () => {
    const { verdictOf } = require('../scripts/checks/gates');
    const noisy = (stages) => {
      const check = checkOf(stages);
      return check.run(contextFor(check, false)).then((result) => verdictOf({ ...result, noise: ['rounds disagreed'] }));
    };
    // A count over its limit, or a figure 3× past: noise elsewhere cannot undo them.
    await expect(noisy([['held', { held: { value: 600 } }], ['rest', { latency: { value: 0.1, per: 1 }, ratio: { value: 1 } }]])).resolves.toBe('fail');
    await expect(noisy([['latency', { latency: { value: 5, per: 1 } }], ['rest', { held: { value: 1 }, ratio: { value: 1 } }]])).resolves.toBe('fail');
    // A fail by less than that could be the noise's doing: rerun.
    await expect(noisy([['latency', { latency: { value: 2, per: 1 } }], ['rest', { held: { value: 1 }, ratio: { value: 1 } }]])).resolves.toBe('noisy');
  });

  test('figures that do not decide let the check run to its end', async () => {
    const check = checkOf([['the first stage', { latency: { value: 2, per: 1 } }], ...ALL_PASS.slice(1)]);
    const result = await check.run(contextFor(check));
    expect(result.early).toBeUndefined();
    expect(result.gates.find((g) => g.id === 'latency').pass).toBe(false);
  });
});

describe('rounds stop once they agree clearly', () => {
  const enough = enoughRounds({ threshold: 0.6, op: '>=', minRounds: 4 });

  test('not before minRounds', () => expect(enough.clear([1, 1, 1])).toBe(false));
  test('every pair on the side of the median, the median 1.5× or more from the threshold', () => {
    expect(enough.clear([1, 1, 0.95, 1.1])).toBe(true); // 1 / 0.6 = 1.67
    expect(enough.clear([0.1, 0.12, 0.09, 0.1])).toBe(true); // failing side, 6× past
  });
  test('one pair on the other side: more rounds', () => expect(enough.clear([1, 1, 0.5, 1])).toBe(false));
  test('agreeing but near the threshold: more rounds', () => expect(enough.clear([0.8, 0.8, 0.85, 0.8])).toBe(false));
  test('for a "<" gate too', () => {
    const below = enoughRounds({ threshold: 1, op: '<', minRounds: 3 });
    expect(below.clear([0.5, 0.6, 0.55])).toBe(true);
    expect(below.clear([0.8, 0.7, 0.75])).toBe(false);
  });
});

describe("the median's distribution-free interval (sign test)", () => {
  const count = (n) => Array.from({ length: n }, (_, i) => i + 1);
  // Ranks from the binomial with p = 1/2: P(X <= 1) = 9/256 <= 0.05 < P(X <= 2)
  // for n = 8; P(X <= 4) = 0.038 for n = 16; P(X <= 5) = 0.021 for n = 20.
  test.each([
    [4, null],
    [5, [1, 5]],
    [8, [2, 7]],
    [16, [5, 12]],
    [20, [6, 15]],
  ])('%i values in order: %j', (n, interval) => expect(medianInterval(count(n), 0.9)).toEqual(interval));
  test('order does not matter', () => expect(medianInterval([7, 1, 8, 3, 2, 6, 5, 4], 0.9)).toEqual([2, 7]));
});

describe('rounds go on until their median is on one side of the threshold', () => {
  const until = roundsUntilDecided({ threshold: 0.6, op: '>=', minRounds: 4 });
  // A noisy CI run of lab 02's starter on Node 24 (2026-11-26): six of eight
  // rounds below the threshold, two above it.
  const noisy = [0.49, 0.84, 0.44, 0.27, 0.49, 1.09, 0.49, 0.6];
  test('rounds that agree clearly stop as before', () => expect(until.clear([0.3, 0.35, 0.3, 0.32])).toBe(true));
  test('six of eight on one side: undecided, more rounds', () => {
    expect(until.clear(noisy)).toBe(false);
    expect(until.noise(noisy)[0]).toMatch(/^after 8 rounds the ratios still disagree .* 0\.44× to 0\.84×, holds the threshold, 0\.6×$/);
  });
  test('twelve of sixteen below: the interval lies below, a fail', () => {
    const more = [...noisy, 0.45, 0.5, 0.41, 0.52, 0.48, 0.7, 0.47, 0.5];
    expect(until.clear(more)).toBe(true);
    expect(until.noise(more)).toEqual([]);
    expect(until.describe(more)).toMatch(/^after 16 rounds the median ratio, 0\.49×, fails, and its 90% interval \(0\.47× to 0\.52×\)/);
  });
  test('near the threshold, all on one side: five rounds decide', () => expect(until.clear([0.65, 0.7, 0.66, 0.68, 0.64])).toBe(true));
  test('for a "<" gate', () => {
    const below = roundsUntilDecided({ threshold: 1, op: '<', minRounds: 3 });
    expect(below.clear([0.9, 0.95, 0.92, 0.97, 0.91])).toBe(true);
    expect(below.clear([0.9, 1.05, 0.92, 0.97, 0.91])).toBe(false);
  });
});

describe('what a comparison in rounds prints agrees with its ratio', () => {
  test('the rounds agree about the verdict, in words that do not claim they agree with each other', () => {
    const enough = enoughRounds({ threshold: 0.32, op: '>=', minRounds: 3 });
    expect(enough.clear([1.19, 0.77, 1.03])).toBe(true);
    expect(enough.describe([1.19, 0.77, 1.03])).toBe('all 3 rounds pass (ratios 1.19×, 0.77×, 1.03×, threshold 0.32×), and their median, 1.03×, is 3.2× from the threshold');
    expect(enough.describe([0.1, 0.12, 0.09])).toMatch(/^all 3 rounds fail .* 0\.10×, is 3\.2× from the threshold$/);
  });
  test('the middle round carries the median ratio; the two apps\' separate medians need not', () => {
    // Yours 3000, 2650, 3100; the reference 2520, 3455, 3010: pair ratios 1.19, 0.77, 1.03.
    const measured = { candidate: [3000, 2650, 3100], reference: [2520, 3455, 3010], pairs: [3000 / 2520, 2650 / 3455, 3100 / 3010] };
    const [middle] = middleRounds(measured);
    expect(middle).toEqual({ round: 3, candidate: 3100, reference: 3010, ratio: 3100 / 3010 });
    expect(middle.candidate / middle.reference).toBeCloseTo(1.03, 2);
  });
  test('an even number of rounds has two middle rounds, in the order of their ratios', () => {
    const measured = { candidate: [1, 2, 3, 4], reference: [1, 1, 1, 1], pairs: [1, 2, 3, 4] };
    expect(middleRounds(measured).map((r) => r.round)).toEqual([2, 3]);
    expect(middleRounds({ candidate: [], reference: [], pairs: [] })).toEqual([]);
  });
});

test('an information item that is a sentence, not a figure, shows its label without "NaN" or "null"', () => {
  const { formatResult } = require('../scripts/checks/format');
  const { stripVTControlCharacters } = require('node:util');
  const result = {
    lab: '09-x', title: 'x', app: 'app.js', verdict: 'pass', responses: [], gates: [], noise: [], durationMs: 1000,
    environment: { node: 'v24.0.0', cpus: 2, cpuModel: 'CPU', platform: 'linux-x64' },
    info: [
      { id: 'figure', label: 'a figure', value: 2.5, unit: 'MB' },
      { id: 'live', label: 'what the staircase shows', value: NaN, unit: '', text: 'JSON: flat' },
      { id: 'saved', label: 'downloads abandoned', value: null, unit: '', text: 'not tried' },
    ],
  };
  const text = stripVTControlCharacters(formatResult(result));
  expect(text).toMatch(/ {2}a figure: 2\.50 MB\n/);
  expect(text).toMatch(/ {2}what the staircase shows\n {6}JSON: flat/);
  expect(text).toMatch(/ {2}downloads abandoned\n {6}not tried/);
  expect(text).not.toMatch(/NaN|null/);
});

// The fixtures' helper: which results of a cheat count as caught.
describe('expectGates', () => {
  const { expectGates } = require('./helpers/lab-verdicts');
  // A real result (lab 05's captured starter, for the fields a failure prints), its gates set here.
  const { results } = require('../site/static/captures/index.json').labs['05-unbounded-cache'];
  const captured = results.starter;
  const hitGate = results.solution.gates.find((g) => g.id === 'repeats-hit');
  const result = ({ hits, early = true }) => ({
    ...captured,
    verdict: 'fail',
    early: early ? { stage: 'counting repeated quotes', unmeasured: ['heap-per-quote'] } : null,
    gates: [{ ...hitGate, pass: hits }],
  });

  test('a gate expected to fail that passed fails the fixture', () => {
    expect(() => expectGates(result({ hits: true }), { 'repeats-hit': false, 'heap-per-quote': false })).toThrow(/Gate repeats-hit passed/);
  });

  test('a gate the check stopped before counts as unmeasured, if another expected failure was measured', () => {
    expect(() => expectGates(result({ hits: false }), { 'repeats-hit': false, 'heap-per-quote': false })).not.toThrow();
    expect(() => expectGates(result({ hits: true }), { 'heap-per-quote': false })).toThrow(/None of the gates this cheat should fail/);
    expect(() => expectGates(result({ hits: false, early: false }), { 'heap-per-quote': false })).toThrow(/Gate heap-per-quote is missing/);
  });
});
