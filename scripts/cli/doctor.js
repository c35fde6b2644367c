'use strict';
// `workbook doctor`: a preflight for a learner's machine or a room of them.
// One line per check, ✓ / ! / ✗, and what to do. Exits 1 when something a
// lab needs is missing. The checks run side by side and take a few seconds.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { labs, ROOT } = require('../lib/labs');
const { shippedContent } = require('../lib/shipped');
const { buildState, staleMessage } = require('../lib/site');
const { missingPatches, REAPPLY } = require('../profile/patches');
const perf = require('../profile/tools/perf');
const { track } = require('../harness/children');
const { VERIFY_TAKES } = require('./commands');
const { portStatus, unavailableClause } = require('../server/ports');
const { removeTemp } = require('../harness/temp');
const { bold, dim, green, red, yellow } = require('../lib/style');

const SUPPORTED = [20, 22, 24, 26];
const ok = (label, text) => ({ status: 'ok', label, text });
const warn = (label, text) => ({ status: 'warn', label, text });
const bad = (label, text) => ({ status: 'bad', label, text });

function nodeVersion() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const label = `Node.js ${process.version}`;
  if (major < 20 || (major === 20 && minor < 12)) return bad(label, 'the workbook needs 20.12 or newer: install a current LTS (22 or 24) from nodejs.org or with your version manager.');
  if (!SUPPORTED.includes(major)) return warn(label, `works, but the labs are tested on ${SUPPORTED.join(', ')}; an even-numbered (LTS) version is safer for a workshop.`);
  return ok(label, 'supported.');
}

function cores() {
  const n = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const label = `${n} CPU core${n === 1 ? '' : 's'}`;
  if (n < 2) return warn(label, 'one core makes load tests compete with the app; checks still judge, but expect "too noisy, rerun" more often.');
  if (n < 4) return ok(label, "enough. In lab 01 the async fix can at most double throughput here (the checks judge responsiveness, which does not need cores); on 4+ cores it does more.");
  return ok(label, `lab 01's fix will also raise throughput, up to ${Math.min(n, 4)}× (libuv's thread pool runs 4 hashes at once).`);
}

function installed() {
  const needed = ['express', 'fastify', 'autocannon', 'handlebars', '0x', '@clinic/doctor', '@clinic/flame', '@clinic/bubbleprof', '@clinic/heap-profiler', 'jest', 'markdown-it', 'diff'];
  const missing = needed.filter((name) => {
    try {
      require.resolve(`${name}/package.json`, { paths: [ROOT] });
      return false;
    } catch {
      return true;
    }
  });
  return missing.length ? bad('Workbook packages', `missing ${missing.join(', ')}: run npm ci in ${ROOT}.`) : ok('Workbook packages', 'installed.');
}

function patches() {
  const missing = missingPatches();
  return missing.length ? bad('Clinic.js patches', `${missing.map((p) => p.name).join(', ')} not applied: run ${REAPPLY}.`) : ok('Clinic.js patches', 'applied (Doctor on Node ≥ 21.7, HeapProfiler on 127.0.0.1).');
}

const PORTS = [
  [3000, 'Labs run by hand'],
  [4321, 'npm start'],
];

/** The Ports line from each port's status ('free', or the error code that stopped a listen). */
function portsLine(statuses, platform = process.platform) {
  const taken = PORTS.filter(([port]) => statuses[port] !== 'free');
  if (!taken.length) return ok('Ports', `${PORTS.map(([p]) => p).join(' and ')} free on 127.0.0.1.`);
  const why = taken.map(([port, use]) =>
    ['EADDRINUSE', 'EACCES'].includes(statuses[port])
      ? `${use}: ${unavailableClause(statuses[port], port, platform)}.`
      : `${use}: port ${port} could not be tried (${statuses[port]}).`,
  );
  return warn('Ports', `${why.join(' ')} The checks use free ports and are fine; for run and start, pass --port N (0: any free port).`);
}

async function ports() {
  const statuses = {};
  for (const [port] of PORTS) statuses[port] = await portStatus(port);
  return portsLine(statuses);
}

/** Runs `node <args>` in a scratch folder; resolves with the folder's files and the output. */
function nodeProbe(args, timeoutMs = 10_000) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-doctor-'));
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'close', not 'exit': the output is complete only once the pipes close.
    child.on('close', (code) => {
      clearTimeout(timer);
      const files = fs.readdirSync(dir);
      removeTemp(dir);
      resolve({ code, files, out });
    });
  });
}

