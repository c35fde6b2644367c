'use strict';
// What `npm run room -- <folder>` puts in a room's folder, without the
// network: which packages, in what batches, with what settings. The whole
// thing, downloads and an install with the network shut out, is
// test/extended/room.test.js.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../scripts/lib/labs');
const { COPY_CACHE, batches, learnerNote, lockWithTarballs, lockfilePackages, platformsOf, roomNpmrc, versionText } = require('../scripts/lib/room');

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('the packages a room needs', () => {
  const { specs, platformSpecific } = lockfilePackages(lock);

  test("every registry package of the workbook's lockfile, once, including every platform's native builds", () => {
    const entries = Object.entries(lock.packages).filter(([where, e]) => where.includes('node_modules/') && !e.link && !e.inBundle);
    const expected = new Set(entries.map(([where, e]) => `${e.name || where.split('node_modules/').pop()}@${e.version}`));
    expect(new Set(specs)).toEqual(expected);
    const native = entries.filter(([, e]) => e.os || e.cpu).map(([where, e]) => `${where.split('node_modules/').pop()}@${e.version}`);
    expect(native.length).toBeGreaterThan(0);
    for (const spec of native) expect(platformSpecific).toContain(spec);
    // The lockfile lists macOS and Windows builds; a trainer on Linux must fetch them all the same.
    expect(platformSpecific.some((s) => /darwin/.test(s))).toBe(true);
    expect(platformSpecific.some((s) => /win32/.test(s))).toBe(true);
  });

  test('not the workbook itself, nor its linked `workbook` command', () => {
    expect(specs.some((s) => s.startsWith(`${rootPackage.name}@`))).toBe(false);
    expect(specs.some((s) => s.startsWith('node-profiling-workbook-command@'))).toBe(false);
  });

  test('aliases by their real name; links, bundled packages, git and local sources left out', () => {
    const synthetic = {
      packages: {
        '': { name: 'x', version: '1.0.0' },
        'node_modules/a': { version: '1.0.0' },
        'node_modules/b/node_modules/a': { version: '2.0.0' },
        'node_modules/@s/c': { version: '3.0.0', os: ['win32'], cpu: ['x64'] },
        'node_modules/alias': { name: 'real', version: '4.0.0' },
        'node_modules/linked': { resolved: 'tools/linked', link: true },
        'tools/linked': { name: 'linked', version: '0.1.0' },
        'node_modules/b': { version: '1.0.0' },
        'node_modules/b/node_modules/inside': { version: '1.0.0', inBundle: true },
        'node_modules/fromgit': { version: '1.0.0', resolved: 'git+ssh://git@example.org/x.git#abc' },
        'node_modules/again': { version: '1.0.0', resolved: 'https://registry.example.org/again/-/again-1.0.0.tgz' },
      },
    };
    expect(lockfilePackages(synthetic)).toEqual({
      specs: ['@s/c@3.0.0', 'a@1.0.0', 'a@2.0.0', 'again@1.0.0', 'b@1.0.0', 'real@4.0.0'],
      platformSpecific: ['@s/c@3.0.0'],
    });
    expect(() => lockfilePackages({ lockfileVersion: 1, dependencies: {} })).toThrow(/lockfile version 2 or later/);
  });

  test('the platforms, as a learner reads them', () => {
    expect(platformsOf(lock)).toBe('Linux, macOS, Windows');
  });
});

test('npm is called with command lines cmd.exe can take: every package once, in order, each batch under the limit', () => {
  const items = Array.from({ length: 500 }, (_, i) => `@scope/package-number-${i}@1.${i}.0`);
  const runs = batches(items, 1000);
  expect(runs.flat()).toEqual(items);
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) expect(run.join(' ').length).toBeLessThan(1000);
  expect(batches(['x'.repeat(50)], 10)).toEqual([['x'.repeat(50)]]);
  expect(batches([], 10)).toEqual([]);
});

