'use strict';
// The workbook's Windows and macOS branches, tested on any machine: each one
// takes the platform (or the clock, the file system, the error) as a
// parameter, and these tests hand it a simulated one. Fast: no servers,
// except two short-lived child processes where only a real one can tell.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { EventEmitter } = require('node:events');

const { quoteForNodeOptions, withPreload } = require('../scripts/harness/node-options');
const { portUnavailable, whyUnavailable, listenOrAnyPort, portStatus } = require('../scripts/server/ports');
const doctor = require('../scripts/cli/doctor');
const { cpuClockStep, roundSeconds } = require('../scripts/checks/against-reference');
const { removeTemp } = require('../scripts/harness/temp');
const { startApp, AppError } = require('../scripts/harness/app-process');
const { parseFrame, profHotspot } = require('../scripts/profile/read/prof-report');
const perf = require('../scripts/profile/tools/perf');
const { UsageError } = require('../scripts/cli/errors');
const run = require('../scripts/cli/run');
const { findChromium } = require('./helpers/browser');
const { benchOptions } = require('../scripts/bench');

let scratch;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-platform-'));
});
afterAll(() => removeTemp(scratch));

/** Node's NODE_OPTIONS tokenizer (ParseNodeOptionsEnvVar, src/node_options.cc), ported for the test. */
function parseNodeOptions(text) {
  const args = [];
  let inString = false;
  let startNew = true;
  for (let i = 0; i < text.length; i++) {
    let c = text[i];
    if (c === '\\' && inString) {
      if (i + 1 === text.length) throw new Error('invalid escape');
      c = text[++i];
    } else if (c === ' ' && !inString) {
      startNew = true;
      continue;
    } else if (c === '"') {
      inString = !inString;
      continue;
    }
    if (startNew) args.push(c);
    else args[args.length - 1] += c;
    startNew = false;
  }
  if (inString) throw new Error('unterminated string');
  return args;
}

