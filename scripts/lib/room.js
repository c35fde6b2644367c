'use strict';
// A room without internet: what `npm run room -- <folder>` puts in the
// folder a trainer hands out (USB stick, shared folder), as plain functions.
//
// The folder holds a git clone of the workbook whose npm cache
// (.workbook/npm-cache) has every package of package-lock.json, for every
// platform the lockfile lists (a trainer on a Mac prepares for Windows
// laptops), and an .npmrc that makes the README's `npm ci` install from that
// cache with no network. The built site is part of the clone.
//
// Why the room's copy gets a lockfile with tarball addresses: the workbook's
// own records none (it is developed with omit-lockfile-registry-resolved),
// so npm would read each package's metadata from the cache, where it is
// filed under the registry's address, and a learner whose environment names
// another registry (a company mirror in npm_config_registry, which outranks
// any .npmrc) got ENOTCACHED. With an address and an integrity for every
// package, npm takes each tarball from the cache by its integrity and reads
// no metadata. The .npmrc still pins the registry the cache was filled from.

const COPY_CACHE = '.workbook/npm-cache';

/**
 * The registry packages of a lockfile (v2/v3), each once, as "name@version":
 * every platform's optional packages included, links, bundled packages and
 * non-registry sources (git, local files) left out.
 * @returns {{specs:string[], platformSpecific:string[]}}
 */
function lockfilePackages(lock) {
  if (!lock || typeof lock.packages !== 'object') throw new Error('package-lock.json has no "packages" section (lockfile version 2 or later is needed).');
  const specs = new Set();
  const platformSpecific = new Set();
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where.includes('node_modules/') || entry.link || entry.inBundle) continue;
    if (entry.resolved && !/^https?:\/\//.test(entry.resolved)) continue;
    if (!entry.version) continue;
    // An alias ("x": "npm:y@1") keeps its real name in `name`.
    const name = entry.name || where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const spec = `${name}@${entry.version}`;
    specs.add(spec);
    if (entry.os || entry.cpu || entry.libc) platformSpecific.add(spec);
  }
  const sorted = (set) => [...set].sort();
  return { specs: sorted(specs), platformSpecific: sorted(platformSpecific) };
}

/**
 * The lockfile the room's copy installs from: every registry package with
 * its tarball's address on `registry` (`resolved`). npm then installs each
 * package from the tarball it finds in the cache by its integrity, and reads
 * no package metadata, which the cache files under the address of the
 * registry it came from: with the lockfile as the workbook ships it (no
 * addresses), a learner whose environment names another registry
 * (npm_config_registry, which outranks the copy's .npmrc) got ENOTCACHED.
 * Packages that already have an address, links and bundled ones are left
 * as they are.
 */
function lockWithTarballs(lock, registry) {
  const base = registry.endsWith('/') ? registry : `${registry}/`;
  const copy = JSON.parse(JSON.stringify(lock));
  for (const [where, entry] of Object.entries(copy.packages || {})) {
    if (!where.includes('node_modules/') || entry.link || entry.inBundle || entry.resolved || !entry.version) continue;
    const name = entry.name || where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    entry.resolved = `${base}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
  }
  return copy;
}

/** Splits `items` into runs whose joined length stays under `maxChars` (a command line has a limit, 8191 characters in cmd.exe). */
function batches(items, maxChars = 4000) {
  const out = [];
  let current = [];
  let length = 0;
  for (const item of items) {
    if (current.length && length + item.length + 1 > maxChars) {
      out.push(current);
      current = [];
      length = 0;
    }
    current.push(item);
    length += item.length + 1;
  }
  if (current.length) out.push(current);
  return out;
}

/** The .npmrc of the room's copy: install from the cache beside it, never from the network. */
function roomNpmrc({ registry }) {
  return [
    '; Written by `npm run room` for a room without internet. With it, `npm ci`',
    '; in this folder installs every package from .workbook/npm-cache and never',
    '; touches the network. Run npm commands from this folder (the cache path is',
    '; relative to it). Delete this file to install from the internet again.',
    'offline=true',
    `cache=${COPY_CACHE}`,
    // The address the cache was filled from: npm finds package metadata in the cache under it.
    `registry=${registry}`,
    'audit=false',
    'fund=false',
    'update-notifier=false',
    '',
  ].join('\n');
}

/** ">=20.12" as people say it: "20.12 or newer". */
function versionText(range) {
  const m = /^>=\s*(\S+)$/.exec(String(range).trim());
  return m ? `${m[1]} or newer` : String(range);
}

/** The note for learners at the top of the room folder (CRLF: it opens cleanly in Windows' Notepad too). */
function learnerNote({ copyName, nodeEngines, packages, platforms }) {
  return [
    'Node.js profiling workbook: install without internet',
    '======================================================',
    '',
    `You need Node.js ${versionText(nodeEngines)} and git, installed before the workshop.`,
    '',
    `1. Copy the folder "${copyName}" from here to your computer (your home folder, say).`,
    '   Work on your own copy, not on the USB stick or the shared folder.',
    '2. Open a terminal in your copy of the folder:',
    `     macOS, Linux:  cd ~/${copyName}`,
    `     Windows:       cd %USERPROFILE%\\${copyName}     (PowerShell: cd $HOME\\${copyName})`,
    '3. Install, open the site, run the self-check:',
    '     npm ci',
    '     npm start      (the site, in your browser; Ctrl-C stops it)',
    '     npm test',
    '',
    `\`npm ci\` installs every package from the folder's own cache (${packages} packages, for ${platforms}):`,
    'it needs no network and prints no error about one. The site comes built with the workbook.',
    '',
    'After the workshop, to install from the internet again (to update the workbook, say),',
    `delete the file ${copyName}/.npmrc.`,
    '',
  ].join('\r\n');
}

/** The platforms a lockfile's platform-specific packages serve, as "linux, darwin, win32, …" from their `os` fields. */
function platformsOf(lock) {
  const names = new Set();
  for (const entry of Object.values(lock.packages || {})) for (const os of [].concat(entry.os || [])) if (!os.startsWith('!')) names.add(os);
  const friendly = { darwin: 'macOS', win32: 'Windows', linux: 'Linux' };
  const main = ['linux', 'darwin', 'win32'].filter((os) => names.has(os)).map((os) => friendly[os]);
  return main.length ? main.join(', ') : 'every platform';
}

module.exports = { COPY_CACHE, batches, learnerNote, lockWithTarballs, lockfilePackages, platformsOf, roomNpmrc, versionText };
