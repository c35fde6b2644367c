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
 * The time of one Handlebars compile (plus a trivial render, since compile is
 * lazy) of `source`, after three untimed ones: lab 04's app compiles on every
 * request, so its compiles run on warmed-up code, and t must too.
 */
function handlebarsCompileCost(source) {
  const handlebars = require('handlebars'); // only lab 04's calibration needs it
  return timeIt(() => handlebars.compile(source)({ units: {} }), { runs: 3, warmup: 3 });
}

module.exports = { timeIt, handlebarsCompileCost };
