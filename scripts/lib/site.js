'use strict';
// Installs and builds the workbook site (site/, its own npm package) when,
// and only when, it is needed: `npm start` and the site's tests call these
// before serving site/build. Both steps stream progress lines and are never
// silent for more than a few seconds, since the first install takes about a
// minute.
//
// What "needed" means is recorded next to the output:
//   site/node_modules/.workbook-install.json  hash of site/package-lock.json
//   site/build/.workbook-build.json            hash of every input of the build
// `npm ci` deletes node_modules and Docusaurus empties build/, so a stamp
// never outlives what it describes.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT, labs } = require('./labs');
const { labFiles } = require('./shipped');
const { readWalkthrough } = require('./walkthrough');
const { OutputTail, lineSplitter } = require('../harness/output-tail');

const SITE_DIR = path.join(ROOT, 'site');
const BUILD_DIR = path.join(SITE_DIR, 'build');
const LOCKFILE = path.join(SITE_DIR, 'package-lock.json');
const INSTALL_STAMP = path.join(SITE_DIR, 'node_modules', '.workbook-install.json');
const BUILD_STAMP = path.join(BUILD_DIR, '.workbook-build.json');

const TEXT = /\.(js|mjs|cjs|jsx|json|md|mdx|css|html|txt|hbs|svg|yml|yaml)$/i;

// Say something at least this often while a step runs quietly.
const HEARTBEAT_MS = 8000;

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function writeJson(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
}

function sha256(...parts) {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/** Every file under `dir` (relative to ROOT, forward slashes), skipping `skip` folder names. */
function filesUnder(dir, skip = new Set()) {
  const found = [];
  const walk = (current) => {
    let entries;
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return; // a folder that does not exist has no inputs
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(full);
      } else if (entry.isFile()) {
        found.push(path.relative(ROOT, full).split(path.sep).join('/'));
      }
    }
  };
  walk(dir);
  return found;
}

/**
 * The files the built site is made from. The learner's own edits to
 * labs/<lab>/app.js are deliberately not among them: the site shows the
 * shipped starters (pinned by scripts/lib/shipped-starters.json), so
 * editing a lab must not cost a rebuild at the next `npm start`.
 */
