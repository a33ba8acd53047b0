import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision 0055: a command whose writes commit as one statement of their own checks, in that statement, what
 * it would otherwise check before `COMMIT` (its key's lock, a version, a stored answer), and fails the
 * statement with this function when a check does not hold, so nothing of it commits. SQL has no way to raise
 * an error by itself; the SQLSTATE is the service's own, so the caller can tell this refusal from any other
 * failure.
 */
export class RefuseCommitFunction1763772000000 implements MigrationInterface {
  name = 'RefuseCommitFunction1763772000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE FUNCTION refuse_commit(reason text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
       BEGIN
         RAISE EXCEPTION USING ERRCODE = 'PA409', MESSAGE = 'commit refused: ' || reason;
       END
       $$`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION refuse_commit(text)');
  }
}
