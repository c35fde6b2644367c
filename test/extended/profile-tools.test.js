'use strict';
// Every profiler in the toolbelt, on this machine's Node, on every lab whose
// walkthrough uses it (the `tools` of the lab's check): each produces its
// artifact, says what the lab's check expects it to find (its `findings`),
// and leaves no process behind. The README's tool × Node version matrix is
// made by scripts/dev/tool-matrix.js, running the same commands on each version.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, labs, checkOf } = require('../../scripts/lib/labs');
const { runCli } = require('../helpers/cli');
const { processesRunning } = require('../helpers/leftovers');
const { unavailable: perfUnavailable } = require('../../scripts/profile/tools/perf');
const { DURATION_OF } = require('../../scripts/dev/tool-matrix');

// The file each tool points the learner at first.
const ARTIFACT = {
  prof: /\.txt$/,
  cpu: /\.cpuprofile$/,
  startup: /\.cpuprofile$/,
  flame: /flamegraph\.html$/,
  'clinic-doctor': /\.clinic-doctor\.html$/,
  'clinic-flame': /\.clinic-flame\.html$/,
  heapprofiler: /\.clinic-heapprofiler\.html$/,
  bubbleprof: /\.clinic-bubbleprof\.html$/,
  heap: /2-after-load\.heapsnapshot$/,
  gc: /trace-gc\.log$/,
  alloc: /allocations\.heapprofile$/,
  report: /report\.[\d.]+\.json$/,
  'oom-snapshot': /\.heapsnapshot$/,
  perf: /flamegraph\.svg$/,
  inspect: /while-stuck\.cpuprofile$/,
};

const ALL_CASES = labs.flatMap((lab) => {
  const check = checkOf(lab);
  return check.tools.map((tool) => [tool, lab.id, ARTIFACT[tool], check.findings[tool] || null]);
});

/**
 * With WORKBOOK_TOOLS_ONCE=1 (CI, on the machine's Node 20, past its end of
 * life), each tool runs on one lab only: the first whose check names what
 * the tool must find there, else the first that teaches it. CI runs every
 * tool on every lab on Node 24 and 26 (scripts/dev/tool-matrix.js, which
 * asks for the same findings), and its hour has no room for a third round.
 */
function eachToolOnce(cases) {
  const tools = [...new Set(cases.map(([tool]) => tool))];
  return tools.map((tool) => {
    const mine = cases.filter(([t]) => t === tool);
    return mine.find(([, , , finding]) => finding) || mine[0];
  });
}

const CASES = process.env.WORKBOOK_TOOLS_ONCE === '1' ? eachToolOnce(ALL_CASES) : ALL_CASES;

afterAll(() => {
  expect(processesRunning(path.join(ROOT, 'labs'))).toEqual([]);
});

describe.each(CASES)('--tool %s on lab %s', (tool, lab, artifact, finding) => {
  const skip = tool === 'perf' && perfUnavailable();
  (skip ? test.skip : test)(`writes its artifact${finding ? ' and reports what it found' : ''}`, async () => {
    // As the profiler matrix runs them: 4 s of load, and longer where a tool
    // needs it (the out-of-memory tools load the app until it dies; gc's
    // verdict needs enough full collections, and with 4 s lab 03's read
    // "not enough to tell" in a fresh clone).
    const seconds = String(DURATION_OF[tool] ?? 4);
    const { code, stdout, stderr } = await runCli(['profile', lab, '--tool', tool, '--duration', seconds]);
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
