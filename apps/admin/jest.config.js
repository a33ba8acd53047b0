module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
});