async function profilers() {
  const burn = 'let x = 0; for (let i = 0; i < 3e6; i++) x += Math.sqrt(i); const a = []; for (let i = 0; i < 2e5; i++) a.push({ i }); console.log(x > 0);';
  const [prof, cpu, gc] = await Promise.all([
    nodeProbe(['--prof', '-e', burn]),
    nodeProbe(['--cpu-prof', '-e', burn]),
    nodeProbe(['--trace-gc', '-e', burn]),
  ]);
  const broken = [];
  if (!prof.files.some((f) => /isolate-.*\.log$/.test(f))) broken.push('--prof');
  if (!cpu.files.some((f) => f.endsWith('.cpuprofile'))) broken.push('--cpu-prof');
  if (!/ms: (Scavenge|Mark)/.test(gc.out)) broken.push('--trace-gc');
  for (const mod of ['0x', '@clinic/doctor', '@clinic/flame', '@clinic/heap-profiler', '@clinic/bubbleprof']) {
    try {
      require(mod);
    } catch {
      broken.push(mod);
    }
  }
  return broken.length
    ? bad('Profilers', `not working on this Node: ${broken.join(', ')}. Run npm ci again; if it persists, use another Node version.`)
    : ok('Profilers', '--prof, --cpu-prof, --trace-gc, 0x and Clinic.js load and run.');
}

function perfCheck() {
  const why = perf.unavailable();
  return why ? warn('Linux perf', `${why} Only lab 02's optional perf step needs it.`) : ok('Linux perf', 'available (lab 02\'s optional step).');
}

function git() {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
  } catch {
    return warn('git', 'not installed: `npx workbook reset` and `diff` cannot recover the shipped starters. Install git.');
  }
  const missing = labs.filter((lab) => shippedContent(lab, 'app.js').error);
  return missing.length
    ? warn('git', `this folder is not a full git clone of the workbook, so reset cannot recover ${missing.map((l) => l.id).join(', ')}. Clone it with git.`)
    : ok('git', 'every shipped starter can be recovered (for reset and diff).');
}

function disk() {
  if (!fs.statfsSync) return warn('Disk space', 'cannot be measured on this Node.');
  const { bavail, bsize } = fs.statfsSync(ROOT);
  const freeMb = (bavail * bsize) / 1024 / 1024;
  const text = `${(freeMb / 1024).toFixed(1)} GB free`;
  if (freeMb < 500) return bad('Disk space', `${text}: each profile takes tens of MB (heap snapshots more). Free some space.`);
  if (freeMb < 1500) return warn('Disk space', `${text}: enough, but delete profiles/ now and then.`);
  return ok('Disk space', `${text}.`);
}

function site() {
  const status = buildState();
  if (status.state === 'current') return ok('Workbook site', 'built (site/build): npm start serves it at once, offline.');
  // Stale only where someone edited the site's sources: it still serves, one rebuild away from current.
  if (status.state === 'stale') return warn('Workbook site', staleMessage(status, { max: 3 }));
  return bad('Workbook site', staleMessage(status));
}

module.exports = {
  usage: 'npx workbook doctor',
  help: ['Checks Node, CPUs, ports, the profilers, perf, git, disk space and the site,', 'one line each with what to do. Exit code 1 when something a lab needs is missing.'],
  options: {},
  portsLine,
  async run() {
    const started = Date.now();
    console.log(bold('Workbook doctor'));
    const checks = await Promise.all([nodeVersion(), cores(), installed(), patches(), ports(), profilers(), perfCheck(), git(), disk(), site()]);
    const mark = { ok: green('✓'), warn: yellow('!'), bad: red('✗') };
    const width = Math.max(...checks.map((c) => c.label.length));
    for (const c of checks) console.log(`  ${mark[c.status]} ${c.label.padEnd(width)}  ${c.status === 'ok' ? dim(c.text) : c.text}`);
    const failed = checks.filter((c) => c.status === 'bad').length;
    console.log(
      `\n${failed ? red(`${failed} problem${failed === 1 ? '' : 's'} to fix before the labs.`) : green('Ready for the labs.')} ` +
        dim(`(${((Date.now() - started) / 1000).toFixed(1)} s; \`npx workbook verify\` also runs every check, ${VERIFY_TAKES})`),
    );
    return failed ? 1 : 0;
  },
};
