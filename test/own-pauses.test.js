'use strict';
// The measuring process's own pauses, from a simulated clock: which part
// of an interval they cover, and a pause still going on when asked.

const { pausedWithin, watchOwnPauses } = require('../scripts/harness/own-pauses');

describe('pausedWithin', () => {
  const pauses = [
    [100, 250],
    [400, 420],
  ];
  test.each([
    [0, 90, 0], // before any pause
    [90, 300, 150], // the whole first pause
    [200, 410, 60], // the end of one and the start of the next
    [120, 130, 10], // inside one
    [500, 600, 0], // after both
  ])('[%i, %i] overlaps the pauses by %i ms', (from, to, expected) => {
    expect(pausedWithin(pauses, from, to)).toBe(expected);
  });
});

describe('watchOwnPauses', () => {
  test('a tick that comes late records the time it was late by, and a pause not yet ended counts when asked', () => {
    jest.useFakeTimers();
    let clock = 1000;
    const watch = watchOwnPauses({ everyMs: 5, slackMs: 3, now: () => clock });
    try {
      for (let i = 0; i < 4; i++) {
        clock += 5;
        jest.advanceTimersByTime(5);
      }
      expect(watch.pauses()).toEqual([]);
      clock += 200; // the loop held up: the next tick runs 200 ms after the last
      jest.advanceTimersByTime(5);
      expect(watch.pauses()).toEqual([[1025, 1220]]);
      expect(pausedWithin(watch.pauses(), 1000, 1300)).toBe(195);
      clock += 50; // held up again, asked before the ticker could run
      expect(pausedWithin(watch.pauses(), 1200, 1270)).toBe(20 + 45);
    } finally {
      watch.stop();
      jest.useRealTimers();
    }
  });
});
