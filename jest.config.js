'use strict';
// Checks run one at a time (`jest --runInBand` in package.json): parallel
// workers would load the same cores and distort each other's measurements.
module.exports = {
  testMatch: ['<rootDir>/test/**/*.test.js'],
  testEnvironment: 'node',
  testTimeout: 120_000,
  // Each test is reported live as it starts and ends; the summary reporter
  // then lists failures in full at the end.
  reporters: ['<rootDir>/test/helpers/live-reporter.js', 'summary'],
};
