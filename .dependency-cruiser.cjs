/**
 * Architecture boundaries of the hexagon, checked in CI:
 * - the domain imports nothing but itself (no framework, no Node I/O, no other package);
 * - an adapter never imports another adapter or an app;
 * - nothing imports an app;
 * - only tests import the domain's test doubles and fixtures (`@prior-auth/domain/testing`);
 * - only tests import packages/test-support.
 * `.ci/boundary-fixtures` holds deliberate violations that CI checks are caught.
 */
const ADAPTERS = '(persistence-postgres|blob-storage|payer-portal|grants)';
const DOMAIN = '^(packages/domain/src|\\.ci/boundary-fixtures/domain)/';
const TESTS = '(\\.spec\\.ts$|/testing/)';
/** Test files anywhere: specs, test helpers in `testing/` folders, and packages' and apps' `test/` folders. */
const ANY_TEST = '(\\.spec\\.ts$|/testing/|^(apps|packages)/[^/]+/test/)';

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-package',
      comment: 'The domain is framework-free: no npm package (frameworks, ORMs, validation libraries).',
      severity: 'error',
      from: { path: DOMAIN, pathNot: TESTS },
      to: { dependencyTypesNot: ['local'] },
    },
    {
      name: 'domain-imports-unresolvable',
      comment: 'The domain has no dependencies, so an import it cannot resolve is a package it must not use.',
      severity: 'error',
      from: { path: DOMAIN, pathNot: TESTS },
      to: { couldNotResolve: true },
    },
    {
      name: 'domain-imports-node',
      comment: 'No Node I/O in the domain: effects go through ports.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'domain-imports-other-workspace-code',
      comment: 'The domain is the centre of the hexagon: it imports no other package or app.',
      severity: 'error',
      from: { path: DOMAIN },
      to: { path: '^(packages/(?!domain/)|apps/)' },
    },
    {
      name: 'adapter-imports-adapter',
      comment: 'Adapters are independent; composition happens in the apps and packages/composition.',
      severity: 'error',
      from: { path: `^(packages|\\.ci/boundary-fixtures/adapters)/${ADAPTERS}/` },
      to: { path: `^packages/${ADAPTERS}/`, pathNot: `^packages/$2/` },
    },
    {
      name: 'import-of-app',
      comment: 'Apps are entry points; nothing imports them (apps may import their own files).',
      severity: 'error',
      from: { path: '^(packages|\\.ci/boundary-fixtures)/' },
      to: { path: '^apps/' },
    },
    {
      name: 'production-imports-domain-testing',
      comment: 'The domain exports its test doubles for tests only; production code never loads them.',
      severity: 'error',
      from: { pathNot: ANY_TEST },
      to: { path: '^packages/domain/src/(testing|[a-z-]+/testing)/' },
    },
    {
      name: 'production-imports-test-support',
      comment: "packages/test-support holds what the apps' tests share; production code never loads it.",
      severity: 'error',
      from: { pathNot: `${ANY_TEST}|^packages/test-support/` },
      to: { path: '^packages/test-support/' },
    },
    {
      name: 'app-imports-other-app',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|coverage)/' },
    tsConfig: { fileName: '.dependency-cruiser.tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};