function buildInputs() {
  const editable = new Set(labs.flatMap((lab) => labFiles(lab).map((file) => `labs/${lab.slug}/${file}`)));
  // The walkthroughs, their images, the lab list and each lab's check folder
  // (gates, margins, trainers' notes).
  const labInputs = filesUnder(path.join(ROOT, 'labs')).filter(
    (file) =>
      !editable.has(file) &&
      (/\/README\.md$/.test(file) || /\.(png|jpe?g|gif|svg|webp)$/i.test(file) || file === 'labs/labs.json' || /^labs\/[^/]+\/check\//.test(file)),
  );
  return [
    ...filesUnder(SITE_DIR, new Set(['node_modules', 'build', '.docusaurus'])),
    ...labInputs,
    ...filesUnder(path.join(ROOT, 'solutions')),
    // The shipped-starter manifest, the wording, and the check contract.
    ...filesUnder(path.join(ROOT, 'scripts', 'lib')),
    ...filesUnder(path.join(ROOT, 'scripts', 'checks')),
    ...quotedFiles([...labInputs, ...filesUnder(path.join(SITE_DIR, 'docs'))]),
    'package.json',
  ]
    .filter((file, i, all) => all.indexOf(file) === i)
    .sort();
}

/**
 * Files that walkthroughs quote in code blocks titled with their path
 * (```js title="scripts/…"): the build copies their lines, so they are
 * inputs wherever they live.
 */
function quotedFiles(markdownFiles) {
  return markdownFiles
    .filter((file) => /\.mdx?$/.test(file))
    .flatMap((file) => readWalkthrough(path.join(ROOT, file)).codeBlocks.map((block) => block.title))
    .filter((title) => title && /^(labs|solutions|scripts|test)\//.test(title) && fs.existsSync(path.join(ROOT, title)));
}

/** One hash of every build input: names and contents, plus the settings that change the output. */
function buildHash() {
  const hash = crypto.createHash('sha256');
  for (const file of buildInputs()) {
    hash.update(`${file}\0`);
    const content = fs.readFileSync(path.join(ROOT, file));
    // Line endings do not change the site (Windows checkouts may use CRLF).
    hash.update(TEXT.test(file) ? content.toString('utf8').replace(/\r\n/g, '\n') : content);
    hash.update('\0');
  }
  hash.update(`base-url=${process.env.WORKBOOK_SITE_BASE_URL || '/'}`);
  return hash.digest('hex');
}

function lockfileHash() {
  if (!fs.existsSync(LOCKFILE)) {
    throw new Error('The site cannot be installed: site/package-lock.json is missing from the workbook (restore it with git).');
  }
  return sha256(fs.readFileSync(LOCKFILE, 'utf8').replace(/\r\n/g, '\n'));
}

/**
 * The environment for a child npm or Docusaurus: the caller's, without what
 * `npm start` sets for the root package (npm would otherwise act on the
 * root's folder), and without update checks phoning home.
 */
function childEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(config_local_prefix|config_call|command|lifecycle_|package_)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NO_UPDATE_NOTIFIER: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

// Docusaurus's advice to run its own server: `npm start` serves the build itself.
const NOISE = /Use `npm run serve` command/;

/**
 * Runs a command, passing each line it prints to `progress`, and a
 * heartbeat line whenever it has been quiet for a while.
 * @returns {Promise<void>} rejects with `failure` plus the output's tail
 */
function run(command, args, { cwd, progress, doing, still, failure, shell = false }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let lastSaid = Date.now();
    const say = (text) => {
      lastSaid = Date.now();
      progress(text);
    };
    const seconds = () => Math.round((Date.now() - started) / 1000);
    say(`${doing}…`);
    const child = spawn(command, args, { cwd, env: childEnv(), shell, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail = new OutputTail();
    const onLine = (line) => {
      if (!NOISE.test(line)) say(`  ${line.trim()}`);
    };
    // One splitter per stream: a line half-written on stdout must not merge with stderr's.
    const splitters = [child.stdout, child.stderr].map((stream) => {
      const lines = lineSplitter(onLine);
      stream.on('data', (chunk) => {
        tail.push(chunk);
        lines.push(chunk);
      });
      return lines;
    });
    const heartbeat = setInterval(() => {
      if (Date.now() - lastSaid >= HEARTBEAT_MS) say(`  … still ${still} (${seconds()} s)`);
    }, 1000);
    const fail = (why) => {
      clearInterval(heartbeat);
      const output = tail.text(30, { allFrames: true });
      reject(new Error(`${failure} (${why}).${output ? `\nIts last lines:\n${output}` : ''}`));
    };
    child.on('error', (err) => fail(err.code === 'ENOENT' ? `${command} was not found` : err.message));
    child.on('close', (code, signal) => {
      for (const lines of splitters) lines.flush();
      if (code !== 0) return fail(signal ? `stopped by ${signal}` : `exit code ${code}`);
      clearInterval(heartbeat);
      say(`${doing}: done in ${seconds()} s.`);
      resolve();
    });
  });
}

/**
 * Installs the site's packages with `npm ci` when site/node_modules is
 * missing or site/package-lock.json changed since the last install.
 * @param {object} [options]
 * @param {(line:string) => void} [options.progress]
 * @returns {Promise<{installed:boolean}>} whether it had to install
 */
/** Are the site's packages installed, from its current lockfile? */
function isInstalled() {
  const stamp = readJson(INSTALL_STAMP);
  return Boolean(stamp && stamp.lockfile === lockfileHash() && fs.existsSync(path.join(SITE_DIR, 'node_modules', '@docusaurus', 'core')));
}

async function ensureInstalled({ progress = () => {} } = {}) {
  if (isInstalled()) return { installed: false };
  const isWindows = process.platform === 'win32';
  await run(isWindows ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: SITE_DIR,
    progress,
    // Node refuses to spawn .cmd files without a shell (CVE-2024-27980).
    shell: isWindows,
    doing: "Installing the site's packages (npm ci in site/; about a minute, once)",
    still: "installing the site's packages",
    failure: "Installing the site's packages (npm ci in site/) failed",
  });
  writeJson(INSTALL_STAMP, { lockfile: lockfileHash(), at: new Date().toISOString(), node: process.version });
  return { installed: true };
}

/**
 * Builds the site into site/build when it is missing or any of its inputs
 * changed since it was built. Installs first if needed.
 * @param {object} [options]
 * @param {(line:string) => void} [options.progress]
 * @returns {Promise<{built:boolean, installed:boolean}>}
 */
async function ensureBuilt({ progress = () => {} } = {}) {
  const { installed } = await ensureInstalled({ progress });
  // site/package-lock.json is among the inputs: a new install means a new build.
  const wanted = buildHash();
  const stamp = readJson(BUILD_STAMP);
  if (stamp && stamp.inputs === wanted && fs.existsSync(path.join(BUILD_DIR, 'index.html'))) {
    return { built: false, installed };
  }
  fs.rmSync(BUILD_STAMP, { force: true });
  await run(process.execPath, [path.join(SITE_DIR, 'scripts', 'docusaurus.mjs'), 'build'], {
    cwd: SITE_DIR,
    progress,
    doing: 'Building the workbook site (about 20 s)',
    still: 'building the site',
    failure: 'Building the workbook site failed',
  });
  writeJson(BUILD_STAMP, { inputs: wanted, at: new Date().toISOString(), node: process.version });
  return { built: true, installed };
}

module.exports = { BUILD_DIR, ensureBuilt, ensureInstalled, isInstalled };
