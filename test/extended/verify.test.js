'use strict';
// `workbook verify`, what a trainer runs the day before: every lab's check on
// its shipped starter and its solution, with the margins. Two to four minutes, so
// it lives in the extended suite; `npm test` already proves each verdict.

const path = require('node:path');
const { ROOT, labs, checkOf } = require('../../scripts/lib/labs');
const { runCli } = require('../helpers/cli');
const { processesRunning } = require('../helpers/leftovers');

// One row per gate, named "<lab id> <gate id>", for every gate of every lab.
const GATE_ROWS = labs.flatMap((lab) => Object.keys(checkOf(lab).gates).map((gate) => `${lab.id} ${gate}`));

afterAll(() => {
  expect(processesRunning(path.join(ROOT, 'labs'))).toEqual([]);
  expect(processesRunning(path.join(ROOT, 'solutions'))).toEqual([]);
});

test('every solution passes, every shipped starter fails, and the margins are listed', async () => {
  const { code, stdout, stderr } = await runCli(['verify'], { timeoutMs: 300_000 });
  if (code !== 0) throw new Error(`exit ${code}\n${stdout}\n${stderr}`);
  for (const lab of labs) {
    expect(stderr).toMatch(new RegExp(`lab ${lab.id} · starter … fail in [\\d.]+ s`));
    expect(stderr).toMatch(new RegExp(`lab ${lab.id} · solution … pass in [\\d.]+ s`));
  }
  for (const row of GATE_ROWS) expect(stdout).toContain(row);
  expect(stdout).toMatch(/Every check gave the right verdict on this machine\./);
}, 320_000);

test('verify <lab> verifies only that lab', async () => {
  const { code, stdout, stderr } = await runCli(['verify', '03'], { timeoutMs: 120_000 });
  expect(code).toBe(0);
  expect(stdout).toContain('03 heap-per-request');
  expect(stdout).not.toContain('01 health-p50');
  expect(stderr).not.toMatch(/lab 01/);
}, 130_000);
