// One database and one unpacked browser for the whole run (test/global-setup.ts); each file starts its own
// website and reuses one browser for its cases. otplib's base32 and hash dependencies ship only ES modules,
// which Jest's CommonJS runtime loads only once transformed.
module.exports = require('../../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(pg-boss|serialize-error|non-error|@scure|@noble)/)',
  ],
  testTimeout: 60_000,
});
