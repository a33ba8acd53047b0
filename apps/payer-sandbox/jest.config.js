// One database and one unpacked browser for the whole run (test/global-setup.ts); each file starts its own
// website and reuses one browser for its cases.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 60_000,
});
