'use strict';
// Lab 06's check against fixtures: the other real fixes of the walkthrough
// must pass; "fixes" that drop, cheapen or fake the compression, or hide the
// pool behind more processes, must fail. The lab's own suite is
// labs/06-saturated-threadpool/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab('06');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const gate = (result, id) => result.gates.find((g) => g.id === id);
const wrong = (result) => result.responses.filter((r) => !r.pass);

describe('lab 06 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['the compressions on a piscina worker pool', fixture('piscina.js')],
      ['build.json read once, at start-up', fixture('cache-build-file.js')],
      ['UV_THREADPOOL_SIZE=16 set at the top of app.js', fixture('pool-size.js')],
    ],
    cheats: [
      [
        'the report sent uncompressed',
        fixture('uncompressed.js'),
        (result) => expect(wrong(result)[0].actual).toMatch(/content-encoding null, not br/),
      ],
      [
        'Brotli at quality 4',
        fixture('lower-quality.js'),
        (result) => expect(wrong(result).map((r) => r.actual).join('\n')).toMatch(/compressed with a cheaper setting/),
      ],
      [
        'a cache of each region\'s export (the load never repeats a region)',
        fixture('cache-per-region.js'),
        (result) => {
          expect(wrong(result)).toEqual([]);
          expect(gate(result, 'status-p50').pass).toBe(false);
        },
      ],
      [
        'answering with the last export while this one compresses',
        fixture('answer-early.js'),
        (result) => expect(wrong(result).map((r) => r.expected).join('\n')).toMatch(/the reference's report/),
      ],
      [
        'the compression moved onto the main thread (brotliCompressSync)',
        fixture('sync-compress.js'),
        (result) => {
          expect(wrong(result)).toEqual([]);
          expect(gate(result, 'status-p50').pass).toBe(false);
        },
      ],
      [
        'a cluster of two starters',
        fixture('cluster.js'),
        (result) => expect(wrong(result).map((r) => r.actual).join('\n')).toMatch(/other processes \(cluster\?\)/),
      ],
    ],
  });
});
