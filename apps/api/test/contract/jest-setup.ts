import { takeContractViolations } from './openapi-contract';

/*
 * Registered in jest.config.js (setupFilesAfterEnv): every API test fails when a request the API accepted or a
 * response it received does not match the OpenAPI document (see `withContractCheck` in test-app.ts).
 */
afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(
      `${violations.length} request(s) or response(s) do not match the OpenAPI document (src/openapi/openapi.document.ts):\n\n` +
        violations.join('\n\n'),
    );
  }
});
