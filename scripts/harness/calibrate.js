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

/**
 * CPU time (user and system, this process's) per call of `fn`, over `count`
 * calls in a row, in ms. A busy machine stretches a call's wall time, hardly
 * its CPU time; see cpuClockStep() for how coarse the clock can be.
 */
function cpuMsPerCall(fn, count = 1) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) fn();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000 / count;
}

module.exports = { timeIt, cpuMsPerCall };
