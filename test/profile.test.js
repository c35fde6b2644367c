'use strict';
// `workbook profile`: the profile names the line to fix in the learner's
// starter, and nothing keeps running afterwards. (Every tool, on every lab it
// is taught on, runs in the extended suite: test/extended/profile-tools.test.js.)

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../scripts/lib/labs');
const { runCli } = require('./helpers/cli');
const { removeTemp } = require('../scripts/harness/temp');
const { processesRunning } = require('./helpers/leftovers');
const { materializeShipped } = require('../scripts/lib/shipped');
const { findLab } = require('../scripts/lib/labs');

// The folder the CLI names ("Files: profiles/…/"), whatever the separator.
function filesDir(stdout) {
  return path.resolve(ROOT, /^Files: (.+?)[\\/]?$/m.exec(stdout)[1]);
}

// Nothing this file started is still running: the apps it profiled. Other
// apps of the workbook (a learner's `workbook run` in another terminal, or
// another test) are none of its business.
const profiled = new Set();
afterAll(() => {
  for (const app of profiled) expect(processesRunning(app)).toEqual([]);
});

// Profile the starter as shipped, so a learner's edits cannot change the line.
const starter = (id) => {
  const shipped = materializeShipped(findLab(id));
  const app = shipped.error ? findLab(id).app : shipped.app;
  profiled.add(app);
  return app;
};

test('a sampling heap profile reads as live memory by allocating function, self bytes summed per function', () => {
  const { readHeapProfile } = require('../scripts/profile/read/heap-profile');
  const frame = (functionName, lineNumber) => ({ functionName, url: 'file:///app/pricing.js', lineNumber, columnNumber: 0, scriptId: '1' });
  const profile = {
    head: {
      callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1, scriptId: '0' },
      selfSize: 0,
      children: [
        { callFrame: frame('priceQuote', 87), selfSize: 300, children: [{ callFrame: frame('forecastDemand', 56), selfSize: 500, children: [] }] },
        { callFrame: frame('other', 9), selfSize: 100, children: [{ callFrame: frame('forecastDemand', 56), selfSize: 100, children: [] }] },
      ],
    },
  };
  const { totalBytes, functions } = readHeapProfile(profile, { top: 2 });
  expect(totalBytes).toBe(1000);
  expect(functions.map((f) => [f.functionName, f.bytes, f.share, f.location])).toEqual([
    ['forecastDemand', 600, 0.6, '/app/pricing.js:57'],
    ['priceQuote', 300, 0.3, '/app/pricing.js:88'],
  ]);
});

test('cpu on lab 01 names the pbkdf2Sync line of the starter as the hot spot', async () => {
  const { code, stdout, stderr } = await runCli(['profile', '01', '--tool', 'cpu', '--duration', '1', '--app', starter('01')]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/\d+% of CPU samples are under `pbkdf2Sync`, called from .*app\.js:21 in hashPassword\(\)/);
  expect(stdout).toMatch(/return crypto\.pbkdf2Sync\(password, salt, 10000, 512, 'sha512'\);/);
  expect(stderr).toMatch(/Load: .* 1 s/); // progress as it happens
  const dir = filesDir(stdout);
  expect(fs.readdirSync(dir).some((f) => f.endsWith('.cpuprofile'))).toBe(true);
  removeTemp(dir);
});

