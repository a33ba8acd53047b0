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
  },
  moduleNameMapper: {
    '^@prior-auth/([a-z-]+)$': path.join(__dirname, 'packages/$1/src'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  reporters: ['default', path.join(__dirname, '.ci/jest-summary-reporter.js')],
  ...overrides,
});
