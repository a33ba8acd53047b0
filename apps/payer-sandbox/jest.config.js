// One database and one unpacked browser for the whole run (test/global-setup.ts); each file starts its own
// website and reuses one browser for its cases. Browser cases run several at once in one Chromium; on a
// saturated two-core machine a case has taken over a minute, so each may take two.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 120_000,
});
