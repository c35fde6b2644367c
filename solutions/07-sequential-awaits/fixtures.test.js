'use strict';
// Lab 07's check against fixtures: other real fixes must pass; a half fix
// (two rounds of calls) and "fixes" that skip, cache or fake the calls must
// fail. The lab's own suite is labs/07-sequential-awaits/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab('07');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const wrong = (result) => result.responses.filter((r) => !r.pass);

describe('lab 07 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['Promise.allSettled with a timeout per call and a partial response', fixture('allsettled.js')],
      ['starting the three calls first, then awaiting each', fixture('start-then-await.js')],
    ],
    cheats: [
      [
        'two rounds: the profile first, then the other two together',
        fixture('two-rounds.js'),
        (result) => {
          expect(wrong(result)).toEqual([]);
          expect(result.gates[0].pass).toBe(false);
          // Two rounds of d cannot answer in less than 2 d, whatever the machine.
          expect(result.gates[0].value).toBeGreaterThanOrEqual(2 * result.series.d);
        },
      ],
      [
        'skipping the recommendations call',
        fixture('drops-recommendations.js'),
        (result) => {
          expect(wrong(result).find((r) => r.name === 'GET /dashboard/1').actual).toMatch(/^recommendations missing or not what the service answered/);
          expect(wrong(result).find((r) => r.name === 'GET /dashboard/1 called each service once').actual).toBe('profile 1, orders 1, recommendations 0');
        },
      ],
      [
        'a one-minute cache of each user\'s dashboard',
        fixture('cached.js'),
        (result) => {
          expect(wrong(result).find((r) => / dashboards under load$/.test(r.name)).actual).toMatch(/calls: profile \d+/);
          expect(wrong(result).find((r) => r.name === 'GET /dashboard/1 after the data changed').actual).toMatch(/served from a cache\?/);
        },
      ],
      [
        'answering with the previous dashboard and calling the services afterwards',
        fixture('stale-while-revalidate.js'),
        (result) => {
          expect(wrong(result).map((r) => r.name)).toEqual([
            'GET /dashboard/1 after the data changed',
            'GET /dashboard/2 after the data changed',
            'GET /dashboard/7 after the data changed',
          ]);
        },
      ],
      [
        'answering with placeholders before the calls are made',
        fixture('placeholders.js'),
        (result) => {
          expect(wrong(result).find((r) => r.name === 'GET /dashboard/7').actual).toMatch(/missing or not what the service answered/);
        },
      ],
    ],
  });
});
