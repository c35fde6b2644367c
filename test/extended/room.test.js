'use strict';
// A room without internet, the documented way (README, For trainers): on a
// connected machine, `npm run room -- <folder>` once; then a learner copies
// the folder's workbook and runs the README's commands with no network.
//
// The trainer's side runs in a fresh clone of this workbook's last commit.
// The learner's `npm ci` runs with the network shut out: in a network
// namespace of its own where Linux allows one (`unshare --net`: no interface
// but a loopback that is down), and always with npm's proxies pointed at a
// closed port, so any request npm made despite `offline` would fail. (The
// registry address itself must stay the one the cache was filled from: npm
// files package metadata in its cache under that address, which is why the
// room's .npmrc pins it.) Then the site is served, and installs for Windows
// and macOS (npm's --os/--cpu) prove the other platforms' packages are there.
//
// It downloads every package of the lockfile once (about 175 MB in npm's cache) and installs
// three times: a few minutes, so it is in the extended suite.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const { ROOT, labs } = require('../../scripts/lib/labs');
const { npmCommand } = require('../../scripts/lib/npm-command');
const { track } = require('../../scripts/harness/children');
const { lineSplitter } = require('../../scripts/harness/output-tail');

const NOWHERE = 'http://127.0.0.1:9';
const COPY_NAME = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;

/** Linux with network namespaces (as root, or with unprivileged user namespaces): the strongest "no network". */
const unshareArgs = process.getuid?.() === 0 ? ['--net'] : ['--net', '--map-root-user'];
const canUnshare = process.platform === 'linux' && spawnSync('unshare', [...unshareArgs, 'true']).status === 0;

function cleanEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || key === 'npm_execpath'));
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs a command, echoing its lines as progress; resolves to {code, out}. */
function run(command, args, { cwd, env = cleanEnv(), shell = false, label, timeoutMs = 600_000 }) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { cwd, env, shell, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true }));
    let out = '';
    const lines = lineSplitter((line) => line.trim() && !/Unknown user config/.test(line) && process.stdout.write(`  [${label}] ${line.trim()}\n`));
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (d) => {
        out += d;
        lines.push(d);
      });
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      lines.flush();
      resolve({ code, out });
    });
  });
}

/** npm in `cwd` with no network at all: its own namespace where possible, and dead proxies. */
function npmOffline(args, { cwd, label }) {
  const npm = npmCommand('npm', args);
  // And a registry of the learner's own in the environment (a company mirror, say), which the cache knows nothing of.
  const env = cleanEnv({ npm_config_proxy: NOWHERE, npm_config_https_proxy: NOWHERE, npm_config_noproxy: '', npm_config_registry: 'https://registry.invalid/' });
  if (canUnshare) return run('unshare', [...unshareArgs, npm.command, ...npm.args], { cwd, env, label });
  return run(npm.command, npm.args, { cwd, env, shell: npm.shell, label });
}

let scratch;
let learner;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-room-'));
  process.stdout.write(`  [room] The network is shut out of the learner's installs by ${canUnshare ? 'a network namespace (unshare --net) and ' : ''}dead proxies (${NOWHERE}).\n`);

  // The trainer: a fresh clone of the last commit, with this workbook's packages.
  const trainer = path.join(scratch, 'trainer');
  execFileSync('git', ['clone', '--quiet', ROOT, trainer]);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(trainer, 'node_modules'), 'junction');
  const room = path.join(scratch, 'usb-stick');
  // Its own proof (an offline install) is what this test does more strictly.
  const prepared = await run(process.execPath, [path.join(trainer, 'scripts', 'room.js'), room, '--no-verify'], { cwd: trainer, label: 'npm run room' });
  if (prepared.code !== 0) throw new Error(`npm run room failed:\n${prepared.out}`);

  // A learner copies the workbook's folder from the stick to their disk.
  learner = path.join(scratch, 'laptop', COPY_NAME);
  fs.cpSync(path.join(room, COPY_NAME), learner, { recursive: true });
}, 900_000);

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));

test('the room folder has a note for learners and the workbook with its offline settings', () => {
  const note = fs.readFileSync(path.join(scratch, 'usb-stick', 'README.txt'), 'utf8');
  expect(note).toContain(`Copy the folder "${COPY_NAME}"`);
  expect(note).toMatch(/npm ci\r\n\s+npm start\b.*\r\n\s+npm test/);
  const npmrc = fs.readFileSync(path.join(learner, '.npmrc'), 'utf8');
  expect(npmrc).toMatch(/^offline=true$/m);
  expect(npmrc).toMatch(/^cache=\.workbook\/npm-cache$/m);
  expect(npmrc).toMatch(/^registry=https?:\/\/\S+$/m);
});

