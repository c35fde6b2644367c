'use strict';
// Measures what a unit of work costs on *this* machine, right now, so the
// checks can express their thresholds in that unit instead of in absolute
// milliseconds that would only be true on one laptop.

const { median, spread } = require('./stats');

/**
 * Times `fn` `runs` times after `warmup` untimed calls.
 * @returns {{median:number, spread:number, samples:number[]}} in ms
 */
function timeIt(fn, { runs = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { median: median(samples), spread: spread(samples), samples };
}

module.exports = { timeIt };
