'use strict';
// Lab 05's check against fixtures: other real fixes must pass, "fixes" that
// lose the cache's point (or hide from the measurement) must fail. The lab's
// own suite is labs/05-unbounded-cache/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab('05');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const gate = (result, id) => result.gates.find((g) => g.id === id);
const wrong = (result) => result.responses.filter((r) => !r.pass).map((r) => r.name);

describe('lab 05 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a least-recently-used cache written by hand on a Map', fixture('map-lru.js')],
      ['lru-cache with a size limit and a time to live', fixture('lru-max-ttl.js')],
      ['lru-cache bounded by the quotes\' size (maxSize)', fixture('lru-max-size.js')],
    ],
    cheats: [
      [
        'deleting the cache',
        fixture('no-cache.js'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'a key that never repeats (it includes the time)',
        fixture('timestamp-key.js'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(false);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'lru-cache with a time to live and no size limit',
        fixture('ttl-only.js'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(false);
          expect(gate(result, 'hit-cost').pass).toBe(true);
        },
      ],
      [
        'a cache of one quote, the last',
        fixture('last-quote-only.js'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'a cache that stops admitting quotes once it holds 500',
        fixture('first-500-only.js'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'handing the pricing to a child process with no cache (little CPU of its own per quote)',
        fixture('offload.js'),
        (result) => {
          expect(wrong(result)).toContain('a repeated quote comes back sooner than a new one');
        },
      ],
      [
        'serving from cluster workers (their heap and CPU are not the measured process\'s)',
        fixture('cluster.js'),
        (result) => {
          expect(wrong(result)).toContain("every quote is served by the app's own process");
        },
      ],
    ],
  });
});
