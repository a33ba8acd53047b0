import { randomBytes } from 'node:crypto';
import { TypeOrmPortalConnections, TypeOrmPortalCredentials } from '@prior-auth/persistence-postgres';
import { credentialsCipher, loadConfig } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';

const cipher = credentialsCipher(loadConfig({ CREDENTIALS_KEY: randomBytes(32).toString('base64') }));

/**
 * What production needs before it serves a payer's routes (decision 0021): the payer's portal connection and,
 * for `automated`, the organization's credentials. Connections are per payer and shared by every test file of
 * the run, so a file that checks a missing connection uses a payer no other file connects.
 */
export async function connectPayerPortal(dataSource: DataSource, payerId: string): Promise<void> {
  await new TypeOrmPortalConnections(dataSource).set({
    payerId,
    baseUrl: 'https://portal.payer.example',
    pageScript: 'sandbox-payer-site',
  });
}

export async function storePortalCredentials(
  dataSource: DataSource,
  organizationId: string,
  payerId: string,
): Promise<void> {
  await new TypeOrmPortalCredentials(dataSource, () => cipher).set({
    organizationId,
    payerId,
    username: 'clinic.user',
    password: 'not-a-real-password',
    totpSecret: null,
  });
}
