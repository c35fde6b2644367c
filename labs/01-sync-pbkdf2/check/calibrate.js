'use strict';
// Lab 01's unit of cost, t: one pbkdf2Sync with the app's parameters
// (10 000 iterations, 512 bytes, SHA-512), timed on this machine. Native
// work: timing it inside the test runner's sandbox is as good as in a
// plain process.

const crypto = require('node:crypto');
const { timeIt, cpuMsPerCall } = require('../../../scripts/harness/calibrate');
const { repeatsForClock } = require('../../../scripts/checks/against-reference');

const hasher = () => {
  const salt = crypto.randomBytes(128).toString('base64');
  return () => crypto.pbkdf2Sync('calibration', salt, 10000, 512, 'sha512');
};

/** t by the wall clock (ms): what the responsiveness gates are scaled by. */
function pbkdf2SyncCost(options) {
  return timeIt(hasher(), options);
}

/**
 * t in CPU time (ms): `count` hashes, their CPU time over their number. A
 * busy machine stretches a hash's wall time but hardly its CPU time; what
 * does move it is the other half of a shared core (on a 2-vCPU VM, a hash
 * took 52 or 93 ms of CPU from one second to the next), which is why the
 * check times one of these right beside each sign-in it judges.
 */
function pbkdf2CpuCost(count = 1) {
  return cpuMsPerCall(hasher(), count);
}

/**
 * How many hashes (and sign-ins) each side of a pair takes so that one step
 * of the CPU clock is at most 5% of it: one where the clock moves in µs
 * (Linux, macOS); where it moves in steps of 15.6 ms (Windows), enough for
 * 20 steps. `clockStepUs` may be null (the clock never moved: counted as
 * fine); `hashMs` is a hash's wall time, at least its CPU time.
 */
function hashesPerSide(clockStepUs, hashMs) {
  return repeatsForClock(clockStepUs, hashMs * 1000);
}

module.exports = { pbkdf2SyncCost, pbkdf2CpuCost, hashesPerSide };