test('control: the network really is shut out (npm asking the registry fails there)', async () => {
  const { code } = await npmOffline(['view', 'express', 'version', '--offline=false', '--fetch-retries=0', '--cache', path.join(scratch, 'empty-cache')], { cwd: scratch, label: 'control: npm view' });
  expect(code).not.toBe(0);
}, 120_000);

test('`npm ci` installs with no network, and leaves git status clean', async () => {
  const { code, out } = await npmOffline(['ci'], { cwd: learner, label: 'learner: npm ci' });
  expect({ code, out }).toMatchObject({ code: 0 });
  expect(fs.existsSync(path.join(learner, 'node_modules', '.bin', process.platform === 'win32' ? 'workbook.cmd' : 'workbook'))).toBe(true);
  // The postinstall ran offline too: the workbook's patches to Clinic.js are in place.
  const check = spawnSync(process.execPath, ['-e', "console.log(JSON.stringify(require('./scripts/profile/patches').missingPatches()))"], { cwd: learner, encoding: 'utf8' });
  expect(check.stdout.trim()).toBe('[]');
  expect(execFileSync('git', ['status', '--porcelain'], { cwd: learner, encoding: 'utf8' })).toBe('');
}, 600_000);

test('`npx workbook help` runs offline', async () => {
  const npx = npmCommand('npx', ['workbook', 'help']);
  const env = cleanEnv({ npm_config_proxy: NOWHERE, npm_config_https_proxy: NOWHERE });
  const { code, out } = canUnshare
    ? await run('unshare', [...unshareArgs, npx.command, ...npx.args], { cwd: learner, env, label: 'learner: npx workbook help' })
    : await run(npx.command, npx.args, { cwd: learner, env, shell: npx.shell, label: 'learner: npx workbook help' });
  expect(code).toBe(0);
  expect(out).toContain('npx workbook <command> [options]');
}, 60_000);

test('`npm start` serves the whole site: pages, captures and the Check my fix API', async () => {
  const child = track(spawn(process.execPath, ['scripts/workbook.js', 'start', '--no-open', '--port', '0'], { cwd: learner, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
  try {
    let out = '';
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not serve within 30 s:\n${out}`)), 30_000);
      const onData = (d) => {
        out += d;
        const m = /The workbook is at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code) => reject(new Error(`npm start ended (code ${code}):\n${out}`)));
    });
    const get = (urlPath) =>
      new Promise((resolve, reject) => {
        http.get(url + urlPath, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        }).on('error', reject);
      });
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('Node.js profiling workbook');
    for (const lab of labs) expect((await get(`/labs/${lab.slug}/`)).status).toBe(200);
    const captures = await get('/captures/index.json');
    expect(captures.status).toBe(200);
    expect(Object.keys(JSON.parse(captures.body).labs).length).toBeGreaterThan(0);
    const api = await get('/api/labs');
    expect(JSON.parse(api.body).labs.map((l) => l.slug)).toEqual(labs.map((l) => l.slug));
    // Nothing said the site was stale or had to be built.
    expect(out).not.toMatch(/stale|Building|not built/i);
  } finally {
    child.kill('SIGINT');
  }
}, 60_000);

test.each([
  ['Windows on x64', 'win32', 'x64', '@unrs/resolver-binding-win32-x64-msvc'],
  ['macOS on Apple silicon', 'darwin', 'arm64', '@unrs/resolver-binding-darwin-arm64'],
])('the folder serves %s too: npm ci --os %s --cpu %s installs offline', async (_name, osName, cpu, native) => {
  fs.rmSync(path.join(learner, 'node_modules'), { recursive: true, force: true });
  // Install scripts are for the machine they run on: this one is not that platform.
  const { code, out } = await npmOffline(['ci', '--os', osName, '--cpu', cpu, '--ignore-scripts'], { cwd: learner, label: `learner on ${osName}-${cpu}: npm ci` });
  expect({ code, out }).toMatchObject({ code: 0 });
  expect(fs.existsSync(path.join(learner, 'node_modules', ...native.split('/'), 'package.json'))).toBe(true);
}, 600_000);
