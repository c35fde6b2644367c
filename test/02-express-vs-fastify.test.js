'use strict';
// Lab 02 — Express vs Fastify. The check itself is test/checks/02-express-vs-fastify.js
// (the same code `npx workbook check 02` runs); this file proves it judges right.
//
// Gate: throughput-ratio — your requests per CPU-second of your app ÷ the
// reference solution's (Fastify 5 with response schemas), on GET / and
// GET /items?limit=20 alternating, 10 connections, median of 8 paired rounds
// of 0.35 s run back to back on the same machine: ≥ 0.6.
// Plus 23 responses compared with the reference (status, content type, JSON),
// including the 400 and 404 cases and the other resources' routes, no errors
// under load, and the requests answered by the process the check started (a
// cluster would hide its CPU).
//
// Why per CPU-second: on 2 cores autocannon and the app share the CPU, which
// squeezes a wall-clock ratio towards 1 (with a hog running, Node 24's starter
// measured 0.49 by wall clock, one run of 10 "too noisy"). What a request
// costs the app is what a framework changes, and that survives a busy machine.
//
// Why 0.6, and why the margins are below the 3× we aim for elsewhere: on this
// hardware Express 5 costs 5–7× Fastify per request on Node 20 but only
// 2.4–3.5× on Node 24 (Express got ~3× faster there; the VM's syscalls, the
// same for both, are a large share of each request). No threshold can sit 3×
// from both sides of a 3× gap. 0.6 keeps the fixed side (≈1.0) 1.4× clear in
// its worst run and every starter run below it; a round-by-round disagreement
// gives "too noisy, rerun", never a guess. On a laptop without a hypervisor the
// syscall share is smaller and the gap wider.
//
// Margins measured on this repository's CI machine class (2 vCPU AMD EPYC)
// with `npm run bench -- --runs 10`, idle and with `--hog` (one
// `node -e "for(;;){}"` beside it), on Node 20.20.2 and 24.21.0, 2026-11-21.
// Ratio (median of 10), and the worst run's distance from the threshold:
//
//                        starter (must fail)        solution (must pass)
//   throughput-ratio N20      0.14  worst 3.4× past     1.00  worst 1.5× inside
//                    N20+hog  0.19  worst 3.0× past     0.99  worst 1.4× inside
//                    N24      0.29  worst 1.9× past     0.97  worst 1.45× inside
//                    N24 (2nd) 0.32 worst 1.7× past     0.97  worst 1.4× inside
//                    N24+hog  0.42  worst 1.2× past     0.98  worst 1.5× inside
// Verdicts right: 100 of 100 (50 per side) across the five benches. Checks
// take 8 s (median), 16 s at worst.

const { findLab } = require('../scripts/lib/labs');
const { describeLabVerdicts } = require('./helpers/lab-verdicts');

const lab = findLab('02');

describe('lab 02 · express vs fastify', () => {
  describeLabVerdicts(lab, {
    starterFails: ['throughput-ratio'],
  });
});
