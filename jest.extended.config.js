'use strict';
// `npm run test:extended`: what CI runs after `npm test`. Every lab's check
// against fixture apps (other real fixes must pass, fixes that drop work must
// fail) and the slower profiler runs. Same rules: serially, live progress.
const base = require('./jest.config');

module.exports = {
  ...base,
  // Fixtures are spoilers (other real fixes), so they live with the solution.
  testMatch: ['<rootDir>/test/extended/**/*.test.js', '<rootDir>/solutions/*/fixtures.test.js'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/.workbook/'],
};
