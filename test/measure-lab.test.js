'use strict';
// measureLab (workbook verify, the bench): a check that says "too noisy,
// rerun" is run once more for verify, and counted as it is by the bench.

jest.mock('../scripts/checks/run-check', () => ({ ...jest.requireActual('../scripts/checks/run-check'), runCheck: jest.fn() }));
const { runCheck } = require('../scripts/checks/run-check');
const { measureLab } = require('../scripts/lib/measure-lab');
const { labs } = require('../scripts/lib/labs');

const result = (verdict, value) => ({ verdict, durationMs: 1000, gates: [{ id: 'g', label: 'g', unit: '×', op: '>=', threshold: 0.6, value, pass: value >= 0.6, margin: value >= 0.6 ? value / 0.6 : 0.6 / value }] });

beforeEach(() => runCheck.mockReset());

test('verify runs a noisy check once more, and judges the second verdict', async () => {
  runCheck.mockResolvedValueOnce(result('noisy', 0.62)).mockResolvedValueOnce(result('fail', 0.3)).mockResolvedValueOnce(result('pass', 1.1));
  const seen = [];
  const summary = await measureLab(labs[0], { rerunNoisy: true, onResult: (r) => seen.push([r.side, r.result.verdict, r.right, Boolean(r.retrying)]) });
  expect(runCheck).toHaveBeenCalledTimes(3);
  expect(seen).toEqual([
    ['starter', 'noisy', false, true],
    ['starter', 'fail', true, false],
    ['solution', 'pass', true, false],
  ]);
  expect(summary.gates[0].starter.values).toEqual([0.3]);
});

test('the bench counts a noisy check as it is', async () => {
  runCheck.mockResolvedValueOnce(result('noisy', 0.62)).mockResolvedValueOnce(result('pass', 1.1));
  const seen = [];
  await measureLab(labs[0], { onResult: (r) => seen.push([r.side, r.result.verdict, r.right]) });
  expect(runCheck).toHaveBeenCalledTimes(2);
  expect(seen).toEqual([
    ['starter', 'noisy', false],
    ['solution', 'pass', true],
  ]);
});
