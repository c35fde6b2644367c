'use strict';
// t for lab 06: one Brotli compression of a sales report at zlib's default
// settings (quality 11, the app's), timed synchronously on one thread. The
// check runs it in a plain Node process (scripts/harness/in-child.js), so
// neither the test runner nor the app under load slows it down.

const zlib = require('node:zlib');
const { timeIt } = require('../../../scripts/harness/calibrate');

/** @param {string} json the report to compress @returns {{median:number, spread:number, samples:number[]}} ms */
function brotliCost(json, runs = 5) {
  return timeIt(() => zlib.brotliCompressSync(json), { runs, warmup: 1 });
}

module.exports = { brotliCost };
