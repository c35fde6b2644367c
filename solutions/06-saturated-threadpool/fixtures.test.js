'use strict';
// Lab 06's check against fixtures: other real fixes must pass; "fixes" that
// drop, cheapen or fake the compression, spare /status alone while the
// exports still fill the pool, or hide the pool behind more processes, must
// fail. Most are the reference solution with a few lines changed
// (derivedApp: a change to the solution that breaks a patch fails loudly).
// The lab's own suite is labs/06-saturated-threadpool/check/verdicts.test.js.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('06');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const wrong = (result) => result.responses.filter((r) => !r.pass);

// The lines of the reference solution the fixtures change.
const LIMIT = 'const EXPORTS_AT_ONCE = Math.max(1, POOL_SIZE - 1);';
const COMPRESS = '  const body = await compressSlot(() => brotliCompress(json));';
const STATUS = "  const build = JSON.parse(await fs.readFile(BUILD_FILE, 'utf8'));";
const SEND = "  res.set({ 'content-type': 'application/json', 'content-encoding': 'br' });\n  res.send(body);";
const derived = (name, patches) => derivedApp(`06-${name}`, lab.solutionApp, patches);
// The starter's shape: every export straight onto the pool.
const UNBOUNDED = [COMPRESS, '  const body = await brotliCompress(json);'];
// minThreads as many as maxThreads: with piscina's default idleTimeout of 0,
// a worker above minThreads is ended the moment it is idle, and between two
// exports of one connection it is, so the pool would keep ending and
// starting workers (each start costs tens of ms of CPU on 2 cores).
const onPiscina = (worker, threads = "require('node:os').availableParallelism()") => [
  [COMPRESS, `  const body = Buffer.from(await compressors.run(json));`],
  ["const express = require('express');", `const express = require('express');\nconst { Piscina } = require('piscina');\nconst compressors = new Piscina({ filename: ${JSON.stringify(fixture(worker))}, minThreads: ${threads}, maxThreads: ${threads} });`],
];

// libuv reads UV_THREADPOOL_SIZE when the pool starts. On Linux and macOS,
// and on Windows since libuv 1.52, a value set in process.env before the
// first pool job counts; on Windows with an older libuv (Node 20 has 1.46)
// it does not (libuv #4887, fixed by #4888), and the pool stays at 4.
const [uvMajor, uvMinor] = process.versions.uv.split('.').map(Number);
const poolSizeFromEnvWorks = process.platform !== 'win32' || uvMajor > 1 || uvMinor >= 52;
const POOL_16 = [
  ['const HOST = process.env.HOST', "// Before the first pool job: libuv sizes its pool once, when it starts.\nprocess.env.UV_THREADPOOL_SIZE = '16';\nconst HOST = process.env.HOST"],
  UNBOUNDED,
];

