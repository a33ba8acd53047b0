module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Migrating a fresh database takes seconds on a loaded 2-core machine; the default 5 s failed there.
  testTimeout: 30_000,
});
