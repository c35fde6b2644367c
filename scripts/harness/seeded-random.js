'use strict';
// A small seeded random generator (mulberry32) for the checks' inputs: the
// same seed gives the same inputs, so a failing run can be replayed from
// the seed it prints.

/**
 * @param {number} seed
 * @returns {{next: () => number, int: (lo:number, hi:number) => number, pick: (list:any[]) => any}}
 *   next: a float in [0, 1); int: an integer from lo to hi, both included; pick: one item of a list
 */
function seededRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[int(0, list.length - 1)];
  return { next, int, pick };
}

module.exports = { seededRandom };
