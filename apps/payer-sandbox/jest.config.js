// One database and one unpacked browser for the whole run (test/global-setup.ts); each file starts its own
// website and reuses one browser for its cases. Browser cases run a few at once in one Chromium: on a
// saturated two-core machine more at once only made each slower, until runs passed the harness's time limits
// (test/support/portal-harness.ts). A case of two runs may take up to two of those limits.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  maxConcurrency: 3,
  testTimeout: 240_000,
});
