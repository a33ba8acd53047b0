module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Fails a test whose responses do not match the OpenAPI document (test/contract).
  setupFilesAfterEnv: ['<rootDir>/test/contract/jest-setup.ts'],
});
