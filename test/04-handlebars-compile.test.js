'use strict';
// Lab 04 — a handlebars template compiled on every request. The check itself
// is test/checks/04-handlebars-compile.js (the same code `npx workbook check 04`
// runs); this file proves it judges right.
//
// Gates:
//   latency-p50       median of 7 lone /report requests      < 0.3 × t
//                     (t = one compile of the shipped template, timed in the check)
//   throughput-ratio  your req/s ÷ the reference's, 4 connections,
//                     median of 3 paired rounds of 0.75 s      ≥ 0.3
// plus 11 response cases: 8 answers compared with the reference (three users
// in a row, so a page cached across users fails; unicode and <script> names;
// 400s), the name HTML-escaped, the template unchanged, no errors under load.
//
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC,
// Node 20.20.2), `npm run bench -- --runs 10` idle and with `--hog`:
//   MARGINS (filled in from the bench below)

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('04');

describe('lab 04 · handlebars compile', () => {
  describeLabVerdicts(lab, {
    starterFails: ['latency-p50', 'throughput-ratio'],
  });
});
