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

test("the hot spot is the app's own code when its functions hold most of the time (lab 15), and a call out of it otherwise", () => {
  const os = require('node:os');
  const { readCpuProfile, describeHotspot } = require('../scripts/profile/read/cpuprofile');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-own-'));
  try {
    const appFile = path.join(dir, 'app.js');
    fs.writeFileSync(appFile, ['const lib = require("lib");', 'function handle(rows) {', '  for (const row of rows) row.split(",");', '  return lib.send(rows);', '}', ''].join('\n'));
    const url = `file://${appFile}`;
    const frame = (functionName, file, lineNumber = 0) => ({ functionName, url: file, lineNumber, columnNumber: 0, scriptId: '1' });
    const profile = (ownSamples, callSamples) => ({
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        { id: 2, callFrame: frame('handle', url, 1), children: [3] },
        { id: 3, callFrame: frame('send', `file://${dir}/node_modules/lib/index.js`) },
      ],
      samples: [...Array(ownSamples).fill(2), ...Array(callSamples).fill(3)],
    });
    const mostlyOwn = readCpuProfile(profile(90, 10), { appFile }).hotspot;
    expect(mostlyOwn).toMatchObject({ own: true, sharePct: 90, top: { name: 'handle', line: 2, sharePct: 90 } });
    expect(describeHotspot(mostlyOwn)).toMatch(/^Hot spot in your code\n {2}90% of CPU samples are in your own functions, not under a call into a library or Node\.js \(the heaviest, `send \(lib\)` from \S+app\.js:2, holds 10%\): see the self-time table\. The most, 90%, in `handle` at \S+app\.js:2:\n {4}function handle\(rows\) \{$/);
    // A call out that holds a fair part of the time stays the hot spot.
    const call = readCpuProfile(profile(60, 40), { appFile }).hotspot;
    expect(call.own).toBeUndefined();
    expect(describeHotspot(call)).toMatch(/40% of CPU samples are under `send \(lib\)`/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a CPU profile read from the load on leaves the start-up out, and a native function is attributed to its first caller outside Node', () => {
  const { profileFrom, readCpuProfile } = require('../scripts/profile/read/cpuprofile');
  const frame = (functionName, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '1' });
  // root → require (start-up); root → (idle); root → submit (pg) → uncork (node) → writev; root → send (express) → writev
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 7] },
    { id: 2, callFrame: frame('require', 'node:internal/modules/cjs/loader') },
    { id: 3, callFrame: frame('(idle)') },
    { id: 4, callFrame: frame('submit', 'file:///w/node_modules/pg/lib/query.js'), children: [5] },
    { id: 5, callFrame: frame('uncork', 'node:internal/streams/writable'), children: [6] },
    { id: 6, callFrame: frame('writev') },
    { id: 7, callFrame: frame('send', 'file:///w/node_modules/express/lib/response.js'), children: [8] },
    { id: 8, callFrame: frame('writev') },
  ];
  // Four start-up samples at 1000-1003 µs, then the load from 2000 µs on.
  const samples = [2, 2, 2, 2, 3, 6, 6, 6, 8, 3];
  const times = [1000, 1001, 1002, 1003, 2000, 2001, 2002, 2003, 2004, 2005];
  const profile = { nodes, startTime: 999, endTime: 2006, samples, timeDeltas: times.map((t, i) => t - (i ? times[i - 1] : 999)) };
  const load = profileFrom(profile, 1500);
  expect(load).toMatchObject({ trimmed: true, dropped: 4 });
  expect(load.profile.samples).toEqual([3, 6, 6, 6, 8, 3]);
  const reading = readCpuProfile(load.profile, { appFile: '/w/app.js', callersOf: ['writev'] });
  expect(reading).toMatchObject({ totalSamples: 6, idleSamples: 2, busySamples: 4 });
  expect(reading.topSelf.map((f) => f.functionName)).not.toContain('require');
  expect(reading.callers[0].rows.map((r) => [r.caller, r.origin, r.samples])).toEqual([['submit', 'pg', 3], ['send', 'express', 1]]);
  // A moment outside the profile (another clock): read whole.
  expect(profileFrom(profile, 5_000_000)).toMatchObject({ trimmed: false, dropped: 0 });
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
  expect(stderr).toMatch(/There is no tool "vtune"\. The tools are: prof, cpu, startup, flame, heap, gc, alloc, report, oom-snapshot, clinic-doctor, clinic-flame, heapprofiler, bubbleprof, perf, inspect\./);
});

