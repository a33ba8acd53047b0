import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The API version pinned on a key (decision 0029): what its requests use when they send no
 * `Prior-Auth-Version` header. Null means the current version, so existing keys keep today's shapes. The
 * values are checked by the API and the admin CLI (one list of versions), not by a constraint here, so adding
 * a version needs no migration.
 */
export class ApiKeyVersion1763748000000 implements MigrationInterface {
  name = 'ApiKeyVersion1763748000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys ADD COLUMN api_version text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys DROP COLUMN api_version');
  }
}
