'use strict';
// `npm test`: the self-check (scripts/self-check.js runs Jest with this
// config). Checks run one at a time (`--runInBand`): parallel workers would load the same cores and distort each
// other's measurements. The extended suite (fixtures for every lab) has its
// own config, jest.extended.config.js.
module.exports = {
  // The workbook's own tests, and each lab's verdict suite beside its check
  // (labs/<slug>/check/verdicts.test.js), so `npm test -- 03` runs lab 03's.
  testMatch: ['<rootDir>/test/**/*.test.js', '<rootDir>/labs/*/check/*.test.js'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/extended/', '<rootDir>/.workbook/'],
  testEnvironment: 'node',
  // The workbook is plain CommonJS: nothing to transform, and skipping Babel
  // saves seconds on a fresh clone, whose transform cache is empty.
  transform: {},
  testTimeout: 120_000,
  // Each test is reported live as it ends; the summary reporter then lists
  // failures in full at the end.
  reporters: ['<rootDir>/test/helpers/live-reporter.js', ['summary', { summaryThreshold: 0 }]],
};
