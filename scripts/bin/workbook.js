#!/usr/bin/env node
'use strict';
// `npx workbook …` runs this file through node_modules/.bin/workbook, which
// npm links (with its .cmd and .ps1 shims on Windows) when it installs this
// folder as the root package's `file:` dependency. The CLI itself is
// scripts/workbook.js: beside this folder when npm links it (its default),
// or two folders up when npm copies it into node_modules (install-links=true).

const fs = require('node:fs');
const path = require('node:path');

const cli = [path.join(__dirname, '..', 'workbook.js'), path.join(__dirname, '..', '..', 'scripts', 'workbook.js')].find((file) => fs.existsSync(file));
if (!cli) {
  console.error(`The workbook's command line (scripts/workbook.js) is not where ${__filename} expects it: run npm ci in the workbook's folder again.`);
  process.exit(1);
}
require(cli);