const otherFixes = [
  ['the compressions on a piscina worker pool (each compresses synchronously in its thread)', derived('piscina', onPiscina('compress-worker.js'))],
  ['at most two exports compressing at once', derived('limit-2', [[LIMIT, 'const EXPORTS_AT_ONCE = 2;']])],
];
const cheats = [
  [
    'the report sent uncompressed',
    derived('uncompressed', [[COMPRESS, '  const body = json;'], [SEND, "  res.type('json').send(body);"]]),
    (result) => expect(wrong(result)[0].actual).toMatch(/content-encoding null, not br/),
  ],
  [
    'Brotli at quality 4',
    derived('lower-quality', [[COMPRESS, '  const body = await compressSlot(() => brotliCompress(json, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }));']]),
    (result) => expect(wrong(result).map((r) => r.actual).join('\n')).toMatch(/compressed with a cheaper setting/),
  ],
  [
    'a cheaper quality only when busy (the lone exports are right)',
    derived('cheaper-when-busy', [
      [COMPRESS, '  const busy = inFlight++ > 1;\n  const body = await brotliCompress(json, busy ? { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } : {}).finally(() => inFlight--);'],
      ['const app = express();', 'const app = express();\nlet inFlight = 0;'],
    ]),
    (result) => expect(wrong(result).map((r) => r.name).join('\n')).toMatch(/exports sampled under load/),
  ],
  [
    "a cache of each region's export (the load never repeats a region)",
    derived('cache-per-region', [
      UNBOUNDED,
      ['  const json = JSON.stringify(salesReport(req.params.region));', '  const cached = byRegion.get(req.params.region);\n  const json = JSON.stringify(salesReport(req.params.region));'],
      ['  const body = await brotliCompress(json);', '  const body = cached ?? (await brotliCompress(json));\n  byRegion.set(req.params.region, body);'],
      ['const app = express();', 'const app = express();\nconst byRegion = new Map();'],
    ]),
    (result) => {
      expect(wrong(result)).toEqual([]);
      expectGates(result, { 'pool-wait': false });
    },
  ],
  [
    'answering with the last export while this one compresses',
    derived('answer-early', [
      [COMPRESS, '  const pending = brotliCompress(json).then((bytes) => (lastExport = bytes));\n  const body = lastExport ?? (await pending);'],
      ['const app = express();', 'const app = express();\nlet lastExport = null;'],
    ]),
    (result) => expect(wrong(result).map((r) => r.expected).join('\n')).toMatch(/the reference's report/),
  ],
  [
    'the compressions moved onto the main thread (brotliCompressSync)',
    derived('sync-compress', [[COMPRESS, '  const body = zlib.brotliCompressSync(json);']]),
    (result) => {
      expect(wrong(result)).toEqual([]);
      expectGates(result, { 'status-p50': false });
    },
  ],
  [
    'build.json read once, so /status never needs the pool, while the exports still fill it',
    derived('cache-build-file', [
      UNBOUNDED,
      [STATUS, '  const build = BUILD;'],
      ['const app = express();', "const app = express();\nconst BUILD = JSON.parse(require('node:fs').readFileSync(BUILD_FILE, 'utf8'));"],
    ]),
    (result) => {
      expect(wrong(result)).toEqual([]);
      expectGates(result, { 'pool-wait': /any fs, dns.lookup, crypto or zlib call/ });
    },
  ],
  [
    'at most four exports compressing at once: as many as the pool has threads, none left free',
    derived('limit-4', [[LIMIT, 'const EXPORTS_AT_ONCE = POOL_SIZE;']]),
    (result) => expectGates(result, { 'pool-wait': false }),
  ],
  [
    // Eight workers, each waiting on one asynchronous compression: eight
    // compressions on libuv's four threads, as on a laptop with eight cores.
    // (Sized to a 2-core machine's cores, it would be a limit of two.)
    'a piscina pool of eight workers that call the asynchronous brotliCompress (back on the same four threads)',
    derived('piscina-async', onPiscina('compress-worker-async.js', '8')),
    (result) => expectGates(result, { 'pool-wait': false }),
  ],
  [
    'a cluster of two starters',
    fixture('cluster.js'),
    (result) => expect(wrong(result).map((r) => r.actual).join('\n')).toMatch(/went to other processes \(a cluster\?\)/),
  ],
];

if (poolSizeFromEnvWorks) {
  otherFixes.push(['UV_THREADPOOL_SIZE=16 set at the top of app.js, before the first pool job', derived('pool-size', POOL_16)]);
} else {
  cheats.push([
    'UV_THREADPOOL_SIZE=16 set inside app.js, which this libuv on Windows ignores',
    derived('pool-size', POOL_16),
    (result) => expectGates(result, { 'pool-wait': false }),
  ]);
}

describe('lab 06 · fixtures', () => {
  describeFixtures(lab, { otherFixes, cheats });
});

// The reference sizes its bound from UV_THREADPOOL_SIZE, and must read it as
// libuv does, or a value libuv reads as one thread (an empty one, "0") would
// leave it three compressions on a pool of one. Judged against libuv itself:
// on Linux a child process counts the threads that its first pool job starts
// (/proc/self/task), for each value.
describe("lab 06 · the reference reads UV_THREADPOOL_SIZE as this Node's libuv does", () => {
  const source = fs.readFileSync(lab.solutionApp, 'utf8');
  const definition = /function threadPoolSize[\s\S]*?\n}\n/.exec(source);
  test('the reference defines threadPoolSize', () => expect(definition).not.toBeNull());
  if (!definition) return;
  // Evaluated with an empty environment of its own: "unset" means unset.
  const threadPoolSize = new Function('process', `${definition[0]}\nreturn threadPoolSize;`)({ env: {}, versions: process.versions });
  const COUNT_POOL_THREADS = `
    const fs = require('node:fs');
    const before = fs.readdirSync('/proc/self/task').length;
    fs.stat(__filename, () => console.log(fs.readdirSync('/proc/self/task').length - before));`;
  const values = [undefined, '', '0', '2', ' 3', '5 threads', 'abc', '-1', '2000', '1e3', '+6', '0000000000000002'];
  const linux = process.platform === 'linux';
  (linux ? test : test.skip)(`${values.length} values, from unset to 16 characters (libuv ${process.versions.uv})`, () => {
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lab06-pool-')), 'count.js');
    fs.writeFileSync(script, COUNT_POOL_THREADS);
    for (const value of values) {
      const env = { ...process.env };
      if (value === undefined) delete env.UV_THREADPOOL_SIZE;
      else env.UV_THREADPOOL_SIZE = value;
      const started = Number(execFileSync(process.execPath, [script], { env, encoding: 'utf8' }).trim());
      expect({ value, threads: threadPoolSize(value) }).toEqual({ value, threads: started });
    }
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  });
});
