#!/usr/bin/env node
'use strict';
// Run by the root package's postinstall: installs the workbook site's own
// packages (site/ is a separate npm package with its own lockfile) as part of
// the README's `npm ci`, so that `npm start` and `npm test` find it ready.
//
// It never fails the root install: without the site every lab, check and
// profiler still works, and `npm start` / `npm test` install it themselves
// (scripts/lib/site.js) if this step could not.

const { ensureInstalled } = require('./lib/site');

const started = Date.now();
const say = (line) => process.stdout.write(`[workbook site ${Math.round((Date.now() - started) / 1000)} s] ${line}\n`);

ensureInstalled({ progress: say }).then(
  ({ installed }) => {
    if (!installed) say("The site's packages are already installed.");
  },
  (err) => {
    say(`Could not install the site's packages now; \`npm start\` will try again. ${err.message}`);
  },
);
