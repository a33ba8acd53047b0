import { resolveBrowserExecutable } from '@prior-auth/payer-portal';
import { setupTestDatabase } from '@prior-auth/persistence-postgres';

/**
 * A fresh test database, and the browser of the pipeline steps (test/pipeline-helpers.ts) unpacked once before
 * any test file starts one (two processes unpacking the packaged Chromium at the same moment can break a launch,
 * decision 0017).
 */
export default async function globalSetup(): Promise<void> {
  await setupTestDatabase();
  process.env.API_TEST_BROWSER = await resolveBrowserExecutable(
    process.env.BROWSER_EXECUTABLE_PATH || undefined,
  );
}
