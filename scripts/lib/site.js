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

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT, labs, checkOf } = require('./labs');
const { labFiles } = require('./shipped');
const { readWalkthrough } = require('./walkthrough');
const { OutputTail, lineSplitter } = require('../harness/output-tail');
const { npmCommand } = require('./npm-command');

const SITE_DIR = path.join(ROOT, 'site');
const BUILD_DIR = path.join(SITE_DIR, 'build');
const STATIC_DIR = path.join(SITE_DIR, 'static');
// What the workbook server serves, first match wins: the build, then the
// static folder Docusaurus copies into it (the captures, which git does not
// hold twice: .gitignore leaves out site/build/captures/).
const SITE_ROOTS = [BUILD_DIR, STATIC_DIR];
const LOCKFILE = path.join(SITE_DIR, 'package-lock.json');
const INSTALL_STAMP = path.join(SITE_DIR, 'node_modules', '.workbook-install.json');
const STAMP_NAME = '.workbook-build.json';
const BUILD_COMMAND = 'npm run site:build';
// The committed build is for the workbook server, which serves it at the root.
const DEFAULT_BASE_URL = '/';

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
 * The files the built site is made from, relative to ROOT. The learner's own
 * edits to labs/<lab>/app.js are deliberately not among them: the site shows
 * the shipped starters (pinned by scripts/lib/shipped-starters.json), so
 * editing a lab never makes the site stale.
 *
 * Only what the build reads is listed, so that a change elsewhere (the
 * harness, the CLI, a check's helpers, the fixtures) does not ask for a new
 * build to be committed: the site's own sources, the walkthroughs and their
 * images, the three files of each lab's check/ folder its page shows (the
 * check's source, its margins, the trainers' notes), each reference solution,
 * the modules the site loads from scripts/lib, and the files walkthroughs
 * quote. What a lab's check *declares* (gates, thresholds, explanations,
 * charts; defaults from scripts/checks/define-check.js; whatever its helpers
 * compute into them) is an input of its own, as data: see buildInputs().
 */
