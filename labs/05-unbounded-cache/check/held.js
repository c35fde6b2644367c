'use strict';
// How many quotes lab 05's cache holds at once, from the quotes the check
// asks for again one at a time: each one the app answers without pricing
// it again was still in its cache. Whether a request was priced is read
// from its cost inside the app (the probe records each request's CPU time
// and wall time from its arrival to its response), against what the same
// app spent on quotes of products it had never seen: pricing costs about
// that much again, a cache hit a small fraction of it.

/**
 * @param {Array<{cpu:number, wall:number}>} costs µs per request asked for again
 * @param {object} options
 * @param {{cpu:number, wall:number}} options.miss what a quote of a new product cost the app (µs, median)
 * @param {number|null} options.clockStepUs the step in which this system's CPU clock moves (µs)
 * @returns {{hits:number, by:'cpu'|'wall', ambiguous:number}} hits; how they were told
 *   apart; and, when told by wall time, how many requests fell between a hit and a miss
 */
function countHits(costs, { miss, clockStepUs }) {
  // CPU time is what pricing costs, whatever else the machine does: a busy
  // machine makes a hit slower, not more expensive. Where the CPU clock
  // moves in steps too coarse to time one pricing (Windows: about 15.6 ms,
  // see cpuClockStep), the app's own wall time per request is used instead:
  // a miss can never take much less than its pricing, but a hit held up by
  // the machine can look like a miss, so hits can only be undercounted, and
  // requests that land between the two are counted as ambiguous.
  const byCpu = clockStepUs > 0 && clockStepUs <= miss.cpu / 4;
  if (byCpu) return { hits: costs.filter((c) => c.cpu < miss.cpu / 2).length, by: 'cpu', ambiguous: 0 };
  return {
    hits: costs.filter((c) => c.wall < miss.wall / 2).length,
    by: 'wall',
    ambiguous: costs.filter((c) => c.wall >= miss.wall / 4 && c.wall < (3 * miss.wall) / 4).length,
  };
}

module.exports = { countHits };
