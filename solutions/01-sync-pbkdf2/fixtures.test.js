'use strict';
// Lab 01's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. The lab's own suite, with its gates and
// measured margins, is test/01-sync-pbkdf2.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');

const lab = findLab('01');
const fixture = (name) => path.join(__dirname, 'fixtures', name);

describe('lab 01 · fixtures', () => {
  describeFixtures(lab, {
    cheats: [
      [
        'a "fix" that stops hashing passwords',
        fixture('skips-the-hash.js'),
        (result) => expectGates(result, { 'auth-work': false }),
      ],
      [
        'an async app that answers 200 to a wrong password',
        fixture('wrong-statuses.js'),
        (result) =>
          expect(result.responses.filter((r) => !r.pass).map((r) => r.name).join('\n')).toMatch(/wrong password/),
      ],
    ],
  });
});
