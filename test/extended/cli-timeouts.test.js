'use strict';
// Timeouts as a learner meets them, through the CLI with its defaults. They
// cost their full length in waiting, so they are here rather than in
// `npm test`, whose test/harness.test.js proves the same mechanism with a
// shortened timeout.

const path = require('node:path');
const { labs } = require('../../scripts/lib/labs');
const { runCli } = require('../helpers/cli');
const { processesRunning } = require('../helpers/leftovers');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'bad-apps');

test('an app that never listens is reported within 15 s', async () => {
  const { code, stdout, ms } = await runCli(['check', labs[0].id, '--app', path.join(FIXTURES, 'never-listens.js')]);
  expect(code).toBe(1);
  expect(stdout).toMatch(/did not start listening within 10 s/);
  expect(ms).toBeLessThan(15_000);
  expect(processesRunning(FIXTURES)).toEqual([]);
}, 20_000);
