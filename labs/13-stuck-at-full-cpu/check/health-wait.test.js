'use strict';
// Lab 13's /health gate on simulated probe timelines: when the control
// route's twin is taken off, and when the machine was too busy to judge.

const { healthExcess, healthNoise } = require('./health-wait');

const EVERY = 50;
/** A timeline of `n` requests, one per tick, each waiting `ms` unless `at` says otherwise. */
function timeline(n, ms, at = {}) {
  return {
    timeline: Array.from({ length: n }, (_, tick) => ({
      tick,
      sentAt: tick * EVERY,
      ms: at[tick]?.ms ?? ms,
      pausedMs: at[tick]?.pausedMs ?? 0,
      answered: at[tick]?.answered ?? true,
    })),
  };
}

const THRESHOLD = 136; // 30 × u, u = 4.5 ms

test('the excess is /health less its twin to the control route, each less the check\'s own pauses', () => {
  const health = timeline(20, 5, { 7: { ms: 60, pausedMs: 20 } });
  const control = timeline(20, 1, { 7: { ms: 25, pausedMs: 20 } });
  const worst = healthExcess(health, control, EVERY);
  expect(worst.excess).toBe(40 - 5);
  expect(worst.control).toBe(5);
});

test('a twin that failed is replaced by the longest control request sent within one interval', () => {
  const health = timeline(10, 5, { 4: { ms: 100 } });
  const control = timeline(10, 1, { 3: { ms: 30 }, 5: { ms: 70 } });
  control.timeline.splice(4, 1);
  expect(healthExcess(health, control, EVERY).excess).toBe(30);
});

describe('healthNoise', () => {
  test("CI, Node 26 (the reference): the check's own process was held up, /health's own waits stayed under the threshold: a sure pass", () => {
    // /health's longest raw wait 145 ms, 50 of it a pause of the check's
    // process; the control route's longest 88 ms, mostly the same pause.
    const health = timeline(28, 9, { 12: { ms: 145, pausedMs: 50 } });
    const control = timeline(28, 1, { 12: { ms: 88, pausedMs: 50 } });
    const { excess } = healthExcess(health, control, EVERY);
    expect(excess).toBeLessThan(THRESHOLD);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([]);
  });

  test('a pass that rests on the twin (both held up past the threshold) is too noisy', () => {
    const health = timeline(28, 9, { 12: { ms: 300 } });
    const control = timeline(28, 1, { 12: { ms: 250 } });
    const { excess } = healthExcess(health, control, EVERY);
    expect(excess).toBe(50);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([expect.stringMatching(/waited 300 ms, past the threshold of 136 ms/)]);
  });

  test('a clear pass is not noisy even when the control route was held up for a while', () => {
    const health = timeline(28, 9, { 3: { ms: 120 } });
    const control = timeline(28, 1, { 3: { ms: 110 } });
    const { excess } = healthExcess(health, control, EVERY);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([]);
  });

  test('a fail short of three times the threshold is too noisy when the machine held up the control route for half the threshold', () => {
    const health = timeline(28, 9, { 3: { ms: 300 } });
    const control = timeline(28, 1, { 9: { ms: 80 } });
    const { excess } = healthExcess(health, control, EVERY);
    expect(excess).toBe(299);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([expect.stringMatching(/held up even the control route \(longest 80 ms/)]);
  });

  test('a fail three times past the threshold stands however busy the machine was', () => {
    const health = timeline(28, 9, { 3: { ms: 960, answered: false } });
    const control = timeline(28, 1, { 9: { ms: 120 } });
    const { excess } = healthExcess(health, control, EVERY);
    expect(excess).toBeGreaterThanOrEqual(3 * THRESHOLD);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([]);
  });

  test("a fail stands when the control route answered promptly all along", () => {
    const health = timeline(28, 9, { 3: { ms: 200 } });
    const control = timeline(28, 1);
    const { excess } = healthExcess(health, control, EVERY);
    expect(healthNoise(health, control, excess, THRESHOLD)).toEqual([]);
  });
});
