/**
 * The organization the global setup provisions for the end-to-end tests. Jest runs the global setup in the
 * parent process and hands the test files its environment, so the tenant travels in environment variables.
 */
export const TEST_TENANT_ENV = {
  organizationId: 'E2E_ORGANIZATION_ID',
  providerNpi: 'E2E_PROVIDER_NPI',
  sandboxApiKey: 'E2E_SANDBOX_API_KEY',
} as const;

export interface TestTenant {
  organizationId: string;
  providerNpi: string;
  sandboxApiKey: string;
}

export function testTenant(env: NodeJS.ProcessEnv = process.env): TestTenant {
  const read = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set: is the Jest global setup configured?`);
    return value;
  };
  return {
    organizationId: read(TEST_TENANT_ENV.organizationId),
    providerNpi: read(TEST_TENANT_ENV.providerNpi),
    sandboxApiKey: read(TEST_TENANT_ENV.sandboxApiKey),
  };
}
