// Shared Jest settings: SWC transpiles TypeScript (decorators included) and workspace imports resolve to
// sources, so tests never depend on stale build output.
const path = require('node:path');

module.exports = (packageDir, overrides = {}) => ({
  rootDir: packageDir,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
    // The ES-module-only packages transformIgnorePatterns lets through.
    '^.+\\.js$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'ecmascript', importAttributes: true }, target: 'es2022' },
        module: { type: 'commonjs' },
      },
    ],
  },
  // Transformed although installed: packages that ship only ES modules, which Jest's CommonJS runtime cannot
  // load: pg-boss and two of its dependencies, and otplib's base32 and hash dependencies (the payer portal's
  // page script imports otplib, so every suite that imports the payer-portal package loads them).
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(pg-boss|serialize-error|non-error|@scure|@noble)/)',
  ],
  moduleNameMapper: {
    '^@prior-auth/([a-z-]+)$': path.join(__dirname, 'packages/$1/src'),
    '^@prior-auth/domain/testing$': path.join(__dirname, 'packages/domain/src/testing'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  reporters: ['default', path.join(__dirname, '.ci/jest-summary-reporter.js')],
  ...overrides,
});
