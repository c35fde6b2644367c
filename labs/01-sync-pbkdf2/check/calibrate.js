'use strict';
// Lab 01's unit of cost, t: one pbkdf2Sync with the app's parameters
// (10 000 iterations, 512 bytes, SHA-512), timed on this machine. Native
// work: timing it inside the test runner's sandbox is as good as in a
// plain process.

const crypto = require('node:crypto');
const { timeIt } = require('../../../scripts/harness/calibrate');

function pbkdf2SyncCost(options) {
  const salt = crypto.randomBytes(128).toString('base64');
  return timeIt(() => crypto.pbkdf2Sync('calibration', salt, 10000, 512, 'sha512'), options);
}

module.exports = { pbkdf2SyncCost };