describe('the start-up reading', () => {
  const { readStartup, describeTimeline, describeStartupCpu, requiredName } = require('../scripts/profile/read/startup');
  const appFile = path.join(ROOT, 'labs', '14-slow-cold-start', 'app.js');
  const pkg = (name) => `file://${path.join(ROOT, 'node_modules', ...name.split('/'))}`;
  // A start in frames: the app's top level requires a package (whose index
  // requires its parts) and calls a function of its own; Node loads them.
  const frame = (id, functionName, url, lineNumber, children = []) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '0' }, children });
  const profile = {
    nodes: [
      frame(1, '(root)', '', -1, [2, 9, 10, 11]),
      frame(2, '', `file://${appFile}`, 0, [3, 6]),
      frame(3, 'require', 'node:internal/modules/helpers', 100, [4]),
      frame(4, 'Module._load', 'node:internal/modules/cjs/loader', 900, [5]),
      frame(5, '', pkg('@shop/toolkit/index.js'), 0, [7]),
      frame(6, 'loadTemplates', `file://${appFile}`, 53, []),
      frame(7, 'require', 'node:internal/modules/helpers', 100, [8]),
      frame(8, '', pkg('@shop/toolkit/clients/a.js'), 0, []),
      frame(9, '(idle)', '', -1, []),
      frame(10, '(garbage collector)', '', -1, []),
      frame(11, 'listOnTimeout', 'node:internal/timers', 500, []),
    ],
    // Sample counts: app top level 1, loader 2, toolkit index 3, a part 4, loadTemplates 5, idle 6, gc 1, timers 1.
    samples: [2, 4, 4, 5, 5, 5, 8, 8, 8, 8, 6, 6, 6, 6, 6, 9, 9, 9, 9, 9, 9, 10, 11],
    startTime: 0,
    endTime: 23_000,
    timeDeltas: Array(23).fill(1000),
  };
  const timing = {
    spawnedAt: 1000,
    listeningAt: 1400,
    answers: [{ path: '/a', status: 200, at: 1450 }, { path: '/b', status: 200, at: 1460 }],
    timeline: {
      timeOrigin: 1010,
      nodeTiming: { nodeStart: 1, v8Start: 5, environment: 20, bootstrapComplete: 60, loopStart: 300 },
      listening: { at: 388, idle: 80, cpu: 350 },
      firstRequest: { at: 395, idle: 81, cpu: 352 },
      lastResponse: { at: 448, idle: 81.5, cpu: 380 },
    },
  };

  test('says what the top level required and called, inclusive of what each ran', () => {
    const s = readStartup(profile, { appFile, timing });
    expect(s.busyMs).toBe(17); // every sample but the six idle ones, 1 ms each
    expect(s.parts.map((p) => [p.label, p.ms])).toEqual([
      ["require('@shop/toolkit')", 7],
      ['loadTemplates()', 5],
    ]);
    expect(s.loaderMs).toBe(2);
    expect(s.gcMs).toBe(1);
    expect(s.parts[0].where).toBe('node_modules/@shop/toolkit/index.js');
  });

  test('puts the start on the spawn\'s clock, with the waits the probe saw', () => {
    const s = readStartup(profile, { appFile, timing });
    expect(s.timeline).toMatchObject({ processStarted: 10, bootstrapComplete: 70, loopStart: 310, listening: 400, answered: 460 });
    expect(s.idleBeforeListening).toBe(80);
    expect(s.idleWhileAnswering).toBeCloseTo(0.5);
    const text = `${describeTimeline(s)}\n${describeStartupCpu(s)}`;
    expect(text).toMatch(/460 ms {2}every example route answered \(2 requests/);
    expect(text).toMatch(/idle \(waiting, using no CPU\) for 80 ms/);
    expect(text).toMatch(/41\.2%\s+7\s+require\('@shop\/toolkit'\)/);
  });

  test('names what was required the way the app named it', () => {
    expect(requiredName(path.join(ROOT, 'node_modules', 'express', 'index.js'), appFile)).toBe('express');
    expect(requiredName(path.join(ROOT, 'node_modules', '@shop', 'toolkit', 'money.js'), appFile)).toBe('@shop/toolkit/money');
    expect(requiredName(path.join(ROOT, 'labs', '14-slow-cold-start', 'services.js'), appFile)).toBe('./services.js');
  });
});

