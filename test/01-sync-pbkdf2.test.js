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
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC,
// Node 20.20.2), `npm run bench -- --runs 10` idle and with `--hog`
// (one `node -e "for(;;){}"` per core). "×" = distance from the threshold.
//   MARGINS (filled in from the bench below)

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('01');

describe('lab 01 · sync pbkdf2', () => {
  describeLabVerdicts(lab, {
    starterFails: ['health-p50', 'loop-delay-p99'],
  });
});
