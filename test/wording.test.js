'use strict';
// How the checks put counts into words: "1 request", never "1 requests".

const { counted } = require('../scripts/checks/gates');

test.each([
  [0, 'request', undefined, '0 requests'],
  [1, 'request', undefined, '1 request'],
  [7, 'request', undefined, '7 requests'],
  [1, 'query', 'queries', '1 query'],
  [2, 'query', 'queries', '2 queries'],
])('counted(%i, %s, %s) is "%s"', (n, singular, plural, expected) => {
  expect(counted(n, singular, plural)).toBe(expected);
});

// "Served by the app's own process", shared by the checks of labs 02, 05,
// 06, 08 and 09: judged on counts, worded with them when it fails.
describe('ownProcessCase', () => {
  const { ownProcessCase } = require('../scripts/checks/gates');
  const base = { name: "every request is served by the app's own process", why: 'the lab is about one process' };

  test('every request received: a pass', () => {
    expect(ownProcessCase({ ...base, answered: 400, received: 400 })).toMatchObject({ pass: true, actual: 'it does' });
  });

  test('a cluster of two: a fail that says how many went elsewhere, and why it matters', () => {
    const result = ownProcessCase({ ...base, answered: 400, received: 200, allowed: 0.1 });
    expect(result.pass).toBe(false);
    expect(result.actual).toBe('it received 200 of 400: 50% went to other processes (a cluster?): the lab is about one process');
  });

  test('requests in flight when a count was read: within the share allowed, and no further', () => {
    expect(ownProcessCase({ ...base, answered: 1000, received: 991, allowed: 0.01 }).pass).toBe(true);
    expect(ownProcessCase({ ...base, answered: 1000, received: 989, allowed: 0.01 }).pass).toBe(false);
    expect(ownProcessCase({ ...base, answered: 1000, received: 999 }).pass).toBe(false);
    expect(ownProcessCase({ ...base, answered: 1000, received: 999 }).actual).toMatch(/ 1% went to other processes/);
  });

  test('more received than answered (a request the client gave up on), or nothing answered: a pass', () => {
    expect(ownProcessCase({ ...base, answered: 10, received: 12 }).pass).toBe(true);
    expect(ownProcessCase({ ...base, answered: 0, received: 0 }).pass).toBe(true);
  });
});
