'use strict';
// Lab 03 — the leaking Set. The check itself is test/checks/03-leaking-set.js
// (the same code `npx workbook check 03` runs); this file proves it judges right.
//
// Gate: heap-per-request — heap used after a forced GC, as a least-squares
// slope over 4 checkpoints of 5 000 /record requests after 5 000 of warm-up:
// < 30 B/request. Machine-independent: it counts V8's bytes, not time.
// "Too noisy" when the threshold lies within 2 standard errors of the slope.
// Plus 6 response cases: /record answers 201 with the reading, /summary's
// total equals the number of readings recorded and its latest is the last one.
//
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC,
// Node 20.20.2), `npm run bench -- --runs 10` idle and with `--hog`:
//   MARGINS (filled in from the bench below)

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('03');

describe('lab 03 · leaking set', () => {
  describeLabVerdicts(lab, {
    starterFails: ['heap-per-request'],
  });
});
