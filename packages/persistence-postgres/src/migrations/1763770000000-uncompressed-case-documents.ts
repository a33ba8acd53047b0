import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0051: the documents every command writes are stored without PostgreSQL's default compression (pglz),
 * which took a fifth of the database's CPU time on a create. An authorization row and a stored answer stay in
 * their page uncompressed up to the most a page holds (`toast_tuple_target`; larger ones are still compressed),
 * and an event's snapshot is kept out of line uncompressed (`STORAGE EXTERNAL`). Reads are unchanged.
 */
export class UncompressedCaseDocuments1763770000000 implements MigrationInterface {
  name = 'UncompressedCaseDocuments1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE authorizations SET (toast_tuple_target = 8160)');
    await q.query('ALTER TABLE idempotency_records SET (toast_tuple_target = 8160)');
    await q.query('ALTER TABLE events ALTER COLUMN snapshot SET STORAGE EXTERNAL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE events ALTER COLUMN snapshot SET STORAGE EXTENDED');
    await q.query('ALTER TABLE idempotency_records RESET (toast_tuple_target)');
    await q.query('ALTER TABLE authorizations RESET (toast_tuple_target)');
  }
}
