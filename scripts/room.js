#!/usr/bin/env node
'use strict';
// `npm run room -- <folder>`: prepares a room without internet, once, on a
// connected machine. The folder gets a clone of this workbook (its last
// commit, the built site included) whose own npm cache holds every package
// the lockfile lists, for every platform, and an .npmrc that makes `npm ci`
// install from it offline. Learners copy the clone and run the README's
// commands. Finally it installs a copy from the folder with the network
// shut out, to prove the folder works (--no-verify skips that).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..');
const USAGE = 'Usage: npm run room -- <folder> [--no-verify]';
// Any request npm makes despite --offline goes here, and fails at once.
const NOWHERE = 'http://127.0.0.1:9';

let say = (line) => process.stdout.write(`${line}\n`);

function git(args, cwd = ROOT) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Runs npm with `args`, printing a line at least every few seconds; rejects with npm's last lines. */
function npm(args, { cwd, env = {}, doing }) {
  const { npmCommand } = require('./lib/npm-command');
  const { OutputTail } = require('./harness/output-tail');
  const { command, args: argv, shell } = npmCommand('npm', args);
  // npm's own settings for this run come from the arguments, not from the `npm run` around it.
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || key === 'npm_execpath'));
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, shell, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const tail = new OutputTail();
    child.stdout.on('data', (d) => tail.push(d));
    child.stderr.on('data', (d) => tail.push(d));
    const started = Date.now();
    const beat = setInterval(() => say(`  … still ${doing} (${Math.round((Date.now() - started) / 1000)} s)`), 8000);
    child.on('error', (err) => {
      clearInterval(beat);
      reject(new Error(`npm could not be started (${err.message}).`));
    });
    child.on('close', (code) => {
      clearInterval(beat);
      if (code === 0) resolve(tail.text(5));
      else reject(new Error(`npm ${args[0]} failed (exit code ${code}) while ${doing}. Its last lines:\n${tail.text(20, { allFrames: true })}`));
    });
  });
}

/**
 * What the folder takes on disk, in MB: the blocks its files and folders
 * occupy where the system says (a few thousand small files take far more
 * than their bytes), their sizes where it does not (Windows).
 */
function sizeMb(dir) {
  let bytes = 0;
  const onDisk = (stat) => (Number.isFinite(stat.blocks) && stat.blocks > 0 ? stat.blocks * 512 : stat.size);
  const walk = (d) => {
    bytes += onDisk(fs.statSync(d));
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) bytes += onDisk(fs.statSync(full));
    }
  };
  walk(dir);
  return Math.round(bytes / 1024 / 1024);
}

