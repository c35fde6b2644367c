'use strict';
// The workbook site (site/, its own npm package) as learners get it and as
// authors make it.
//
// Learners: the built site is part of the repository (site/build/, a
// generated artifact like the README's lab table), so `npm ci` installs no
// site packages and `npm start` serves it at once, offline. The captures
// under site/static/captures/ are not committed twice: the workbook server
// serves site/static/ behind site/build/ (SITE_ROOTS), as Docusaurus itself
// merges its static folder into the site's root.
//
// Authors and CI: `npm run site:build` installs the site's packages (npm ci
// in site/, once) and builds site/build from the sources, then writes
// site/build/.workbook-build.json, the hash of each input of that build.
// test/site.test.js compares those hashes with the sources and fails, naming
// the changed inputs and the command, when the committed build is stale.
//
// Both steps stream progress lines and are never silent for more than a few
// seconds. What "installed" means is recorded next to the packages:
//   site/node_modules/.workbook-install.json  hash of site/package-lock.json
// What a build is made from, and whether it is current: ./site-inputs.js.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { OutputTail, lineSplitter } = require('../harness/output-tail');
const { npmCommand } = require('./npm-command');
const inputs = require('./site-inputs');

const { BUILD_COMMAND, BUILD_DIR, SITE_DIR, STAMP_NAME, baseUrlOf, buildInputs, buildState, readJson, sha256, staleMessage } = inputs;
const STATIC_DIR = path.join(SITE_DIR, 'static');
// What the workbook server serves, first match wins: the build, then the
// static folder Docusaurus copies into it (the captures, which git does not
// hold twice: .gitignore leaves out site/build/captures/).
const SITE_ROOTS = [BUILD_DIR, STATIC_DIR];
const LOCKFILE = path.join(SITE_DIR, 'package-lock.json');
const INSTALL_STAMP = path.join(SITE_DIR, 'node_modules', '.workbook-install.json');

// Say something at least this often while a step runs quietly.
const HEARTBEAT_MS = 8000;

function writeJson(file, data) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
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
function run(command, args, { cwd, env = {}, progress, doing, still, failure, shell = false }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let lastSaid = Date.now();
    const say = (text) => {
      lastSaid = Date.now();
      progress(text);
    };
    const seconds = () => Math.round((Date.now() - started) / 1000);
    say(`${doing}…`);
    const child = spawn(command, args, { cwd, env: { ...childEnv(), ...env }, shell, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Are the site's packages installed, from its current lockfile? */
function isInstalled() {
  const stamp = readJson(INSTALL_STAMP);
  return Boolean(stamp && stamp.lockfile === lockfileHash() && fs.existsSync(path.join(SITE_DIR, 'node_modules', '@docusaurus', 'core')));
}

/**
 * Installs the site's packages with `npm ci` in site/ when they are missing
 * or site/package-lock.json changed since the last install. Only building the
 * site needs them (authors, CI): learners get the site built.
 * @param {object} [options]
 * @param {(line:string) => void} [options.progress]
 * @returns {Promise<{installed:boolean}>} whether it had to install
 */
async function ensureInstalled({ progress = () => {} } = {}) {
  if (isInstalled()) return { installed: false };
  const npm = npmCommand('npm', ['ci', '--no-audit', '--no-fund']);
  await run(npm.command, npm.args, {
    cwd: SITE_DIR,
    progress,
    shell: npm.shell,
    doing: "Installing the site's build tools (npm ci in site/; about a minute, once)",
    still: "installing the site's packages",
    failure: "Installing the site's packages (npm ci in site/) failed",
  });
  writeJson(INSTALL_STAMP, { lockfile: lockfileHash(), at: new Date().toISOString(), node: process.version });
  return { installed: true };
}

/**
 * Builds the site from its sources into `dir` (site/build by default),
 * installing the site's packages first if needed, and stamps it with the hash
 * of each input. The stamp holds no date or machine, so a rebuild from the
 * same sources changes only what Docusaurus writes differently.
 * @param {object} [options]
 * @param {(line:string) => void} [options.progress]
 * @param {string} [options.dir]      where to write the site
 * @param {string} [options.baseUrl]  the path the site is hosted below ("/" for the workbook server)
 * @returns {Promise<{installed:boolean}>}
 */
async function buildSite({ progress = () => {}, dir = BUILD_DIR, baseUrl } = {}) {
  const base = baseUrlOf(baseUrl);
  const { installed } = await ensureInstalled({ progress });
  // Read before the build: an input edited while it runs leaves the build stale, never wrongly current.
  const inputs = buildInputs({ baseUrl: base });
  fs.rmSync(path.join(dir, STAMP_NAME), { force: true });
  await run(process.execPath, [path.join(SITE_DIR, 'scripts', 'docusaurus.mjs'), 'build', '--out-dir', dir], {
    cwd: SITE_DIR,
    env: { WORKBOOK_SITE_BASE_URL: base },
    progress,
    doing: `Building the workbook site into ${path.relative(process.cwd(), dir) || '.'} (about 10 s)`,
    still: 'building the site',
    failure: 'Building the workbook site failed',
  });
  writeJson(path.join(dir, STAMP_NAME), {
    about: `Written by \`${BUILD_COMMAND}\`: a hash of each input this site was built from. test/site.test.js compares them with the sources.`,
    baseUrl: base,
    inputs,
  });
  return { installed };
}

/**
 * The site for `npm start` to serve. A learner's is the committed build,
 * current by construction. An author whose sources moved on gets a rebuild
 * when the site's packages are installed, and otherwise the committed build
 * with a note saying how to refresh it.
 * @returns {Promise<{roots:string[], built:boolean, notice:string|null}>}
 * @throws {Error} when there is no built site at all
 */
async function siteToServe({ progress = () => {} } = {}) {
  const status = buildState();
  if (status.state === 'current') return { roots: SITE_ROOTS, built: false, notice: null };
  if (isInstalled()) {
    progress(status.state === 'missing' ? 'The site is not built yet.' : 'The site\'s sources changed since it was built.');
    await buildSite({ progress });
    return { roots: SITE_ROOTS, built: true, notice: null };
  }
  if (status.state === 'missing') throw new Error(staleMessage(status));
  return { roots: SITE_ROOTS, built: false, notice: staleMessage(status, { max: 3 }) };
}

module.exports = {
  // What the build is made from, and whether it is current (site-inputs.js).
  ...inputs,
  SITE_ROOTS,
  STATIC_DIR,
  buildSite,
  ensureInstalled,
  isInstalled,
  siteToServe,
};
