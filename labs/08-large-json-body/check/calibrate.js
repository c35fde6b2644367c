'use strict';
// t for lab 08: one JSON.parse of the check's standard import (≈ 4.3 MB,
// 20 000 products), timed in a plain Node process (run by the check through
// scripts/harness/in-child.js) after two untimed parses, as the app's
// parses run on warmed-up code.

const { timeIt } = require('../../../scripts/harness/calibrate');
const { catalogue } = require('./catalogue');

function jsonParseCost({ runs = 5 } = {}) {
  const { body } = catalogue(0);
  return timeIt(() => JSON.parse(body), { runs, warmup: 2 });
}

module.exports = { jsonParseCost };
