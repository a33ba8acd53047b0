import { randomBytes } from 'node:crypto';
import type { Environment, TenantScope } from '@prior-auth/domain';
import { TokenSigner } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import { KeysetCursors } from '../../pagination/keyset-cursor';

/** A unique suffix: test files run in parallel on one database and never truncate. */
export const uniqueSuffix = (): string => randomBytes(6).toString('hex');

/** A fresh organization; its scope in `environment`. */
export async function createTestTenant(
  dataSource: DataSource,
  environment: Environment = 'sandbox',
): Promise<TenantScope> {
  const organizationId = `org_test_${uniqueSuffix()}`;
  await dataSource.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [
    organizationId,
    'Test organization',
  ]);
  return { organizationId, environment };
}

export const TEST_SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';

export const testCursors = (secret = TEST_SIGNING_SECRET): KeysetCursors =>
  new KeysetCursors(new TokenSigner(secret));
