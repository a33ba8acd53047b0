module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Fails a test whose responses do not match the OpenAPI document (test/contract).
  setupFilesAfterEnv: ['<rootDir>/test/contract/jest-setup.ts'],
  // Starting an app (its pool, pg-boss, migrations checked) takes seconds on a loaded 2-core machine; the
  // default 5 s failed hooks there. Tests that run cases through the browser set longer limits.
  testTimeout: 30_000,
  // The benchmark's load generator has unit tests beside it.
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
});
