import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The authorization row's documents: read and written whole, never queried inside by the service. */
const AUTHORIZATION_DOCUMENTS = [
  'policy',
  'payer',
  'template_selection',
  'questionnaire',
  'document_requirements',
  'portal_issues',
  'questionnaire_response',
  'requirements',
  'next_action',
  'submission',
  'failure',
];

const alterTypes = (columns: readonly string[], type: 'json' | 'jsonb'): string =>
  columns.map((column) => `ALTER COLUMN ${column} TYPE ${type} USING ${column}::${type}`).join(', ');

/**
 * Decision 0054: the documents every command writes (an authorization row's, an event's snapshot) are `json`,
 * kept as the text sent, instead of `jsonb`, which PostgreSQL parses into its binary form on every write.
 * Changing a column's type resets its storage, so the snapshot is kept out of line uncompressed again
 * (decision 0051). Both directions rewrite the two tables.
 */
export class CaseDocumentsAsJson1763771000000 implements MigrationInterface {
  name = 'CaseDocumentsAsJson1763771000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE authorizations ${alterTypes(AUTHORIZATION_DOCUMENTS, 'json')}`);
    await q.query(
      'ALTER TABLE events ALTER COLUMN snapshot TYPE json USING snapshot::json, ALTER COLUMN snapshot SET STORAGE EXTERNAL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE events ALTER COLUMN snapshot TYPE jsonb USING snapshot::jsonb, ALTER COLUMN snapshot SET STORAGE EXTERNAL',
    );
    await q.query(`ALTER TABLE authorizations ${alterTypes(AUTHORIZATION_DOCUMENTS, 'jsonb')}`);
  }
}