async function main() {
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({ options: { 'no-verify': { type: 'boolean' } }, allowPositionals: true }));
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    return 2;
  }
  if (positionals.length !== 1) {
    console.error(`Say which folder to fill (a USB stick, a shared folder).\n${USAGE}`);
    return 2;
  }
  const folder = path.resolve(positionals[0]);
  if (fs.existsSync(folder) && fs.readdirSync(folder).length) {
    console.error(`${folder} is not empty: give a new or empty folder, so that nothing of an older room stays in it.`);
    return 2;
  }
  let site;
  let room;
  try {
    site = require('./lib/site');
    room = require('./lib/room');
  } catch (err) {
    console.error(`The workbook's packages are not installed here: run \`npm ci\` first (${err.message.split('\n')[0]}).`);
    return 1;
  }
  const { printProgress } = require('./cli/progress-printer');
  say = printProgress(process.stdout);

  // 1. What the room gets: the last commit, with a current site.
  const status = site.buildState();
  if (status.state !== 'current') {
    console.error(`${site.staleMessage(status, { max: 3 })}\nThe room would get a site that does not match its labs; commit a current build first.`);
    return 1;
  }
  let head;
  try {
    head = git(['rev-parse', '--short', 'HEAD']);
  } catch {
    console.error('This folder is not a git clone of the workbook, or git is not installed: the room gets a clone, so that `npx workbook reset` works there.');
    return 1;
  }
  // The room gets the last commit: its site must be as current as the one here.
  const pathOf = (line) => line.slice(3).replace(/^.* -> /, '').replace(/^"|"$/g, '');
  const uncommitted = git(['status', '--porcelain', '--untracked-files=no']).split('\n').filter(Boolean).map(pathOf);
  const inputs = new Set(site.buildFiles());
  const siteChanges = [
    ...uncommitted.filter((file) => inputs.has(file) || file.startsWith('site/build/')),
    ...git(['status', '--porcelain', '--', 'site/build']).split('\n').filter((l) => l.startsWith('??')).map(pathOf),
  ];
  if (siteChanges.length) {
    console.error(`The site or its sources have changes not committed here (${siteChanges.slice(0, 3).join(', ')}${siteChanges.length > 3 ? ', …' : ''}). The room gets the last commit: commit them, with site/build, first.`);
    return 1;
  }
  if (uncommitted.length) say(`Note: ${uncommitted.length} changed file${uncommitted.length === 1 ? '' : 's'} not committed here; the room gets commit ${head} without them.`);

  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const { specs, platformSpecific } = room.lockfilePackages(lock);
  const registry = (await npm(['config', 'get', 'registry'], { cwd: ROOT, doing: 'reading the registry address' })).split('\n').filter((l) => /^https?:\/\//.test(l.trim())).pop()?.trim();
  if (!registry) {
    console.error('npm did not say which registry it uses (`npm config get registry`).');
    return 1;
  }

  // 2. The clone learners copy.
  fs.mkdirSync(folder, { recursive: true });
  const copyName = rootPackage.name;
  const copy = path.join(folder, copyName);
  say(`Cloning the workbook (commit ${head}) into ${copy}`);
  git(['clone', '--quiet', '--no-hardlinks', ROOT, copy]);
  let origin = '';
  try {
    origin = git(['remote', 'get-url', 'origin']);
  } catch {
    // no remote: learners' clones get none either
  }
  // Learners can `git pull` from where the trainer's clone came from, not from the trainer's disk.
  if (origin) git(['remote', 'set-url', 'origin', origin], copy);
  else git(['remote', 'remove', 'origin'], copy);
  // USB sticks (FAT, exFAT) keep no executable bits: git should not call every file changed.
  git(['config', 'core.fileMode', 'false'], copy);
  fs.writeFileSync(path.join(copy, '.npmrc'), room.roomNpmrc({ registry }));
  // The copy's lockfile names every tarball (see lib/room.js), committed in
  // the copy so that learners' `git status` stays clean.
  fs.writeFileSync(path.join(copy, 'package-lock.json'), `${JSON.stringify(room.lockWithTarballs(lock, registry), null, 2)}\n`);
  git(['-c', 'user.name=npm run room', '-c', 'user.email=room@workbook.invalid', 'commit', '--quiet', '--no-verify', '-m', 'Room: the lockfile names every package\'s tarball, so an install from this folder\'s cache needs no registry', 'package-lock.json'], copy);
  fs.appendFileSync(path.join(copy, '.git', 'info', 'exclude'), '\n# written by npm run room: install from .workbook/npm-cache, offline\n/.npmrc\n');

  // 3. Every package of the lockfile, every platform's, into the clone's cache.
  const cache = path.join(copy, ...room.COPY_CACHE.split('/'));
  say(`Putting ${specs.length} packages into the room's npm cache (${platformSpecific.length} of them native builds for other platforms): about a minute`);
  let done = 0;
  for (const batch of room.batches(specs)) {
    await npm(['cache', 'add', '--cache', cache, '--registry', registry, '--no-audit', '--no-fund', ...batch], { cwd: folder, doing: 'downloading packages' });
    done += batch.length;
    say(`  ${done} of ${specs.length} packages in the cache`);
  }
  fs.writeFileSync(path.join(folder, 'README.txt'), room.learnerNote({ copyName, nodeEngines: rootPackage.engines.node, packages: specs.length, platforms: room.platformsOf(lock) }));

  // 4. Proof: a copy installs from the folder with the network shut out.
  if (!values['no-verify']) {
    const trial = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-room-check-'));
    try {
      say(`Checking the room: installing a copy from ${folder} with no network and another registry named in the environment (npm ci --offline, here on ${process.platform}-${process.arch})`);
      git(['clone', '--quiet', copy, path.join(trial, copyName)]);
      fs.copyFileSync(path.join(copy, '.npmrc'), path.join(trial, copyName, '.npmrc'));
      await npm(['ci', '--cache', cache], {
        cwd: path.join(trial, copyName),
        // A registry of the learner's own that the cache knows nothing of: it must not matter.
        env: { npm_config_proxy: NOWHERE, npm_config_https_proxy: NOWHERE, npm_config_noproxy: '', npm_config_registry: 'https://registry.invalid/' },
        doing: 'installing offline',
      });
      if (!fs.existsSync(path.join(trial, copyName, 'node_modules', '.bin', process.platform === 'win32' ? 'workbook.cmd' : 'workbook'))) {
        throw new Error('the offline install finished without the `workbook` command in node_modules/.bin.');
      }
      say('  The offline install works.');
    } catch (err) {
      console.error(`\nThe room folder is not ready: ${err.message}`);
      return 1;
    } finally {
      fs.rmSync(trial, { recursive: true, force: true });
    }
  }

  say(`Done: ${folder} (${sizeMb(folder)} MB). Hand it out; learners follow ${path.join(folder, 'README.txt')}:`);
  say(`  copy "${copyName}" to their computer, then in it: npm ci, npm start, npm test (no network needed).`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`\nPreparing the room failed: ${err.message}`);
    process.exitCode = 1;
  },
);
