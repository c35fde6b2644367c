#!/usr/bin/env node
'use strict';
// For CI: does the committed site show what its sources build?
//   node scripts/dev/compare-site-builds.js COMMITTED_BUILD FRESH_BUILD
// Exit 0 when every page reads the same (asset hashes and class suffixes
// aside), 1 with the pages that differ.

const { compareBuilds } = require('../lib/site-compare');

const [committed, fresh] = process.argv.slice(2);
if (!committed || !fresh) {
  console.error('Usage: node scripts/dev/compare-site-builds.js COMMITTED_BUILD FRESH_BUILD');
  process.exit(2);
}
const problems = compareBuilds(committed, fresh);
if (problems.length) {
  console.error(`The committed site does not show what its sources build (${problems.length} page${problems.length === 1 ? '' : 's'}):`);
  for (const line of problems) console.error(`  ${line}`);
  console.error('Its stamp called it current, so an input of the build is missing from buildFiles() in scripts/lib/site-inputs.js: add it, then npm run site:build.');
  process.exit(1);
}
console.log('The committed site shows what its sources build: every page reads the same (asset hashes and class suffixes aside).');
