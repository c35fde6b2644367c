'use strict';
// What `npm run bench -- --write` keeps in a lab's check/margins.json: one
// row per Node version and hog count, and only rows of the check's current
// design (its gates and their thresholds), so the site never shows margins
// measured against a threshold the check no longer has.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { writeMargins } = require('../scripts/lib/measure-lab');
const { findLab, checkOf, labs: allLabs, marginsOf } = require('../scripts/lib/labs');

// Lab 04: one gate calibrated in units of t (latency-p50), one a plain ratio.
const real = findLab('04');
// The check's own thresholds (lab 04's), as its gates declare them.
const declared = Object.fromEntries(Object.entries(checkOf(real).gates).map(([id, gate]) => [id, gate.threshold]));
const summaryOf = (thresholdMs) => ({
  gates: [
    { id: 'throughput-ratio', threshold: declared['throughput-ratio'], starter: { ratio: 0.05, worstMargin: -2.9 }, solution: { ratio: 0.98, worstMargin: 4.1 } },
    // A calibrated gate reports its threshold in milliseconds of this run.
    { id: 'latency-p50', threshold: thresholdMs, starter: { ratio: 9.1, worstMargin: -6.2 }, solution: { ratio: 0.1, worstMargin: 7.5 } },
  ],
  verdicts: { starter: { right: 10, total: 10 }, solution: { right: 10, total: 10 } },
  checkSeconds: { median: 7.8, max: 8 },
});

let dir;
let lab;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'margins-'));
  lab = { ...real, marginsFile: path.join(dir, 'margins.json') };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const rows = () => JSON.parse(fs.readFileSync(lab.marginsFile, 'utf8')).benches;
const gates = (ids) => Object.fromEntries(ids.map((id) => [id, { starter: { ratio: 1, worst: 1 }, solution: { ratio: 1, worst: 1 } }]));

test('a bench records the thresholds as the check defines them, not one run\'s milliseconds', () => {
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  expect(rows()[0].thresholds).toEqual(declared);
  expect(declared['latency-p50']).not.toBe(0.39); // the calibrated gate's figure is its declared factor of t
});

test('benches on other versions of the same design stay; the same version and hogs is replaced', () => {
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  writeMargins(lab, summaryOf(0.41), { node: 'v26.10.0', hogs: 0, runs: 10, machine: 'test' });
  writeMargins(lab, summaryOf(0.52), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  expect(rows().map((r) => r.node)).toEqual(['v20.20.2', 'v26.10.0']);
});

test('rows of another design are dropped: other gates, or other recorded thresholds', () => {
  const ids = ['latency-p50', 'throughput-ratio'];
  fs.writeFileSync(
    lab.marginsFile,
    JSON.stringify({
      about: 'test',
      benches: [
        { node: 'v22.23.3', hogs: 0, gates: gates(['latency-p50']) }, // a gate since added
        { node: 'v24.21.0', hogs: 0, thresholds: { 'latency-p50': 0.5, 'throughput-ratio': 0.18 }, gates: gates(ids) },
        { node: 'v24.21.0', hogs: 1, gates: gates(ids) }, // same gates, thresholds not recorded: kept
      ],
    }),
  );
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  expect(rows().map((r) => `${r.node}/${r.hogs}`)).toEqual(['v20.20.2/0', 'v24.21.0/1']);
});

test('each row names the machine it was measured on; a file from before rows did loses its one machine', () => {
  fs.writeFileSync(lab.marginsFile, JSON.stringify({ about: 'test', machine: 'the last bench\'s machine', benches: [{ node: 'v24.21.0', hogs: 1, machine: 'another VM', gates: gates(['latency-p50', 'throughput-ratio']) }] }));
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: '2 CPUs, AMD EPYC, linux-x64' });
  const file = JSON.parse(fs.readFileSync(lab.marginsFile, 'utf8'));
  expect(file.machine).toBeUndefined();
  expect(file.benches.map((r) => `${r.node}: ${r.machine}`)).toEqual(['v20.20.2: 2 CPUs, AMD EPYC, linux-x64', 'v24.21.0: another VM']);
});

test('every lab\'s recorded rows name their machine', () => {
  for (const each of allLabs) {
    const margins = marginsOf(each);
    if (!margins) continue;
    expect({ lab: each.id, machine: margins.machine }).toEqual({ lab: each.id, machine: undefined });
    for (const row of margins.benches) expect({ lab: each.id, node: row.node, machine: typeof row.machine }).toEqual({ lab: each.id, node: row.node, machine: 'string' });
  }
});
