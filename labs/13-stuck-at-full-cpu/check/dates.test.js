'use strict';
// The orders of each stage of lab 13's check stay in the store: no stage's
// orders may fall inside a later stage's period, or the later read holds
// orders its expected answer does not (a correct app would fail).

const { contractHour } = require('./contract');

const lowest = { int: (lo) => lo };
const highest = { int: (lo, hi) => hi };

test("the contract's hour of orders ends before the warm-up's earliest day (December 1, 2030, 06:00) and the families' 2031", () => {
  const hour = 3_600_000;
  expect(contractHour(lowest)).toBe(Date.UTC(2030, 5, 1, 9));
  expect(contractHour(highest) + hour).toBeLessThan(Date.UTC(2030, 11, 1, 6));
  expect(contractHour(highest) + hour).toBeLessThan(Date.UTC(2031, 0, 1));
});
