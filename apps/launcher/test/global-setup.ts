import {
  bootstrapDatabase,
  setupTestDatabase,
  TypeOrmOrganizationDirectory,
} from '@prior-auth/persistence-postgres';
import { resolveBrowserExecutable } from '@prior-auth/payer-portal';
import { bootstrapOrganization } from '@prior-auth/platform';
import { TEST_TENANT_ENV } from './e2e/support/test-tenant';

/**
 * A fresh test database (DATABASE_URL's server, else a throwaway embedded one), brought up by the bootstrap the
 * apps run at start-up (migrations, catalog seed), and one clinic with a sandbox API key, provisioned the way
 * the launcher provisions its demo organization; and the browser, ready to start.
 */
export default async function globalSetup(): Promise<void> {
  await setupTestDatabase();
  // The browser the workers (and the test's operator) drive the payer website with, unpacked once before any
  // process starts one (two unpacking the packaged Chromium at the same moment can break a launch, decision 0017).
  process.env.E2E_TEST_BROWSER = await resolveBrowserExecutable(
    process.env.BROWSER_EXECUTABLE_PATH || undefined,
  );
  const database = await bootstrapDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 2 });
  try {
    const clinic = await bootstrapOrganization(new TypeOrmOrganizationDirectory(database.dataSource), {
      name: 'End-to-end test clinic',
      npi: '1234567893',
    });
    process.env[TEST_TENANT_ENV.organizationId] = clinic.organizationId;
    process.env[TEST_TENANT_ENV.providerNpi] = clinic.providerNpi;
    process.env[TEST_TENANT_ENV.sandboxApiKey] = clinic.apiKeys.sandbox;
  } finally {
    await database.close();
  }
}
