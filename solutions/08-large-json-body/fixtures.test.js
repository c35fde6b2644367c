'use strict';
// Lab 08's check against fixtures: other real fixes must pass; "fixes" that
// skip the work, refuse it, answer before it is done, or hand the requests
// to other processes must fail. The lab's own suite is
// labs/08-large-json-body/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab('08');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');
const failedGates = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);

describe('lab 08 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a streaming split of the body into products, parsed one by one between turns of the event loop', fixture('streaming-parse.js')],
    ],
    cheats: [
      [
        'summaries estimated from the body size, without parsing',
        fixture('fake-counts.js'),
        (result) => expect(wrongResponses(result)).toMatch(/imported \d+ instead of \d+/),
      ],
      [
        'answering before the products are stored',
        fixture('stores-later.js'),
        (result) => expect(wrongResponses(result)).toMatch(/a product that import imported/),
      ],
      [
        'a limit of 1 MB, so that no big body is parsed',
        fixture('tight-limit.js'),
        (result) => expect(wrongResponses(result)).toMatch(/status 413/),
      ],
      [
        'the starter behind node:cluster',
        fixture('cluster.js'),
        (result) => expect(wrongResponses(result)).toMatch(/went to other processes/),
      ],
      [
        'validation split into batches with setImmediate, JSON.parse still on the main thread',
        fixture('chunked-walk.js'),
        (result) => {
          expect(result.responses.every((r) => r.pass)).toBe(true);
          expect(failedGates(result)).toContain('loop-delay-p99');
        },
      ],
    ],
  });
});
