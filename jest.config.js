'use strict';
// Checks run one at a time (`jest --runInBand` in package.json): parallel
// workers would load the same cores and distort each other's measurements.
module.exports = {
  testMatch: ['<rootDir>/test/**/*.test.js'],
  testEnvironment: 'node',
  testTimeout: 120_000,
  // Measured lab checks first would hide a broken harness behind minutes of
  // load; Jest's default order (slowest last) is fine once they pass.
  verbose: true,
};
