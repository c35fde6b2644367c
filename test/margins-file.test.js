'use strict';
// What `npm run bench -- --write` keeps in a lab's check/margins.json: one
// row per Node version and hog count, and only rows of the check's current
// design (its gates and their thresholds), so the site never shows margins
// measured against a threshold the check no longer has.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { writeMargins } = require('../scripts/lib/measure-lab');
const { findLab, checkOf } = require('../scripts/lib/labs');

const real = findLab('05');
// The check's own thresholds (lab 05's), as its gates declare them.
const declared = Object.fromEntries(Object.entries(checkOf(real).gates).map(([id, gate]) => [id, gate.threshold]));
const summaryOf = (thresholdMs) => ({
  gates: [
    { id: 'quotes-held', threshold: declared['quotes-held'], starter: { ratio: 1.18, worstMargin: -1.18 }, solution: { ratio: 0.99, worstMargin: 1.01 } },
    { id: 'heap-per-quote', threshold: declared['heap-per-quote'], starter: { ratio: 19.3, worstMargin: -19 }, solution: { ratio: 0.26, worstMargin: 3.1 } },
    // A calibrated gate reports its threshold in milliseconds of this run.
    { id: 'hit-saving', threshold: thresholdMs, starter: { ratio: 0.33, worstMargin: 2.6 }, solution: { ratio: 0.32, worstMargin: 2.7 } },
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
  expect(declared['hit-saving']).not.toBe(0.39); // the calibrated gate's figure is its declared factor of t
});

test('benches on other versions of the same design stay; the same version and hogs is replaced', () => {
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  writeMargins(lab, summaryOf(0.41), { node: 'v26.10.0', hogs: 0, runs: 10, machine: 'test' });
  writeMargins(lab, summaryOf(0.52), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  expect(rows().map((r) => r.node)).toEqual(['v20.20.2', 'v26.10.0']);
});

test('rows of another design are dropped: other gates, or other recorded thresholds', () => {
  const ids = ['quotes-held', 'heap-per-quote', 'hit-saving'];
  fs.writeFileSync(
    lab.marginsFile,
    JSON.stringify({
      about: 'test',
      benches: [
        { node: 'v22.23.3', hogs: 0, gates: gates(['heap-per-quote', 'hit-saving']) }, // a gate since added
        { node: 'v24.21.0', hogs: 0, thresholds: { 'quotes-held': 501, 'heap-per-quote': 50, 'hit-saving': 0.25 }, gates: gates(ids) },
        { node: 'v24.21.0', hogs: 1, gates: gates(ids) }, // same gates, thresholds not recorded: kept
      ],
    }),
  );
  writeMargins(lab, summaryOf(0.39), { node: 'v20.20.2', hogs: 0, runs: 10, machine: 'test' });
  expect(rows().map((r) => `${r.node}/${r.hogs}`)).toEqual(['v20.20.2/0', 'v24.21.0/1']);
});
