'use strict';
// Every profiler in the toolbelt, on this machine's Node: each produces its
// artifact on lab 01 (and the memory tools on lab 03), says what it found, and
// leaves no process behind. The README's tool × Node version matrix is made
// by scripts/dev/tool-matrix.js, running the same commands on each version.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../scripts/lib/labs');
const { runCli } = require('../helpers/cli');
const { processesRunning } = require('../helpers/leftovers');
const { unavailable: perfUnavailable } = require('../../scripts/profile/tools/perf');

const CASES = [
  ['prof', '01', /\.txt$/, /Hot spot in your code\n.*`pbkdf2Sync`, called from labs\/01-sync-pbkdf2\/app\.js:21/],
  ['cpu', '01', /\.cpuprofile$/, /`pbkdf2Sync`, called from labs\/01-sync-pbkdf2\/app\.js:21/],
  ['flame', '01', /flamegraph\.html$/, null],
  ['clinic-doctor', '01', /\.clinic-doctor\.html$/, /Doctor's verdict: "event-loop"/],
  ['clinic-flame', '01', /\.clinic-flame\.html$/, null],
  ['heapprofiler', '01', /\.clinic-heapprofiler\.html$/, null],
  ['bubbleprof', '01', /\.clinic-bubbleprof\.html$/, null],
  ['heap', '03', /2-after-load\.heapsnapshot$/, /variable "entries" → Set/],
  ['gc', '03', /trace-gc\.log$/, /Verdict: the heap after each full collection keeps rising/],
  ['perf', '01', /flamegraph\.svg$/, /sha512/],
];

afterAll(() => {
  expect(processesRunning(path.join(ROOT, 'labs'))).toEqual([]);
});

describe.each(CASES)('--tool %s on lab %s', (tool, lab, artifact, finding) => {
  const skip = tool === 'perf' && perfUnavailable();
  (skip ? test.skip : test)(`writes its artifact${finding ? ' and reports what it found' : ''}`, async () => {
    const { code, stdout, stderr } = await runCli(['profile', lab, '--tool', tool, '--duration', '4']);
    if (code !== 0) throw new Error(`exit ${code}\n${stdout}\n${stderr}`);
    const open = /Open first: (\S+)/.exec(stdout)[1];
    expect(open).toMatch(artifact);
    expect(fs.statSync(path.join(ROOT, open)).size).toBeGreaterThan(1000);
    if (finding) expect(stdout).toMatch(finding);
    fs.rmSync(path.join(ROOT, /Files: (\S+)\//.exec(stdout)[1]), { recursive: true, force: true });
  });
});

test('perf where it cannot run says why in one sentence and names the alternative', () => {
  const why = perfUnavailable();
  if (why) expect(why).toMatch(/^perf .*\.$/);
  else expect(why).toBeNull();
});
