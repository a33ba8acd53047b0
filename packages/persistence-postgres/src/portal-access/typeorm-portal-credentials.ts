import type { CredentialsCipher } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import { PortalCredentialEntity } from './portal-access.entity';
import {
  toPortalCredentialSummary,
  type PortalCredentialSummary,
  type PortalSignIn,
} from './portal-access.mapper';

/**
 * Organizations' credentials for payer portals (decision 0021). Secrets are sealed before they reach the
 * database and opened only for a sign-in; the context binds each sealed value to its organization, payer and
 * field, so a value copied into another row does not open.
 */
export class TypeOrmPortalCredentials {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: () => CredentialsCipher,
  ) {}

  private get rows() {
    return this.dataSource.getRepository(PortalCredentialEntity);
  }

  async set(input: {
    organizationId: string;
    payerId: string;
    username: string;
    password: string;
    totpSecret: string | null;
  }): Promise<PortalCredentialSummary> {
    const cipher = this.cipher();
    const context = (field: string) => sealingContext(input.organizationId, input.payerId, field);
    await this.rows
      .createQueryBuilder()
      .insert()
      .values({
        organization_id: input.organizationId,
        payer_id: input.payerId,
        username: input.username,
        password_sealed: cipher.seal(input.password, context('password')),
        totp_secret_sealed:
          input.totpSecret === null ? null : cipher.seal(input.totpSecret, context('totp_secret')),
        key_id: cipher.currentKeyId,
      })
      .orUpdate(
        ['username', 'password_sealed', 'totp_secret_sealed', 'key_id', 'updated_at'],
        ['organization_id', 'payer_id'],
      )
      .execute();
    const row = await this.rows.findOneByOrFail({
      organization_id: input.organizationId,
      payer_id: input.payerId,
    });
    return toPortalCredentialSummary(row);
  }

  async list(organizationId: string): Promise<PortalCredentialSummary[]> {
    const rows = await this.rows.find({
      where: { organization_id: organizationId },
      order: { payer_id: 'ASC' },
    });
    return rows.map(toPortalCredentialSummary);
  }

  async remove(organizationId: string, payerId: string): Promise<boolean> {
    const result = await this.rows.delete({ organization_id: organizationId, payer_id: payerId });
    return (result.affected ?? 0) > 0;
  }

  /** The opened sign-in, or null when none is stored. Throws SecretUnreadableError when it cannot open. */
  async signIn(organizationId: string, payerId: string): Promise<PortalSignIn | null> {
    const row = await this.rows.findOneBy({ organization_id: organizationId, payer_id: payerId });
    if (row === null) return null;
    const cipher = this.cipher();
    const context = (field: string) => sealingContext(organizationId, payerId, field);
    return {
      username: row.username,
      password: cipher.open(row.password_sealed, context('password')),
      totpSecret:
        row.totp_secret_sealed === null ? null : cipher.open(row.totp_secret_sealed, context('totp_secret')),
    };
  }
}

const sealingContext = (organizationId: string, payerId: string, field: string): string =>
  `portal_credentials:${organizationId}:${payerId}:${field}`;