test("the copy's .npmrc: offline, from its own cache, under the address the cache was filled from", () => {
  const text = roomNpmrc({ registry: 'https://registry.example.org/' });
  const settings = Object.fromEntries(text.split('\n').filter((l) => l && !l.startsWith(';')).map((l) => l.split('=')));
  expect(settings).toMatchObject({ offline: 'true', cache: COPY_CACHE, registry: 'https://registry.example.org/' });
  // Inside .workbook/, which git ignores, so the cache never shows in git status.
  expect(COPY_CACHE.startsWith('.workbook/')).toBe(true);
  expect(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8')).toMatch(/^\.workbook\/$/m);
});

test("the learners' note: the README's three commands, the Node version, CRLF line ends", () => {
  const note = learnerNote({ copyName: 'wb', nodeEngines: rootPackage.engines.node, packages: 12, platforms: 'Linux, macOS, Windows' });
  expect(note).toContain(`Node.js ${versionText(rootPackage.engines.node)}`);
  expect(versionText('>=20.12')).toBe('20.12 or newer');
  expect(note).toMatch(/ npm ci\r\n +npm start\b.*\r\n +npm test\r\n/);
  expect(note).toContain('delete the file wb/.npmrc');
  expect(note.replace(/\r\n/g, '')).not.toContain('\n');
});

describe('`npm run room` refuses what it cannot do well, in one sentence', () => {
  const room = (...args) => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'room.js'), ...args], { cwd: ROOT, encoding: 'utf8' });

  test('it is the documented command', () => {
    expect(rootPackage.scripts.room).toBe('node scripts/room.js');
  });

  test('no folder: says to give one', () => {
    const { status, stderr } = room();
    expect(status).toBe(2);
    expect(stderr).toMatch(/Say which folder to fill/);
  });

  test('a folder with something in it: refused, so nothing of an older room stays', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-room-full-'));
    try {
      fs.writeFileSync(path.join(dir, 'old.txt'), 'x');
      const { status, stderr } = room(dir);
      expect(status).toBe(2);
      expect(stderr).toMatch(/is not empty/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('the room\'s lockfile names every registry tarball, so no registry metadata is read (a learner\'s npm_config_registry got ENOTCACHED)', () => {
  const lock = {
    lockfileVersion: 3,
    packages: {
      '': { name: 'w' },
      'node_modules/a': { version: '1.0.0', integrity: 'sha512-a' },
      'node_modules/@s/b': { version: '2.1.0', integrity: 'sha512-b' },
      'node_modules/x/node_modules/c': { name: 'real-c', version: '3.0.0', integrity: 'sha512-c' },
      'node_modules/d': { version: '1.0.0', resolved: 'https://elsewhere.example/d.tgz' },
      'node_modules/linked': { link: true, resolved: 'packages/linked' },
    },
  };
  const out = lockWithTarballs(lock, 'https://registry.npmjs.org/');
  expect(out.packages['node_modules/a'].resolved).toBe('https://registry.npmjs.org/a/-/a-1.0.0.tgz');
  expect(out.packages['node_modules/@s/b'].resolved).toBe('https://registry.npmjs.org/@s/b/-/b-2.1.0.tgz');
  expect(out.packages['node_modules/x/node_modules/c'].resolved).toBe('https://registry.npmjs.org/real-c/-/real-c-3.0.0.tgz');
  expect(out.packages['node_modules/d'].resolved).toBe('https://elsewhere.example/d.tgz');
  expect(out.packages['node_modules/linked'].resolved).toBe('packages/linked');
  expect(out.packages['node_modules/a'].integrity).toBe('sha512-a');
  expect(lock.packages['node_modules/a'].resolved).toBeUndefined(); // the workbook's own stays as it is
  expect(lockWithTarballs(lock, 'https://mirror.example/npm').packages['node_modules/a'].resolved).toBe('https://mirror.example/npm/a/-/a-1.0.0.tgz');
});

