'use strict';
// Lab 04's unit of cost, t: one Handlebars compile of the report template
// (plus a trivial render, since compile() is lazy: the work happens on the
// first call), after two untimed ones: in a new process the first compiles
// are slower (about 2.5× and 1.9× a warm one, then 1.1×). The app compiles on
// every request, so its compiles run on warmed-up code, and t must too. The check runs this
// in a plain Node process (scripts/harness/in-child.js): inside a test
// runner's sandbox JavaScript runs slower and would inflate t.

const handlebars = require('handlebars');
const { timeIt } = require('../../../scripts/harness/calibrate');

function handlebarsCompileCost(source, { runs = 3, warmup = 2 } = {}) {
  return timeIt(() => handlebars.compile(source)({ units: {} }), { runs, warmup });
}

module.exports = { handlebarsCompileCost };
