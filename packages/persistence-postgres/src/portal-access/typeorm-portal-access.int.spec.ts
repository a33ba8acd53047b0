import { randomBytes } from 'node:crypto';
import { CredentialsCipher, parseCredentialsKeys, SecretUnreadableError } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant } from '../unit-of-work/testing/test-tenants';
import { TypeOrmPortalAccess } from './typeorm-portal-access';
import { TypeOrmPortalConnections } from './typeorm-portal-connections';
import { TypeOrmPortalCredentials } from './typeorm-portal-credentials';

const cipherOf = (value: string) => {
  const keys = parseCredentialsKeys(value);
  if (typeof keys === 'string') throw new Error(keys);
  return new CredentialsCipher(keys);
};
const KEY = randomBytes(32).toString('base64');

let dataSource: DataSource;
let connections: TypeOrmPortalConnections;
let credentials: TypeOrmPortalCredentials;
let access: TypeOrmPortalAccess;

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
  connections = new TypeOrmPortalConnections(dataSource);
  const cipher = cipherOf(KEY);
  credentials = new TypeOrmPortalCredentials(dataSource, () => cipher);
  access = new TypeOrmPortalAccess(dataSource);
});
afterAll(() => dataSource.destroy());

// Connections are per payer and shared by the whole database: this file is the only one touching this payer.
const PAYER = 'payer_humana';

describe('portal connections and credentials (decision 0021)', () => {
  it('sets, replaces, lists and removes a payer portal connection', async () => {
    const first = await connections.set({
      payerId: PAYER,
      baseUrl: 'https://portal.example/one',
      pageScript: 'sandbox-payer-site',
    });
    expect(first).toMatchObject({ payerId: PAYER, baseUrl: 'https://portal.example/one' });
    const second = await connections.set({
      payerId: PAYER,
      baseUrl: 'https://portal.example/two',
      pageScript: 'sandbox-payer-site',
    });
    expect(second.baseUrl).toBe('https://portal.example/two');
    expect(second.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
    expect((await connections.list()).filter((c) => c.payerId === PAYER)).toEqual([second]);
    expect(await connections.remove(PAYER)).toBe(true);
    expect(await connections.remove(PAYER)).toBe(false);
    expect(await connections.find(PAYER)).toBeNull();
  });

  it('stores secrets sealed, opens them for a sign-in and lists no secret', async () => {
    const scope = await createTestTenant(dataSource);
    const summary = await credentials.set({
      organizationId: scope.organizationId,
      payerId: PAYER,
      username: 'demo.provider',
      password: 'Sandbox-Portal-2026!',
      totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC',
    });
    expect(summary).toMatchObject({ username: 'demo.provider', totpConfigured: true, payerId: PAYER });

    const [row] = await dataSource.query('SELECT * FROM portal_credentials WHERE organization_id = $1', [
      scope.organizationId,
    ]);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain('Sandbox-Portal-2026!');
    expect(stored).not.toContain('KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC');
    expect(row.password_sealed).toMatch(/^v1\./);

    expect(await credentials.signIn(scope.organizationId, PAYER)).toEqual({
      username: 'demo.provider',
      password: 'Sandbox-Portal-2026!',
      totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC',
    });
    const listed = await credentials.list(scope.organizationId);
    expect(listed).toEqual([summary]);
    expect(JSON.stringify(listed)).not.toContain('Sandbox-Portal-2026!');

    // Replaced in place: a new password, no TOTP any more.
    await credentials.set({
      organizationId: scope.organizationId,
      payerId: PAYER,
      username: 'other.user',
      password: 'n3w',
      totpSecret: null,
    });
    expect(await credentials.signIn(scope.organizationId, PAYER)).toEqual({
      username: 'other.user',
      password: 'n3w',
      totpSecret: null,
    });
    expect((await credentials.list(scope.organizationId))[0]).toMatchObject({ totpConfigured: false });
  });

  it('a sealed value copied to another organization does not open; another key does not open', async () => {
    const a = await createTestTenant(dataSource);
    const b = await createTestTenant(dataSource);
    for (const scope of [a, b]) {
      await credentials.set({
        organizationId: scope.organizationId,
        payerId: PAYER,
        username: 'u',
        password: `pw-${scope.organizationId}`,
        totpSecret: null,
      });
    }
    await dataSource.query(
      `UPDATE portal_credentials SET password_sealed =
         (SELECT password_sealed FROM portal_credentials WHERE organization_id = $1 AND payer_id = $3)
       WHERE organization_id = $2 AND payer_id = $3`,
      [a.organizationId, b.organizationId, PAYER],
    );
    await expect(credentials.signIn(b.organizationId, PAYER)).rejects.toThrow(SecretUnreadableError);
    const otherKey = cipherOf(randomBytes(32).toString('base64'));
    const elsewhere = new TypeOrmPortalCredentials(dataSource, () => otherKey);
    await expect(elsewhere.signIn(a.organizationId, PAYER)).rejects.toThrow(/not configured/);
    // After a rotation (new key first, old kept) the old secrets still open.
    const rotated = cipherOf(`${randomBytes(32).toString('base64')},${KEY}`);
    const afterRotation = new TypeOrmPortalCredentials(dataSource, () => rotated);
    expect((await afterRotation.signIn(a.organizationId, PAYER))?.password).toBe(`pw-${a.organizationId}`);
  });

  it('describes what a production route needs, and removal takes it away', async () => {
    const scope = await createTestTenant(dataSource);
    const payer = 'payer_kaiser';
    expect(await access.describe(scope.organizationId, payer)).toEqual({
      connection: false,
      credentials: false,
    });
    await credentials.set({
      organizationId: scope.organizationId,
      payerId: payer,
      username: 'u',
      password: 'p',
      totpSecret: null,
    });
    expect(await access.describe(scope.organizationId, payer)).toEqual({
      connection: false,
      credentials: true,
    });
    expect(await credentials.remove(scope.organizationId, payer)).toBe(true);
    expect(await credentials.signIn(scope.organizationId, payer)).toBeNull();
    expect(await access.describe(scope.organizationId, payer)).toEqual({
      connection: false,
      credentials: false,
    });
  });
});
