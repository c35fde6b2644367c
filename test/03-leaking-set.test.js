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
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC)
// with `npm run bench -- --runs 10`, idle and with `--hog`, on Node 20.20.2
// and 24.21.0, 2026-11-21. Median slope, and the worst run's distance from
// the threshold:
//
//                  starter (must fail)           solution (must pass)
//   Node 20        143.5 B/req, worst 4.8× past   1.1 B/req, worst 13× inside
//   Node 20 + hog  143.4 B/req, worst 4.8× past   1.2 B/req, worst 17× inside
//   Node 24        150.2 B/req, worst 5.0× past   3.9 B/req, worst 6.5× inside
//   Node 24 + hog  150.7 B/req, worst 5.0× past   4.4 B/req, worst 5.8× inside
// A CPU hog does not move the figure: it counts V8's bytes, not time.
// Verdicts right: 80 of 80 across the four configurations.

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('03');

describe('lab 03 · leaking set', () => {
  describeLabVerdicts(lab, {
    starterFails: ['heap-per-request'],
  });
});
