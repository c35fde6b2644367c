#!/usr/bin/env node
'use strict';
// `npm test [-- <lab> ...]`: the self-check, Jest run serially (checks
// measure: parallel workers would load the same cores and distort each
// other). A lab is named as everywhere else in the workbook, `1`, `01`,
// `01-sync-pbkdf2` or `sync-pbkdf2`, and becomes the path of that lab's
// tests: passed to Jest as it is, "1" would be a pattern that matches the
// paths of labs 01, 10, 11 and 12. Everything else goes to Jest unchanged.

const { findLab } = require('./lib/labs');

// Jest options whose value is the next argument: that value is not a lab.
const TAKES_VALUE = new Set(['-t', '--testNamePattern', '-c', '--config', '--testTimeout', '-w', '--maxWorkers', '--reporters', '--outputFile', '--testPathIgnorePatterns', '--selectProjects', '--shard', '--seed', '--rootDir', '--roots']);

// The walkthroughs' tests: with a lab named, they test that lab's alone.
const DOCS_TESTS = 'test/docs.test.js';

/**
 * Jest's arguments for the self-check's: labs named by number or name become
 * their folders, and their walkthroughs' tests come with them.
 */
function jestArgs(args) {
  const mapped = args.map((arg, i) => {
    if (arg.startsWith('-') || TAKES_VALUE.has(args[i - 1])) return arg;
    const lab = findLab(arg);
    return lab ? `labs/${lab.slug}/` : arg;
  });
  return namedLabs(args).length && !mapped.includes(DOCS_TESTS) ? [...mapped, DOCS_TESTS] : mapped;
}

/** The labs named among the arguments (their slugs): their checks are proven even if not started. */
function namedLabs(args) {
  return args.filter((arg, i) => !arg.startsWith('-') && !TAKES_VALUE.has(args[i - 1])).map((arg) => findLab(arg)).filter(Boolean).map((lab) => lab.slug);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const named = namedLabs(args);
  if (named.length) process.env.WORKBOOK_SELF_CHECK_LABS = named.join(',');
  require('jest').run(['--runInBand', ...jestArgs(args)]);
}

module.exports = { jestArgs, namedLabs };