test('heap on lab 03 finds the leaking constructor and the variable that holds it', async () => {
  const { code, stdout, stderr } = await runCli(['profile', '03', '--tool', 'heap', '--duration', '1', '--app', starter('03')]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/Constructors whose instance count grew most/);
  // One new Object per request of the load between the snapshots (the last
  // "N responses" line: the first is the warm-up's). How many that is, and
  // whether their size prints in KB or MB, depends on the machine's speed.
  const served = Number([...stderr.matchAll(/(\d+) responses, [\d.]+ req\/s/g)].at(-1)[1]);
  const grown = /^\s*[+-][\d.]+ (?:KB|MB)\s+\+(\d+)\s+[+-][\d.]+ (?:KB|MB)\s+Object$/m.exec(stdout);
  expect(grown).not.toBeNull();
  expect(Number(grown[1])).toBeGreaterThanOrEqual(0.9 * served);
  expect(stdout).toMatch(/variable "entries" → Set/);
  expect(stdout).toMatch(/The variable "entries" is declared at .*app\.js:11:\n\s+const entries = new Set\(\);/);
  const dir = filesDir(stdout);
  expect(fs.readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'))).toHaveLength(2);
  removeTemp(dir);
});

test('an unknown tool is a usage error listing the tools', async () => {
  const { code, stderr } = await runCli(['profile', '01', '--tool', 'vtune']);
  expect(code).toBe(2);
  expect(stderr).toMatch(/There is no tool "vtune"\. The tools are: prof, cpu, flame, heap, gc, clinic-doctor, clinic-flame, heapprofiler, bubbleprof, perf\./);
});

describe('the gc reading calls a leak only on a clear rise', () => {
  const { summarizeTraceGc } = require('../scripts/profile/read/trace-gc');
  const fulls = (mbs) => mbs.map((afterMb, i) => ({ kind: 'old', type: 'Mark-Compact', atMs: i * 1000, pauseMs: 2, beforeMb: afterMb + 5, afterMb }));

  test('a fixed app settling a little above where it started is level', () => {
    expect(summarizeTraceGc(fulls([6.7, 7.0, 7.2, 7.3, 7.4])).trend.rising).toBe(false);
  });

  test('a heap that doubles, climbing all the way, is rising', () => {
    expect(summarizeTraceGc(fulls([7, 8.8, 10.5, 12.2, 14])).trend.rising).toBe(true);
  });

  test('a big heap growing by a few percent is level, however many megabytes that is', () => {
    expect(summarizeTraceGc(fulls([200, 201, 202, 203, 204])).trend).toMatchObject({ rising: false, level: true });
  });

  test('two collections can show a leak, but not that there is none', () => {
    expect(summarizeTraceGc(fulls([7, 10.5])).trend).toMatchObject({ rising: true, level: false });
    // A leak of 1.5 MB/s, a second apart: under the bar, yet not level either.
    expect(summarizeTraceGc(fulls([7, 8.5])).trend).toMatchObject({ rising: false, level: false });
    expect(summarizeTraceGc(fulls([7, 7.2, 7.3])).trend).toMatchObject({ rising: false, level: true });
  });
});

// Node starts a new trace log every 2^19 events, so a Bubbleprof run of more
// than a few seconds leaves node_trace.1.log, node_trace.2.log, … to join;
// the join as published fails on them ("premature close"), the workbook's
// patch (scripts/patches/) joins them in order.
test("Bubbleprof's join of Node's trace logs takes every rotated log, in order", async () => {
  const os = require('node:os');
  const { runInChild } = require('../scripts/harness/in-child');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-trace-join-'));
  try {
    // Events shaped as Node writes them (the parser relies on each ending in `}}`).
    const event = (ts) => ({ pid: 1, tid: 1, ts, ph: 'b', cat: 'node,node.async_hooks', name: 'TickObject', id: `0x${ts.toString(16)}`, args: { data: { triggerAsyncId: 1, executionAsyncId: 1 } } });
    const log = (from, count) => JSON.stringify({ traceEvents: Array.from({ length: count }, (_, i) => event(from + i)) });
    // Two logs, as a run on lab 07 leaves (the published join failed on
    // exactly this).
    fs.writeFileSync(path.join(dir, 'node_trace.1.log'), log(0, 3000));
    fs.writeFileSync(path.join(dir, 'node_trace.2.log'), log(3000, 3000));
    const out = path.join(dir, 'joined.json');
    await runInChild(path.join(__dirname, 'fixtures', 'trace-join.js'), 'joinLogs', [dir, out]);
    const { traceEvents } = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(traceEvents.map((e) => e.ts)).toEqual(Array.from({ length: 6000 }, (_, i) => i));
    expect(fs.readdirSync(dir)).toEqual(['joined.json']); // the logs are gone
  } finally {
    removeTemp(dir);
  }
});
