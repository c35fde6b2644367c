'use strict';
// Lab 05's calibration, run by the check in a plain Node process (see
// scripts/harness/in-child.js): the CPU time of one quote from the shipped
// pricing model on this machine (t), and the quotes the check expects for
// the keys it will ask about.
//
// t is CPU time, not wall time, because the gate it scales is CPU time too:
// on a busy machine the wall time of a quote stretches while its CPU time
// does not, and a threshold in wall time would loosen with the load. The app
// prices quotes on warmed-up code, so t is timed after 20 untimed quotes.

const { median } = require('../../../scripts/harness/stats');

const SAMPLES = 15;
const PER_SAMPLE = 4; // quotes per sample: CPU clocks tick coarsely on some systems

/**
 * @param {string} pricingFile the pricing model as shipped (a copy in a scratch folder)
 * @param {Array<[string, string, string]>} keys [product, region, currency] to quote
 * @returns {{t:number, quotes:object[]}} t in ms of CPU time
 */
function quoteCost(pricingFile, keys) {
  const { priceQuote } = require(pricingFile);
  const regions = ['eu', 'us', 'jp'];
  let n = 0;
  // Fresh products each time: the model has no cache of its own, but a
  // calibration should not depend on that.
  const quote = () => priceQuote(`calibration-${n}`, regions[n++ % 3], 'USD');
  for (let i = 0; i < 20; i++) quote();
  const samples = [];
  for (let s = 0; s < SAMPLES; s++) {
    const before = process.cpuUsage();
    for (let i = 0; i < PER_SAMPLE; i++) quote();
    const { user, system } = process.cpuUsage(before);
    samples.push((user + system) / 1000 / PER_SAMPLE);
  }
  return { t: median(samples), quotes: keys.map(([product, region, currency]) => priceQuote(product, region, currency)) };
}

module.exports = { quoteCost };