function buildFiles() {
  const editable = new Set(labs.flatMap((lab) => labFiles(lab).map((file) => `labs/${lab.slug}/${file}`)));
  const labInputs = filesUnder(path.join(ROOT, 'labs')).filter(
    (file) =>
      !editable.has(file) &&
      (/\/README\.md$/.test(file) ||
        /\.(png|jpe?g|gif|svg|webp)$/i.test(file) ||
        file === 'labs/labs.json' ||
        /^labs\/[^/]+\/check\/(index\.js|margins\.json|trainers\.md)$/.test(file)),
  );
  return [
    // site/README.md is for people, not the build.
    ...filesUnder(SITE_DIR, new Set(['node_modules', 'build', '.docusaurus'])).filter((file) => file !== 'site/README.md'),
    ...labInputs,
    ...labs.map((lab) => path.relative(ROOT, lab.solutionApp).split(path.sep).join('/')),
    // Read by the site's plugin (repo.js) and bundled by its pages (format.js).
    ...['labs.js', 'shipped.js', 'shipped-starters.json', 'walkthrough.js', 'wording.js'].map((name) => `scripts/lib/${name}`),
    // A quoted starter is shown as shipped (site/plugins/workbook/repo.js), which shipped-starters.json pins.
    ...quotedFiles([...labInputs, ...filesUnder(path.join(SITE_DIR, 'docs'))]).filter((file) => !editable.has(file)),
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

/** A short content hash: enough to tell that an input changed, and small enough to commit one per input. */
function shortHash(content) {
  return sha256(content).slice(0, 16);
}

/** The hash of one input file's content. Line endings do not change the site (Windows checkouts may use CRLF). */
function fileHash(file, content) {
  return shortHash(TEXT.test(file) ? content.toString('utf8').replace(/\r\n/g, '\n') : content);
}

/**
 * Every input of the build, as { name: hash }: each file of buildFiles(), plus
 * what the build reads that is not a whole file, under a name in brackets:
 * each lab's check definition as data (JSON drops its functions, which the
 * site never shows) and the root package's `engines` (the home page quotes it).
 */
function buildInputs({ baseUrl = DEFAULT_BASE_URL } = {}) {
  const inputs = {};
  for (const file of buildFiles()) {
    inputs[file] = fileHash(file, fs.readFileSync(path.join(ROOT, file)));
  }
  for (const lab of labs) inputs[`[check definition of ${lab.slug}]`] = shortHash(JSON.stringify(checkOf(lab)));
  const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  inputs['[package.json engines]'] = shortHash(JSON.stringify(rootPackage.engines ?? null));
  inputs['[base URL]'] = shortHash(baseUrl);
  return Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One hash of every build input (for a quick comparison; the stamp keeps them one by one). */
function buildHash(options) {
  return sha256(JSON.stringify(buildInputs(options)));
}

/** The base URL a build is made for, from the option or WORKBOOK_SITE_BASE_URL. */
function baseUrlOf(baseUrl) {
  return baseUrl || process.env.WORKBOOK_SITE_BASE_URL || DEFAULT_BASE_URL;
}

/**
 * Is the build in `dir` the build of the sources as they are now?
 * @returns {{state: 'missing'|'unstamped'|'stale'|'current', changed: string[]}}
 *   `changed`: the inputs that differ from the stamp, as "changed: NAME",
 *   "added: NAME" or "removed: NAME"
 */
function buildState({ dir = BUILD_DIR, baseUrl = DEFAULT_BASE_URL } = {}) {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return { state: 'missing', changed: [] };
  const stamp = readJson(path.join(dir, STAMP_NAME));
  if (!stamp || typeof stamp.inputs !== 'object' || stamp.inputs === null) return { state: 'unstamped', changed: [] };
  const now = buildInputs({ baseUrl });
  const changed = [];
  for (const [name, hash] of Object.entries(now)) {
    if (!(name in stamp.inputs)) changed.push(`added: ${name}`);
    else if (stamp.inputs[name] !== hash) changed.push(`changed: ${name}`);
  }
  for (const name of Object.keys(stamp.inputs)) if (!(name in now)) changed.push(`removed: ${name}`);
  return { state: changed.length ? 'stale' : 'current', changed };
}

/** One sentence on a build that is not current, with the command that makes it so. */
function staleMessage({ state, changed }, { max = 8 } = {}) {
  if (state === 'missing') return `The built site is missing (site/build/index.html): restore it with \`git checkout -- site/build\`, or build it with \`${BUILD_COMMAND}\`.`;
  if (state === 'unstamped') return `site/build has no record of what it was built from (${STAMP_NAME}): rebuild it with \`${BUILD_COMMAND}\`.`;
  const shown = changed.slice(0, max).join('; ');
  const more = changed.length > max ? `; and ${changed.length - max} more` : '';
  // A learner who edited a walkthrough (notes, say) gets the way back too.
  const files = changed.filter((c) => c.startsWith('changed: ') && !c.includes('[')).map((c) => c.slice('changed: '.length));
  const undo = files.length && files.length <= max ? ` To put ${files.length === 1 ? 'that file' : 'those files'} back as committed instead: git checkout -- ${files.join(' ')}` : '';
  return `The committed site (site/build) was built from other sources than these (${shown}${more}): rebuild it with \`${BUILD_COMMAND}\` and commit site/build.${undo}`;
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
  BUILD_COMMAND,
  BUILD_DIR,
  SITE_ROOTS,
  STAMP_NAME,
  STATIC_DIR,
  buildFiles,
  buildInputs,
  buildHash,
  buildSite,
  buildState,
  ensureInstalled,
  fileHash,
  isInstalled,
  siteToServe,
  staleMessage,
};
