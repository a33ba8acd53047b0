import type { CustomerPortalSessionKey, CustomerPortalSessions } from '@prior-auth/domain';
import { SecretUnreadableError, type CredentialsCipher } from '@prior-auth/platform';
import type { DataSource } from 'typeorm';
import { runSql } from '../unit-of-work/sql';

/**
 * Customers' payer portal sessions in PostgreSQL (decision 0044), sealed like the stored portal credentials
 * (decision 0021: AES-256-GCM under `CREDENTIALS_KEY`, the key's id kept with the row). The sealing context
 * names the case, so a sealed session copied to another case's row does not open. A session that cannot be
 * opened (the key that sealed it is no longer configured) is worth nothing and is dropped.
 */
export class PostgresCustomerPortalSessions implements CustomerPortalSessions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: CredentialsCipher,
  ) {}

  async keep(key: CustomerPortalSessionKey, state: string, expiresAt: Date): Promise<void> {
    // The case may have been deleted meanwhile: then there is nothing to keep the session for.
    await runSql(
      this.dataSource.manager,
      `INSERT INTO customer_portal_sessions
         (organization_id, environment, authorization_id, state_sealed, key_id, expires_at)
       SELECT a.organization_id, a.environment, a.id, $4, $5, $6 FROM authorizations a
        WHERE a.organization_id = $1 AND a.environment = $2 AND a.id = $3
       ON CONFLICT (organization_id, environment, authorization_id) DO UPDATE
         SET state_sealed = EXCLUDED.state_sealed, key_id = EXCLUDED.key_id,
             expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [
        key.organizationId,
        key.environment,
        key.authorizationId,
        this.cipher.seal(state, sealingContext(key)),
        this.cipher.currentKeyId,
        expiresAt,
      ],
    );
  }

  async find(key: CustomerPortalSessionKey, now: Date): Promise<string | null> {
    const { rows } = await runSql<{ state_sealed: string }>(
      this.dataSource.manager,
      `SELECT state_sealed FROM customer_portal_sessions
        WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3 AND expires_at > $4`,
      [key.organizationId, key.environment, key.authorizationId, now],
    );
    const row = rows[0];
    if (row === undefined) return null;
    try {
      return this.cipher.open(row.state_sealed, sealingContext(key));
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      await this.forget(key);
      return null;
    }
  }

  async forget(key: CustomerPortalSessionKey): Promise<void> {
    await runSql(
      this.dataSource.manager,
      `DELETE FROM customer_portal_sessions
        WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3`,
      [key.organizationId, key.environment, key.authorizationId],
    );
  }

  /** Expired sessions, and those of cases done with the payer (completed or canceled): nothing will use them. */
  async purgeExpired(now: Date): Promise<number> {
    const { rowCount } = await runSql(
      this.dataSource.manager,
      `DELETE FROM customer_portal_sessions s
        WHERE s.expires_at <= $1
           OR EXISTS (SELECT 1 FROM authorizations a
                       WHERE a.organization_id = s.organization_id AND a.environment = s.environment
                         AND a.id = s.authorization_id AND a.status IN ('completed', 'canceled'))`,
      [now],
    );
    return rowCount;
  }
}

const sealingContext = (key: CustomerPortalSessionKey): string =>
  `customer_portal_sessions:${key.organizationId}:${key.environment}:${key.authorizationId}`;
