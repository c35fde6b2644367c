'use strict';
// `npx workbook …`, the README's commands, start the CLI directly: npm links
// the `workbook` bin into node_modules/.bin (scripts/bin/, a `file:`
// dependency of the root package), so npx runs it without installing
// anything into its cache first. Nothing here depends on timing: what makes
// npx slow is the install into its cache, and that is what is looked for.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { ROOT } = require('../scripts/lib/labs');
const { npmCommand, quoteForCmd } = require('../scripts/lib/npm-command');

const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lockfile = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));

/** The dependency of the root package that carries the `workbook` bin, and its folder. */
function binPackage() {
  const [name, spec] = Object.entries(rootPackage.dependencies).find(([, s]) => s.startsWith('file:'));
  const dir = path.join(ROOT, spec.slice('file:'.length));
  return { name, spec, dir, manifest: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) };
}

/** The environment for a child npm: this one, without what `npm test` sets for itself. */
function plainEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || key === 'npm_execpath'));
  return { ...env, NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', ...extra };
}

/** Runs npm or npx in `cwd`; resolves to its exit code and output. */
function runNpm(tool, args, { cwd, env = plainEnv() }) {
  const { command, args: argv, shell } = npmCommand(tool, args, { env });
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env, shell, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

let scratch;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-bin-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('the `workbook` bin is a dependency of the workbook, not the workbook\'s own bin', () => {
  test('the root package declares no `workbook` bin (npx would install the whole workbook into its cache on every call)', () => {
    expect(rootPackage.bin?.workbook).toBeUndefined();
  });

  test('a `file:` dependency carries it: its bin is a Node script that runs scripts/workbook.js', () => {
    const { manifest, dir } = binPackage();
    expect(manifest.bin).toEqual({ workbook: expect.any(String) });
    const text = fs.readFileSync(path.join(dir, manifest.bin.workbook), 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  test('the bin finds the CLI whether npm links its folder (the default) or copies it into node_modules (install-links)', () => {
    const { dir, name, manifest } = binPackage();
    const run = (script) => spawnSync(process.execPath, [script], { encoding: 'utf8' });
    // A workbook of two files: a stand-in CLI, and the bin where each way of installing puts it.
    const copy = path.join(scratch, 'install-links');
    fs.mkdirSync(path.join(copy, 'scripts', 'bin'), { recursive: true });
    fs.mkdirSync(path.join(copy, 'node_modules', name), { recursive: true });
    fs.writeFileSync(path.join(copy, 'scripts', 'workbook.js'), 'console.log("the CLI ran");\n');
    for (const where of [path.join(copy, 'scripts', 'bin'), path.join(copy, 'node_modules', name)]) {
      fs.copyFileSync(path.join(dir, manifest.bin.workbook), path.join(where, 'workbook.js'));
      expect(run(path.join(where, 'workbook.js')).stdout).toBe('the CLI ran\n');
    }
    fs.rmSync(path.join(copy, 'scripts', 'workbook.js'));
    const lost = run(path.join(copy, 'scripts', 'bin', 'workbook.js'));
    expect(lost.status).toBe(1);
    expect(lost.stderr).toMatch(/is not where .* expects it: run npm ci/);
  });

  test('the lockfile links it, so `npm ci` installs it with no registry', () => {
    const { name, spec, dir, manifest } = binPackage();
    const where = path.relative(ROOT, dir).split(path.sep).join('/');
    expect(spec).toBe(`file:${where}`);
    expect(lockfile.packages[`node_modules/${name}`]).toEqual({ resolved: where, link: true });
    expect(lockfile.packages[where].bin).toEqual(manifest.bin);
    expect(lockfile.packages[''].bin).toBeUndefined();
  });

  test('after `npm ci`, node_modules/.bin/workbook leads to it', () => {
    const { dir, manifest } = binPackage();
    const bin = path.join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'workbook.cmd' : 'workbook');
    expect(fs.existsSync(bin)).toBe(true);
    if (process.platform !== 'win32') expect(fs.realpathSync(bin)).toBe(fs.realpathSync(path.join(dir, manifest.bin.workbook)));
  });
});

describe('npx', () => {
  test('`npx workbook help` runs the CLI and installs nothing into the npx cache', async () => {
    const cache = path.join(scratch, 'cache-workbook');
    const { code, out } = await runNpm('npx', ['--offline', '--cache', cache, 'workbook', 'help'], { cwd: ROOT });
    expect(out).toContain('npx workbook <command> [options]');
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(cache, '_npx'))).toBe(false);
  }, 60_000);

  test('control: for a package that declares its own bin, npx does install into its cache (what the test above looks for)', async () => {
    const project = path.join(scratch, 'own-bin');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'own-bin', version: '1.0.0', private: true, bin: { 'own-bin': 'cli.js' } }));
    fs.writeFileSync(path.join(project, 'cli.js'), '#!/usr/bin/env node\nconsole.log("own bin ran");\n', { mode: 0o755 });
    const cache = path.join(scratch, 'cache-own-bin');
    const { code, out } = await runNpm('npx', ['--offline', '--cache', cache, 'own-bin'], { cwd: project });
    expect(out).toContain('own bin ran');
    expect(code).toBe(0);
    expect(fs.existsSync(path.join(cache, '_npx'))).toBe(true);
  }, 60_000);

  test("on Windows, npm gives the bin its .cmd and .ps1 shims (npm's own bin linking, simulated here)", async () => {
    // bin-links, the part of npm that writes .bin/, reads this variable in
    // place of process.platform, for its own tests.
    const { dir } = binPackage();
    const project = path.join(scratch, 'windows-shims');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shims', version: '1.0.0', private: true, dependencies: { cmd: `file:${dir}` } }));
    const env = plainEnv({ __TESTING_BIN_LINKS_PLATFORM__: 'win32' });
    const { code, out } = await runNpm('npm', ['install', '--offline', '--ignore-scripts', '--no-package-lock', '--cache', path.join(scratch, 'cache-shims')], { cwd: project, env });
    expect({ code, out }).toMatchObject({ code: 0 });
    const cmd = fs.readFileSync(path.join(project, 'node_modules', '.bin', 'workbook.cmd'), 'utf8');
    expect(cmd).toContain('"%dp0%\\..\\cmd\\workbook.js"');
    expect(fs.existsSync(path.join(project, 'node_modules', '.bin', 'workbook.ps1'))).toBe(true);
  }, 60_000);
});

