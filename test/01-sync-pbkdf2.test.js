'use strict';
// Lab 01 — synchronous pbkdf2. The check itself is test/checks/01-sync-pbkdf2.js
// (the same code `npx workbook check 01` runs); this file proves it judges right.
//
// Gates, in units of t = one pbkdf2Sync measured on the machine during the check:
//   health-p50      /health median latency while /auth is loaded   < 0.5 t
//   loop-delay-p99  event-loop delay p99 inside the app            < 1 t
//   auth-work       one /auth alone still costs a hash             ≥ 0.3 t
// plus 14 response cases (sign-up/sign-in statuses, duplicates, bad input,
// no cache standing in for the hash under load).
//
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC)
// with `npm run bench -- --runs 10`, idle and with `--hog` (one
// `node -e "for(;;){}"` beside it), on Node 20.20.2 and 24.21.0, 2026-11-21.
// Figure ÷ threshold (median of 10), and the worst run's distance from the
// threshold ("×" past for the starter, inside for the solution):
//
//                      starter (must fail)            solution (must pass)
//   health-p50     N20  96.7  worst  82× past        0.090  worst 9.2× inside
//                  N20+hog 96.7  worst  88× past     0.102  worst 8.2× inside
//                  N24  105  worst >100× past        0.078  worst 9.5× inside
//                  N24+hog 110  worst  89× past      0.098  worst 7.6× inside
//   loop-delay-p99 N20  10.6  worst 9.9× past        0.207  worst 4.1× inside
//                  N20+hog 10.9  worst 10.4× past    0.208  worst 4.2× inside
//                  N24  10.3  worst 9.8× past        0.225  worst 3.4× inside
//                  N24+hog 10.6  worst 9.5× past     0.273  worst 3.0× inside
//   auth-work (a guard both sides pass): solution 3.5–3.7× the threshold,
//                  worst 2.6× inside (N20+hog)
// Verdicts right: 80 of 80 (40 per side) across the four configurations.

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('01');

describe('lab 01 · sync pbkdf2', () => {
  describeLabVerdicts(lab, {
    starterFails: ['health-p50', 'loop-delay-p99'],
  });
});
