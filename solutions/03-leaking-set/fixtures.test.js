'use strict';
// Lab 03's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. The lab's own suite, with its gates and
// measured margins, is test/03-leaking-set.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab('03');
const fixture = (name) => path.join(__dirname, 'fixtures', name);

describe('lab 03 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a bounded ring buffer', fixture('ring-buffer.js')],
      ['streaming readings to a file (the guide\'s fix)', fixture('file-stream.js')],
    ],
    cheats: [
      [
        'a capped Set whose size is reported as the total',
        fixture('capped-set.js'),
        (result) => {
          expect(result.gates[0].pass).toBe(true);
          expect(result.responses.find((r) => !r.pass).actual).toMatch(/total 1000, but 25002 readings were recorded/);
        },
      ],
    ],
  });
});
