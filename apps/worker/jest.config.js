// Worker tests share one job queue: test files run one at a time so a worker started by one file never runs
// another file's jobs.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  maxWorkers: 1,
  // Recovering a killed worker's job waits for its heartbeat to lapse (decision 0016); every portal run goes
  // through a real browser (decision 0022).
  testTimeout: 120_000,
});
