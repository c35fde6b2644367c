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
