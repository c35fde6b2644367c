#!/usr/bin/env node
'use strict';
// `npm run site:build`: builds the workbook site from its sources, for
// authors and CI. Learners never need it: the built site is committed
// (site/build/), and `npm ci` installs none of the site's build tools.
//
//   npm run site:build                      site/build, when an input changed
//   npm run site:build -- --force           site/build, rebuilt whatever the stamp says
//   npm run site:build -- --out DIR --base-url /workbook/
//                                           a copy to publish below a path (site/build is untouched)
//
// The first run installs the site's packages (npm ci in site/: about 35 s
// and 350 MB on the workbook's 2-vCPU machine, once). A build takes ~10 s.

const path = require('node:path');
const { parseArgs } = require('node:util');
const { BUILD_DIR, buildSite, buildState } = require('./lib/site');
const { printProgress } = require('./cli/progress-printer');

const USAGE = 'Usage: npm run site:build [-- --force] [-- --out DIR --base-url /path/]';

async function main() {
  let values;
  try {
    ({ values } = parseArgs({ options: { force: { type: 'boolean' }, out: { type: 'string' }, 'base-url': { type: 'string' } } }));
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    return 2;
  }
  const dir = values.out ? path.resolve(values.out) : BUILD_DIR;
  const baseUrl = values['base-url'];
  if (dir === BUILD_DIR && baseUrl && baseUrl !== '/') {
    console.error('site/build is the site the workbook server serves, at "/". To build for another path, give --out DIR too.');
    return 2;
  }
  if (baseUrl && !/^\/(.*\/)?$/.test(baseUrl)) {
    console.error(`--base-url must start and end with "/", e.g. /workbook/ (not ${JSON.stringify(baseUrl)}).`);
    return 2;
  }
  const progress = printProgress(process.stdout);
  if (dir === BUILD_DIR && !values.force) {
    const status = buildState();
    if (status.state === 'current') {
      console.log('site/build is current: every input matches its stamp. Nothing to do (--force rebuilds it anyway).');
      return 0;
    }
    progress(status.state === 'stale' ? `site/build is stale (${status.changed.length} input${status.changed.length === 1 ? '' : 's'} changed: ${status.changed.slice(0, 3).join('; ')}${status.changed.length > 3 ? '; …' : ''}).` : `site/build is ${status.state}.`);
  }
  try {
    await buildSite({ progress, dir, baseUrl });
  } catch (err) {
    console.error(`\n${err.message}`);
    return 1;
  }
  const where = path.relative(process.cwd(), dir) || '.';
  console.log(
    dir === BUILD_DIR
      ? `\nBuilt ${where}. Commit it with its sources: git add site/build (the captures are served from site/static and not committed twice).`
      : `\nBuilt ${where}: copy it to any static web server.`,
  );
  return 0;
}

main().then((code) => {
  process.exitCode = code;
});