describe('running npm as a child process on every OS', () => {
  const npmCli = path.join('/usr', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

  test("under `npm run`, npm's own entry script with this Node: no shell, no PATH lookup", () => {
    const context = { env: { npm_execpath: npmCli }, platform: 'win32', exists: () => true, execPath: '/node' };
    expect(npmCommand('npm', ['ci'], context)).toEqual({ command: '/node', args: [npmCli, 'ci'], shell: false });
    expect(npmCommand('npx', ['x'], context)).toEqual({ command: '/node', args: [path.join(path.dirname(npmCli), 'npx-cli.js'), 'x'], shell: false });
  });

  test('elsewhere, npm from PATH; on Windows npm.cmd through a shell, every argument quoted whole', () => {
    expect(npmCommand('npm', ['ci'], { env: {}, platform: 'linux' })).toEqual({ command: 'npm', args: ['ci'], shell: false });
    expect(npmCommand('npm', ['ci'], { env: { npm_execpath: '/x/yarn.js' }, platform: 'darwin' })).toEqual({ command: 'npm', args: ['ci'], shell: false });
    const win = npmCommand('npm', ['cache', 'add', '--cache', 'C:\\Users\\Ada Lovelace\\room\\npm-cache', '@scope/pkg@1.2.3'], { env: {}, platform: 'win32' });
    expect(win).toEqual({ command: 'npm.cmd', args: ['cache', 'add', '--cache', '"C:\\Users\\Ada Lovelace\\room\\npm-cache"', '@scope/pkg@1.2.3'], shell: true });
    expect(quoteForCmd('say "hi" & exit')).toBe('"say ""hi"" & exit"');
  });
});