test("the prof hot spot names a pattern's code, not the builtin that runs it (Node 22 and later)", () => {
  const { profHotspot } = require('../scripts/profile/read/prof-report');
  const app = findLab('10').app;
  const report = [
    'Statistical profiling result from isolate.log, (1000 ticks, 0 unaccounted, 0 excluded).',
    '',
    ' [Bottom up (heavy) profile]:',
    '   ticks parent  name',
    '    420   42.0%  RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@$',
    '    420  100.0%    /usr/local/bin/node',
    '    420  100.0%      Builtin: RegExpPrototypeTest',
    `    350   83.3%        JS: ^isEmailAddress ${app}:23:24`,
    `    350  100.0%          JS: ^<anonymous> ${app}:40:56`,
    `     70   16.7%        JS: ~isEmailAddress ${app}:23:24`,
  ].join('\n');
  expect(profHotspot(report, app)).toMatchObject({ callee: 'RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@$', caller: 'isEmailAddress', sharePct: 42 });
  // Node 26: the pattern's ticks come through the builtin, and through the
  // node executable and then the builtin; its ticks are counted once.
  const twoWays = [
    'Statistical profiling result from isolate.log, (1000 ticks, 0 unaccounted, 0 excluded).',
    '',
    ' [Bottom up (heavy) profile]:',
    '   ticks parent  name',
    '    600   60.0%  RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@$',
    '    400   66.7%    Builtin: RegExpPrototypeTest',
    `    400  100.0%      JS: ^isEmailAddress ${app}:23:24`,
    `    400  100.0%        JS: ^<anonymous> ${app}:40:56`,
    '    200   33.3%    /usr/local/bin/node',
    '    200  100.0%      Builtin: RegExpPrototypeTest',
    `    200  100.0%        JS: ~isEmailAddress ${app}:23:24`,
  ].join('\n');
  expect(profHotspot(twoWays, app)).toMatchObject({ callee: 'RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@$', caller: 'isEmailAddress', sharePct: 60 });
  // A builtin with nothing above it is the callee itself.
  const builtinOnly = [
    'Statistical profiling result from isolate.log, (1000 ticks, 0 unaccounted, 0 excluded).',
    '',
    ' [Bottom up (heavy) profile]:',
    '   ticks parent  name',
    '    300   30.0%  Builtin: JsonStringify',
    `    300  100.0%    JS: ^<anonymous> ${app}:40:56`,
    '',
  ].join('\n');
  expect(profHotspot(builtinOnly, app)).toMatchObject({ callee: 'Builtin: JsonStringify', sharePct: 30 });
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

// The readings behind `--tool report` and `--tool oom-snapshot` (the tools
// themselves, on lab 09's starter, run in the extended suite).
describe('reading what an out-of-memory crash leaves behind', () => {
  const os = require('node:os');
  const { spawnSync } = require('node:child_process');
  const { readReport, readReportFile, describeCrash } = require('../scripts/profile/read/diagnostic-report');
  const { parseSnapshot, retainerPath, functionOf, awaitingGenerators } = require('../scripts/profile/read/heapsnapshot');

  test('a real report of this Node: the heap spaces, the limit, no JavaScript stack', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-oom-report-'));
    try {
      // A heap of 16 MB filled in a loop: dead in well under a second.
      const run = spawnSync(process.execPath, ['--max-old-space-size=16', '--report-on-fatalerror', `--report-directory=${dir}`, '-e', 'const kept = []; for (;;) kept.push({ n: kept.length, s: `order ${kept.length}` });'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      expect(run.stderr).toMatch(/FATAL ERROR: .*JavaScript heap out of memory/);
      const file = fs.readdirSync(dir).find((f) => /^report\..*\.json$/.test(f));
      expect(file).toBeDefined();
      const report = readReportFile(path.join(dir, file));
      expect(report).toMatchObject({ trigger: 'OOMError', node: process.version, oldSpaceLimitMb: 16 });
      expect(report.heap.limit).toBeGreaterThan(16 * 1024 * 1024); // the young generation comes on top
      expect(report.heap.spaces.map((sp) => sp.name)).toContain('old_space');
      expect(report.jsStack.frames).toEqual([]);
      const text = describeCrash(report);
      expect(text).toMatch(/trigger OOMError/);
      expect(text).toMatch(/--max-old-space-size=16 for the old generation/);
      expect(text).toMatch(/^ +[\d.]+ MB +[\d.]+ MB +old_space$/m);
      expect(text).toMatch(/JavaScript stack \(javascriptStack\): "No stack\."/);
      expect(text).toMatch(/Resource usage/);
    } finally {
      removeTemp(dir);
    }
  });

  test('a report with a stack, clients and connections of its own (report versions 4 and 5)', () => {
    const report = readReport({
      header: { reportVersion: 5, event: 'JavaScript API', trigger: 'GetReport', nodejsVersion: 'v24.0.0', commandLine: ['node', 'app.js'] },
      javascriptStack: { message: 'Error [ERR_SYNTHETIC]: JavaScript Callstack', stack: ['at exportRoute (/app/app.js:45:30)', 'at Layer.handle (/app/node_modules/router/lib/layer.js:152:17)'] },
      javascriptHeap: { usedMemory: 50 * 1048576, memoryLimit: 176 * 1048576, externalMemory: 1048576, heapSpaces: { old_space: { memorySize: 60 * 1048576, used: 48 * 1048576 }, new_space: { memorySize: 1048576, used: 0 } } },
      nativeStack: [{ pc: '0x1', symbol: 'node::GetNodeReport(…) [node]' }, { pc: '0x2', symbol: 'node::report::WriteReport(…) [node]' }],
      resourceUsage: { rss: 90 * 1048576, maxRss: 95 * 1048576, userCpuSeconds: 1.5, kernelCpuSeconds: 0.2, cpuConsumptionPercent: 40, constrained_memory: 512 * 1048576, total_memory: 8192 * 1048576 },
      libuv: [
        { type: 'tcp', localEndpoint: { port: 3000 } },
        { type: 'tcp', localEndpoint: { port: 3000 }, remoteEndpoint: { port: 50001 } },
        { type: 'tcp', localEndpoint: { port: 3000 }, remoteEndpoint: { port: 50002 } },
        { type: 'tcp', localEndpoint: { port: 41000 }, remoteEndpoint: { port: 5432 } },
        { type: 'timer' },
      ],
    });
    expect(report).toMatchObject({ connections: 2, outgoing: 1, listening: 1, oldSpaceLimitMb: null });
    expect(report.jsStack.frames).toHaveLength(2);
    const text = describeCrash(report);
    expect(text).toMatch(/at exportRoute \(\/app\/app\.js:45:30\)/);
    expect(text).toMatch(/2 connections from clients .*, 1 of its own to other servers/);
    expect(text).toMatch(/memory limit of its container \(constrained_memory\): 512\.0 MB/);
    expect(text).toMatch(/node::GetNodeReport/); // no out-of-memory handler to skip: every frame shows
    // A report written without the event loop (as some out-of-memory ones are) lists no handles.
    expect(describeCrash(readReport({ header: { event: 'x' }, libuv: [] }))).toMatch(/none recorded/);
    expect(() => readReport({ nothing: true })).toThrow(/not a Node\.js diagnostic report/);
  });

  test('a heap snapshot names the async functions that hold the objects, and their lines', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-async-stack-'));
    try {
      const app = path.join(dir, 'held.js');
      // fetchAll() keeps what it fetched in a local while it awaits; exportAll() awaits fetchAll().
      fs.writeFileSync(
        app,
        [
          "const v8 = require('node:v8');",
          'async function fetchAll() {',
          '  const rows = [];',
          '  for (let i = 0; i < 5000; i++) rows.push({ id: i, kind: "order" });',
          '  await new Promise((resolve) => setTimeout(resolve, 60_000).unref());',
          '  return rows;',
          '}',
          'async function exportAll() {',
          '  const rows = await fetchAll();',
          '  return rows.length;',
          '}',
          'exportAll();',
          `setImmediate(() => v8.writeHeapSnapshot(${JSON.stringify(path.join(dir, 'held.heapsnapshot'))}));`,
        ].join('\n'),
      );
      const run = spawnSync(process.execPath, [app], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(0);
      const g = parseSnapshot(JSON.parse(fs.readFileSync(path.join(dir, 'held.heapsnapshot'), 'utf8')));
      const chain = retainerPath(g, 'Object', new Set());
      const inner = chain.filter((step) => /^Generator of /.test(step.node)).pop();
      expect(inner.node).toBe('Generator of fetchAll()');
      const stack = [inner.index, ...awaitingGenerators(g, inner.index)].map((v) => functionOf(g, v));
      expect(stack.map((f) => [f.name, path.basename(f.file), f.line])).toEqual([
        ['fetchAll', 'held.js', 2],
        ['exportAll', 'held.js', 8],
      ]);
    } finally {
      removeTemp(dir);
    }
  });

  test('a heap snapshot read as a stream is the graph JSON.parse gives, however the file is cut into chunks', async () => {
    const { readSnapshotFile, SnapshotReader } = require('../scripts/profile/read/snapshot-file');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-snapshot-stream-'));
    try {
      const file = path.join(dir, 'strings.heapsnapshot');
      // Strings that need escapes and more than one byte in UTF-8.
      const program = `globalThis.kept = Array.from({ length: 3000 }, (_, i) => ({ name: 'Łódź "Quick" \\\\ ' + i, emoji: '😀\\n' + i }));
        require('node:v8').writeHeapSnapshot(${JSON.stringify(file)});`;
      const run = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(0);
      const bytes = fs.readFileSync(file);
      const whole = parseSnapshot(JSON.parse(bytes.toString('utf8')));
      const same = (g) => ['type', 'name', 'id', 'size', 'firstEdge', 'edgeType', 'edgeName', 'edgeTo', 'strings'].every((k) => g[k].length === whole[k].length && g[k].every((v, i) => v === whole[k][i]));
      const streamed = parseSnapshot(await readSnapshotFile(file));
      expect(same(streamed)).toBe(true);
      expect([...streamed.locations]).toEqual([...whole.locations]);
      expect(whole.strings.some((t) => t.startsWith('Łódź "Quick" \\'))).toBe(true);
      // Chunks of 1 to 13 bytes split every token somewhere.
      const reader = new SnapshotReader();
      for (let at = 0, n = 1; at < bytes.length; at += n, n = 1 + (at % 13)) reader.write(bytes.subarray(at, at + n));
      expect(same(parseSnapshot(reader.end()))).toBe(true);
      const cut = new SnapshotReader();
      cut.write(bytes.subarray(0, bytes.length - 10));
      expect(() => cut.end()).toThrow(/ends part-way through/);
    } finally {
      removeTemp(dir);
    }
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

describe('reading a process paused through the inspector (--tool inspect)', () => {
  const { framesOf, frameLine, valueText, localsOf, ownScopes, compareLocals, displayUrl } = require('../scripts/profile/read/paused-frames');
  const { inspectorUrl, webSocketClass } = require('../scripts/profile/inspector-client');
  const { pathToFileURL } = require('node:url');

  // Debugger.paused's callFrames as V8 sends them: 0-based lines and
  // columns, a URL per frame (empty in newer protocol versions, where the
  // scriptId names the script).
  const appFile = path.join(ROOT, 'labs', '13-stuck-at-full-cpu', 'app.js');
  const callFrames = [
    { callFrameId: 'a', functionName: 'readAll', url: '', location: { scriptId: '81', lineNumber: 32, columnNumber: 4 }, scopeChain: [{ type: 'block' }, { type: 'block' }, { type: 'local' }, { type: 'closure' }, { type: 'global' }] },
    { callFrameId: 'b', functionName: '', url: pathToFileURL(appFile).href, location: { scriptId: '81', lineNumber: 95, columnNumber: 17 }, scopeChain: [] },
    { callFrameId: 'c', functionName: 'emit', url: 'node:events', location: { scriptId: '7', lineNumber: 513, columnNumber: 26 }, scopeChain: [] },
  ];

  test('frames print as node inspect\'s bt does, with the app\'s paths relative to the workbook', () => {
    const frames = framesOf(callFrames, new Map([['81', appFile]]));
    expect(frames.map((f, i) => frameLine(f, i, ROOT))).toEqual([
      '#0 readAll labs/13-stuck-at-full-cpu/app.js:33:5',
      '#1 (anonymous) labs/13-stuck-at-full-cpu/app.js:96:18',
      '#2 emit node:events:514:27',
    ]);
    expect(frames[0].file).toBe(appFile);
    expect(frames[2].file).toBeNull();
    // A Windows path outside the workbook stays whole.
    expect(displayUrl('C:\\elsewhere\\app.js', ROOT)).toMatch(/elsewhere/);
  });

  test('a frame\'s own variables are its block and local scopes, not its closures', () => {
    expect(ownScopes(callFrames[0]).map((s) => s.type)).toEqual(['block', 'block', 'local']);
  });

  test('values read as DevTools previews them, times in ms with their date', () => {
    expect(valueText({ type: 'number', value: 1772712000000, description: '1772712000000' })).toBe('1772712000000 (2026-03-05T12:00:00.000Z, if it is a time in ms)');
    expect(valueText({ type: 'number', value: 500, description: '500' })).toBe('500');
    expect(valueText({ type: 'object', subtype: 'array', description: 'Array(500)', preview: { type: 'object', properties: [] } })).toBe('Array(500)');
    expect(valueText({ type: 'object', subtype: 'set', description: 'Set(500)', preview: { type: 'object', properties: [] } })).toBe('Set(500)');
    expect(valueText({ type: 'object', subtype: 'null' })).toBe('null');
    expect(valueText({ type: 'object', className: 'Object', description: 'Object', preview: { type: 'object', properties: [{ name: 'from', type: 'number', value: '1' }, { name: 'to', type: 'number', value: '2' }] } })).toBe('{ from: 1, to: 2 }');
    expect(valueText({ type: 'string', value: 'x'.repeat(80) })).toMatch(/^"x{59}…"$/);
    expect(valueText(undefined)).toBe('undefined');
  });

  test('two passes of a loop that does not move read the same', () => {
    const pass = localsOf({ result: [{ name: 'cursor', value: { type: 'number', value: 5, description: '5' } }, { name: 'seen', value: { type: 'object', subtype: 'set', description: 'Set(500)', preview: { type: 'object' } } }] });
    const later = localsOf({ result: [{ name: 'cursor', value: { type: 'number', value: 6, description: '6' } }, { name: 'seen', value: { type: 'object', subtype: 'set', description: 'Set(500)', preview: { type: 'object' } } }] });
    expect(compareLocals(pass, pass).every((c) => c.same)).toBe(true);
    expect(compareLocals(pass, later).filter((c) => !c.same).map((c) => c.name)).toEqual(['cursor']);
  });

  test('the tool matrix records where the pause landed, and whether the loop moved', () => {
    const { finding } = require('../scripts/dev/tool-matrix');
    const out = 'paused at once, the main thread was here:\n  #0 readAll labs/13-stuck-at-full-cpu/app.js:33:5\n  #1 (anonymous) labs/13-stuck-at-full-cpu/app.js:96:18\n…\nEvery variable reads the same on the next pass: the loop is going round without moving.';
    expect(finding('inspect', out)).toBe('paused in readAll (app.js:33), not moving');
    expect(finding('inspect', out.replace(/Every variable[^\n]*/, ''))).toBe('paused in readAll (app.js:33)');
  });

  test('the tool matrix names a hot spot whose name holds parentheses, shortened for its cell', () => {
    const { finding } = require('../scripts/dev/tool-matrix');
    const regexp = 'RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@(([a-z0-9]+-*)*[a-z0-9]+\\.)+[a-z]{2,}$';
    const prof = `Hot spot in your code\n  95% of ticks are under \`${regexp}\`, reached from the function at labs/10-backtracking-regex/app.js:23 in isEmailAddress():\n`;
    expect(finding('prof', prof)).toBe('95% under `RegExp: ^([a-z0-9]+[._+-]?)*[a-z0-9]+@(…` (app.js:23)');
    const cpu = '  28% of CPU samples are under `get (node:https:1)`, called from labs/12-tls-per-call/app.js:24 in fetchProduct()';
    expect(finding('cpu', cpu)).toBe('28% under get (app.js:24)');
    expect(finding('cpu', cpu.replace('`get', '`a|b'))).toBe('28% under `a\\|b` (app.js:24)');
  });

  test('the tool matrix names a rerun\'s machine once, and only where it differs', () => {
    const { machineAfterRerun } = require('../scripts/dev/tool-matrix');
    const amd = '2 CPUs, AMD EPYC, linux-x64';
    const intel = '2 CPUs, Intel(R) Xeon(R) Processor, linux-x64';
    const kept = `${amd}; the rows of labs 09, 10, 11, 12: ${intel}`;
    expect(machineAfterRerun(kept, amd, { tool: ['cpu'], lab: ['04'] })).toBe(kept);
    expect(machineAfterRerun(kept, intel, { tool: ['cpu'], lab: ['11'] })).toBe(kept);
    const doctor = machineAfterRerun(kept, intel, { tool: ['clinic-doctor'], lab: ['04'] });
    expect(doctor).toBe(`${kept}; the rows of clinic-doctor on lab 04: ${intel}`);
    expect(machineAfterRerun(doctor, intel, { tool: ['clinic-doctor'], lab: ['04'] })).toBe(doctor);
    expect(machineAfterRerun(kept, '4 CPUs, Apple M2, darwin-arm64', { tool: ['cpu'], lab: ['11'] })).toBe(`${kept}; the rows of cpu on lab 11: 4 CPUs, Apple M2, darwin-arm64`);
  });

  test('the inspector\'s address is read from what the process printed', () => {
    expect(inspectorUrl('Debugger listening on ws://127.0.0.1:37517/e42abd79-4919-406a-a8aa-dc83cc4512ef\nFor help, see: …')).toBe('ws://127.0.0.1:37517/e42abd79-4919-406a-a8aa-dc83cc4512ef');
    expect(inspectorUrl('Listening on http://127.0.0.1:3000')).toBeNull();
    // Node 22 and later have WebSocket; Node 20 uses undici's.
    expect(typeof webSocketClass().WebSocket).toBe('function');
  });
});

describe("lab 02's self time per request (scripts/dev/per-request-self-time.js)", () => {
  const { perRequest } = require('../scripts/dev/per-request-self-time');
  const path = require('node:path');
  const app = path.resolve('labs/02-express-vs-fastify/app.js');
  const mod = (pkg, file) => path.resolve('node_modules', pkg, file);
  // A made-up profile: root → handler (app) → res.json (express) → etag → hash (node:crypto),
  // and beside it writev, Fastify's router, a generated serialiser and idle time.
  const frame = (id, functionName, url, children = [], scriptId = '7') => ({ id, callFrame: { functionName, url, scriptId, lineNumber: 1, columnNumber: 1 }, children });
  const profile = {
    nodes: [
      frame(1, '(root)', '', [2, 7, 8, 9, 11], '0'),
      frame(2, 'handler', app, [3]),
      frame(3, 'json', mod('express', 'lib/response.js'), [4]),
      frame(4, 'entitytag', mod('etag', 'index.js'), [5]),
      frame(5, 'update', 'node:internal/crypto/hash', [6]),
      frame(6, 'digest', 'node:internal/crypto/hash'),
      frame(7, 'writev', '', [], '0'),
      frame(8, 'find', mod('find-my-way', 'index.js'), [10]),
      frame(9, '(idle)', '', [], '0'),
      frame(10, 'anonymous', '', []),
      frame(11, 'parse', 'node:querystring'),
    ],
    samples: [2, 3, 5, 6, 7, 7, 8, 10, 9, 9, 11],
    timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
  };
  const { rows, total } = perRequest(profile, 10, app);
  const us = Object.fromEntries(rows.map((r) => [r.id, r.us]));
  test('node:crypto under the etag package is the ETag', () => expect(us.etag).toBe(20));
  test("each group's time divided by the requests", () => {
    expect(us).toMatchObject({ app: 10, express: 10, writev: 20, fastify: 20, query: 10, node: 0 });
  });
  test('idle samples are not work', () => expect(total).toBe(90));
});