describe('1 · the probe in NODE_OPTIONS survives any path', () => {
  test.each([
    'C:\\Users\\Ada Lovelace\\workbook\\scripts\\harness\\probe.js',
    '\\\\server\\share\\probe.js',
    '/home/ada/my "quoted" workbook/probe.js',
  ])('%s comes back whole from Node\'s tokenizer', (file) => {
    expect(parseNodeOptions(withPreload('--max-old-space-size=512', file))).toEqual(['--max-old-space-size=512', '--require', file]);
    expect(parseNodeOptions(quoteForNodeOptions(file))).toEqual([file]);
  });

  test('a real Node preloads a file whose path has spaces (and, off Windows, a backslash and quotes)', () => {
    const name = process.platform === 'win32' ? 'Ada Lovelace' : 'Ada \\ "Lovelace"';
    const dir = path.join(scratch, name);
    fs.mkdirSync(dir);
    const file = path.join(dir, 'preload.js');
    fs.writeFileSync(file, "process.stdout.write('preloaded');");
    const child = spawnSync(process.execPath, ['-e', ''], { env: { ...process.env, NODE_OPTIONS: withPreload('', file) }, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout).toBe('preloaded');
  });
});

describe('2 · a port Windows reserves (EACCES) is "not available", not a crash', () => {
  const eacces = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:4321'), { code: 'EACCES' });

  test('EACCES and EADDRINUSE are both "pick another port"; other errors are not', () => {
    expect(portUnavailable(eacces)).toBe(true);
    expect(portUnavailable({ code: 'EADDRINUSE' })).toBe(true);
    expect(portUnavailable({ code: 'EADDRNOTAVAIL' })).toBe(false);
  });

  test('the sentence says why, per platform', () => {
    expect(whyUnavailable('EACCES', 4321, 'win32')).toMatch(/^Windows does not let programs use port 4321.*Hyper-V.*excludedportrange.*\.$/);
    expect(whyUnavailable('EACCES', 80, 'linux')).toBe('This user may not use port 80 (EACCES): ports below 1024 need root.');
    expect(whyUnavailable('EADDRINUSE', 3000, 'win32')).toBe('Port 3000 is in use by another program.');
  });

  test('npm start falls back to any free port, and says why', async () => {
    const tried = [];
    const said = [];
    const listen = async (port) => {
      tried.push(port);
      if (port !== 0) throw eacces;
      return 'http://127.0.0.1:50123';
    };
    await expect(listenOrAnyPort(listen, 4321, (why) => said.push(why))).resolves.toBe('http://127.0.0.1:50123');
    expect(tried).toEqual([4321, 0]);
    expect(said).toEqual([whyUnavailable('EACCES', 4321)]);
    const broken = Object.assign(new Error('boom'), { code: 'EINVAL' });
    await expect(listenOrAnyPort(() => Promise.reject(broken), 4321)).rejects.toBe(broken);
  });

  test('doctor calls a reserved port unavailable, with what to do', async () => {
    const refusing = () => {
      const server = new EventEmitter();
      server.listen = () => setImmediate(() => server.emit('error', eacces));
      return server;
    };
    expect(await portStatus(4321, refusing)).toBe('EACCES');
    const line = doctor.portsLine({ 3000: 'free', 4321: 'EACCES' }, 'win32');
    expect(line.status).toBe('warn');
    expect(line.text).toMatch(/^npm start: Windows does not let programs use port 4321 \(EACCES\): Hyper-V.*pass --port N/);
    expect(doctor.portsLine({ 3000: 'EADDRINUSE', 4321: 'free' }, 'linux').text).toMatch(/^Labs run by hand: port 3000 is in use by another program\. The checks/);
    expect(doctor.portsLine({ 3000: 'free', 4321: 'free' }).status).toBe('ok');
  });
});

describe('4 · a coarse CPU clock gets longer rounds', () => {
  // A process's CPU time as Windows reports it: in whole ticks of 15 625 µs,
  // while each read costs 2 µs of CPU.
  const coarseClock = () => {
    let used = 0;
    return () => Math.floor((used += 2) / 15_625) * 15_625;
  };

  test('the clock step is measured from the clock itself', () => {
    expect(cpuClockStep({ read: coarseClock() })).toBe(15_625);
    let used = 0;
    expect(cpuClockStep({ read: () => (used += 3) })).toBe(3);
    expect(cpuClockStep({ read: () => 42, budgetMs: 20 })).toBeNull(); // a clock that never moves
  });

  test('rounds grow until one step is at most 1% of a round\'s CPU time', () => {
    const seconds = roundSeconds({ seconds: 0.35, clockStepUs: 15_625, cpuPerSecond: 1 });
    expect(seconds).toBeGreaterThanOrEqual(1.5625);
    expect(15_625 / (seconds * 1e6)).toBeLessThanOrEqual(0.01);
    expect(roundSeconds({ seconds: 0.35, clockStepUs: 4, cpuPerSecond: 1 })).toBe(0.35); // Linux, macOS
    expect(roundSeconds({ seconds: 0.35, clockStepUs: 15_625, cpuPerSecond: 0.1 })).toBe(2); // bounded
    expect(roundSeconds({ seconds: 0.35, clockStepUs: null, cpuPerSecond: 1 })).toBe(0.35);
  });
});

describe('4b · lab 05 calibrates t for the clock it has', () => {
  const { samplingFor } = require('../labs/05-unbounded-cache/check/calibrate');

  test('the calibration samples long enough for the clock it has', () => {
    expect(samplingFor(4, 1500)).toEqual({ samples: 15, perSample: 4 });
    // 20 steps of 15.6 ms in each sample, over 1.5 ms quotes: 209 quotes.
    expect(samplingFor(15_625, 1500)).toEqual({ samples: 5, perSample: 209 });
  });
});

describe('4c · lab 01 times its sign-ins in CPU time for the clock it has', () => {
  const { hashesPerSide } = require('../labs/01-sync-pbkdf2/check/calibrate');

  test('one hash a side where the CPU clock is fine, enough for 20 steps where it is coarse', () => {
    expect(hashesPerSide(4, 55)).toBe(1);
    expect(hashesPerSide(null, 55)).toBe(1);
    // Windows: 20 steps of 15.6 ms over 55 ms hashes, and over a fast machine's 20 ms.
    expect(hashesPerSide(15_625, 55)).toBe(6);
    expect(hashesPerSide(15_625, 20)).toBe(16);
  });
});

describe('5 · cleanup retries a locked file and never fails the run', () => {
  test('EBUSY (antivirus holding a file) is a warning, and rmSync is asked to retry', () => {
    const calls = [];
    const warnings = [];
    const busy = (target, options) => {
      calls.push(options);
      throw Object.assign(new Error('resource busy or locked'), { code: 'EBUSY' });
    };
    expect(removeTemp('C:\\Temp\\workbook-01-x', { rm: busy, warn: (w) => warnings.push(w) })).toBe(false);
    expect(calls[0]).toMatchObject({ recursive: true, force: true, maxRetries: expect.any(Number), retryDelay: expect.any(Number) });
    expect(calls[0].maxRetries).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/Could not remove the temporary C:\\Temp\\workbook-01-x \(EBUSY\)/);
  });

  test('a real folder goes', () => {
    const dir = fs.mkdtempSync(path.join(scratch, 'gone-'));
    fs.writeFileSync(path.join(dir, 'f'), 'x');
    expect(removeTemp(dir)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
  });
});

describe("6 · an app's last words are read after its output closes", () => {
  test('a start-up crash after a lot of output still shows its final line', async () => {
    const app = path.join(scratch, 'noisy-crash.js');
    fs.writeFileSync(app, "process.stderr.write('x'.repeat(256 * 1024) + '\\nthe last line\\n'); process.exitCode = 1;");
    const err = await startApp(app, { timeoutMs: 5000 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.detail).toMatch(/the last line/);
  });
});

describe('7 · a prof hot spot in a path with spaces', () => {
  const windowsApp = 'C:\\Users\\Ada Lovelace\\workbook\\labs\\01-some-lab\\app.js';

  test('frames split at the app path, Windows or not', () => {
    expect(parseFrame(`JS: ^hashPassword ${windowsApp}:20:22`, windowsApp)).toEqual([expect.any(String), 'hashPassword', windowsApp, '20']);
    expect(parseFrame('JS: ~<anonymous> /home/ada/my labs/app.js:35:18', '/home/ada/my labs/app.js').slice(1)).toEqual(['<anonymous>', '/home/ada/my labs/app.js', '35']);
    expect(parseFrame('JS: *pbkdf2Sync node:internal/crypto/pbkdf2:60:20').slice(1)).toEqual(['pbkdf2Sync', 'node:internal/crypto/pbkdf2', '60']);
    expect(parseFrame('/usr/lib/libcrypto.so.3')).toEqual([]);
  });

  test('the bottom-up profile names a line number, not NaN', () => {
    const dir = path.join(scratch, 'Ada Lovelace', 'workbook');
    fs.mkdirSync(dir, { recursive: true });
    const app = path.join(dir, 'app.js');
    fs.writeFileSync(
      app,
      [
        "'use strict';",
        "const crypto = require('node:crypto');",
        'function hashPassword(password, salt) {',
        "  return crypto.pbkdf2Sync(password, salt, 10000, 512, 'sha512');",
        '}',
        '',
        'module.exports = {',
        "  auth: (req) => hashPassword(req.password, 'salt'),",
        '};',
      ].join('\n'),
    );
    const report = [
      'Statistical profiling result from isolate.log, (1000 ticks, 0 unaccounted, 0 excluded).',
      '',
      ' [Bottom up (heavy) profile]:',
      '   ticks  parent  name',
      '    900   90.0%  /usr/lib/libcrypto.so.3',
      '    900  100.0%    JS: *pbkdf2Sync node:internal/crypto/pbkdf2:60:20',
      `    900  100.0%      JS: ^hashPassword ${app}:3:22`,
      `    900  100.0%        JS: ^<anonymous> ${app}:8:18`,
      '',
    ].join('\n');
    const spot = profHotspot(report, app);
    expect(spot).toMatchObject({ callee: 'pbkdf2Sync', caller: 'hashPassword', line: 4, by: 'name' });
    expect(spot.text).toMatch(/pbkdf2Sync\(/);
  });

  // A profile records where a function starts, not the line a call came
  // from: a line is named only when the function calls the callee once.
  test('the hot spot names a line only when the calling function has one call to the callee', () => {
    const { hotspotAt } = require('../scripts/profile/read/source-line');
    const { describeHotspot } = require('../scripts/profile/read/cpuprofile');
    const app = path.join(scratch, 'calls.js');
    fs.writeFileSync(
      app,
      [
        "'use strict';",
        "const express = require('express');",
        "const fs = require('node:fs');",
        "app.get('/products/:sku', (req, res) => {",
        '  const product = catalogue.get(req.params.sku);',
        "  if (!product) return res.status(404).json({ error: 'no product' });",
        '  res.json(product);',
        '});',
        "app.get('/report', (req, res) => {",
        "  const template = handlebars.compile(fs.readFileSync('t.hbs', 'utf8'));",
        '  res.send(template({}));',
        '});',
      ].join('\n'),
    );
    const spot = (start, callee) => describeHotspot(hotspotAt(app, start, callee, { sharePct: 40, callee: callee.name, calleeOrigin: callee.package, caller: '' }));
    // Two calls to json: no line is the call; both are listed.
    const two = spot(4, { name: 'json', package: 'express' });
    expect(two).toMatch(/under `json \(express\)`, reached from the function at \S*calls\.js:4\. It calls `json` on lines 6 and 7, and a profile does not record which/);
    expect(two).not.toMatch(/called from/);
    // The module's top level calls require twice.
    expect(spot(1, { name: 'require' })).toMatch(/reached from the top level of \S*calls\.js\. It calls `require` on lines 2 and 3/);
    // No call by the callee's name, one call into its package: said as such.
    expect(spot(9, { name: 'ret', package: 'handlebars' })).toMatch(/reached from the function at \S*calls\.js:9, whose one call into handlebars is line 10:\n\s+const template = handlebars\.compile/);
    // One call by name: that line.
    expect(spot(9, { name: 'readFileSync' })).toMatch(/called from \S*calls\.js:10:/);
  });

  // (program) is native work with no JavaScript on the stack (lab 12's TLS
  // handshakes): the tables leave it out of "busy", and a line says how much.
  test('the CPU reading says what share (program) was, which its tables leave out', () => {
    const { readCpuProfile, describeOutside } = require('../scripts/profile/read/cpuprofile');
    const frame = (id, functionName, children = []) => ({ id, callFrame: { functionName, url: '', lineNumber: -1, columnNumber: -1 }, children });
    const profile = {
      nodes: [frame(1, '(root)', [2, 3, 4]), frame(2, '(idle)'), frame(3, '(program)'), frame(4, 'work')],
      samples: [...Array(50).fill(2), ...Array(20).fill(3), ...Array(30).fill(4)],
    };
    const reading = readCpuProfile(profile, { appFile: path.join(scratch, 'app.js') });
    expect(reading).toMatchObject({ totalSamples: 100, busySamples: 30, idleSamples: 50, programSamples: 20 });
    expect(describeOutside(reading)).toMatch(/^Not in the tables: \(program\), 40\.0% of the samples that were not idle \(20 of 50; 20\.0% of all 100\)\./);
    expect(describeOutside({ totalSamples: 10, idleSamples: 10, programSamples: 0 })).toBeNull();
  });
});

describe('8 · perf says plainly where it cannot run', () => {
  const ok = { status: 0, stdout: 'perf version 6.1\n', stderr: '' };

  test('macOS and Windows: a Linux tool', () => {
    expect(perf.unavailable({ platform: 'darwin' })).toBe('perf is a Linux tool and this is macOS.');
    expect(perf.unavailable({ platform: 'win32' })).toBe('perf is a Linux tool and this is Windows.');
  });

  test('Linux: not installed, wrong kernel, WSL2, not permitted', () => {
    const missing = () => ({ error: Object.assign(new Error('spawnSync perf ENOENT'), { code: 'ENOENT' }) });
    expect(perf.unavailable({ platform: 'linux', release: '6.8.0-45-generic', run: missing })).toMatch(/^perf is not installed/);
    const wrapper = (release) => () => ({ status: 2, stdout: '', stderr: `WARNING: perf not found for kernel ${release.replace(/-[a-z].*$/, '')}\n\n  You may need to install the following packages for this specific kernel:\n    linux-tools-${release}\n` });
    expect(perf.unavailable({ platform: 'linux', release: '6.8.0-45-generic', run: wrapper('6.8.0-45-generic') })).toMatch(/not for the running kernel \(6\.8\.0-45-generic\).*linux-tools-\$\(uname -r\)/);
    const wsl = '5.15.153.1-microsoft-standard-WSL2';
    expect(perf.unavailable({ platform: 'linux', release: wsl, run: wrapper(wsl) })).toMatch(/not for this WSL kernel.*WSL2-Linux-Kernel, tools\/perf/);
    const denied = (cmd, args) => (args[0] === '--version' ? ok : { status: 255, stderr: 'Error:\nAccess to performance monitoring and observability operations is limited.\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting\n' });
    expect(perf.unavailable({ platform: 'linux', release: '6.8.0', run: denied })).toMatch(/does not let this user profile \(kernel\.perf_event_paranoid = .*\).*sysctl/);
    expect(perf.unavailable({ platform: 'linux', release: '6.8.0', run: () => ok })).toBeNull();
  });

  test('perf\'s reading names the native work its towers are made of, a sample counting once per kind', () => {
    const sample = (...frames) => ['node 4242 [000] 1.000: 5025125 cpu-clock:', ...frames.map((f, i) => `\t    7f00${i} ${f}+0x1${i} (/usr/bin/node)`)].join('\n');
    const script = [
      sample('asn1_item_embed_d2i', 'd2i_X509_AUX', 'state_machine.part.0', 'uv_run'), // decoding, inside a handshake
      sample('__ecp_nistz256_mul_montx', 'state_machine', 'uv_run'), // arithmetic, inside a handshake
      sample('malloc', 'SSL_CTX_new_ex', 'uv_run'),
      sample('Builtins_LoadIC', 'uv_run'),
    ].join('\n\n');
    const { folded } = perf.foldPerfScript(script);
    const rows = Object.fromEntries(perf.nativeFamilies(folded).map((f) => [f.family.split(' (')[0], f.pct]));
    expect(rows).toEqual({
      'OpenSSL: TLS handshakes': 50,
      'OpenSSL: certificates and keys decoded from DER': 25,
      'OpenSSL: elliptic-curve arithmetic': 25,
      'OpenSSL: new secure contexts': 25,
    });
  });

  test('--tool perf on Windows creates nothing and fails with advice', async () => {
    const dir = path.join(scratch, 'profiles', '02-another-lab', 'perf-now');
    fs.mkdirSync(dir, { recursive: true });
    const err = await perf.run({ dir, platform: 'win32', progress: () => {}, print: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/perf is a Linux tool and this is Windows\. Use --tool cpu instead/);
    expect(fs.existsSync(path.join(scratch, 'profiles'))).toBe(false);
  });
});

test('9 · the example requests say curl.exe on Windows', () => {
  expect(run.curlCommand('http://127.0.0.1:3000/health', 'win32')).toBe('curl.exe "http://127.0.0.1:3000/health"');
  expect(run.curlCommand('http://127.0.0.1:3000/health', 'darwin')).toBe('curl "http://127.0.0.1:3000/health"');
});

describe('10 · the browser tests find Chrome, Chromium or Edge where they install', () => {
  const only = (file) => (candidate) => candidate === file;

  test('macOS, Windows, Linux, and $CHROME_PATH first', () => {
    const chrome = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    expect(findChromium({ platform: 'darwin', env: {}, exists: only(chrome) })).toBe(chrome);
    const edge = 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe';
    const env = { PROGRAMFILES: 'C:\\Program Files', 'PROGRAMFILES(X86)': 'C:\\Program Files (x86)', LOCALAPPDATA: 'C:\\Users\\Ada\\AppData\\Local' };
    expect(findChromium({ platform: 'win32', env, exists: only(edge) })).toBe(edge);
    const userChrome = 'C:\\Users\\Ada\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe';
    expect(findChromium({ platform: 'win32', env, exists: only(userChrome) })).toBe(userChrome);
    expect(findChromium({ platform: 'linux', env: {}, exists: only('/usr/bin/chromium') })).toBe('/usr/bin/chromium');
    expect(findChromium({ platform: 'linux', env: { CHROME_PATH: '/opt/c/chrome' }, exists: () => true })).toBe('/opt/c/chrome');
    expect(findChromium({ platform: 'win32', env, exists: () => false })).toBeNull();
  });
});

test('11 · a bare --hog loads every core but one', () => {
  expect(benchOptions(['--hog'], 16).hogs).toBe(15);
  expect(benchOptions(['--hog', '--lab', '01'], 2)).toMatchObject({ hogs: 1, labIds: ['01'] });
  expect(benchOptions(['--hog'], 1).hogs).toBe(1);
  expect(benchOptions(['--hog', '3'], 16).hogs).toBe(3);
  expect(benchOptions(['--hog=2'], 16).hogs).toBe(2);
  expect(benchOptions([], 16).hogs).toBe(0);
});
