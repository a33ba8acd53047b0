import { randomBytes } from 'node:crypto';
import { resolveBrowserExecutable } from '@prior-auth/payer-portal';
import { startEmbeddedPostgres } from '@prior-auth/persistence-postgres';
import { Client } from 'pg';

interface State {
  stop: () => Promise<void>;
}

/**
 * A fresh database for the website (on DATABASE_URL's server, else a throwaway embedded one) and the browser
 * unpacked once, before the test files start their own browsers in parallel.
 */
export default async function globalSetup(): Promise<void> {
  const [url, stop] = await freshDatabase();
  (globalThis as Record<string, unknown>).__payerSandboxTest = { stop } satisfies State;
  process.env.PAYER_SANDBOX_TEST_DATABASE_URL = url;
  process.env.PAYER_SANDBOX_TEST_BROWSER = await resolveBrowserExecutable(
    process.env.BROWSER_EXECUTABLE_PATH || undefined,
  );
}

async function freshDatabase(): Promise<[string, () => Promise<void>]> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const embedded = await startEmbeddedPostgres({ persistent: false });
    return [embedded.url, () => embedded.stop()];
  }
  const name = `payer_sandbox_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return [url.toString(), () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)];
}
