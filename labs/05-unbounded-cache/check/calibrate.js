'use strict';
// Lab 05's calibration, run by the check in a plain Node process (see
// scripts/harness/in-child.js): the CPU time of one quote from the shipped
// pricing model on this machine (t), and the quotes the check expects for
// the keys it will ask about.
//
// t is CPU time, not wall time, because the gate it scales is CPU time too:
// on a busy machine the wall time of a quote stretches while its CPU time
// does not, and a threshold in wall time would loosen with the load. The app
// prices quotes on code its JIT has optimised, so t is timed on such code:
// the first call of this process warms the model up with `warmUpQuotes`
// untimed quotes (the check's setting calibrationWarmUp), later calls with
// a few. How many it takes depends on the
// Node version's tiering (measured on a 2-vCPU VM, batches of 10 quotes,
// when the model simulated 600 years a quote: on Node 20 a quote reached
// its steady 1.0 ms after about 10 quotes, on Node 26 its 0.92 ms after
// about 40, on Node 24 it stayed at 2.3 ms, its Maglev code, for about 250
// quotes before Turbofan's code brought it to 0.93 ms; with 300 years, on
// 2026-11-28, Node 24 still took about 250 quotes to go from 1.3-1.4 ms to
// 0.7-0.8 ms). With 20 warm-up quotes, Node 24's t read 2.4 ms while the
// app priced a quote in 1.0 ms, and a correct cache failed the check.
let warmedUp = false;

const { median } = require('../../../scripts/harness/stats');
const { cpuMsPerCall } = require('../../../scripts/harness/calibrate');
const { cpuClockStep, repeatsForClock } = require('../../../scripts/checks/against-reference');

/**
 * How to sample: each sample at least 20 steps of the CPU clock long, so a
 * step is at most 5% of it. Where the clock is fine (Linux, macOS: a few
 * µs), 15 samples of 4 quotes; where it moves in 15.6 ms steps (Windows),
 * 5 samples of a few hundred quotes (about 1.5 s in all).
 * @param {number} clockStepUs @param {number} quoteUs a rough cost of one quote
 */
function samplingFor(clockStepUs, quoteUs) {
  const perSample = repeatsForClock(clockStepUs, quoteUs, { min: 4 });
  return { samples: perSample > 4 ? 5 : 15, perSample };
}

/**
 * @param {string} pricingFile the pricing model as shipped (a copy in a scratch folder)
 * @param {Array<[string, string, string]>} keys [product, region, currency] to quote
 * @param {number} [warmUpQuotes] untimed quotes before the first timing of this process
 * @returns {{t:number, quotes:object[]}} t in ms of CPU time
 */
function quoteCost(pricingFile, keys, warmUpQuotes = 20) {
  const { priceQuote } = require(pricingFile);
  const regions = ['eu', 'us', 'jp'];
  let n = 0;
  // Fresh products each time: the model has no cache of its own, but a
  // calibration should not depend on that.
  const quote = () => priceQuote(`calibration-${n}`, regions[n++ % 3], 'USD');
  const warmUp = warmedUp ? 20 : warmUpQuotes;
  for (let i = 0; i < warmUp; i++) quote();
  warmedUp = true;
  const started = process.hrtime.bigint();
  for (let i = 0; i < 4; i++) quote();
  const roughUs = Number(process.hrtime.bigint() - started) / 1000 / 4;
  const { samples: count, perSample } = samplingFor(cpuClockStep(), roughUs);
  const samples = Array.from({ length: count }, () => cpuMsPerCall(quote, perSample));
  return { t: median(samples), quotes: keys.map(([product, region, currency]) => priceQuote(product, region, currency)) };
}

module.exports = { quoteCost, samplingFor };
