// End-to-end tests start real API and worker processes on one test database. Files run one at a time so one
// file's workers never run another file's jobs; inside a file the cases run concurrently, a few at a time: every
// portal run drives a real browser, and on two cores a whole file's cases at once took longer than a case may.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  maxWorkers: 1,
  maxConcurrency: 4,
  // Every portal run goes through a real browser (decision 0022); above two of the cases' four-minute waits
  // (test/e2e/support/case-helpers.ts), so a slow case fails on what it waited for, not on the runner's limit.
  testTimeout: 540_000,
});
